//! SQL for `api_keys`.

use rusqlite::{Connection, OptionalExtension, params};

use super::ApiKey;
use crate::crypto::SecretToken;
use crate::error::AppError;

const SELECT: &str = "SELECT k.id, k.user_id, u.email, k.name, k.key_prefix, k.created_at,
        k.expires_at, k.revoked_at, k.last_used_at
   FROM api_keys k JOIN users u ON u.id = k.user_id";

fn from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ApiKey> {
    Ok(ApiKey {
        id: r.get(0)?,
        user_id: r.get(1)?,
        user: r.get(2)?,
        name: r.get(3)?,
        prefix: r.get(4)?,
        created_at: r.get(5)?,
        expires_at: r.get(6)?,
        revoked_at: r.get(7)?,
        last_used_at: r.get(8)?,
    })
}

pub fn insert(
    conn: &Connection,
    user_id: i64,
    name: &str,
    key: &SecretToken,
    expires_at: Option<i64>,
    now: i64,
) -> Result<ApiKey, AppError> {
    conn.execute(
        "INSERT INTO api_keys (user_id, name, key_hash, key_prefix, created_at, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            user_id,
            name,
            key.hash(),
            super::display_prefix(key),
            now,
            expires_at
        ],
    )?;
    get(conn, conn.last_insert_rowid())?.ok_or_else(|| AppError::internal("inserted key vanished"))
}

pub fn get(conn: &Connection, id: i64) -> Result<Option<ApiKey>, AppError> {
    Ok(conn
        .query_row(&format!("{SELECT} WHERE k.id = ?1"), [id], from_row)
        .optional()?)
}

/// Every key, or those of one user, oldest first.
pub fn list(conn: &Connection, user_id: Option<i64>) -> Result<Vec<ApiKey>, AppError> {
    let mut stmt = conn.prepare(&format!(
        "{SELECT} WHERE ?1 IS NULL OR k.user_id = ?1 ORDER BY k.id"
    ))?;
    let rows = stmt.query_map([user_id], from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Revokes a key; revoking twice is a 409.
pub fn revoke(conn: &Connection, id: i64, now: i64) -> Result<ApiKey, AppError> {
    let n = conn.execute(
        "UPDATE api_keys SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL",
        params![id, now],
    )?;
    let key =
        get(conn, id)?.ok_or_else(|| AppError::NotFound(format!("no API key with id {id}")))?;
    if n == 0 {
        return Err(AppError::Conflict(format!(
            "API key {id} is already revoked"
        )));
    }
    Ok(key)
}

/// The key's owner when `presented` is a live key of an enabled user; records its use.
pub fn authenticate(conn: &Connection, presented: &str, now: i64) -> Result<Option<i64>, AppError> {
    let hash = SecretToken::presented(presented).hash();
    let mut stmt = conn.prepare_cached(
        "SELECT k.id, k.user_id, k.last_used_at FROM api_keys k JOIN users u ON u.id = k.user_id
          WHERE k.key_hash = ?1 AND k.revoked_at IS NULL
            AND (k.expires_at IS NULL OR k.expires_at > ?2) AND u.disabled_at IS NULL",
    )?;
    let found: Option<(i64, i64, Option<i64>)> = stmt
        .query_row(params![hash, now], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .optional()?;
    let Some((id, user, last_used)) = found else {
        return Ok(None);
    };
    // Minute resolution, checked before writing: most requests stay read-only.
    if last_used.is_none_or(|t| t < now - 60) {
        conn.execute(
            "UPDATE api_keys SET last_used_at = ?2 WHERE id = ?1",
            params![id, now],
        )?;
    }
    Ok(Some(user))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::Db;

    fn setup() -> (tempfile::TempDir, Db, i64) {
        let tmp = tempfile::tempdir().unwrap();
        let db = Db::open(&tmp.path().join("t.db"), tmp.path(), 1).unwrap();
        let user = db
            .call_blocking(|c| {
                c.execute(
                    "INSERT INTO users (email, username, name, password_hash, created_at, updated_at)
                     VALUES ('a@x.org', 'a', 'A', 'x', 0, 0)",
                    [],
                )?;
                Ok(c.last_insert_rowid())
            })
            .unwrap();
        (tmp, db, user)
    }

    #[test]
    fn live_keys_authenticate_others_do_not() {
        let (_tmp, db, user) = setup();
        db.call_blocking(|c| {
            let live = super::super::generate();
            insert(c, user, "live", &live, None, 100)?;
            assert_eq!(authenticate(c, live.expose(), 200)?, Some(user));
            assert!(
                get(c, 1)?.unwrap().last_used_at.is_some(),
                "use is recorded"
            );
            assert_eq!(authenticate(c, "api_wrong", 200)?, None);

            let expiring = super::super::generate();
            insert(c, user, "exp", &expiring, Some(150), 100)?;
            assert_eq!(authenticate(c, expiring.expose(), 149)?, Some(user));
            assert_eq!(authenticate(c, expiring.expose(), 150)?, None);

            revoke(c, 1, 300)?;
            assert_eq!(authenticate(c, live.expose(), 301)?, None);
            Ok(())
        })
        .unwrap();
    }

    #[test]
    fn a_disabled_users_keys_stop_at_once() {
        let (_tmp, db, user) = setup();
        db.call_blocking(|c| {
            let key = super::super::generate();
            insert(c, user, "k", &key, None, 100)?;
            crate::users::store::set_disabled(c, user, true, 110)?;
            assert_eq!(authenticate(c, key.expose(), 120)?, None);
            crate::users::store::set_disabled(c, user, false, 130)?;
            assert_eq!(authenticate(c, key.expose(), 140)?, Some(user));
            Ok(())
        })
        .unwrap();
    }
}
