//! SQL for `documents`, and for their rows in `recipients` and `fields`.

use rusqlite::{Connection, OptionalExtension, Row, params};
use serde_json::Value;

use super::fields::NewField;
use super::meta::Meta;
use super::recipients::{NewRecipient, new_token};
use super::{CreateDocument, DocumentView, FieldView, RecipientView, Status};
use crate::error::{AppError, conflict_on_unique};
use crate::timefmt::{iso8601, iso8601_opt};

/// What handlers need to check a document's state before changing it.
#[derive(Debug, Clone)]
pub struct DocRow {
    pub id: i64,
    pub status: Status,
    pub blob_id: Option<String>,
    pub document_data_id: String,
    /// Page count of the uploaded PDF, when there is one.
    pub pages: Option<i64>,
}

fn doc_row(r: &Row<'_>) -> rusqlite::Result<DocRow> {
    let status: String = r.get(1)?;
    let sizes: Option<String> = r.get(4)?;
    Ok(DocRow {
        id: r.get(0)?,
        status: Status::parse(&status).unwrap_or(Status::Draft),
        blob_id: r.get(2)?,
        document_data_id: r.get(3)?,
        pages: sizes
            .and_then(|s| serde_json::from_str::<Vec<Value>>(&s).ok())
            .map(|v| v.len() as i64),
    })
}

/// The user's document `id`, or a 404 (also for another user's document).
pub fn owned(conn: &Connection, user: i64, id: i64) -> Result<DocRow, AppError> {
    conn.query_row(
        "SELECT id, status, blob_id, document_data_id, page_sizes FROM documents WHERE id = ?1 AND user_id = ?2",
        params![id, user],
        doc_row,
    )
    .optional()?
    .ok_or_else(|| AppError::not_found("document"))
}

/// The e-mail address of user `user` (a document's owner, as the audit log names them).
pub fn owner_email(conn: &Connection, user: i64) -> Result<String, AppError> {
    Ok(
        conn.query_row("SELECT email FROM users WHERE id = ?1", [user], |r| {
            r.get(0)
        })?,
    )
}

/// The document behind an upload URL's `documentDataId`.
pub fn by_data_id(conn: &Connection, data_id: &str) -> Result<Option<DocRow>, AppError> {
    Ok(conn
        .query_row(
            "SELECT id, status, blob_id, document_data_id, page_sizes FROM documents WHERE document_data_id = ?1",
            [data_id],
            doc_row,
        )
        .optional()?)
}

/// 409 unless the document is still open (DRAFT or PENDING): recipients may change until it
/// is finished or cancelled.
pub fn require_open(doc: &DocRow, action: &str) -> Result<(), AppError> {
    if matches!(doc.status, Status::Draft | Status::Pending) {
        Ok(())
    } else {
        Err(AppError::Conflict(format!(
            "cannot {action}: the document is {}",
            doc.status.as_str()
        )))
    }
}

/// 409 unless the document is a draft.
pub fn require_draft(doc: &DocRow, action: &str) -> Result<(), AppError> {
    if doc.status == Status::Draft {
        Ok(())
    } else {
        Err(AppError::Conflict(format!(
            "cannot {action}: the document is {}, not DRAFT",
            doc.status.as_str()
        )))
    }
}

pub fn insert(
    tx: &Connection,
    user: i64,
    doc: &CreateDocument,
    data_id: &str,
    now: i64,
) -> Result<i64, AppError> {
    tx.execute(
        "INSERT INTO documents (user_id, external_id, title, document_data_id, meta, auth_options, form_values, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)",
        params![
            user,
            doc.external_id,
            doc.title,
            data_id,
            serde_json::to_string(&doc.meta).unwrap_or_default(),
            serde_json::to_string(&doc.auth_options).unwrap_or_default(),
            doc.form_values.as_ref().map(|f| Value::Object(f.clone()).to_string()),
            now
        ],
    )?;
    let id = tx.last_insert_rowid();
    for r in &doc.recipients {
        insert_recipient(tx, id, r, now)?;
    }
    Ok(id)
}

