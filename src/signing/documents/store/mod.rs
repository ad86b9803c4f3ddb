//! SQL for `documents`, and (in `recipients` and `fields`) for the recipients and fields of
//! documents and templates: the only module that reads or writes these three tables. Reads
//! answer the aggregate's one read model (`documents::model`).

pub mod fields;
pub mod listing;
pub mod recipients;
pub mod timers;
pub mod visitors;
pub mod workspace;

use crate::core::db::{ToSql, params_from_iter};
use crate::core::ids::{DocumentId, TemplateId};
use crate::core::owner::{Owner, Rows};
use crate::params;
use crate::{core::db::Conn, core::db::OptionalExtension, core::db::Row};
use serde_json::Value;

use super::meta::Meta;
use super::model::{Document, SealRecord};
use super::{CreateDocument, Status};
use crate::core::db::stored_json;
use crate::core::error::AppError;

/// Whose recipients and fields: a document's or a template's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parent {
    Document(DocumentId),
    Template(TemplateId),
}

impl Parent {
    /// The column of `recipients` and `fields` that names the parent.
    fn column(self) -> &'static str {
        match self {
            Parent::Document(_) => "document_id",
            Parent::Template(_) => "template_id",
        }
    }

    pub fn id(self) -> i64 {
        match self {
            Parent::Document(id) => id.get(),
            Parent::Template(id) => id.get(),
        }
    }

    pub fn noun(self) -> &'static str {
        match self {
            Parent::Document(_) => "document",
            Parent::Template(_) => "template",
        }
    }
}

const COLUMNS: &str = "id, user_id, external_id, title, status, document_data_id, blob_id,
    page_sizes, meta, auth_options, form_values, sealed_blob_id, created_at, updated_at,
    completed_at, seal_failures, seal_error, seal_next_at, team_id, visibility, folder_id,
    template_id";

/// A document's row, without its recipients and fields yet. Stored JSON the code cannot read
/// is an error, never a default.
fn from_row(r: &Row<'_>) -> crate::core::db::Result<Document> {
    let sizes: Option<String> = r.get(7)?;
    let meta: String = r.get(8)?;
    let auth: String = r.get(9)?;
    let form: Option<String> = r.get(10)?;
    Ok(Document {
        id: r.get(0)?,
        user_id: r.get(1)?,
        team_id: r.get(18)?,
        visibility: r.get(19)?,
        folder_id: r.get(20)?,
        external_id: r.get(2)?,
        title: r.get(3)?,
        status: r.get(4)?,
        document_data_id: r.get(5)?,
        blob_id: r.get(6)?,
        page_sizes: sizes.map(|s| stored_json(7, &s)).transpose()?,
        meta: stored_json(8, &meta)?,
        auth_options: if auth.is_empty() {
            Default::default()
        } else {
            stored_json(9, &auth)?
        },
        form_values: form.map(|f| stored_json(10, &f)).transpose()?,
        sealed_blob_id: r.get(11)?,
        created_at: r.get(12)?,
        updated_at: r.get(13)?,
        completed_at: r.get(14)?,
        seal: SealRecord {
            failures: r.get(15)?,
            error: r.get(16)?,
            next_at: r.get(17)?,
        },
        template_id: r.get(21)?,
        recipients: Vec::new(),
        fields: Vec::new(),
    })
}

/// The rows of `table` (`columns`, read by `from_row`) of each of `parents`, all of one kind,
/// by id, in one query: one list a parent, in the order of `parents`. The `IN` list's length is
/// rounded up to a power of two, the last id repeated, so that a few cached statements serve
/// every page size.
fn of_each<T>(
    conn: &Conn,
    parents: &[Parent],
    table: &str,
    columns: &str,
    from_row: fn(&Row<'_>) -> crate::core::db::Result<T>,
) -> Result<Vec<Vec<T>>, AppError> {
    let Some(first) = parents.first() else {
        return Ok(Vec::new());
    };
    let column = first.column();
    if parents.iter().any(|p| p.column() != column) {
        return Err(AppError::internal(
            "rows asked of documents and templates at once",
        ));
    }
    let mut args: Vec<i64> = parents.iter().map(|p| p.id()).collect();
    args.resize(args.len().next_power_of_two(), first.id());
    let at = columns.split(',').count();
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {columns}, {column} FROM {table} WHERE {column} IN ({}) ORDER BY {column}, id",
        crate::core::db::numbered_marks(args.len())
    ))?;
    let rows = stmt.query_map(crate::core::db::params_from_iter(args), |r| {
        Ok((r.get::<_, i64>(at)?, from_row(r)?))
    })?;
    by_parent(parents, rows)
}

