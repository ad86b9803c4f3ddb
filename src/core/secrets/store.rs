//! The SQL of `shared_secrets`: sealed values by name (see `secrets::Shared` for the sealing).

use crate::{core::db::Conn, core::db::OptionalExtension, core::db::Result};

/// The sealed value named `name`, if there is one.
pub fn get(c: &Conn<'_>, name: &str) -> Result<Option<Vec<u8>>> {
    c.query_row(
        "SELECT sealed FROM shared_secrets WHERE name = ?1",
        [name],
        |r| r.get(0),
    )
    .optional()
}

/// Every row, by name. The table holds a handful of rows: no prefix query is worth its dialects.
pub fn all(c: &Conn<'_>) -> Result<Vec<(String, Vec<u8>)>> {
    let mut stmt = c.prepare_cached("SELECT name, sealed FROM shared_secrets ORDER BY name")?;
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect()
}

/// Stores `sealed` as `name` unless a row of that name exists (another node was first):
/// answers whether this one was stored.
pub fn insert(c: &Conn<'_>, name: &str, sealed: &[u8], now: i64) -> Result<bool> {
    let n = c.execute(
        "INSERT INTO shared_secrets (name, sealed, created_at) VALUES (?1, ?2, ?3)
         ON CONFLICT (name) DO NOTHING",
        crate::params![name, sealed, now],
    )?;
    Ok(n == 1)
}

/// Replaces `name`'s value, only while it still is `old` (no other node replaced it first):
/// answers whether this one did.
pub fn replace(c: &Conn<'_>, name: &str, old: &[u8], new: &[u8], now: i64) -> Result<bool> {
    let n = c.execute(
        "UPDATE shared_secrets SET sealed = ?3, created_at = ?4 WHERE name = ?1 AND sealed = ?2",
        crate::params![name, old, new, now],
    )?;
    Ok(n == 1)
}

/// PostgreSQL: a write committed with `synchronous_commit` on, which returns once the
/// write-ahead log is flushed up to it, and so past every transaction committed before (the
/// shared secrets' among them), whatever the role's or database's setting.
pub fn flush_commits(c: &Conn<'_>) -> Result<()> {
    c.execute_batch("SET LOCAL synchronous_commit TO on")?;
    c.execute(
        "UPDATE shared_secrets SET created_at = created_at WHERE name = ?1",
        [super::CHECK_NAME],
    )?;
    Ok(())
}
