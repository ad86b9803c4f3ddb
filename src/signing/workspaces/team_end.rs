//! The end of a team (its General settings' "Delete this team"). Only its admins end it, and
//! only once no document of it waits for signatures: those are cancelled or finished first,
//! since their recipients were told the team's name. The admin says what becomes of the rest:
//!
//! - `Fate::Mine`: every document and template becomes the admin's own personal one;
//! - `Fate::Team`: they go to another team the admin also runs, with their visibility;
//! - `Fate::Delete`: they are deleted, finished documents and their files included.
//!
//! Documents handed on record the move in their audit logs. The team's API tokens and
//! webhooks go with it (a token of a team that is gone no longer acts: `teams::access`), and
//! its members, invitations and settings. One transaction: it ends whole or not at all.

use crate::core::blob::BlobId;
use crate::core::context::Context;
use crate::core::db::{Conn, now};
use crate::core::error::AppError;
use crate::identity::principal::Principal;
use crate::signing::documents::audit::{self, Happened, Moved, Origin};
use crate::signing::documents::store::workspace::{self as documents, Heir};
use crate::signing::templates::store as templates;
use crate::teams::{Team, manage};

use super::{TeamRef, membership};

/// What becomes of an ending team's documents and templates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fate {
    /// The admin's own personal documents and templates.
    Mine,
    /// Another team's, whose admin the caller is too.
    Team(TeamRef),
    /// Deleted.
    Delete,
}

/// What a team holds, as its admin weighs ending it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Holdings {
    pub documents: i64,
    /// Of `documents`, those waiting for signatures: while any is, the team cannot end.
    pub pending: i64,
    pub templates: i64,
}

/// What ending a team did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ended {
    pub team: Team,
    pub documents: usize,
    pub templates: usize,
    /// The team they went to, if they did.
    pub heir: Option<Team>,
}

/// The team at `slug` and what it holds, for one of its admins (a 404 outside it, a 403 for
/// its other members).
pub async fn holdings(
    ctx: &Context,
    who: &Principal,
    slug: &str,
) -> Result<(Team, Holdings), AppError> {
    let (user, slug) = (who.user_id, slug.to_string());
    ctx.db
        .read(move |c| {
            c.consistent_read(|c| {
                let team = manage::admin_of(c, user, &slug, "delete it")?;
                let held = held(c, &team)?;
                Ok((team, held))
            })
        })
        .await
}

fn held(c: &Conn, team: &Team) -> Result<Holdings, AppError> {
    let (documents, pending) = documents::count_of_team(c, team.id)?;
    Ok(Holdings {
        documents,
        pending,
        templates: templates::count_of_team(c, team.id)?,
    })
}

/// What a team with documents waiting for signatures is told.
pub fn still_pending(n: i64) -> AppError {
    let what = if n == 1 {
        "1 document of the team is".to_string()
    } else {
        format!("{n} documents of the team are")
    };
    AppError::Conflict(format!(
        "{what} waiting for signatures: cancel them or let them finish before deleting the team"
    ))
}

/// Ends the team at `slug` for one of its admins, its documents and templates going as `fate`
/// says.
pub async fn end(
    ctx: &Context,
    who: &Principal,
    slug: &str,
    fate: Fate,
    origin: Origin,
) -> Result<Ended, AppError> {
    let (user, slug) = (who.user_id, slug.to_string());
    let (ended, files) = ctx
        .db
        .write(move |tx| {
            let team = manage::admin_of(tx, user, &slug, "delete it")?;
            let before = held(tx, &team)?;
            if before.pending > 0 {
                return Err(still_pending(before.pending));
            }
            let t = now();
            let actor = origin.actor(&audit::owner_email(tx, user)?, None);
            let (heir, files, (documents, templates)) = match &fate {
                Fate::Delete => {
                    let held = documents::files_of_team(tx, team.id)?;
                    let n = documents::delete_of_team(tx, team.id)?;
                    // Released once both are gone: a document made from a template shares its
                    // file.
                    let mut files = templates::delete_of_team(tx, team.id)?;
                    for f in held {
                        if crate::core::blob::rows::release(tx, &f)? {
                            files.push(f);
                        }
                    }
                    (None, files, (n, before.templates as usize))
                }
                Fate::Mine => {
                    let email = audit::owner_email(tx, user)?;
                    let moved = Happened::Moved(Moved {
                        team_id: None,
                        team: None,
                        user: Some(email),
                    });
                    audit::record_each_of_team(tx, team.id, &actor, &moved, t)?;
                    let heir = Heir::Personal(user);
                    let n = (
                        documents::hand_over(tx, team.id, heir, t)?,
                        templates::hand_over(tx, team.id, heir, t)?,
                    );
                    (None, Vec::new(), n)
                }
                Fate::Team(to) => {
                    let target = membership(tx, user, to)?;
                    if target.team.id == team.id {
                        return Err(AppError::Conflict(
                            "choose another team than the one being deleted".into(),
                        ));
                    }
                    if !target.role.may_manage() {
                        return Err(AppError::Forbidden(
                            "a team's documents go only to another team whose admin you are too"
                                .into(),
                        ));
                    }
                    let moved = Happened::Moved(Moved {
                        team_id: Some(target.team.id),
                        team: Some(target.team.name.clone()),
                        user: None,
                    });
                    audit::record_each_of_team(tx, team.id, &actor, &moved, t)?;
                    let heir = Heir::Team(target.team.id);
                    let n = (
                        documents::hand_over(tx, team.id, heir, t)?,
                        templates::hand_over(tx, team.id, heir, t)?,
                    );
                    (Some(target.team), Vec::new(), n)
                }
            };
            // A document sent meanwhile (PostgreSQL runs writes side by side) stayed behind.
            let after = held(tx, &team)?;
            if after.documents > 0 || after.templates > 0 {
                return Err(still_pending(after.pending.max(1)));
            }
            crate::identity::apikeys::store::delete_of_team(tx, team.id)?;
            crate::outbox::webhooks::store::delete_of_team(tx, team.id)?;
            crate::teams::store::delete(tx, team.id)?;
            Ok((
                Ended {
                    team,
                    documents,
                    templates,
                    heir,
                },
                files,
            ))
        })
        .await?;
    for f in files.iter().filter_map(|f| BlobId::parse(f)) {
        ctx.discard_blob(f).await;
    }
    Ok(ended)
}
