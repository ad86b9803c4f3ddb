//! A team's API tokens: made by a member for the team, they act on the team's documents,
//! templates and webhooks with their maker's role, read at each request (`access::resolve`).
//! A token outlives nothing of its maker's place in the team: removing the member revokes the
//! tokens they made for it (`store::remove_member`).

use crate::core::db::{Conn, Db};
use crate::core::error::AppError;
use crate::core::owner::Owner;
use crate::identity::apikeys::manage::{self as keys, Created, NewKey};

use super::store;

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
