//! SQL for the documents a template's direct link started ("visitor documents": a recipient
//! came through the link, `recipients.direct_link`): how many of a template's wait unsigned,
//! and those left unsigned too long, which the expiry removes.

use crate::core::db::Conn;
use crate::core::error::AppError;
use crate::core::ids::{DocumentId, TemplateId};
use crate::params;

/// A PENDING document `d` that came through a direct link and that nobody has signed yet.
const OPEN_VISITOR: &str = "d.status = 'PENDING'
    AND EXISTS (SELECT 1 FROM recipients r WHERE r.document_id = d.id AND r.direct_link = 1)
    AND NOT EXISTS (SELECT 1 FROM recipients r
                     WHERE r.document_id = d.id AND r.signing_status = 'SIGNED')";

/// How many of template `template`'s visitor documents wait unsigned.
pub fn open_count(conn: &Conn, template: TemplateId) -> Result<i64, AppError> {
    let sql =
        format!("SELECT count(*) FROM documents d WHERE d.template_id = ?1 AND {OPEN_VISITOR}");
    Ok(conn.query_row(&sql, [template], |r| r.get(0))?)
}

/// Up to `limit` visitor documents created before `before` that nobody has signed, oldest
/// first; on PostgreSQL locked for this transaction and passed over while another node's
/// holds them, so two nodes never remove the same one.
pub fn claim_expired(conn: &Conn, before: i64, limit: i64) -> Result<Vec<DocumentId>, AppError> {
    let sql = format!(
        "SELECT d.id FROM documents d WHERE d.created_at < ?1 AND {OPEN_VISITOR}
          ORDER BY d.id LIMIT ?2{}",
        conn.claim_clause(Some("d"))
    );
    Ok(conn
        .prepare(&sql)?
        .query_map(params![before, limit], |r| r.get(0))?
        .collect::<crate::core::db::Result<_>>()?)
}

/// Marks visitor document `doc` CANCELLED if it still waits unsigned (checked in the same
/// statement); answers whether it did. `remove` then takes it away.
pub fn cancel_if_open(tx: &Conn, doc: DocumentId, now: i64) -> Result<bool, AppError> {
    if let Some(b) = blob_of(tx, doc)? {
        // Taken before the document changes, as every writer of the file's references does.
        crate::core::blob::rows::hold(tx, &b)?;
    }
    let sql = format!(
        "UPDATE documents AS d SET status = 'CANCELLED', updated_at = ?2
          WHERE d.id = ?1 AND {OPEN_VISITOR}"
    );
    Ok(tx.execute(&sql, params![doc, now])? == 1)
}

/// Removes document `doc` with its recipients, fields and audit events, and releases its
/// file: answers the blob to remove after commit when nothing else refers to the file (while
/// the template is there, it does).
pub fn remove(tx: &Conn, doc: DocumentId) -> Result<Option<String>, AppError> {
    let blob = blob_of(tx, doc)?;
    tx.execute("DELETE FROM documents WHERE id = ?1", [doc])?;
    crate::core::blob::rows::released(tx, blob.as_deref())
}

fn blob_of(tx: &Conn, doc: DocumentId) -> Result<Option<String>, AppError> {
    use crate::core::db::OptionalExtension;
    Ok(tx
        .query_row("SELECT blob_id FROM documents WHERE id = ?1", [doc], |r| {
            r.get::<_, Option<String>>(0)
        })
        .optional()?
        .flatten())
}