/// Rows of `(parent id, item)` sorted by parent, as one list a parent in the order of
/// `parents`.
fn by_parent<T>(
    parents: &[Parent],
    rows: impl Iterator<Item = crate::core::db::Result<(i64, T)>>,
) -> Result<Vec<Vec<T>>, AppError> {
    let place: std::collections::HashMap<i64, usize> = parents
        .iter()
        .enumerate()
        .map(|(i, p)| (p.id(), i))
        .collect();
    let mut out: Vec<Vec<T>> = parents.iter().map(|_| Vec::new()).collect();
    for row in rows {
        let (parent, item) = row?;
        if let Some(&i) = place.get(&parent) {
            out[i].push(item);
        }
    }
    Ok(out)
}

/// The rows of a page with their recipients and fields: two queries for the whole page, not two
/// a row (on PostgreSQL each is a round trip).
fn complete_aggregates(conn: &Conn, docs: Vec<Document>) -> Result<Vec<Document>, AppError> {
    let parents: Vec<Parent> = docs.iter().map(|d| Parent::Document(d.id)).collect();
    let recipients = recipients::of_each(conn, &parents)?;
    let fields = fields::of_each(conn, &parents)?;
    Ok(docs
        .into_iter()
        .zip(recipients.into_iter().zip(fields))
        .map(|(mut doc, (recipients, fields))| {
            doc.recipients = recipients;
            doc.fields = fields;
            doc
        })
        .collect())
}

/// The row with its recipients and fields.
fn complete_aggregate(conn: &Conn, mut doc: Document) -> Result<Document, AppError> {
    doc.recipients = recipients::of(conn, Parent::Document(doc.id))?;
    doc.fields = fields::of(conn, Parent::Document(doc.id))?;
    Ok(doc)
}

fn load_where(
    conn: &Conn,
    filter: &str,
    args: impl crate::core::db::Params,
) -> Result<Option<Document>, AppError> {
    let mut stmt =
        conn.prepare_cached(&format!("SELECT {COLUMNS} FROM documents WHERE {filter}"))?;
    match stmt.query_row(args, from_row).optional()? {
        Some(doc) => Ok(Some(complete_aggregate(conn, doc)?)),
        None => Ok(None),
    }
}

/// The documents of `ids` that `owner` reaches (listed or not), each with its recipients and
/// fields, in no particular order; those it does not reach are left out. Three queries for all
/// of them; `ids` is a page (at most a few hundred).
pub fn owned_each(
    conn: &Conn,
    owner: &Owner,
    ids: &[DocumentId],
) -> Result<Vec<Document>, AppError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut args: Vec<crate::core::db::Value> = ids.iter().map(|id| id.to_sql()).collect();
    let marks: Vec<String> = (1..=ids.len()).map(|n| format!("?{n}")).collect();
    let clause = owner.clause("", Rows::WithVisibility, &mut args);
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM documents WHERE id IN ({}) AND {clause}",
        marks.join(", ")
    ))?;
    let rows = stmt.query_map(params_from_iter(args), from_row)?;
    complete_aggregates(conn, rows.collect::<Result<Vec<_>, _>>()?)
}

/// Document `id` with its recipients and fields.
pub fn load(conn: &Conn, id: DocumentId) -> Result<Document, AppError> {
    load_where(conn, "id = ?1", [id])?.ok_or_else(|| AppError::not_found("document"))
}

