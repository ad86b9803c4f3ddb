//! SQL for the `users` table.

use crate::core::i18n::Lang;
use crate::core::ids::UserId;
use crate::params;
use crate::{core::db::Conn, core::db::OptionalExtension, core::db::Row};

use super::{Email, Tier, User};
use crate::{core::db::conflict_on_unique, core::error::AppError};

const COLUMNS: &str = "id, email, username, name, tier, time_zone, disabled_at, created_at";

fn from_row(r: &Row<'_>) -> crate::core::db::Result<User> {
    Ok(User {
        id: r.get(0)?,
        email: r.get(1)?,
        username: r.get(2)?,
        name: r.get(3)?,
        tier: r.get(4)?,
        time_zone: r.get(5)?,
        disabled: r.get::<_, Option<i64>>(6)?.is_some(),
        created_at: r.get(7)?,
    })
}

pub struct NewUser<'a> {
    pub email: &'a Email,
    pub name: &'a str,
    /// Chosen by the admin; `None` derives one from the e-mail, made unique.
    pub username: Option<&'a str>,
    pub tier: Tier,
    pub password_hash: &'a str,
}

pub fn insert(tx: &Conn, new: &NewUser<'_>, now: i64) -> Result<User, AppError> {
    if find_by_email(tx, new.email.as_str())?.is_some() {
        return Err(AppError::Conflict(format!(
            "a user with e-mail {} already exists",
            new.email
        )));
    }
    let username = match new.username {
        Some(u) => u.to_string(),
        None => unique_username(tx, &super::username_base(new.email))?,
    };
    let inserted_id = tx
        .insert(
            "INSERT INTO users (email, username, name, tier, password_hash, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)",
            params![
                new.email.as_str(),
                username,
                new.name,
                new.tier,
                new.password_hash,
                now
            ],
        )
        .map_err(|e| conflict_on_unique(e, &format!("the username {username:?} is taken")))?;
    let id = UserId::new(inserted_id);
    get(tx, id)?.ok_or_else(|| AppError::internal("inserted user vanished"))
}

/// `base`, or `base-2`, `base-3`, ... whichever is free first.
fn unique_username(conn: &Conn, base: &str) -> Result<String, AppError> {
    let mut candidate = base.to_string();
    for n in 2.. {
        let taken: bool = conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM users WHERE username = ?1)",
            [&candidate],
            |r| r.get(0),
        )?;
        if !taken {
            break;
        }
        candidate = format!("{base}-{n}");
    }
    Ok(candidate)
}

pub fn get(conn: &Conn, id: UserId) -> Result<Option<User>, AppError> {
    let mut stmt = conn.prepare_cached(&format!("SELECT {COLUMNS} FROM users WHERE id = ?1"))?;
    Ok(stmt.query_row([id], from_row).optional()?)
}

pub fn find_by_email(conn: &Conn, email: &str) -> Result<Option<User>, AppError> {
    Ok(conn
        .query_row(
            &format!("SELECT {COLUMNS} FROM users WHERE email = ?1"),
            [email.trim().to_lowercase()],
            from_row,
        )
        .optional()?)
}

/// The user with `email`, or a 404 naming it.
pub fn require_by_email(conn: &Conn, email: &str) -> Result<User, AppError> {
    find_by_email(conn, email)?
        .ok_or_else(|| AppError::NotFound(format!("no user with e-mail {}", email.trim())))
}

