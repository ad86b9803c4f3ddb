//! SQL for `fields`, of documents and of templates alike (`Parent`), and the values recipients
//! enter, each guarded by a WHERE clause that re-checks its precondition.

use crate::core::ids::{DocumentId, FieldId, RecipientId};
use crate::params;
use crate::{core::db::Conn, core::db::Dialect, core::db::OptionalExtension, core::db::Row};

use super::Parent;
use crate::core::error::AppError;
use crate::signing::documents::field_meta::FieldMeta;
use crate::signing::documents::fields::NewField;
use crate::signing::documents::model::Field;

const COLUMNS: &str = "id, recipient_id, type, page_number, page_x, page_y, page_width,
    page_height, field_meta, inserted, custom_text, signature_png IS NOT NULL";

fn from_row(r: &Row<'_>) -> crate::core::db::Result<Field> {
    let meta: Option<String> = r.get(8)?;
    let kind = r.get(2)?;
    let meta = meta
        .map(|m| FieldMeta::read(kind, &m))
        .transpose()
        .map_err(|e| crate::core::db::Error::Conversion {
            col: 8,
            message: e.to_string(),
        })?;
    Ok(Field {
        id: r.get(0)?,
        recipient_id: r.get(1)?,
        kind,
        page: r.get(3)?,
        x: r.get(4)?,
        y: r.get(5)?,
        width: r.get(6)?,
        height: r.get(7)?,
        meta,
        inserted: r.get(9)?,
        custom_text: r.get(10)?,
        drawn: r.get(11)?,
    })
}