/// Adds a recipient with a fresh token; the same e-mail twice on one document is a 409.
pub fn insert_recipient(
    tx: &Connection,
    doc: i64,
    r: &NewRecipient,
    now: i64,
) -> Result<i64, AppError> {
    tx.execute(
        "INSERT INTO recipients (document_id, email, name, role, signing_order, token, auth_options, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            doc,
            r.email,
            r.name,
            r.role.as_str(),
            r.signing_order,
            new_token(),
            (!r.auth.is_empty()).then(|| serde_json::to_string(&r.auth).unwrap_or_default()),
            now
        ],
    )
    .map_err(|e| conflict_on_unique(e, &format!("{} is already a recipient of this document", r.email)))?;
    Ok(tx.last_insert_rowid())
}

const RECIPIENT_COLUMNS: &str =
    "id, document_id, email, name, role, signing_order, token, signed_at,
    read_status, signing_status, send_status";

fn recipient_view(r: &Row<'_>, app_url: &str) -> rusqlite::Result<RecipientView> {
    let token: String = r.get(6)?;
    Ok(RecipientView {
        id: r.get(0)?,
        document_id: r.get(1)?,
        email: r.get(2)?,
        name: r.get(3)?,
        role: r.get(4)?,
        signing_order: r.get(5)?,
        signing_url: Some(format!("{app_url}/sign/{token}")),
        token: Some(token),
        signed_at: iso8601_opt(r.get(7)?),
        read_status: r.get(8)?,
        signing_status: r.get(9)?,
        send_status: r.get(10)?,
    })
}

pub fn recipients(
    conn: &Connection,
    doc: i64,
    app_url: &str,
) -> Result<Vec<RecipientView>, AppError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {RECIPIENT_COLUMNS} FROM recipients WHERE document_id = ?1 ORDER BY id"
    ))?;
    let rows = stmt.query_map([doc], |r| recipient_view(r, app_url))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn recipient(
    conn: &Connection,
    doc: i64,
    id: i64,
    app_url: &str,
) -> Result<RecipientView, AppError> {
    conn.query_row(
        &format!("SELECT {RECIPIENT_COLUMNS} FROM recipients WHERE document_id = ?1 AND id = ?2"),
        params![doc, id],
        |r| recipient_view(r, app_url),
    )
    .optional()?
    .ok_or_else(|| AppError::not_found("recipient"))
}

/// Changes a recipient that has not acted yet; the other recipients stay as they are. A new
/// e-mail address is a new person: the recipient gets a new signing token (the old link then
/// answers like an unknown one), is again unsent and unopened, and loses values entered through
/// the old link. Returns the previous address when it changed.
pub fn update_recipient(
    tx: &Connection,
    doc: i64,
    id: i64,
    r: &NewRecipient,
) -> Result<Option<String>, AppError> {
    let old: Option<String> = tx
        .query_row(
            "SELECT email FROM recipients WHERE document_id = ?1 AND id = ?2",
            params![doc, id],
            |row| row.get(0),
        )
        .optional()?;
    let Some(old) = old else {
        return Err(AppError::not_found("recipient"));
    };
    let readdressed = old != r.email;
    let n = tx
        .execute(
            "UPDATE recipients SET email = ?3, name = ?4, role = ?5, signing_order = ?6, auth_options = ?7
              WHERE document_id = ?1 AND id = ?2 AND signing_status = 'NOT_SIGNED'",
            params![
                doc,
                id,
                r.email,
                r.name,
                r.role.as_str(),
                r.signing_order,
                (!r.auth.is_empty()).then(|| serde_json::to_string(&r.auth).unwrap_or_default()),
            ],
        )
        .map_err(|e| conflict_on_unique(e, &format!("{} is already a recipient of this document", r.email)))?;
    if n == 0 {
        return Err(AppError::Conflict(
            "the recipient has already acted and cannot be changed".into(),
        ));
    }
    if !readdressed {
        return Ok(None);
    }
    tx.execute(
        "UPDATE recipients SET token = ?2, send_status = 'NOT_SENT', sent_at = NULL,
                read_status = 'NOT_OPENED', opened_at = NULL
          WHERE id = ?1",
        params![id, new_token()],
    )?;
    tx.execute(
        "UPDATE fields SET custom_text = NULL, signature_png = NULL, inserted = 0, filled_at = NULL
          WHERE recipient_id = ?1",
        [id],
    )?;
    Ok(Some(old))
}

