//! Everything that acts for an account without its password, revoked at once: its API tokens,
//! its own webhooks (switched off, their queued deliveries failed with a note) and its
//! connected apps (grants, their tokens and their webhooks). A password reset or change runs
//! this inside its own transaction when the person asks (`accounts::access::RevokeAll`): this
//! ring is the one that knows all three.

use crate::core::db::Conn;
use crate::core::error::AppError;
use crate::core::ids::UserId;
use crate::identity::accounts::access::Revoked;

/// What a switched-off webhook's failed deliveries say.
const SWITCHED_OFF: &str =
    "switched off when the account's password was changed; switch it on again to resume";

/// Revokes every API token of `user`, switches off its webhooks and disconnects its apps, at
/// `now`, in the caller's transaction.
pub fn revoke_all(tx: &Conn, user: UserId, now: i64) -> Result<Revoked, AppError> {
    Ok(Revoked {
        tokens: crate::identity::apikeys::manage::revoke_all(tx, user, now)?,
        webhooks: crate::outbox::webhooks::store::switch_off_owned(tx, user, SWITCHED_OFF)?,
        apps: crate::oauth::tokens::store::revoke_all_grants(tx, user, now)?,
    })
}
