//! The one-time links of accounts people run themselves (`account_links`): "Forgot password?"
//! mails one to the account's address, a change of e-mail mails one to the new address. A link
//! is stored by the SHA-256 of its token only; it works once, for `TTL`; using one uses up every
//! other link of the same account for the same purpose.

use crate::core::crypto::SecretToken;
use crate::core::error::AppError;
use crate::core::ids::UserId;
use crate::params;
use crate::{core::db::Conn, core::db::OptionalExtension};

/// How long a link works.
pub const TTL: i64 = 60 * 60;

/// What a link does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// Choose a new password.
    PasswordReset,
    /// Make the address the link went to the account's e-mail.
    EmailChange,
}

impl Purpose {
    fn as_str(self) -> &'static str {
        match self {
            Purpose::PasswordReset => "PASSWORD_RESET",
            Purpose::EmailChange => "EMAIL_CHANGE",
        }
    }
}

/// A link that still works: whose account, and where it went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Live {
    pub user: UserId,
    pub email: String,
}

/// A new link for `user` to `email`, working until `now + TTL`: its token, shown only in the
/// mail.
pub fn create(
    tx: &Conn,
    user: UserId,
    purpose: Purpose,
    email: &str,
    now: i64,
) -> Result<SecretToken, AppError> {
    let token = SecretToken::generate("", 43);
    tx.execute(
        "INSERT INTO account_links (user_id, purpose, email, token_hash, created_at, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![user, purpose.as_str(), email, token.hash(), now, now + TTL],
    )?;
    // Links older than a day are of no use to anyone: they go while we are here.
    tx.execute(
        "DELETE FROM account_links WHERE user_id = ?1 AND expires_at < ?2",
        params![user, now - 24 * 3600],
    )?;
    Ok(token)
}

/// The unused, unexpired link of `purpose` behind `token`.
pub fn find(
    conn: &Conn,
    purpose: Purpose,
    token: &str,
    now: i64,
) -> Result<Option<Live>, AppError> {
    Ok(conn
        .query_row(
            "SELECT user_id, email FROM account_links
              WHERE token_hash = ?1 AND purpose = ?2 AND used_at IS NULL AND expires_at > ?3",
            params![SecretToken::presented(token).hash(), purpose.as_str(), now],
            |r| {
                Ok(Live {
                    user: r.get(0)?,
                    email: r.get(1)?,
                })
            },
        )
        .optional()?)
}

/// Where the newest working link of `purpose` for `user` went, if there is one.
pub fn pending(
    conn: &Conn,
    user: UserId,
    purpose: Purpose,
    now: i64,
) -> Result<Option<String>, AppError> {
    Ok(conn
        .query_row(
            "SELECT email FROM account_links
              WHERE user_id = ?1 AND purpose = ?2 AND used_at IS NULL AND expires_at > ?3
              ORDER BY created_at DESC, id DESC LIMIT 1",
            params![user, purpose.as_str(), now],
            |r| r.get(0),
        )
        .optional()?)
}

/// Uses the link of `purpose` behind `token` up, once, with every other link of its account for
/// the same purpose: `None` when it was used, expired or unknown.
pub fn use_up(
    tx: &Conn,
    purpose: Purpose,
    token: &str,
    now: i64,
) -> Result<Option<Live>, AppError> {
    let live: Option<Live> = tx
        .query_row(
            "UPDATE account_links SET used_at = ?3
              WHERE token_hash = ?1 AND purpose = ?2 AND used_at IS NULL AND expires_at > ?3
             RETURNING user_id, email",
            params![SecretToken::presented(token).hash(), purpose.as_str(), now],
            |r| {
                Ok(Live {
                    user: r.get(0)?,
                    email: r.get(1)?,
                })
            },
        )
        .optional()?;
    if let Some(l) = &live {
        tx.execute(
            "UPDATE account_links SET used_at = ?3
              WHERE user_id = ?1 AND purpose = ?2 AND used_at IS NULL",
            params![l.user, purpose.as_str(), now],
        )?;
    }
    Ok(live)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_works_once_until_it_expires_and_for_its_purpose_only() {
        let c = crate::core::db::memory();
        c.execute(
            "INSERT INTO users (id, email, username, name, password_hash, created_at, updated_at)
             VALUES (1, 'a@x.org', 'a', 'A', 'x', 0, 0)",
            [],
        )
        .unwrap();
        let user = UserId::new(1);
        let first = create(&c, user, Purpose::PasswordReset, "a@x.org", 100).unwrap();
        let second = create(&c, user, Purpose::PasswordReset, "a@x.org", 100).unwrap();
        let other = create(&c, user, Purpose::EmailChange, "b@x.org", 100).unwrap();
        let stored: String = c
            .query_row("SELECT token_hash FROM account_links LIMIT 1", [], |r| {
                r.get(0)
            })
            .unwrap();
        assert_ne!(stored, first.expose(), "only the hash is stored");
        let t = first.expose();
        assert!(find(&c, Purpose::EmailChange, t, 101).unwrap().is_none());
        assert!(
            find(&c, Purpose::PasswordReset, t, 100 + TTL)
                .unwrap()
                .is_none()
        );
        let live = use_up(&c, Purpose::PasswordReset, t, 101).unwrap().unwrap();
        assert_eq!((live.user, live.email.as_str()), (user, "a@x.org"));
        assert!(
            use_up(&c, Purpose::PasswordReset, t, 102)
                .unwrap()
                .is_none()
        );
        let second = second.expose();
        assert!(
            find(&c, Purpose::PasswordReset, second, 102)
                .unwrap()
                .is_none()
        );
        assert_eq!(
            pending(&c, user, Purpose::EmailChange, 102)
                .unwrap()
                .as_deref(),
            Some("b@x.org")
        );
        let other = find(&c, Purpose::EmailChange, other.expose(), 102).unwrap();
        assert_eq!(other.map(|l| l.email).as_deref(), Some("b@x.org"));
    }
}
