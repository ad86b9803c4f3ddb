//! A team's API tokens: made by a member for the team, they act on the team's documents,
//! templates and webhooks with their maker's role, read at each request (`access::resolve`).
//! A token outlives nothing of its maker's place in the team: removing the member revokes the
//! tokens they made for it (`store::remove_member`).

use std::sync::Arc;

use crate::core::context::Context;
use crate::core::db::{Conn, Db};
use crate::core::error::AppError;
use crate::core::owner::Owner;
use crate::identity::accounts::access::Source;
use crate::identity::apikeys::ApiKey;
use crate::identity::apikeys::manage::{self as keys, Created, NewKey, Workspace};
use crate::identity::principal::Principal;

use super::{access, store};

/// The API tokens of the workspace `who` acts in, as the settings page manages them: the
/// user's own, or a team's for its admins (403 for its other members, 404 outside it).
fn workspace(who: &Principal) -> Arc<Workspace> {
    let who = who.clone();
    Arc::new(move |c: &Conn| {
        let access = access::resolve(c, &who)?;
        access.require_manage("API tokens")?;
        let (power, page) = match access.team() {
            None => (
                "with every permission of the account".to_string(),
                "/settings/tokens".to_string(),
            ),
            Some(t) => (
                format!("acting for the team {} with your role in it", t.name),
                format!("/t/{}/settings/tokens", t.slug),
            ),
        };
        Ok((access.owner(), power, page))
    })
}

/// The settings page's new token in `who`'s workspace (`keys::create_in`: a recently
/// confirmed session `session`, a notice mailed to the maker).
pub async fn create(
    ctx: &Context,
    session: String,
    who: &Principal,
    new: NewKey,
    from: Source,
    now: i64,
) -> Result<Created, AppError> {
    keys::create_in(ctx, session, workspace(who), new, from, now).await
}

/// The live tokens of `who`'s workspace, oldest first.
pub async fn list(ctx: &Context, who: &Principal) -> Result<Vec<ApiKey>, AppError> {
    keys::list_in(&ctx.db, workspace(who)).await
}

/// Revokes token `id` of `who`'s workspace at `now` (another workspace's is a 404).
pub async fn revoke(ctx: &Context, who: &Principal, id: i64, now: i64) -> Result<ApiKey, AppError> {
    keys::revoke_in(&ctx.db, workspace(who), id, now).await
}

/// `docket apikey create --team SLUG --user EMAIL`: a token of the team at `slug` made by its
/// member with e-mail `email` (404 when there is no such team, user or membership).
pub fn create_for(
    db: &Db,
    slug: &str,
    email: &str,
    new: NewKey,
    now: i64,
) -> Result<Created, AppError> {
    let (slug, email) = (slug.to_string(), email.to_string());
    db.write_blocking(move |tx| {
        let owner = member(tx, &slug, &email)?;
        keys::insert_key(tx, &owner, &new, now)
    })
}

/// The team at `slug` as its member with e-mail `email` reaches it.
fn member(tx: &Conn, slug: &str, email: &str) -> Result<Owner, AppError> {
    let user = crate::identity::users::store::require_by_email(tx, email)?.id;
    let team = store::require_by_slug(tx, slug)?;
    store::role_of(tx, team.id, user)?
        .map(|role| Owner::Team {
            team: team.id,
            user,
            seen: role.seen(),
        })
        .ok_or_else(|| {
            AppError::NotFound(format!("{email} is not a member of the team {}", team.slug))
        })
}