fn recipient_exists(conn: &Connection, doc: i64, id: i64) -> Result<(), AppError> {
    let exists: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM recipients WHERE document_id = ?1 AND id = ?2)",
        params![doc, id],
        |r| r.get(0),
    )?;
    if exists {
        Ok(())
    } else {
        Err(AppError::not_found("recipient"))
    }
}

/// Deletes a recipient that has not acted, and its fields.
pub fn delete_recipient(tx: &Connection, doc: i64, id: i64) -> Result<(), AppError> {
    let n = tx.execute(
        "DELETE FROM recipients WHERE document_id = ?1 AND id = ?2 AND signing_status = 'NOT_SIGNED'",
        params![doc, id],
    )?;
    if n == 0 {
        recipient_exists(tx, doc, id)?;
        return Err(AppError::Conflict(
            "the recipient has already acted and cannot be removed".into(),
        ));
    }
    Ok(())
}

/// Ids of the document's recipients, for field validation.
pub fn recipient_ids(conn: &Connection, doc: i64) -> Result<Vec<i64>, AppError> {
    let mut stmt = conn.prepare_cached("SELECT id FROM recipients WHERE document_id = ?1")?;
    let rows = stmt.query_map([doc], |r| r.get(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn insert_field(tx: &Connection, doc: i64, f: &NewField, now: i64) -> Result<i64, AppError> {
    tx.execute(
        "INSERT INTO fields (document_id, recipient_id, type, page_number, page_x, page_y, page_width, page_height, field_meta, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        params![
            doc,
            f.recipient_id,
            f.kind.as_str(),
            f.page_number,
            f.page_x,
            f.page_y,
            f.page_width,
            f.page_height,
            f.field_meta.as_ref().map(Value::to_string),
            now
        ],
    )?;
    Ok(tx.last_insert_rowid())
}

pub fn update_field(tx: &Connection, doc: i64, id: i64, f: &NewField) -> Result<(), AppError> {
    let n = tx.execute(
        "UPDATE fields SET recipient_id = ?3, type = ?4, page_number = ?5, page_x = ?6, page_y = ?7,
                page_width = ?8, page_height = ?9, field_meta = ?10
          WHERE document_id = ?1 AND id = ?2",
        params![
            doc,
            id,
            f.recipient_id,
            f.kind.as_str(),
            f.page_number,
            f.page_x,
            f.page_y,
            f.page_width,
            f.page_height,
            f.field_meta.as_ref().map(Value::to_string)
        ],
    )?;
    if n == 0 {
        return Err(AppError::not_found("field"));
    }
    Ok(())
}

pub fn delete_field(tx: &Connection, doc: i64, id: i64) -> Result<(), AppError> {
    let n = tx.execute(
        "DELETE FROM fields WHERE document_id = ?1 AND id = ?2",
        params![doc, id],
    )?;
    if n == 0 {
        return Err(AppError::not_found("field"));
    }
    Ok(())
}

fn field_view(r: &Row<'_>) -> rusqlite::Result<FieldView> {
    let meta: Option<String> = r.get(9)?;
    Ok(FieldView {
        id: r.get(0)?,
        document_id: r.get(1)?,
        recipient_id: r.get(2)?,
        kind: r.get(3)?,
        page_number: r.get(4)?,
        page_x: r.get(5)?,
        page_y: r.get(6)?,
        page_width: r.get(7)?,
        page_height: r.get(8)?,
        field_meta: meta.and_then(|m| serde_json::from_str(&m).ok()),
        inserted: r.get(10)?,
        custom_text: r.get(11)?,
    })
}

/// Whose fields: a document's or a template's.
#[derive(Debug, Clone, Copy)]
pub enum FieldsOf {
    Document(i64),
    Template(i64),
}

/// Where each field of a document or template sits, for the checks against its file.
pub fn placements(
    conn: &Connection,
    of: FieldsOf,
) -> Result<Vec<super::fields::Placement>, AppError> {
    let (sql, id) = match of {
        FieldsOf::Document(id) => (
            "SELECT id, page_number, page_x, page_y, page_width, page_height FROM fields WHERE document_id = ?1",
            id,
        ),
        FieldsOf::Template(id) => (
            "SELECT id, page_number, page_x, page_y, page_width, page_height FROM fields WHERE template_id = ?1",
            id,
        ),
    };
    let mut stmt = conn.prepare_cached(sql)?;
    let rows = stmt.query_map([id], |r| {
        Ok(super::fields::Placement {
            id: r.get(0)?,
            page: r.get(1)?,
            x: r.get(2)?,
            y: r.get(3)?,
            width: r.get(4)?,
            height: r.get(5)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

const FIELD_COLUMNS: &str = "id, document_id, recipient_id, type, page_number, page_x, page_y,
    page_width, page_height, field_meta, inserted, custom_text";

pub fn fields(conn: &Connection, doc: i64) -> Result<Vec<FieldView>, AppError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {FIELD_COLUMNS} FROM fields WHERE document_id = ?1 ORDER BY id"
    ))?;
    let rows = stmt.query_map([doc], field_view)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn field(conn: &Connection, doc: i64, id: i64) -> Result<FieldView, AppError> {
    conn.query_row(
        &format!("SELECT {FIELD_COLUMNS} FROM fields WHERE document_id = ?1 AND id = ?2"),
        params![doc, id],
        field_view,
    )
    .optional()?
    .ok_or_else(|| AppError::not_found("field"))
}

const DOC_COLUMNS: &str = "id, external_id, user_id, title, status, document_data_id, created_at,
    updated_at, completed_at, meta, seal_failures, seal_error, seal_next_at";

fn document_view(conn: &Connection, r: &Row<'_>, app_url: &str) -> Result<DocumentView, AppError> {
    let id: i64 = r.get(0)?;
    let meta: String = r.get(9)?;
    let status: String = r.get(4)?;
    Ok(DocumentView {
        id,
        external_id: r.get(1)?,
        user_id: r.get(2)?,
        team_id: None,
        title: r.get(3)?,
        sealing: super::SealingView::of(&status, r.get(10)?, r.get(11)?, r.get(12)?),
        status,
        document_data_id: r.get(5)?,
        created_at: iso8601(r.get(6)?),
        updated_at: iso8601(r.get(7)?),
        completed_at: iso8601_opt(r.get(8)?),
        recipients: recipients(conn, id, app_url)?,
        fields: fields(conn, id)?,
        meta: serde_json::from_str::<Meta>(&meta).unwrap_or_default(),
    })
}

/// The user's document as the API shows it, or a 404.
pub fn view(
    conn: &Connection,
    user: i64,
    id: i64,
    app_url: &str,
) -> Result<DocumentView, AppError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {DOC_COLUMNS} FROM documents WHERE id = ?1 AND user_id = ?2"
    ))?;
    let mut rows = stmt.query(params![id, user])?;
    match rows.next()? {
        Some(r) => document_view(conn, r, app_url),
        None => Err(AppError::not_found("document")),
    }
}

/// A page of the user's listed documents, newest first, and how many there are in all.
pub fn list(
    conn: &Connection,
    user: i64,
    status: Option<Status>,
    limit: i64,
    offset: i64,
    app_url: &str,
) -> Result<(Vec<DocumentView>, i64), AppError> {
    let status = status.map(Status::as_str);
    let total: i64 = conn.query_row(
        "SELECT count(*) FROM documents WHERE user_id = ?1 AND hidden = 0 AND (?2 IS NULL OR status = ?2)",
        params![user, status],
        |r| r.get(0),
    )?;
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {DOC_COLUMNS} FROM documents WHERE user_id = ?1 AND hidden = 0 AND (?2 IS NULL OR status = ?2)
          ORDER BY created_at DESC, id DESC LIMIT ?3 OFFSET ?4"
    ))?;
    let mut rows = stmt.query(params![user, status, limit, offset])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        out.push(document_view(conn, r, app_url)?);
    }
    Ok((out, total))
}

