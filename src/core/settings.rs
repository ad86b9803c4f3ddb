//! SQL for `settings`: small facts about this installation that admin commands need, such as
//! the public URL the server last ran with. No other module touches the table.

use crate::params;
use crate::{core::db::Conn, core::db::OptionalExtension};

use crate::core::error::AppError;

pub const PUBLIC_URL: &str = "public_url";

pub fn get(conn: &Conn, key: &str) -> Result<Option<String>, AppError> {
    Ok(conn
        .query_row("SELECT value FROM settings WHERE key = ?1", [key], |r| {
            r.get(0)
        })
        .optional()?)
}

pub fn set(conn: &Conn, key: &str, value: &str, now: i64) -> Result<(), AppError> {
    conn.execute(
        "INSERT INTO settings (key, value, updated_at) VALUES (?1, ?2, ?3)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
        params![key, value, now],
    )?;
    Ok(())
}
