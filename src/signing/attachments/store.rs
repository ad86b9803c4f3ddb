//! SQL for `attachments`, of documents and templates alike (`Parent`): the only module that
//! reads or writes the table. A document's list is also written into its meta JSON
//! (`meta.attachments`, as the API v1 answers it and the signing page shows it) by `mirror`,
//! in the transaction that changed the rows.

use serde_json::Value as Json;

use super::Parent;
use super::model::{Attachment, AttachmentId, NewAttachment};
use crate::core::db::{Conn, OptionalExtension, Row, ToSql, params_from_iter};
use crate::core::error::AppError;
use crate::core::ids::{DocumentId, TemplateId};
use crate::core::owner::{Owner, Rows};
use crate::params;
use crate::signing::documents::{Status, meta};

const COLUMNS: &str = "id, label, url, position, created_at, updated_at";

fn from_row(r: &Row<'_>) -> crate::core::db::Result<Attachment> {
    Ok(Attachment {
        id: r.get(0)?,
        label: r.get(1)?,
        url: r.get(2)?,
        position: r.get(3)?,
        created_at: r.get(4)?,
        updated_at: r.get(5)?,
    })
}

/// The column of `attachments` that names the parent.
fn column(parent: Parent) -> &'static str {
    match parent {
        Parent::Document(_) => "document_id",
        Parent::Template(_) => "template_id",
    }
}

/// The attachments of `parent`, in their order.
pub fn of(c: &Conn, parent: Parent) -> Result<Vec<Attachment>, AppError> {
    let mut stmt = c.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM attachments WHERE {} = ?1 ORDER BY position, id",
        column(parent)
    ))?;
    let rows = stmt.query_map([parent.id()], from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Attachment `id` with its parent, if there is one.
pub fn one(c: &Conn, id: &AttachmentId) -> Result<Option<(Parent, Attachment)>, AppError> {
    let found = c
        .query_row(
            &format!("SELECT {COLUMNS}, document_id, template_id FROM attachments WHERE id = ?1"),
            [id],
            |r| {
                let doc: Option<DocumentId> = r.get(6)?;
                let template: Option<TemplateId> = r.get(7)?;
                Ok((doc, template, from_row(r)?))
            },
        )
        .optional()?;
    Ok(found.and_then(|(doc, template, a)| {
        let parent = match (doc, template) {
            (Some(d), _) => Parent::Document(d),
            (None, Some(t)) => Parent::Template(t),
            (None, None) => return None,
        };
        Some((parent, a))
    }))
}

/// How many attachments `parent` has.
pub fn count(c: &Conn, parent: Parent) -> Result<usize, AppError> {
    let n: i64 = c.query_row(
        &format!(
            "SELECT COUNT(*) FROM attachments WHERE {} = ?1",
            column(parent)
        ),
        [parent.id()],
        |r| r.get(0),
    )?;
    Ok(usize::try_from(n).unwrap_or(usize::MAX))
}

/// A new attachment of `parent`, last in its order: its id.
pub fn insert(
    tx: &Conn,
    parent: Parent,
    new: &NewAttachment,
    now: i64,
) -> Result<AttachmentId, AppError> {
    add(tx, parent, new.label(), new.url(), now)
}

fn add(
    tx: &Conn,
    parent: Parent,
    label: &str,
    url: &str,
    now: i64,
) -> Result<AttachmentId, AppError> {
    let id = AttachmentId::generate();
    let col = column(parent);
    tx.execute(
        &format!(
            "INSERT INTO attachments (id, {col}, label, url, position, created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4,
                     (SELECT COALESCE(MAX(position), 0) + 1 FROM attachments WHERE {col} = ?2),
                     ?5, ?5)"
        ),
        params![id, parent.id(), label, url, now],
    )?;
    Ok(id)
}

/// Gives attachment `id` new values; false when it is gone.
pub fn update(
    tx: &Conn,
    id: &AttachmentId,
    new: &NewAttachment,
    now: i64,
) -> Result<bool, AppError> {
    let n = tx.execute(
        "UPDATE attachments SET label = ?2, url = ?3, updated_at = ?4 WHERE id = ?1",
        params![id, new.label(), new.url(), now],
    )?;
    Ok(n == 1)
}

/// Deletes attachment `id`; false when it was gone.
pub fn delete(tx: &Conn, id: &AttachmentId) -> Result<bool, AppError> {
    Ok(tx.execute("DELETE FROM attachments WHERE id = ?1", [id])? == 1)
}