/// What `DELETE /api/v1/documents/{id}` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deleted {
    /// A draft: gone, with its file (the blob id to remove after commit).
    Removed,
    /// Pending: now CANCELLED, its signing links dead.
    Cancelled,
    /// Finished: hidden from lists, kept for the record.
    Hidden,
}

pub fn delete(tx: &Connection, doc: &DocRow, now: i64) -> Result<Deleted, AppError> {
    match doc.status {
        Status::Draft => {
            tx.execute(
                "DELETE FROM documents WHERE id = ?1 AND status = 'DRAFT'",
                [doc.id],
            )?;
            if let Some(b) = &doc.blob_id {
                crate::blob::rows::delete(tx, b)?;
            }
            Ok(Deleted::Removed)
        }
        Status::Pending => {
            let n = tx.execute(
                "UPDATE documents SET status = 'CANCELLED', updated_at = ?2 WHERE id = ?1 AND status = 'PENDING'",
                params![doc.id, now],
            )?;
            if n == 0 {
                return Err(AppError::Conflict(
                    "the document changed state; try again".into(),
                ));
            }
            Ok(Deleted::Cancelled)
        }
        _ => {
            tx.execute(
                "UPDATE documents SET hidden = 1, updated_at = ?2 WHERE id = ?1",
                params![doc.id, now],
            )?;
            Ok(Deleted::Hidden)
        }
    }
}