/// The fields of `parent`, by id.
pub fn of(conn: &Conn, parent: Parent) -> Result<Vec<Field>, AppError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM fields WHERE {} = ?1 ORDER BY id",
        parent.column()
    ))?;
    let rows = stmt.query_map([parent.id()], from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The fields of each of `parents` (all documents or all templates), by id, in one query:
/// one list a parent, in the order of `parents`.
pub fn of_each(conn: &Conn, parents: &[Parent]) -> Result<Vec<Vec<Field>>, AppError> {
    super::of_each(conn, parents, "fields", COLUMNS, from_row)
}

/// Field `id` of `parent`, or a 404.
pub fn one(conn: &Conn, parent: Parent, id: FieldId) -> Result<Field, AppError> {
    conn.query_row(
        &format!(
            "SELECT {COLUMNS} FROM fields WHERE {} = ?1 AND id = ?2",
            parent.column()
        ),
        params![parent.id(), id],
        from_row,
    )
    .optional()?
    .ok_or_else(|| AppError::not_found("field"))
}

pub fn insert(tx: &Conn, parent: Parent, f: &NewField, now: i64) -> Result<FieldId, AppError> {
    let inserted_id = tx.insert(
        &format!(
            "INSERT INTO fields ({}, recipient_id, type, page_number, page_x, page_y, page_width, page_height, field_meta, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            parent.column()
        ),
        params![
            parent.id(),
            f.recipient_id,
            f.kind,
            f.page_number,
            f.page_x,
            f.page_y,
            f.page_width,
            f.page_height,
            f.field_meta.as_ref().map(FieldMeta::to_json_text),
            now
        ],
    )?;
    Ok(FieldId::new(inserted_id))
}

/// Gives new field `id` the value its owner set (a template's `prefillFields`): filled before
/// anyone signs.
pub fn preset(tx: &Conn, id: FieldId, text: &str, now: i64) -> Result<(), AppError> {
    tx.execute(
        "UPDATE fields SET custom_text = ?2, inserted = 1, filled_at = ?3 WHERE id = ?1",
        params![id, text, now],
    )?;
    Ok(())
}

/// Replaces field `id` of `parent` by `f`. A value it held (on a draft, the owner's
/// preset; a PENDING document's filled fields cannot change) is kept while its recipient and
/// type stay, and forgotten otherwise.
pub fn update(tx: &Conn, parent: Parent, id: FieldId, f: &NewField) -> Result<(), AppError> {
    let sql = format!(
        "UPDATE fields SET recipient_id = ?3, type = ?4, page_number = ?5, page_x = ?6, page_y = ?7,
                page_width = ?8, page_height = ?9, field_meta = ?10,
                custom_text = CASE WHEN recipient_id = ?3 AND type = ?4 THEN custom_text END,
                signature_png = CASE WHEN recipient_id = ?3 AND type = ?4 THEN signature_png END,
                filled_at = CASE WHEN recipient_id = ?3 AND type = ?4 THEN filled_at END,
                inserted = CASE WHEN recipient_id = ?3 AND type = ?4 THEN inserted ELSE 0 END
          WHERE {} = ?1 AND id = ?2",
        parent.column()
    );
    let n = tx.execute(
        &sql,
        params![
            parent.id(),
            id,
            f.recipient_id,
            f.kind,
            f.page_number,
            f.page_x,
            f.page_y,
            f.page_width,
            f.page_height,
            f.field_meta.as_ref().map(FieldMeta::to_json_text)
        ],
    )?;
    if n == 0 {
        return Err(AppError::not_found("field"));
    }
    Ok(())
}

pub fn delete(tx: &Conn, parent: Parent, id: FieldId) -> Result<(), AppError> {
    let n = tx.execute(
        &format!(
            "DELETE FROM fields WHERE {} = ?1 AND id = ?2",
            parent.column()
        ),
        params![parent.id(), id],
    )?;
    if n == 0 {
        return Err(AppError::not_found("field"));
    }
    Ok(())
}

/// Forgets every value recipient `recipient` entered (not the owner's presets: read-only
/// fields, which the recipient cannot fill).
pub fn clear_values(tx: &Conn, recipient: RecipientId) -> Result<(), AppError> {
    let read_only = match tx.dialect() {
        Dialect::Sqlite => "coalesce(json_extract(field_meta, '$.readOnly'), 0)",
        Dialect::Postgres => "coalesce((field_meta::jsonb ->> 'readOnly')::boolean, false)",
    };
    tx.execute(
        &format!(
            "UPDATE fields SET custom_text = NULL, signature_png = NULL, inserted = 0, filled_at = NULL
              WHERE recipient_id = ?1 AND NOT {read_only}"
        ),
        [recipient],
    )?;
    Ok(())
}

/// A value as stored: typed text, or a drawn PNG.
#[derive(Debug, Clone, Copy)]
pub enum Value<'a> {
    Text(&'a str),
    Drawn(&'a [u8]),
}

/// Stores a field's value while the document is PENDING and its recipient has not finished.
/// Returns false when that no longer holds.
pub fn save_value(
    tx: &Conn,
    field: FieldId,
    recipient: RecipientId,
    value: Value<'_>,
    now: i64,
) -> Result<bool, AppError> {
    let (text, png) = match value {
        Value::Text(t) => (Some(t), None),
        Value::Drawn(p) => (None, Some(p)),
    };
    let n = tx.execute(
        "UPDATE fields SET custom_text = ?3, signature_png = ?4, inserted = 1, filled_at = ?5
         WHERE id = ?1 AND recipient_id = ?2
           AND EXISTS (SELECT 1 FROM recipients r JOIN documents d ON d.id = r.document_id
                       WHERE r.id = ?2 AND r.signing_status = 'NOT_SIGNED' AND d.status = 'PENDING')",
        params![field, recipient, text, png, now],
    )?;
    Ok(n == 1)
}

/// Empties field `field` of `recipient` while they may still change it (as `save_value`);
/// false when it was empty or they may not.
pub fn clear_value(tx: &Conn, field: FieldId, recipient: RecipientId) -> Result<bool, AppError> {
    let n = tx.execute(
        "UPDATE fields SET custom_text = NULL, signature_png = NULL, inserted = 0, filled_at = NULL
         WHERE id = ?1 AND recipient_id = ?2 AND inserted = 1
           AND EXISTS (SELECT 1 FROM recipients r JOIN documents d ON d.id = r.document_id
                       WHERE r.id = ?2 AND r.signing_status = 'NOT_SIGNED' AND d.status = 'PENDING')",
        params![field, recipient],
    )?;
    Ok(n == 1)
}

/// Sets the value of every DATE field of `recipient` not already set (at completion; a
/// template's `prefillFields` may have set one).
pub fn fill_dates(tx: &Conn, recipient: RecipientId, text: &str, now: i64) -> Result<(), AppError> {
    tx.execute(
        "UPDATE fields SET custom_text = ?2, inserted = 1, filled_at = ?3
         WHERE recipient_id = ?1 AND type = 'DATE' AND inserted = 0",
        params![recipient, text, now],
    )?;
    Ok(())
}

/// The PNG drawn into field `field` of document `doc`, if one was.
pub fn signature_png(
    conn: &Conn,
    doc: DocumentId,
    field: FieldId,
) -> Result<Option<Vec<u8>>, AppError> {
    Ok(conn
        .query_row(
            "SELECT signature_png FROM fields
              WHERE id = ?1 AND document_id = ?2 AND signature_png IS NOT NULL",
            params![field, doc],
            |r| r.get(0),
        )
        .optional()?)
}
