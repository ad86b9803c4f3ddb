//! The mail a person gets when an administrator adds them to a team or removes them from it,
//! queued in the transaction of the change, so that it goes exactly when the change holds.
//! Leaving a team, or joining it through an invitation, sends nothing: the person did it.

use crate::core::db::Conn;
use crate::core::error::AppError;
use crate::outbox::mail::compose_team::{TeamAdded, TeamRemoved};
use crate::outbox::mail::{Kind, NewMail, store as outbox};

use super::{Member, Team, TeamRole};

/// Who a notice says acted, when no admin's name is known (the admin CLI).
pub const AN_ADMINISTRATOR: &str = "An administrator";

/// `role` as words in a sentence: "a member", "a manager", "an admin".
pub fn role_words(role: TeamRole) -> &'static str {
    match role {
        TeamRole::Admin => "an admin",
        TeamRole::Manager => "a manager",
        TeamRole::Member => "a member",
    }
}

/// Tells `member` that `by` added them to `team`; `base` is where the application's pages
/// are (no trailing slash).
pub fn added(
    tx: &Conn,
    team: &Team,
    member: &Member,
    by: &str,
    base: &str,
    now: i64,
) -> Result<(), AppError> {
    let link = format!("{base}/t/{}", team.slug);
    let content = TeamAdded {
        name: &member.name,
        team: &team.name,
        role: role_words(member.role),
        by,
        link: &link,
    }
    .compose();
    outbox::enqueue(
        tx,
        &NewMail::new(Kind::TeamAdded, &member.email, content),
        now,
    )
    .map(drop)
}

/// Tells `member` that `by` removed them from `team`.
pub fn removed(
    tx: &Conn,
    team: &Team,
    member: &Member,
    by: &str,
    now: i64,
) -> Result<(), AppError> {
    let content = TeamRemoved {
        name: &member.name,
        team: &team.name,
        by,
    }
    .compose();
    let mail = NewMail::new(Kind::TeamRemoved, &member.email, content);
    outbox::enqueue(tx, &mail, now).map(drop)
}