pub fn list(conn: &Conn) -> Result<Vec<User>, AppError> {
    let mut stmt = conn.prepare(&format!("SELECT {COLUMNS} FROM users ORDER BY id"))?;
    let rows = stmt.query_map([], from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn count(conn: &Conn) -> Result<i64, AppError> {
    Ok(conn.query_row("SELECT count(*) FROM users", [], |r| r.get(0))?)
}

pub fn set_password(conn: &Conn, id: UserId, hash: &str, now: i64) -> Result<(), AppError> {
    conn.execute(
        "UPDATE users SET password_hash = ?2, updated_at = ?3 WHERE id = ?1",
        params![id, hash, now],
    )?;
    Ok(())
}

pub fn set_name(conn: &Conn, id: UserId, name: &str, now: i64) -> Result<(), AppError> {
    conn.execute(
        "UPDATE users SET name = ?2, updated_at = ?3 WHERE id = ?1",
        params![id, name, now],
    )?;
    Ok(())
}

/// The language user `id` chose for the recipients of their new documents (`None`: never
/// chosen, English).
pub fn language(conn: &Conn, id: UserId) -> Result<Option<Lang>, AppError> {
    Ok(conn
        .query_row("SELECT language FROM users WHERE id = ?1", [id], |r| {
            r.get::<_, Option<Lang>>(0)
        })
        .optional()?
        .flatten())
}

pub fn set_language(conn: &Conn, id: UserId, lang: Lang, now: i64) -> Result<(), AppError> {
    conn.execute(
        "UPDATE users SET language = ?2, updated_at = ?3 WHERE id = ?1",
        params![id, lang, now],
    )?;
    Ok(())
}

/// The deadline user `id` gives their new documents, as stored (the JSON of
/// `meta.envelopeExpirationPeriod`, which the signing ring reads); `None`: none.
pub fn expiration_period(conn: &Conn, id: UserId) -> Result<Option<String>, AppError> {
    Ok(conn
        .query_row(
            "SELECT expiration_period FROM users WHERE id = ?1",
            [id],
            |r| r.get::<_, Option<String>>(0),
        )
        .optional()?
        .flatten())
}

pub fn set_expiration_period(
    conn: &Conn,
    id: UserId,
    period: Option<&str>,
    now: i64,
) -> Result<(), AppError> {
    conn.execute(
        "UPDATE users SET expiration_period = ?2, updated_at = ?3 WHERE id = ?1",
        params![id, period, now],
    )?;
    Ok(())
}

/// Gives user `id` the address `email`; 409 when another account has it.
pub fn set_email(conn: &Conn, id: UserId, email: &Email, now: i64) -> Result<(), AppError> {
    let taken = format!("{email} belongs to another Docket account; use another address");
    if find_by_email(conn, email.as_str())?.is_some_and(|u| u.id != id) {
        return Err(AppError::Conflict(taken));
    }
    conn.execute(
        "UPDATE users SET email = ?2, updated_at = ?3 WHERE id = ?1",
        params![id, email.as_str(), now],
    )
    .map_err(|e| conflict_on_unique(e, &taken))?;
    Ok(())
}

/// Disables (`true`) or enables a user. Returns whether anything changed.
pub fn set_disabled(conn: &Conn, id: UserId, disabled: bool, now: i64) -> Result<bool, AppError> {
    conn.note_revocation();
    let n = if disabled {
        conn.execute(
            "UPDATE users SET disabled_at = ?2, updated_at = ?2 WHERE id = ?1 AND disabled_at IS NULL",
            params![id, now],
        )?
    } else {
        conn.execute(
            "UPDATE users SET disabled_at = NULL, updated_at = ?2 WHERE id = ?1 AND disabled_at IS NOT NULL",
            params![id, now],
        )?
    };
    Ok(n == 1)
}

pub fn set_tier(conn: &Conn, id: UserId, tier: Tier, now: i64) -> Result<(), AppError> {
    conn.execute(
        "UPDATE users SET tier = ?2, updated_at = ?3 WHERE id = ?1",
        params![id, tier, now],
    )?;
    Ok(())
}

/// The id and PHC string of the enabled user with `email`, for login.
pub fn login_record(conn: &Conn, email: &str) -> Result<Option<(UserId, String)>, AppError> {
    Ok(conn
        .query_row(
            "SELECT id, password_hash FROM users WHERE email = ?1 AND disabled_at IS NULL",
            [email.trim().to_lowercase()],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?)
}

/// The tier of user `id` (401 when the user is gone: its credential is stale).
pub fn tier(conn: &Conn, id: UserId) -> Result<Tier, AppError> {
    Ok(get(conn, id)?
        .ok_or_else(|| AppError::Unauthorized("the user no longer exists".into()))?
        .tier)
}

// The second factors' columns of `users`: the TOTP secret (sealed) and the passkey handle.

/// A user's TOTP columns; secrets still sealed.
#[derive(Debug, Clone, Default)]
pub struct TotpColumns {
    pub secret: Option<Vec<u8>>,
    pub pending: Option<Vec<u8>>,
    pub last_step: i64,
}

pub fn totp_columns(conn: &Conn, user: UserId) -> Result<TotpColumns, AppError> {
    Ok(conn
        .query_row(
            "SELECT totp_secret, totp_pending, totp_last_step FROM users WHERE id = ?1",
            [user],
            |r| {
                Ok(TotpColumns {
                    secret: r.get(0)?,
                    pending: r.get(1)?,
                    last_step: r.get(2)?,
                })
            },
        )
        .optional()?
        .unwrap_or_default())
}

/// Keeps `sealed` as the TOTP secret being enrolled (replacing an earlier unconfirmed one).
pub fn set_totp_pending(
    conn: &Conn,
    user: UserId,
    sealed: &[u8],
    now: i64,
) -> Result<(), AppError> {
    conn.execute(
        "UPDATE users SET totp_pending = ?2, updated_at = ?3 WHERE id = ?1",
        params![user, sealed, now],
    )?;
    Ok(())
}

/// The pending TOTP secret becomes the account's, its first code's step the last one used. False when
/// nothing was pending any more.
pub fn enable_totp(conn: &Conn, user: UserId, step: i64, now: i64) -> Result<bool, AppError> {
    Ok(conn.execute(
        "UPDATE users SET totp_secret = totp_pending, totp_pending = NULL, totp_enabled_at = ?3,
                          totp_last_step = ?2, updated_at = ?3
          WHERE id = ?1 AND totp_pending IS NOT NULL",
        params![user, step, now],
    )? == 1)
}

/// Removes the account's TOTP secret (enrolled or pending).
pub fn clear_totp(conn: &Conn, user: UserId, now: i64) -> Result<(), AppError> {
    conn.execute(
        "UPDATE users SET totp_secret = NULL, totp_pending = NULL, totp_enabled_at = NULL,
                          updated_at = ?2
          WHERE id = ?1",
        params![user, now],
    )?;
    Ok(())
}

/// Whether the account has an authenticator app enrolled.
pub fn has_totp(conn: &Conn, user: UserId) -> Result<bool, AppError> {
    Ok(conn
        .query_row(
            "SELECT totp_secret IS NOT NULL FROM users WHERE id = ?1",
            [user],
            |r| r.get(0),
        )
        .optional()?
        .unwrap_or(false))
}

/// Records TOTP `step` as used; false when it (or a later step) was used already, so a code is
/// never accepted twice even by two requests at once.
pub fn take_totp_step(conn: &Conn, user: UserId, step: i64) -> Result<bool, AppError> {
    Ok(conn.execute(
        "UPDATE users SET totp_last_step = ?2 WHERE id = ?1 AND totp_last_step < ?2",
        params![user, step],
    )? == 1)
}

/// The account's WebAuthn user handle, made on first use.
pub fn passkey_handle(conn: &Conn, user: UserId) -> Result<Vec<u8>, AppError> {
    let existing: Option<Vec<u8>> = conn.query_row(
        "SELECT passkey_handle FROM users WHERE id = ?1",
        [user],
        |r| r.get(0),
    )?;
    if let Some(h) = existing {
        return Ok(h);
    }
    let h = super::new_passkey_handle();
    conn.execute(
        "UPDATE users SET passkey_handle = ?2 WHERE id = ?1 AND passkey_handle IS NULL",
        params![user, h],
    )?;
    Ok(conn.query_row(
        "SELECT passkey_handle FROM users WHERE id = ?1",
        [user],
        |r| r.get(0),
    )?)
}