/// Document `id` when `owner` reaches it, or a 404 (also for another user's or another
/// team's document, and for a team document of a visibility the caller's role does not see).
pub fn owned(conn: &Conn, owner: &Owner, id: DocumentId) -> Result<Document, AppError> {
    let mut args = vec![id.to_sql()];
    let clause = owner.clause("", Rows::WithVisibility, &mut args);
    load_where(
        conn,
        &format!("id = ?1 AND {clause}"),
        params_from_iter(args),
    )?
    .ok_or_else(|| AppError::not_found("document"))
}

/// The document behind an upload URL's `documentDataId`.
pub fn by_data_id(conn: &Conn, data_id: &str) -> Result<Option<Document>, AppError> {
    load_where(conn, "document_data_id = ?1", [data_id])
}

/// A new document of `owner`: its `user` is the creator, its team `owner`'s team.
pub fn insert(
    tx: &Conn,
    owner: &Owner,
    doc: &CreateDocument,
    data_id: &str,
    now: i64,
) -> Result<DocumentId, AppError> {
    let inserted_id = tx.insert(
        "INSERT INTO documents (user_id, external_id, title, document_data_id, meta, auth_options, form_values, created_at, updated_at, team_id, visibility)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8, ?9, ?10)",
        params![
            owner.user(),
            doc.external_id,
            doc.title,
            data_id,
            serde_json::to_string(&doc.meta).unwrap_or_default(),
            serde_json::to_string(&doc.auth_options).unwrap_or_default(),
            doc.form_values.as_ref().map(|f| Value::Object(f.clone()).to_string()),
            now,
            owner.team(),
            doc.visibility.unwrap_or(crate::core::owner::Visibility::Everyone)
        ],
    )?;
    let id = DocumentId::new(inserted_id);
    for r in &doc.recipients {
        recipients::insert(tx, Parent::Document(id), r, now)?;
    }
    Ok(id)
}

/// What `DELETE /api/v1/documents/{id}` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deleted {
    /// A draft: gone, its file released (`delete` answers the blob to remove after commit).
    Removed,
    /// Pending: now CANCELLED, its signing links dead.
    Cancelled,
    /// Finished: hidden from lists, kept for the record.
    Hidden,
}

/// Deletes, cancels or hides `doc` by its status; with a removed draft, the blob to remove
/// after commit when nothing else refers to its file (a document made from a template shares
/// the template's).
pub fn delete(tx: &Conn, doc: &Document, now: i64) -> Result<(Deleted, Option<String>), AppError> {
    match doc.status {
        Status::Draft => {
            tx.execute(
                "DELETE FROM documents WHERE id = ?1 AND status = 'DRAFT'",
                [doc.id],
            )?;
            let file = crate::core::blob::rows::released(tx, doc.blob_id.as_deref())?;
            Ok((Deleted::Removed, file))
        }
        Status::Pending => {
            if !set_status(tx, doc.id, Status::Pending, Status::Cancelled, now)? {
                return Err(AppError::Conflict(
                    "the document changed state; try again".into(),
                ));
            }
            Ok((Deleted::Cancelled, None))
        }
        _ => {
            tx.execute(
                "UPDATE documents SET hidden = 1, updated_at = ?2 WHERE id = ?1",
                params![doc.id, now],
            )?;
            Ok((Deleted::Hidden, None))
        }
    }
}

/// Records an uploaded file on `parent`: a document while it is a draft (checked in SQL; 409
/// otherwise), or a template. Answers the replaced blob's id when its file can go (nothing else
/// refers to it: a template's file stays while documents made from it share it).
pub fn set_file(
    tx: &Conn,
    parent: Parent,
    blob: &crate::core::blob::store::StoredBlob,
    page_sizes: &str,
    now: i64,
) -> Result<Option<String>, AppError> {
    let (table, only) = match parent {
        Parent::Document(_) => ("documents", " AND status = 'DRAFT'"),
        Parent::Template(_) => ("templates", ""),
    };
    let old: Option<Option<String>> = tx
        .query_row(
            &format!("SELECT blob_id FROM {table} WHERE id = ?1{only}"),
            [parent.id()],
            |r| r.get(0),
        )
        .optional()?;
    let Some(old) = old else {
        return Err(match parent {
            Parent::Document(_) => AppError::Conflict(
                "the document is no longer a draft; its file cannot change".into(),
            ),
            Parent::Template(_) => AppError::not_found("template"),
        });
    };
    // A template's file may be shared by documents being made from it right now: held, it
    // cannot be released under them.
    if let (Parent::Template(_), Some(o)) = (parent, &old) {
        crate::core::blob::rows::hold(tx, o)?;
    }
    crate::core::blob::rows::insert_pdf(tx, blob, now)?;
    tx.execute(
        &format!(
            "UPDATE {table} SET blob_id = ?2, page_sizes = ?3, updated_at = ?4 WHERE id = ?1{only}"
        ),
        params![parent.id(), blob.id.as_str(), page_sizes, now],
    )?;
    crate::core::blob::rows::released(tx, old.as_deref())
}

