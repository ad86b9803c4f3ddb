//! Logins waiting for a second factor (SQL for `pending_logins`): the password was right and
//! the account has TOTP or a passkey. The browser holds the token in a short-lived cookie; a
//! TOTP code, a recovery code or a passkey turns it into a session. Every answer is counted
//! before it is checked (`reserve`, in a write of its own); five counted answers that did not
//! sign in end it, however many arrive at once.

use crate::core::ids::UserId;
use crate::params;
use crate::{core::db::Conn, core::db::OptionalExtension};

use crate::core::crypto::SecretToken;
use crate::core::error::AppError;

/// How long the second step may take.
pub const TTL: i64 = 5 * 60;
/// Answers checked before the login starts over.
pub const MAX_FAILURES: i64 = 5;

pub fn create(tx: &Conn, user: UserId, token: &SecretToken, now: i64) -> Result<(), AppError> {
    tx.execute("DELETE FROM pending_logins WHERE expires_at <= ?1", [now])?;
    tx.execute(
        "INSERT INTO pending_logins (token_hash, user_id, created_at, expires_at)
         VALUES (?1, ?2, ?3, ?4)",
        params![token.hash(), user, now, now + TTL],
    )?;
    Ok(())
}

/// The account a live pending login is for, while it may take another answer.
pub fn user_of(conn: &Conn, token: &str, now: i64) -> Result<Option<UserId>, AppError> {
    Ok(conn
        .query_row(
            "SELECT p.user_id FROM pending_logins p JOIN users u ON u.id = p.user_id
              WHERE p.token_hash = ?1 AND p.expires_at > ?2 AND p.failures < ?3
                AND u.disabled_at IS NULL",
            params![SecretToken::presented(token).hash(), now, MAX_FAILURES],
            |r| r.get(0),
        )
        .optional()?)
}

/// Counts one answer before it is checked, in one statement with the check of the limit: the
/// account, or `None` when the login is gone or has had its `MAX_FAILURES` answers. Run it in a
/// write that commits before the answer's check; the count stands unless the answer signs in
/// (the pending login then ends) or is taken back unchecked (`release`).
pub fn reserve(tx: &Conn, token: &str, now: i64) -> Result<Option<UserId>, AppError> {
    Ok(tx
        .query_row(
            "UPDATE pending_logins SET failures = failures + 1
              WHERE token_hash = ?1 AND expires_at > ?2 AND failures < ?3
                AND user_id IN (SELECT id FROM users WHERE disabled_at IS NULL)
             RETURNING user_id",
            params![SecretToken::presented(token).hash(), now, MAX_FAILURES],
            |r| r.get(0),
        )
        .optional()?)
}

/// Takes back an answer counted by `reserve` that was never checked.
pub fn release(tx: &Conn, token: &str) -> Result<(), AppError> {
    tx.execute(
        "UPDATE pending_logins SET failures = failures - 1 WHERE token_hash = ?1 AND failures > 0",
        [SecretToken::presented(token).hash()],
    )?;
    Ok(())
}

/// Ends the pending login (once) after an answer counted by `reserve` passed: its account, or
/// `None` when it was gone already.
pub fn take(tx: &Conn, token: &str, now: i64) -> Result<Option<UserId>, AppError> {
    Ok(tx
        .query_row(
            "DELETE FROM pending_logins
              WHERE token_hash = ?1 AND expires_at > ?2 AND failures <= ?3
             RETURNING user_id",
            params![SecretToken::presented(token).hash(), now, MAX_FAILURES],
            |r| r.get(0),
        )
        .optional()?)
}

/// Forgets every login of `user` waiting for a second factor.
pub fn delete_for_user(tx: &Conn, user: UserId) -> Result<(), AppError> {
    tx.execute("DELETE FROM pending_logins WHERE user_id = ?1", [user])?;
    Ok(())
}
