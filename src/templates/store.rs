//! SQL for `templates`, and for their rows in `recipients` and `fields` (`template_id` set).

use rusqlite::{Connection, OptionalExtension, Row, params};
use serde_json::Value;

use super::{
    Base, CreateTemplate, DOCUMENT_DATA_TYPE, DirectLink, TemplateDocumentData, TemplateField,
    TemplateMeta, TemplateRecipient, TemplateView, decimal, placeholder_email,
};
use crate::documents::RecipientBrief;
use crate::documents::fields::{FieldType, NewField};
use crate::documents::meta::{AuthOptions, Meta, RecipientAuth};
use crate::documents::recipients::{NewRecipient, Role, new_token};
use crate::error::AppError;
use crate::timefmt::iso8601;

/// What handlers need to change a template.
#[derive(Debug, Clone)]
pub struct TemplateRow {
    pub id: i64,
    pub title: String,
    pub blob_id: Option<String>,
    /// JSON `[[w, h], ...]` of the uploaded PDF, when there is one.
    pub page_sizes: Option<String>,
    pub meta: Meta,
    pub auth_options: AuthOptions,
}

impl TemplateRow {
    /// Page count of the uploaded PDF, when there is one.
    pub fn pages(&self) -> Option<i64> {
        self.page_sizes
            .as_deref()
            .and_then(|s| serde_json::from_str::<Vec<Value>>(s).ok())
            .map(|v| v.len() as i64)
    }
}

fn template_row(r: &Row<'_>) -> rusqlite::Result<TemplateRow> {
    let meta: String = r.get(4)?;
    let auth: String = r.get(5)?;
    Ok(TemplateRow {
        id: r.get(0)?,
        title: r.get(1)?,
        blob_id: r.get(2)?,
        page_sizes: r.get(3)?,
        meta: serde_json::from_str(&meta).unwrap_or_default(),
        auth_options: serde_json::from_str(&auth).unwrap_or_default(),
    })
}

/// The user's template `id`, or a 404 (also for another user's template).
pub fn owned(conn: &Connection, user: i64, id: i64) -> Result<TemplateRow, AppError> {
    conn.query_row(
        "SELECT id, title, blob_id, page_sizes, meta, auth_options FROM templates WHERE id = ?1 AND user_id = ?2",
        params![id, user],
        template_row,
    )
    .optional()?
    .ok_or_else(|| AppError::not_found("template"))
}

/// The template behind an upload URL's `documentDataId`.
pub fn by_data_id(conn: &Connection, data_id: &str) -> Result<Option<i64>, AppError> {
    Ok(conn
        .query_row(
            "SELECT id FROM templates WHERE document_data_id = ?1",
            [data_id],
            |r| r.get(0),
        )
        .optional()?)
}

pub fn insert(
    tx: &Connection,
    user: i64,
    t: &CreateTemplate,
    data_id: &str,
    now: i64,
) -> Result<i64, AppError> {
    tx.execute(
        "INSERT INTO templates (user_id, external_id, title, type, document_data_id, meta_id, meta, auth_options,
                                direct_link_token, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10)",
        params![
            user,
            t.external_id,
            t.title,
            t.kind.as_str(),
            data_id,
            format!("tm_{}", crate::crypto::random_base62(24)),
            serde_json::to_string(&t.meta).unwrap_or_default(),
            serde_json::to_string(&t.auth_options).unwrap_or_default(),
            crate::crypto::random_base62(32),
            now
        ],
    )?;
    let id = tx.last_insert_rowid();
    for r in &t.recipients {
        insert_recipient(tx, id, r, now)?;
    }
    Ok(id)
}

/// The placeholder number for a new recipient: after the template's recipients, and free.
pub fn next_placeholder(conn: &Connection, template: i64) -> Result<usize, AppError> {
    let count: i64 = conn.query_row(
        "SELECT count(*) FROM recipients WHERE template_id = ?1",
        [template],
        |r| r.get(0),
    )?;
    let mut n = count as usize + 1;
    while email_taken(conn, template, &placeholder_email(n))? {
        n += 1;
    }
    Ok(n)
}

fn email_taken(conn: &Connection, template: i64, email: &str) -> Result<bool, AppError> {
    Ok(conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM recipients WHERE template_id = ?1 AND email = ?2)",
        params![template, email],
        |r| r.get(0),
    )?)
}

/// Adds a recipient; the same e-mail twice on one template is a 409 (a generated document could
/// not hold both).
pub fn insert_recipient(
    conn: &Connection,
    template: i64,
    r: &NewRecipient,
    now: i64,
) -> Result<i64, AppError> {
    if email_taken(conn, template, &r.email)? {
        return Err(AppError::Conflict(format!(
            "{} is already a recipient of this template",
            r.email
        )));
    }
    conn.execute(
        "INSERT INTO recipients (template_id, email, name, role, signing_order, token, auth_options, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            template,
            r.email,
            r.name,
            r.role.as_str(),
            r.signing_order,
            new_token(),
            (!r.auth.is_empty()).then(|| serde_json::to_string(&r.auth).unwrap_or_default()),
            now
        ],
    )?;
    Ok(conn.last_insert_rowid())
}