/// Makes file `blob`, already recorded (a template's), new draft `doc`'s too: the document
/// refers to the same stored file instead of a copy. The caller holds the blob
/// (`rows::hold`) since before it read that the file is there.
pub fn share_file(
    tx: &Conn,
    doc: DocumentId,
    blob: &str,
    page_sizes: &str,
    now: i64,
) -> Result<(), AppError> {
    tx.execute(
        "UPDATE documents SET blob_id = ?2, page_sizes = ?3, updated_at = ?4 WHERE id = ?1 AND status = 'DRAFT'",
        params![doc, blob, page_sizes, now],
    )?;
    Ok(())
}

/// Marks the document changed now.
pub fn touch(tx: &Conn, doc: DocumentId, now: i64) -> Result<(), AppError> {
    tx.execute(
        "UPDATE documents SET updated_at = ?2 WHERE id = ?1",
        params![doc, now],
    )?;
    Ok(())
}

/// Marks template `template` changed now: its recipients and fields are written here too
/// (`Parent`).
pub fn touch_template(tx: &Conn, template: TemplateId, now: i64) -> Result<(), AppError> {
    tx.execute(
        "UPDATE templates SET updated_at = ?2 WHERE id = ?1",
        params![template, now],
    )?;
    Ok(())
}

/// Replaces the document's `meta` (e.g. the e-mail settings a send overrides).
pub fn set_meta(tx: &Conn, doc: DocumentId, meta: &Meta, now: i64) -> Result<(), AppError> {
    let json = serde_json::to_string(meta)
        .map_err(|e| AppError::internal(format!("meta does not serialise: {e}")))?;
    tx.execute(
        "UPDATE documents SET meta = ?2, updated_at = ?3 WHERE id = ?1",
        params![doc, json, now],
    )?;
    Ok(())
}

/// Writes a draft's settings (`PATCH /api/v1/documents/{id}`), each kept when `None`.
pub fn set_settings(
    tx: &Conn,
    doc: &Document,
    change: &super::settings::SettingsChange,
    now: i64,
) -> Result<(), AppError> {
    let title = change.title.as_ref().unwrap_or(&doc.title);
    let external_id = change.external_id.as_ref().unwrap_or(&doc.external_id);
    let auth = serde_json::to_string(&change.auth_options).unwrap_or_default();
    let visibility = change.visibility.unwrap_or(doc.visibility);
    tx.execute(
        "UPDATE documents SET title = ?2, external_id = ?3, auth_options = ?4, visibility = ?5
          WHERE id = ?1",
        params![doc.id, title, external_id, auth, visibility],
    )?;
    set_meta(tx, doc.id, &change.meta, now)
}

/// Records the template a document was generated from (`templates.id`, SET NULL on its deletion).
pub fn set_template(tx: &Conn, doc: DocumentId, template: TemplateId) -> Result<(), AppError> {
    tx.execute(
        "UPDATE documents SET template_id = ?2 WHERE id = ?1",
        params![doc, template],
    )?;
    Ok(())
}

/// Moves the document from `from` to `to`; false when it was no longer `from`.
pub fn set_status(
    tx: &Conn,
    doc: DocumentId,
    from: Status,
    to: Status,
    now: i64,
) -> Result<bool, AppError> {
    let n = tx.execute(
        "UPDATE documents SET status = ?3, updated_at = ?4,
                sent_at = CASE WHEN ?3 = 'PENDING' THEN ?4 ELSE sent_at END
         WHERE id = ?1 AND status = ?2",
        params![doc, from, to, now],
    )?;
    Ok(n == 1)
}

