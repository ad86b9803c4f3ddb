//! The administrator's use cases on teams (`docket team ...`): list teams and members, create
//! a team with its first admin, add and remove a member (who is told by mail), change a role,
//! invite an address and list or revoke the pending invitations. Each is one transaction on
//! the calling thread, since the admin commands run without an async runtime. They keep the
//! same rules as the members' use cases: a team never loses its last admin, and the
//! invitations have the same bound.

use crate::core::db::{Conn, Db, now};
use crate::core::error::AppError;
use crate::identity::users::{User, store as users};

use super::invitations::{self, Invitation, Sent};
use super::{Member, Team, TeamRole, model, notices, slug, store};

/// Where the application's pages are, for the links in the mail: `given` (`--public-url`),
/// else the URL the server last ran with, else the default the OAuth clients' commands use.
fn links_base(c: &Conn, given: Option<&str>) -> Result<String, AppError> {
    Ok(match given {
        Some(b) => b.trim_end_matches('/').to_string(),
        None => crate::core::settings::get(c, crate::core::settings::PUBLIC_URL)?
            .unwrap_or_else(|| crate::oauth::clients::manage::DEFAULT_BASE_URL.to_string()),
    })
}

/// Every team with its number of members, oldest first.
pub fn list(db: &Db) -> Result<Vec<(Team, i64)>, AppError> {
    db.read_blocking(store::list)
}

/// The team at `slug` and its members.
pub fn members(db: &Db, slug: &str) -> Result<(Team, Vec<Member>), AppError> {
    let slug = slug.to_string();
    db.read_blocking(move |c| {
        c.consistent_read(|c| {
            let team = store::require_by_slug(c, &slug)?;
            let members = store::members(c, team.id)?;
            Ok((team, members))
        })
    })
}

/// Creates the team `name` at `slug` with the account `admin` (an e-mail) as its admin.
pub fn create(db: &Db, name: &str, slug: &str, admin: &str) -> Result<(Team, Member), AppError> {
    let (name, slug) = (model::parse_name(name)?, slug::parse(slug)?);
    let admin = admin.to_string();
    db.write_blocking(move |tx| {
        let user = users::require_by_email(tx, &admin)?;
        let t = now();
        let team = store::insert(tx, &name, &slug, t)?;
        let member = store::add_member(tx, team.id, user.id, TeamRole::Admin, t)?;
        Ok((team, member))
    })
}

/// Adds the account `email` to the team at `slug` with `role` and tells them by mail (its
/// link under `base`, as for `links_base`); 409 when already a member.
pub fn add(
    db: &Db,
    slug: &str,
    email: &str,
    role: TeamRole,
    base: Option<&str>,
) -> Result<(Team, Member), AppError> {
    let (slug, email) = (slug.to_string(), email.to_string());
    let base = base.map(str::to_string);
    db.write_blocking(move |tx| {
        let team = store::require_by_slug(tx, &slug)?;
        let user = users::require_by_email(tx, &email)?;
        let member = store::add_member(tx, team.id, user.id, role, now()).map_err(|e| match e {
            AppError::Conflict(_) => AppError::Conflict(format!(
                "{} is already a member of {}",
                user.email, team.slug
            )),
            other => other,
        })?;
        let base = links_base(tx, base.as_deref())?;
        notices::added(tx, &team, &member, notices::AN_ADMINISTRATOR, &base, now())?;
        Ok((team, member))
    })
}

/// The team at `slug` and the account `email`, which must be one of its members.
fn team_and_member(tx: &Conn, slug: &str, email: &str) -> Result<(Team, User), AppError> {
    let team = store::require_by_slug(tx, slug)?;
    let user = users::require_by_email(tx, email)?;
    if store::role_of(tx, team.id, user.id)?.is_none() {
        return Err(AppError::NotFound(format!(
            "{} is not a member of {}",
            user.email, team.slug
        )));
    }
    Ok((team, user))
}

/// Takes the account `email` out of the team at `slug` and tells them by mail; 409 for its
/// last admin. Returns the member as they were.
pub fn remove(db: &Db, slug: &str, email: &str) -> Result<(Team, Member), AppError> {
    let (slug, email) = (slug.to_string(), email.to_string());
    db.write_blocking(move |tx| {
        let (team, user) = team_and_member(tx, &slug, &email)?;
        let was = store::member_of(tx, team.id, user.id)?
            .ok_or_else(|| AppError::internal("member vanished"))?;
        store::remove_member(tx, team.id, user.id)?;
        notices::removed(tx, &team, &was, notices::AN_ADMINISTRATOR, now())?;
        Ok((team, was))
    })
}

/// Gives the account `email` the role `role` in the team at `slug`; 409 when that would leave
/// the team without an admin.
pub fn set_role(
    db: &Db,
    slug: &str,
    email: &str,
    role: TeamRole,
) -> Result<(Team, Member), AppError> {
    let (slug, email) = (slug.to_string(), email.to_string());
    db.write_blocking(move |tx| {
        let (team, user) = team_and_member(tx, &slug, &email)?;
        let member = store::set_role(tx, team.id, user.id, role)?;
        Ok((team, member))
    })
}

/// Invites `email` to the team at `slug` as `role`, from an administrator: the mail is queued
/// with the link (under `base`, as for `links_base`), which is returned too. 409 for a
/// member's address or a team at `invitations::MAX_PENDING`.
pub fn invite(
    db: &Db,
    slug: &str,
    email: &str,
    role: TeamRole,
    base: Option<&str>,
) -> Result<Sent, AppError> {
    let email = crate::identity::users::Email::parse(email)?;
    let (slug, base) = (slug.to_string(), base.map(str::to_string));
    db.write_blocking(move |tx| {
        let team = store::require_by_slug(tx, &slug)?;
        let base = links_base(tx, base.as_deref())?;
        invitations::create(tx, &team, None, &email, role, &base, now())
    })
}

/// The team at `slug` and its pending invitations, newest first.
pub fn invitations(db: &Db, slug: &str) -> Result<(Team, Vec<Invitation>), AppError> {
    let slug = slug.to_string();
    db.read_blocking(move |c| {
        c.consistent_read(|c| {
            let team = store::require_by_slug(c, &slug)?;
            let list = invitations::store::pending(c, team.id, now())?;
            Ok((team, list))
        })
    })
}

/// Revokes the pending invitation of `email` to the team at `slug`; 404 when there is none.
pub fn revoke_invitation(db: &Db, slug: &str, email: &str) -> Result<Team, AppError> {
    let (slug, email) = (slug.to_string(), email.to_string());
    db.write_blocking(move |tx| {
        let team = store::require_by_slug(tx, &slug)?;
        invitations::withdraw(tx, &team, &email)?;
        Ok(team)
    })
}