/// Records an uploaded file on a draft (checked in SQL); returns the replaced blob's id.
pub fn set_file(
    tx: &Connection,
    doc: i64,
    blob: &crate::blob::store::StoredBlob,
    page_sizes: &str,
    now: i64,
) -> Result<Option<String>, AppError> {
    let old: Option<Option<String>> = tx
        .query_row(
            "SELECT blob_id FROM documents WHERE id = ?1 AND status = 'DRAFT'",
            [doc],
            |r| r.get(0),
        )
        .optional()?;
    let Some(old) = old else {
        return Err(AppError::Conflict(
            "the document is no longer a draft; its file cannot change".into(),
        ));
    };
    crate::blob::rows::insert_pdf(tx, blob, now)?;
    tx.execute(
        "UPDATE documents SET blob_id = ?2, page_sizes = ?3, updated_at = ?4 WHERE id = ?1 AND status = 'DRAFT'",
        params![doc, blob.id.as_str(), page_sizes, now],
    )?;
    if let Some(o) = &old {
        crate::blob::rows::delete(tx, o)?;
    }
    Ok(old)
}

/// Marks the document changed now.
pub fn touch(tx: &Connection, doc: i64, now: i64) -> Result<(), AppError> {
    tx.execute(
        "UPDATE documents SET updated_at = ?2 WHERE id = ?1",
        params![doc, now],
    )?;
    Ok(())
}

/// Records the template a document was generated from (`templates.id`, SET NULL on its deletion).
pub fn set_template(tx: &Connection, doc: i64, template: i64) -> Result<(), AppError> {
    tx.execute(
        "UPDATE documents SET template_id = ?2 WHERE id = ?1",
        params![doc, template],
    )?;
    Ok(())
}

/// The recipient's signing request was handed to the mail system: `sendStatus` SENT, and
/// `sent_at` the first time.
pub fn mark_sent(tx: &Connection, recipient: i64, now: i64) -> Result<(), AppError> {
    tx.execute(
        "UPDATE recipients SET send_status = 'SENT', sent_at = COALESCE(sent_at, ?2) WHERE id = ?1",
        params![recipient, now],
    )?;
    Ok(())
}