/// The SHA-256 (hex) of document `id`'s sealed file, while the document is COMPLETED and not
/// deleted by its owner (hidden).
pub fn sealed_sha256(conn: &Conn, id: DocumentId) -> Result<Option<String>, AppError> {
    use crate::core::db::OptionalExtension;
    Ok(conn
        .query_row(
            "SELECT b.sha256 FROM documents d JOIN blobs b ON b.id = d.sealed_blob_id
              WHERE d.id = ?1 AND d.status = 'COMPLETED' AND d.hidden = 0",
            [id],
            |r| r.get(0),
        )
        .optional()?)
}

/// Records the sealed file and completes the document at `completed_at` (the time its audit
/// certificate states), if it is still PENDING with every acting recipient finished. False
/// otherwise (e.g. cancelled while sealing).
pub fn complete(
    tx: &Conn,
    doc: DocumentId,
    sealed: &str,
    completed_at: i64,
    now: i64,
) -> Result<bool, AppError> {
    let n = tx.execute(
        "UPDATE documents SET status = 'COMPLETED', sealed_blob_id = ?2, completed_at = ?3, updated_at = ?4,
                seal_next_at = NULL
         WHERE id = ?1 AND status = 'PENDING'
           AND NOT EXISTS (SELECT 1 FROM recipients WHERE document_id = ?1 AND role <> 'CC' AND signing_status <> 'SIGNED')",
        params![doc, sealed, completed_at, now],
    )?;
    Ok(n == 1)
}

/// Claims `doc` for one sealing attempt until `lease_until`, if it is still PENDING and its
/// attempt is due at `now`: true for the one worker (of any node) that gets it. The outcome
/// (`complete`, `record_seal_failure`) ends the lease; when the process dies while sealing,
/// the lease runs out and another worker seals it.
pub fn claim_seal(
    tx: &Conn,
    doc: DocumentId,
    now: i64,
    lease_until: i64,
) -> Result<bool, AppError> {
    let n = tx.execute(
        "UPDATE documents SET seal_next_at = ?3
          WHERE id = ?1 AND status = 'PENDING' AND (seal_next_at IS NULL OR seal_next_at <= ?2)",
        params![doc, now, lease_until],
    )?;
    Ok(n == 1)
}

/// PENDING documents whose acting recipients have all finished but that are not sealed yet,
/// with when their next sealing attempt is due (`None`: at once; a time after a failure).
pub fn awaiting_seal(conn: &Conn) -> Result<Vec<(DocumentId, Option<i64>)>, AppError> {
    let mut stmt = conn.prepare(
        "SELECT d.id, d.seal_next_at FROM documents d WHERE d.status = 'PENDING'
           AND EXISTS (SELECT 1 FROM recipients WHERE document_id = d.id AND role <> 'CC')
           AND NOT EXISTS (SELECT 1 FROM recipients WHERE document_id = d.id AND role <> 'CC' AND signing_status <> 'SIGNED')",
    )?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Records a failed sealing attempt on a PENDING document: one more failure, its `error`, and
/// the next attempt at `next(failures)`. Returns (failures, next attempt), or `None` when the
/// document is no longer PENDING.
pub fn record_seal_failure(
    tx: &Conn,
    doc: DocumentId,
    error: &str,
    next: impl Fn(u32) -> i64,
    now: i64,
) -> Result<Option<(u32, i64)>, AppError> {
    let before: Option<i64> = tx
        .query_row(
            "SELECT seal_failures FROM documents WHERE id = ?1 AND status = 'PENDING'",
            [doc],
            |r| r.get(0),
        )
        .optional()?;
    let Some(before) = before else {
        return Ok(None);
    };
    let failures = u32::try_from(before).unwrap_or(0).saturating_add(1);
    let at = next(failures);
    tx.execute(
        "UPDATE documents SET seal_failures = ?2, seal_error = ?3, seal_next_at = ?4, updated_at = ?5
         WHERE id = ?1 AND status = 'PENDING'",
        params![doc, failures, error, at, now],
    )?;
    Ok(Some((failures, at)))
}
