//! Moving a document or a template into a team (`POST /api/v1/documents/{id}/move`,
//! `/api/v1/templates/{id}/move`, and the "Move to a team" forms of their pages).
//!
//! - A personal document or template moves into any team its creator belongs to, with the
//!   visibility given (one the caller's role in that team sees) or EVERYONE.
//! - A team's template moves into another team when the caller is an admin of both: it is
//!   the team's, so only who runs it gives it away, and only to a team they run too.
//! - A team's document stays in its team: its recipients were told the team's name, and its
//!   history is the team's.
//!
//! The document's audit log records the move (`MOVED`); what was made from a template stays
//! where it is.

use crate::core::context::Context;
use crate::core::db::now;
use crate::core::error::AppError;
use crate::core::ids::{DocumentId, TemplateId};
use crate::core::owner::Visibility;
use crate::identity::principal::Principal;
use crate::signing::documents::audit::{self, Happened, Moved, Origin};
use crate::signing::documents::{DocumentView, SigningLinks, store as documents};
use crate::signing::templates::{TemplateView, store as templates};
use crate::teams::access::{self, Access};
use crate::teams::{Membership, Team};

use super::{TeamRef, membership};

/// Where to, as asked: the team, and the visibility there (`None`: EVERYONE).
#[derive(Debug, Clone)]
pub struct Move {
    pub to: TeamRef,
    pub visibility: Option<Visibility>,
}

/// The visibility `m` gives the row it receives: the one asked, if the caller's role there
/// sees it (403 otherwise), else EVERYONE.
fn visibility_in(
    m: &Membership,
    user: crate::core::ids::UserId,
    asked: Option<Visibility>,
    what: &str,
) -> Result<Visibility, AppError> {
    let Some(v) = asked else {
        return Ok(Visibility::Everyone);
    };
    let there = Access::Team {
        user,
        team: m.team.clone(),
        role: m.role,
    };
    there.may_give(v, what)?;
    Ok(v)
}

fn moved_meanwhile(what: &str) -> AppError {
    AppError::Conflict(format!(
        "the {what} moved meanwhile; reload it and try again"
    ))
}

/// Moves `who`'s personal document `id` into a team they belong to; the document as it is
/// now, in the team.
pub async fn document(
    ctx: &Context,
    who: &Principal,
    id: DocumentId,
    asked: Move,
    origin: Origin,
) -> Result<(DocumentView, Team), AppError> {
    let (caller, app) = (who.clone(), ctx.app.clone());
    let (view, team) = ctx
        .db
        .write(move |tx| {
            let access = access::resolve(tx, &caller)?;
            documents::owned(tx, &access.owner(), id)?;
            if access.team().is_some() {
                return Err(AppError::Conflict(
                    "a team's document stays in its team; only personal documents move into a team"
                        .into(),
                ));
            }
            let user = access.user();
            let target = membership(tx, user, &asked.to)?;
            let visibility = visibility_in(&target, user, asked.visibility, "documents")?;
            let t = now();
            if !documents::workspace::into_team(tx, id, target.team.id, visibility, t)? {
                return Err(moved_meanwhile("document"));
            }
            let actor = origin.actor(&audit::owner_email(tx, user)?, None);
            let moved = Happened::Moved(Moved {
                team_id: Some(target.team.id),
                team: Some(target.team.name.clone()),
                user: None,
            });
            audit::record(tx, id, &actor, &moved, t)?;
            Ok((
                DocumentView::of(&documents::load(tx, id)?, &app),
                target.team,
            ))
        })
        .await?;
    Ok((view.links_shown_if(who.sees_signing_links()), team))
}

/// Moves template `id` into a team: a personal one into any team of its creator's, a team's
/// into another team when the caller is an admin of both. The template as it is now.
pub async fn template(
    ctx: &Context,
    who: &Principal,
    id: TemplateId,
    asked: Move,
) -> Result<(TemplateView, Team), AppError> {
    let caller = who.clone();
    ctx.db
        .write(move |tx| {
            let access = access::resolve(tx, &caller)?;
            templates::owned(tx, &access.owner(), id)?;
            let user = access.user();
            let from = access.team().map(|t| t.id);
            if from.is_some() {
                access.require_manage("templates")?;
            }
            let target = membership(tx, user, &asked.to)?;
            if from == Some(target.team.id) {
                return Err(AppError::Conflict(format!(
                    "the template is already the team {}'s",
                    target.team.name
                )));
            }
            if from.is_some() && !target.role.may_manage() {
                return Err(AppError::Forbidden(
                    "a team's template moves only into another team whose admin you are too".into(),
                ));
            }
            let visibility = visibility_in(&target, user, asked.visibility, "templates")?;
            if !templates::into_team(tx, id, from, target.team.id, visibility, now())? {
                return Err(moved_meanwhile("template"));
            }
            let owner = crate::core::owner::Owner::of_row(user, Some(target.team.id));
            Ok((
                TemplateView::of(&templates::owned(tx, &owner, id)?),
                target.team,
            ))
        })
        .await
}