/// What filling a document's form needs: its status, file, `formValues` and page sizes.
pub struct FormSource {
    pub status: Status,
    pub blob_id: Option<String>,
    pub form_values: Option<String>,
    pub page_sizes: Option<String>,
}

pub fn form_source(conn: &Connection, doc: i64) -> Result<FormSource, AppError> {
    Ok(conn.query_row(
        "SELECT status, blob_id, form_values, page_sizes FROM documents WHERE id = ?1",
        [doc],
        |r| {
            Ok(FormSource {
                status: r.get(0)?,
                blob_id: r.get(1)?,
                form_values: r.get(2)?,
                page_sizes: r.get(3)?,
            })
        },
    )?)
}

/// A document's files: its status, the uploaded file, the sealed one, and its title.
pub struct Files {
    pub status: Status,
    pub uploaded: Option<String>,
    pub sealed: Option<String>,
    pub title: String,
}

pub fn files(conn: &Connection, doc: i64) -> Result<Files, AppError> {
    Ok(conn.query_row(
        "SELECT status, blob_id, sealed_blob_id, title FROM documents WHERE id = ?1",
        [doc],
        |r| {
            Ok(Files {
                status: r.get(0)?,
                uploaded: r.get(1)?,
                sealed: r.get(2)?,
                title: r.get(3)?,
            })
        },
    )?)
}

/// A document's state as the signing flow checks it.
#[derive(Debug, Clone)]
pub struct State {
    pub status: Status,
    pub blob_id: Option<String>,
    pub meta: Meta,
    /// Pages of its file (0 before an upload).
    pub pages: i64,
}

/// Document `doc`'s state; stored JSON the code cannot read is an error, never a default.
pub fn state(conn: &Connection, doc: i64) -> Result<State, AppError> {
    let (status, blob_id, meta, sizes): (Status, Option<String>, String, Option<String>) = conn
        .query_row(
            "SELECT status, blob_id, meta, page_sizes FROM documents WHERE id = ?1",
            [doc],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )?;
    let meta = crate::db::stored_json(2, &meta)?;
    let pages = match sizes {
        Some(s) => crate::db::stored_json::<Vec<Value>>(3, &s)?.len() as i64,
        None => 0,
    };
    Ok(State {
        status,
        blob_id,
        meta,
        pages,
    })
}

/// Whether recipient `recipient` has a signature field (SIGNATURE or FREE_SIGNATURE).
pub fn has_signature_field(conn: &Connection, recipient: i64) -> Result<bool, AppError> {
    Ok(conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM fields WHERE recipient_id = ?1 AND type IN ('SIGNATURE', 'FREE_SIGNATURE'))",
        [recipient],
        |r| r.get(0),
    )?)
}

/// What messages about a document name: its title and meta, and its sender.
#[derive(Debug, Clone)]
pub struct Heading {
    pub title: String,
    pub meta: Meta,
    pub sender_name: String,
    pub sender_email: String,
}

pub fn heading(conn: &Connection, doc: i64) -> Result<Heading, AppError> {
    Ok(conn.query_row(
        "SELECT d.title, d.meta, u.name, u.email FROM documents d JOIN users u ON u.id = d.user_id WHERE d.id = ?1",
        [doc],
        |r| {
            let meta: String = r.get(1)?;
            Ok(Heading {
                title: r.get(0)?,
                meta: crate::db::stored_json(1, &meta)?,
                sender_name: r.get(2)?,
                sender_email: r.get(3)?,
            })
        },
    )?)
}

/// The recipients of `doc` whose signing request was e-mailed.
pub fn emailed_recipients(conn: &Connection, doc: i64) -> Result<Vec<i64>, AppError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id FROM recipients WHERE document_id = ?1 AND send_status = 'SENT'",
    )?;
    let rows = stmt.query_map([doc], |r| r.get(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The owner of document `doc`.
pub fn owner_of(conn: &Connection, doc: i64) -> Result<i64, AppError> {
    Ok(
        conn.query_row("SELECT user_id FROM documents WHERE id = ?1", [doc], |r| {
            r.get(0)
        })?,
    )
}
