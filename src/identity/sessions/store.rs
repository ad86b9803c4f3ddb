//! SQL for `sessions`: stored by the SHA-256 of the cookie value.

use crate::core::ids::UserId;
use crate::params;
use crate::{core::db::Conn, core::db::OptionalExtension};

use super::{SESSION_TTL, Session};
use crate::core::crypto::SecretToken;
use crate::core::error::AppError;
use crate::identity::users::User;

pub fn create(conn: &Conn, user: UserId, token: &SecretToken, now: i64) -> Result<(), AppError> {
    // Drop this user's expired sessions while we are here.
    conn.execute(
        "DELETE FROM sessions WHERE user_id = ?1 AND expires_at <= ?2",
        params![user, now],
    )?;
    conn.execute(
        "INSERT INTO sessions (token_hash, user_id, created_at, expires_at, last_seen_at)
         VALUES (?1, ?2, ?3, ?4, ?3)",
        params![token.hash(), user, now, now + SESSION_TTL],
    )?;
    Ok(())
}

/// The enabled user behind a live session cookie value.
pub fn user_of(conn: &Conn, token: &str, now: i64) -> Result<Option<User>, AppError> {
    Ok(session_of(conn, token, now)?.map(|s| s.user))
}

/// The live session behind a cookie value, with its enabled user. A session starts only when
/// the user has proved who they are (password, then second factor if any, or an invitation's
/// new password), so its `created_at` is when they signed in.
pub fn session_of(conn: &Conn, token: &str, now: i64) -> Result<Option<Session>, AppError> {
    let hash = SecretToken::presented(token).hash();
    let found: Option<(UserId, i64)> = conn
        .query_row(
            "SELECT s.user_id, s.created_at FROM sessions s JOIN users u ON u.id = s.user_id
              WHERE s.token_hash = ?1 AND s.expires_at > ?2 AND u.disabled_at IS NULL",
            params![hash, now],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    let Some((id, authenticated_at)) = found else {
        return Ok(None);
    };
    Ok(
        crate::identity::users::store::get(conn, id)?.map(|user| Session {
            user,
            authenticated_at,
        }),
    )
}

pub fn delete(conn: &Conn, token: &str) -> Result<(), AppError> {
    conn.execute(
        "DELETE FROM sessions WHERE token_hash = ?1",
        [SecretToken::presented(token).hash()],
    )?;
    Ok(())
}

/// Ends every session of a user (e.g. when disabled or after a password change).
pub fn delete_for_user(conn: &Conn, user: UserId) -> Result<usize, AppError> {
    Ok(conn.execute("DELETE FROM sessions WHERE user_id = ?1", [user])?)
}

/// Ends every session of `user` but the one behind `keep` (the browser that changed the
/// password); how many ended.
pub fn delete_others(conn: &Conn, user: UserId, keep: &str) -> Result<usize, AppError> {
    Ok(conn.execute(
        "DELETE FROM sessions WHERE user_id = ?1 AND token_hash <> ?2",
        params![user, SecretToken::presented(keep).hash()],
    )?)
}

/// Records that the owner of the session behind `token` confirmed who they are at `now`.
pub fn mark_confirmed(conn: &Conn, token: &str, now: i64) -> Result<(), AppError> {
    conn.execute(
        "UPDATE sessions SET confirmed_at = ?2 WHERE token_hash = ?1",
        params![SecretToken::presented(token).hash(), now],
    )?;
    Ok(())
}

/// When the owner of the live session behind `token` last confirmed who they are in it.
pub fn confirmed_at(conn: &Conn, token: &str, now: i64) -> Result<Option<i64>, AppError> {
    Ok(conn
        .query_row(
            "SELECT confirmed_at FROM sessions WHERE token_hash = ?1 AND expires_at > ?2",
            params![SecretToken::presented(token).hash(), now],
            |r| r.get::<_, Option<i64>>(0),
        )
        .optional()?
        .flatten())
}