/// Gives `to` copies of `from`'s attachments (new ids, the same order), and, for a document,
/// its meta's list: a template's into a document made from it, a document's into the
/// template saved from it, a template's into its duplicate.
pub fn copy(tx: &Conn, from: Parent, to: Parent, now: i64) -> Result<(), AppError> {
    if let Parent::Document(doc) = from {
        // A document whose links are still only in its meta gets its rows first.
        let text: String =
            tx.query_row("SELECT meta FROM documents WHERE id = ?1", [doc], |r| {
                r.get(0)
            })?;
        adopt_meta(tx, doc, &listed_in(&text), now)?;
    }
    let source = of(tx, from)?;
    if source.is_empty() {
        return Ok(());
    }
    for a in &source {
        add(tx, to, &a.label, &a.url, now)?;
    }
    if let Parent::Document(doc) = to {
        mirror(tx, doc, now)?;
    }
    Ok(())
}

/// Writes document `doc`'s attachments into its meta (`attachments`, left out when none), as
/// its rows are now, and marks the document changed.
pub fn mirror(tx: &Conn, doc: DocumentId, now: i64) -> Result<(), AppError> {
    let list: Vec<meta::Attachment> = of(tx, Parent::Document(doc))?
        .iter()
        .map(Attachment::as_meta)
        .collect();
    let text: String = tx.query_row("SELECT meta FROM documents WHERE id = ?1", [doc], |r| {
        r.get(0)
    })?;
    let mut json: Json = serde_json::from_str(&text)
        .map_err(|e| AppError::internal(format!("a document's stored meta: {e}")))?;
    let Some(object) = json.as_object_mut() else {
        return Err(AppError::internal(
            "a document's stored meta is not an object",
        ));
    };
    if list.is_empty() {
        object.remove("attachments");
    } else {
        let value = serde_json::to_value(&list)
            .map_err(|e| AppError::internal(format!("attachments do not serialise: {e}")))?;
        object.insert("attachments".into(), value);
    }
    tx.execute(
        "UPDATE documents SET meta = ?2, updated_at = ?3 WHERE id = ?1",
        params![doc, json.to_string(), now],
    )?;
    Ok(())
}

/// Gives document `doc` rows for the links its meta lists when it has none: a document
/// created with `attachments` (API v1) lists them in its meta, and one made before this table
/// existed has them only there. True when it made any.
pub fn adopt_meta(
    tx: &Conn,
    doc: DocumentId,
    listed: &[meta::Attachment],
    now: i64,
) -> Result<bool, AppError> {
    if listed.is_empty() || count(tx, Parent::Document(doc))? > 0 {
        return Ok(false);
    }
    for a in listed {
        add(tx, Parent::Document(doc), &a.label, &a.data, now)?;
    }
    Ok(true)
}

/// What the caller may do with a parent it reaches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reached {
    /// A document: its status, and the links its meta lists (`adopt_meta`).
    Document {
        status: Status,
        listed: Vec<meta::Attachment>,
    },
    /// A template: its attachments may always change.
    Template,
}

/// `parent` when `owner` reaches it (the rule every store of documents and templates uses,
/// `Owner::clause`), or a 404 as for a document or template that does not exist.
pub fn reached(c: &Conn, owner: &Owner, parent: Parent) -> Result<Reached, AppError> {
    let mut args = vec![parent.id().to_sql()];
    let clause = owner.clause("", Rows::WithVisibility, &mut args);
    match parent {
        Parent::Document(_) => {
            let row: Option<(Status, String)> = c
                .query_row(
                    &format!("SELECT status, meta FROM documents WHERE id = ?1 AND {clause}"),
                    params_from_iter(args),
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()?;
            let (status, text) = row.ok_or_else(|| AppError::not_found("document"))?;
            Ok(Reached::Document {
                status,
                listed: listed_in(&text),
            })
        }
        Parent::Template(_) => {
            let found = c
                .query_row(
                    &format!("SELECT 1 FROM templates WHERE id = ?1 AND {clause}"),
                    params_from_iter(args),
                    |_| Ok(()),
                )
                .optional()?;
            found
                .map(|()| Reached::Template)
                .ok_or_else(|| AppError::not_found("template"))
        }
    }
}

/// The links a stored meta lists (none when it lists none or cannot be read).
fn listed_in(meta_text: &str) -> Vec<meta::Attachment> {
    serde_json::from_str::<Json>(meta_text)
        .ok()
        .and_then(|mut j| j.get_mut("attachments").map(Json::take))
        .and_then(|a| serde_json::from_value(a).ok())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_meta_lists_its_links_or_none() {
        let listed = listed_in(
            r#"{"subject":"s","attachments":[{"label":"T","data":"https://a.example/","type":"link"}]}"#,
        );
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].data, "https://a.example/");
        assert!(listed_in(r#"{"subject":"s"}"#).is_empty());
        assert!(listed_in("not json").is_empty());
    }
}
