//! SQL for the `blobs` table: a row exists for every committed file something refers to.
//! One file may be referred to by several rows: the documents made from a template share its
//! PDF (`share`), so a row that stops referring to a file `release`s it, and the file goes only
//! once nothing refers to it any more.

use crate::core::db::Conn;
use crate::params;

use super::store::StoredBlob;
use crate::core::error::AppError;

/// Records a committed PDF (call inside the transaction that starts referring to it).
pub fn insert_pdf(conn: &Conn, blob: &StoredBlob, now: i64) -> Result<(), AppError> {
    conn.execute(
        "INSERT INTO blobs (id, size, sha256, content_type, created_at) VALUES (?1, ?2, ?3, 'application/pdf', ?4)",
        params![blob.id.as_str(), blob.size as i64, blob.sha256, now],
    )?;
    Ok(())
}

/// Forgets a file's row; the file itself is removed after the transaction commits. Only for a
/// file nothing else can refer to (a sealed PDF that lost its race); otherwise `release`.
pub fn delete(conn: &Conn, id: &str) -> Result<(), AppError> {
    conn.execute("DELETE FROM blobs WHERE id = ?1", [id])?;
    Ok(())
}

/// Makes the transactions that start or stop referring to file `id` take turns (PostgreSQL;
/// SQLite has one writer), so that a `release` sees every reference committed before it, and
/// a `share` never refers to a row a `release` is removing. Call before reading what refers
/// to the file.
pub fn hold(conn: &Conn, id: &str) -> Result<(), AppError> {
    conn.serialize_on(&format!("blob:{id}"))?;
    Ok(())
}

/// Call after a row stopped referring to file `id` (it was deleted, or took another file):
/// removes the file's row when no template, document (its PDF or its sealed PDF) or queued
/// mail refers to it any more, and answers whether it did, i.e. whether the file itself is to
/// be removed after the transaction commits. A file still in use stays, row and all.
pub fn release(conn: &Conn, id: &str) -> Result<bool, AppError> {
    hold(conn, id)?;
    let n = conn.execute(
        "DELETE FROM blobs WHERE id = ?1
            AND NOT EXISTS (SELECT 1 FROM templates WHERE blob_id = ?1)
            AND NOT EXISTS (SELECT 1 FROM documents WHERE blob_id = ?1)
            AND NOT EXISTS (SELECT 1 FROM documents WHERE sealed_blob_id = ?1)
            AND NOT EXISTS (SELECT 1 FROM mail_queue WHERE attachment_blob = ?1)",
        [id],
    )?;
    Ok(n > 0)
}

/// `release` of `blob`, if any: the file to remove after commit, if it is to go.
pub fn released(conn: &Conn, blob: Option<&str>) -> Result<Option<String>, AppError> {
    match blob {
        Some(b) if release(conn, b)? => Ok(Some(b.to_string())),
        _ => Ok(None),
    }
}

/// The SHA-256 (hex) of file `id`, as recorded when it was stored.
pub fn sha256(conn: &Conn, id: &str) -> Result<Option<String>, AppError> {
    use crate::core::db::OptionalExtension;
    Ok(conn
        .query_row("SELECT sha256 FROM blobs WHERE id = ?1", [id], |r| r.get(0))
        .optional()?)
}

/// The SHA-256 (hex) of each of files `ids` that has a row, by id: one query for a page of
/// templates.
pub fn sha256_each(
    conn: &Conn,
    ids: &[&str],
) -> Result<std::collections::HashMap<String, String>, AppError> {
    if ids.is_empty() {
        return Ok(Default::default());
    }
    let sql = format!(
        "SELECT id, sha256 FROM blobs WHERE id IN ({})",
        crate::core::db::numbered_marks(ids.len())
    );
    Ok(conn
        .prepare_cached(&sql)?
        .query_map(crate::core::db::params_from_iter(ids.iter()), |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?
        .collect::<crate::core::db::Result<_>>()?)
}

/// The ids of every recorded file, in order.
pub fn ids(conn: &Conn) -> crate::core::db::Result<Vec<String>> {
    conn.prepare("SELECT id FROM blobs ORDER BY id")?
        .query_map([], |r| r.get(0))?
        .collect()
}

/// Which of `ids` have a row. One query for the lot (the sweep passes a few hundred at once).
pub fn present(
    conn: &Conn,
    ids: &[String],
) -> crate::core::db::Result<std::collections::HashSet<String>> {
    if ids.is_empty() {
        return Ok(Default::default());
    }
    let sql = format!(
        "SELECT id FROM blobs WHERE id IN ({})",
        crate::core::db::numbered_marks(ids.len())
    );
    conn.prepare(&sql)?
        .query_map(crate::core::db::params_from_iter(ids.iter()), |r| r.get(0))?
        .collect()
}
