//! SQL for `account_invites`: the one-time links that let a recipient create an account.

use crate::core::ids::RecipientId;
use crate::params;
use crate::{core::db::Conn, core::db::OptionalExtension};

use super::Invite;
use crate::core::error::AppError;

fn from_row(r: &crate::core::db::Row<'_>) -> crate::core::db::Result<Invite> {
    Ok(Invite {
        id: r.get(0)?,
        email: r.get(1)?,
        recipient_id: r.get(2)?,
    })
}

/// Links created for `email` after `since`: how many, and when the oldest of them was.
pub fn created_since(conn: &Conn, email: &str, since: i64) -> Result<(i64, Option<i64>), AppError> {
    Ok(conn.query_row(
        "SELECT count(*), min(created_at) FROM account_invites WHERE email = ?1 AND created_at > ?2",
        params![email, since],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?)
}

/// A new link for `email`, stored by the hash of its token, working until `expires_at`.
pub fn insert(
    conn: &Conn,
    email: &str,
    token_hash: &str,
    recipient: Option<RecipientId>,
    now: i64,
    expires_at: i64,
) -> Result<(), AppError> {
    conn.execute(
        "INSERT INTO account_invites (email, token_hash, recipient_id, created_at, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![email, token_hash, recipient, now, expires_at],
    )?;
    Ok(())
}

/// The unused, unexpired invitation whose token hashes to `token_hash`.
pub fn find_live(conn: &Conn, token_hash: &str, now: i64) -> Result<Option<Invite>, AppError> {
    Ok(conn
        .query_row(
            "SELECT id, email, recipient_id FROM account_invites
              WHERE token_hash = ?1 AND used_at IS NULL AND expires_at > ?2",
            params![token_hash, now],
            from_row,
        )
        .optional()?)
}

/// Marks the live invitation whose token hashes to `token_hash` used and returns it; `None`
/// when there is none.
pub fn use_up(conn: &Conn, token_hash: &str, now: i64) -> Result<Option<Invite>, AppError> {
    Ok(conn
        .query_row(
            "UPDATE account_invites SET used_at = ?2
              WHERE token_hash = ?1 AND used_at IS NULL AND expires_at > ?2
             RETURNING id, email, recipient_id",
            params![token_hash, now],
            from_row,
        )
        .optional()?)
}

/// Marks every unused invitation for `email` used.
pub fn use_up_all_for(conn: &Conn, email: &str, now: i64) -> Result<(), AppError> {
    conn.execute(
        "UPDATE account_invites SET used_at = ?2 WHERE email = ?1 AND used_at IS NULL",
        params![email, now],
    )?;
    Ok(())
}