const RECIPIENT_COLUMNS: &str = "id, email, name, role, signing_order, auth_options, token";

fn recipient_item(r: &Row<'_>) -> rusqlite::Result<TemplateRecipient> {
    let auth: Option<String> = r.get(5)?;
    Ok(TemplateRecipient {
        id: r.get(0)?,
        email: r.get(1)?,
        name: r.get(2)?,
        role: r.get(3)?,
        signing_order: r.get(4)?,
        auth_options: auth.unwrap_or_default(),
    })
}

pub fn recipients(conn: &Connection, template: i64) -> Result<Vec<TemplateRecipient>, AppError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {RECIPIENT_COLUMNS} FROM recipients WHERE template_id = ?1 ORDER BY id"
    ))?;
    let rows = stmt.query_map([template], recipient_item)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn recipient(conn: &Connection, template: i64, id: i64) -> Result<TemplateRecipient, AppError> {
    conn.query_row(
        &format!("SELECT {RECIPIENT_COLUMNS} FROM recipients WHERE template_id = ?1 AND id = ?2"),
        params![template, id],
        recipient_item,
    )
    .optional()?
    .ok_or_else(|| AppError::not_found("recipient"))
}

/// The template's recipients in the shape create responses give them.
pub fn recipient_briefs(
    conn: &Connection,
    template: i64,
    app_url: &str,
) -> Result<Vec<RecipientBrief>, AppError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {RECIPIENT_COLUMNS} FROM recipients WHERE template_id = ?1 ORDER BY id"
    ))?;
    let rows = stmt.query_map([template], |r| {
        let token: String = r.get(6)?;
        Ok(RecipientBrief {
            recipient_id: r.get(0)?,
            email: r.get(1)?,
            name: r.get(2)?,
            role: r.get(3)?,
            signing_order: r.get(4)?,
            signing_url: Some(format!("{app_url}/sign/{token}")),
            token: Some(token),
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Ids of the template's recipients, for field validation.
pub fn recipient_ids(conn: &Connection, template: i64) -> Result<Vec<i64>, AppError> {
    let mut stmt = conn.prepare_cached("SELECT id FROM recipients WHERE template_id = ?1")?;
    let rows = stmt.query_map([template], |r| r.get(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// What a generated document starts from: title, meta, auth options and recipients.
pub fn base(conn: &Connection, t: &TemplateRow) -> Result<Base, AppError> {
    let recipients = recipients(conn, t.id)?
        .into_iter()
        .map(|r| {
            (
                r.id,
                NewRecipient {
                    email: r.email,
                    name: r.name,
                    role: Role::parse(&r.role).unwrap_or(Role::Signer),
                    signing_order: r.signing_order,
                    auth: serde_json::from_str::<RecipientAuth>(&r.auth_options)
                        .unwrap_or_default(),
                },
            )
        })
        .collect();
    Ok(Base {
        title: t.title.clone(),
        meta: t.meta.clone(),
        auth_options: t.auth_options.clone(),
        recipients,
    })
}

pub fn insert_field(
    tx: &Connection,
    template: i64,
    f: &NewField,
    now: i64,
) -> Result<i64, AppError> {
    tx.execute(
        "INSERT INTO fields (template_id, recipient_id, type, page_number, page_x, page_y, page_width, page_height, field_meta, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        params![
            template,
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

const FIELD_COLUMNS: &str =
    "id, recipient_id, type, page_number, page_x, page_y, page_width, page_height, field_meta";

fn field_item(r: &Row<'_>) -> rusqlite::Result<TemplateField> {
    let meta: Option<String> = r.get(8)?;
    Ok(TemplateField {
        id: r.get(0)?,
        recipient_id: r.get(1)?,
        kind: r.get(2)?,
        page: r.get(3)?,
        position_x: decimal(r.get(4)?),
        position_y: decimal(r.get(5)?),
        width: decimal(r.get(6)?),
        height: decimal(r.get(7)?),
        field_meta: meta.and_then(|m| serde_json::from_str(&m).ok()),
    })
}

pub fn fields(conn: &Connection, template: i64) -> Result<Vec<TemplateField>, AppError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {FIELD_COLUMNS} FROM fields WHERE template_id = ?1 ORDER BY id"
    ))?;
    let rows = stmt.query_map([template], field_item)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn field(conn: &Connection, template: i64, id: i64) -> Result<TemplateField, AppError> {
    conn.query_row(
        &format!("SELECT {FIELD_COLUMNS} FROM fields WHERE template_id = ?1 AND id = ?2"),
        params![template, id],
        field_item,
    )
    .optional()?
    .ok_or_else(|| AppError::not_found("field"))
}

/// The template's fields as they are to be copied into a document (recipient ids still the
/// template's).
pub fn source_fields(conn: &Connection, template: i64) -> Result<Vec<NewField>, AppError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {FIELD_COLUMNS} FROM fields WHERE template_id = ?1 ORDER BY id"
    ))?;
    let rows = stmt.query_map([template], |r| {
        let kind: String = r.get(2)?;
        let meta: Option<String> = r.get(8)?;
        Ok((
            kind,
            NewField {
                recipient_id: r.get(1)?,
                kind: FieldType::Signature,
                page_number: r.get(3)?,
                page_x: r.get(4)?,
                page_y: r.get(5)?,
                page_width: r.get(6)?,
                page_height: r.get(7)?,
                field_meta: meta.and_then(|m| serde_json::from_str(&m).ok()),
            },
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (kind, mut f) = row?;
        f.kind = FieldType::parse(&kind)
            .ok_or_else(|| AppError::internal(format!("stored field type {kind:?}")))?;
        out.push(f);
    }
    Ok(out)
}

const TEMPLATE_COLUMNS: &str =
    "t.id, t.external_id, t.type, t.title, t.user_id, t.document_data_id,
    t.created_at, t.updated_at, t.meta_id, t.meta, t.direct_link_token, t.direct_link_enabled,
    (SELECT sha256 FROM blobs WHERE blobs.id = t.blob_id)";

fn template_view(conn: &Connection, r: &Row<'_>) -> Result<TemplateView, AppError> {
    let id: i64 = r.get(0)?;
    let data_id: String = r.get(5)?;
    let meta: String = r.get(9)?;
    let sha256: Option<String> = r.get(12)?;
    Ok(TemplateView {
        id,
        external_id: r.get(1)?,
        kind: r.get(2)?,
        title: r.get(3)?,
        user_id: r.get(4)?,
        team_id: None,
        template_document_data_id: data_id.clone(),
        created_at: iso8601(r.get(6)?),
        updated_at: iso8601(r.get(7)?),
        template_meta: TemplateMeta::new(
            r.get(8)?,
            id,
            serde_json::from_str(&meta).unwrap_or_default(),
        ),
        direct_link: DirectLink {
            token: r.get(10)?,
            enabled: r.get(11)?,
        },
        template_document_data: TemplateDocumentData {
            id: data_id,
            kind: DOCUMENT_DATA_TYPE,
            data: sha256.unwrap_or_default(),
        },
        fields: fields(conn, id)?,
        recipients: recipients(conn, id)?,
    })
}

/// The user's template as the API shows it, or a 404.
pub fn view(conn: &Connection, user: i64, id: i64) -> Result<TemplateView, AppError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {TEMPLATE_COLUMNS} FROM templates t WHERE t.id = ?1 AND t.user_id = ?2"
    ))?;
    let mut rows = stmt.query(params![id, user])?;
    match rows.next()? {
        Some(r) => template_view(conn, r),
        None => Err(AppError::not_found("template")),
    }
}

/// A page of the user's templates, newest first, and how many there are in all.
pub fn list(
    conn: &Connection,
    user: i64,
    limit: i64,
    offset: i64,
) -> Result<(Vec<TemplateView>, i64), AppError> {
    let total: i64 = conn.query_row(
        "SELECT count(*) FROM templates WHERE user_id = ?1",
        [user],
        |r| r.get(0),
    )?;
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {TEMPLATE_COLUMNS} FROM templates t WHERE t.user_id = ?1
          ORDER BY t.created_at DESC, t.id DESC LIMIT ?2 OFFSET ?3"
    ))?;
    let mut rows = stmt.query(params![user, limit, offset])?;
    let mut out = Vec::new();
    while let Some(r) = rows.next()? {
        out.push(template_view(conn, r)?);
    }
    Ok((out, total))
}

/// Deletes the template with its recipients, fields and file row (the blob id to remove after
/// commit is the row's). Documents generated from it keep theirs (`template_id` becomes NULL).
pub fn delete(tx: &Connection, t: &TemplateRow) -> Result<(), AppError> {
    tx.execute("DELETE FROM templates WHERE id = ?1", [t.id])?;
    if let Some(b) = &t.blob_id {
        crate::blob::rows::delete(tx, b)?;
    }
    Ok(())
}

/// Records an uploaded file on the template; returns the replaced blob's id (its file can go:
/// generated documents hold copies).
pub fn set_file(
    tx: &Connection,
    template: i64,
    blob: &crate::blob::store::StoredBlob,
    page_sizes: &str,
    now: i64,
) -> Result<Option<String>, AppError> {
    let old: Option<Option<String>> = tx
        .query_row(
            "SELECT blob_id FROM templates WHERE id = ?1",
            [template],
            |r| r.get(0),
        )
        .optional()?;
    let Some(old) = old else {
        return Err(AppError::not_found("template"));
    };
    crate::blob::rows::insert_pdf(tx, blob, now)?;
    tx.execute(
        "UPDATE templates SET blob_id = ?2, page_sizes = ?3, updated_at = ?4 WHERE id = ?1",
        params![template, blob.id.as_str(), page_sizes, now],
    )?;
    if let Some(o) = &old {
        crate::blob::rows::delete(tx, o)?;
    }
    Ok(old)
}

/// Marks the template changed now.
pub fn touch(conn: &Connection, template: i64, now: i64) -> Result<(), AppError> {
    conn.execute(
        "UPDATE templates SET updated_at = ?2 WHERE id = ?1",
        params![template, now],
    )?;
    Ok(())
}
