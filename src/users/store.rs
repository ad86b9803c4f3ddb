//! SQL for the `users` table.

use rusqlite::{Connection, OptionalExtension, Row, params};

use super::{Email, Tier, User};
use crate::error::{AppError, conflict_on_unique};

const COLUMNS: &str = "id, email, username, name, tier, time_zone, disabled_at, created_at";

fn from_row(r: &Row<'_>) -> rusqlite::Result<User> {
    let tier: String = r.get(4)?;
    Ok(User {
        id: r.get(0)?,
        email: r.get(1)?,
        username: r.get(2)?,
        name: r.get(3)?,
        tier: if tier == "enterprise" {
            Tier::Enterprise
        } else {
            Tier::Standard
        },
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

pub fn insert(tx: &Connection, new: &NewUser<'_>, now: i64) -> Result<User, AppError> {
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
    tx.execute(
        "INSERT INTO users (email, username, name, tier, password_hash, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)",
        params![
            new.email.as_str(),
            username,
            new.name,
            new.tier.as_str(),
            new.password_hash,
            now
        ],
    )
    .map_err(|e| conflict_on_unique(e, &format!("the username {username:?} is taken")))?;
    let id = tx.last_insert_rowid();
    get(tx, id)?.ok_or_else(|| AppError::internal("inserted user vanished"))
}

/// `base`, or `base-2`, `base-3`, ... whichever is free first.
fn unique_username(conn: &Connection, base: &str) -> Result<String, AppError> {
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

pub fn get(conn: &Connection, id: i64) -> Result<Option<User>, AppError> {
    let mut stmt = conn.prepare_cached(&format!("SELECT {COLUMNS} FROM users WHERE id = ?1"))?;
    Ok(stmt.query_row([id], from_row).optional()?)
}

pub fn find_by_email(conn: &Connection, email: &str) -> Result<Option<User>, AppError> {
    Ok(conn
        .query_row(
            &format!("SELECT {COLUMNS} FROM users WHERE email = ?1"),
            [email.trim().to_lowercase()],
            from_row,
        )
        .optional()?)
}

/// The user with `email`, or a 404 naming it.
pub fn require_by_email(conn: &Connection, email: &str) -> Result<User, AppError> {
    find_by_email(conn, email)?
        .ok_or_else(|| AppError::NotFound(format!("no user with e-mail {}", email.trim())))
}

pub fn list(conn: &Connection) -> Result<Vec<User>, AppError> {
    let mut stmt = conn.prepare(&format!("SELECT {COLUMNS} FROM users ORDER BY id"))?;
    let rows = stmt.query_map([], from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn count(conn: &Connection) -> Result<i64, AppError> {
    Ok(conn.query_row("SELECT count(*) FROM users", [], |r| r.get(0))?)
}

pub fn set_password(conn: &Connection, id: i64, hash: &str, now: i64) -> Result<(), AppError> {
    conn.execute(
        "UPDATE users SET password_hash = ?2, updated_at = ?3 WHERE id = ?1",
        params![id, hash, now],
    )?;
    Ok(())
}

/// Disables (`true`) or enables a user. Returns whether anything changed.
pub fn set_disabled(
    conn: &Connection,
    id: i64,
    disabled: bool,
    now: i64,
) -> Result<bool, AppError> {
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

pub fn set_tier(conn: &Connection, id: i64, tier: Tier, now: i64) -> Result<(), AppError> {
    conn.execute(
        "UPDATE users SET tier = ?2, updated_at = ?3 WHERE id = ?1",
        params![id, tier.as_str(), now],
    )?;
    Ok(())
}

/// The id and PHC string of the enabled user with `email`, for login.
pub fn login_record(conn: &Connection, email: &str) -> Result<Option<(i64, String)>, AppError> {
    Ok(conn
        .query_row(
            "SELECT id, password_hash FROM users WHERE email = ?1 AND disabled_at IS NULL",
            [email.trim().to_lowercase()],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?)
}

/// The tier of user `id` (401 when the user is gone: its credential is stale).
pub fn tier(conn: &Connection, id: i64) -> Result<Tier, AppError> {
    Ok(get(conn, id)?
        .ok_or_else(|| AppError::Unauthorized("the user no longer exists".into()))?
        .tier)
}
