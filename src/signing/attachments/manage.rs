//! The attachment use cases, for the API and the pages alike: list, add, change and remove
//! the links of a document or template the caller reaches (`teams::access`, the one
//! ownership rule: another workspace's is a 404). (A recipient reads a document's by their
//! signing token: `workflow::link::list_attachments`.) A document's links may change while it is a draft or pending (as the
//! peer's may until completed or rejected; a cancelled one is finished too): afterwards they
//! are what its recipients were shown. A template's may always change.

use super::model::{Attachment, AttachmentId, NewAttachment};
use super::store::{self, Reached};
use super::{MAX_PER_PARENT, Parent};
use crate::core::context::Context;
use crate::core::db::{Conn, now};
use crate::core::error::{AppError, FieldError};
use crate::identity::principal::Principal;
use crate::signing::documents::Status;
use crate::teams::access;

/// Where the refusal of one attachment too many points.
pub const FIELD: &str = "attachments";

/// The attachments of `parent`, in their order (404 when the caller does not reach it).
pub async fn list(
    ctx: &Context,
    who: &Principal,
    parent: Parent,
) -> Result<Vec<Attachment>, AppError> {
    let caller = who.clone();
    let (rows, to_adopt) = ctx
        .db
        .read(move |c| {
            let reached = store::reached(c, &access::owner(c, &caller)?, parent)?;
            let rows = store::of(c, parent)?;
            let to_adopt = rows.is_empty() && lists_links(&reached);
            Ok((rows, to_adopt))
        })
        .await?;
    if !to_adopt {
        return Ok(rows);
    }
    // A document whose links are only in its meta (made before the table): given rows once.
    let caller = who.clone();
    ctx.db
        .write(move |tx| {
            let reached = store::reached(tx, &access::owner(tx, &caller)?, parent)?;
            adopt(tx, parent, &reached)?;
            store::of(tx, parent)
        })
        .await
}

/// A new link on `parent`, last in its order: its id. 409 once a document is finished, 400
/// for the link's values (`NewAttachment::parse`) or when `parent` has `MAX_PER_PARENT`.
pub async fn create(
    ctx: &Context,
    who: &Principal,
    parent: Parent,
    new: NewAttachment,
) -> Result<AttachmentId, AppError> {
    let caller = who.clone();
    ctx.db
        .write(move |tx| {
            let reached = store::reached(tx, &access::owner(tx, &caller)?, parent)?;
            editable(&reached)?;
            // Two additions at once on PostgreSQL count one after the other.
            tx.serialize_on(&format!("attachments:{}:{}", parent.noun(), parent.id()))?;
            adopt(tx, parent, &reached)?;
            if store::count(tx, parent)? >= MAX_PER_PARENT {
                return Err(AppError::validation(vec![FieldError::new(
                    FIELD,
                    format!(
                        "a {} has at most {MAX_PER_PARENT} attachments: remove one first",
                        parent.noun()
                    ),
                )]));
            }
            let at = now();
            let id = store::insert(tx, parent, &new, at)?;
            mirrored(tx, parent, at)?;
            Ok(id)
        })
        .await
}

/// Gives attachment `id` a new label and URL. 404 for one the caller does not reach, 409
/// once its document is finished.
pub async fn update(
    ctx: &Context,
    who: &Principal,
    id: &AttachmentId,
    new: NewAttachment,
) -> Result<(), AppError> {
    let (caller, id) = (who.clone(), id.clone());
    ctx.db
        .write(move |tx| {
            let parent = owned(tx, &caller, &id)?;
            let at = now();
            if !store::update(tx, &id, &new, at)? {
                return Err(AppError::not_found("attachment"));
            }
            mirrored(tx, parent, at)
        })
        .await
}

/// Removes attachment `id`. 404 for one the caller does not reach, 409 once its document is
/// finished.
pub async fn delete(ctx: &Context, who: &Principal, id: &AttachmentId) -> Result<(), AppError> {
    let (caller, id) = (who.clone(), id.clone());
    ctx.db
        .write(move |tx| {
            let parent = owned(tx, &caller, &id)?;
            if !store::delete(tx, &id)? {
                return Err(AppError::not_found("attachment"));
            }
            mirrored(tx, parent, now())
        })
        .await
}

/// The parent of attachment `id` when the caller reaches it and its links may change: a 404
/// names the attachment, whether it or its parent is out of reach.
fn owned(tx: &Conn, who: &Principal, id: &AttachmentId) -> Result<Parent, AppError> {
    let (parent, _) = store::one(tx, id)?.ok_or_else(|| AppError::not_found("attachment"))?;
    let reached = match store::reached(tx, &access::owner(tx, who)?, parent) {
        Err(AppError::NotFound(_)) => return Err(AppError::not_found("attachment")),
        other => other?,
    };
    editable(&reached)?;
    Ok(parent)
}

/// Ok while the links of what was reached may change: a template's always, a document's
/// while it is a draft or pending.
fn editable(reached: &Reached) -> Result<(), AppError> {
    match reached {
        Reached::Template
        | Reached::Document {
            status: Status::Draft | Status::Pending,
            ..
        } => Ok(()),
        Reached::Document { status, .. } => Err(AppError::Conflict(format!(
            "the attachments cannot change: the document is {}, and its recipients saw them as they are",
            status.as_str()
        ))),
    }
}

/// Whether a document lists links in its meta (before it had rows of them).
pub fn lists_links(reached: &Reached) -> bool {
    matches!(reached, Reached::Document { listed, .. } if !listed.is_empty())
}

/// Gives a document whose meta lists links, but has no rows of them, those rows.
pub fn adopt(tx: &Conn, parent: Parent, reached: &Reached) -> Result<(), AppError> {
    if let (Parent::Document(doc), Reached::Document { listed, .. }) = (parent, reached) {
        store::adopt_meta(tx, doc, listed, now())?;
    }
    Ok(())
}

/// After a change: a document's meta lists its links as they now are.
fn mirrored(tx: &Conn, parent: Parent, at: i64) -> Result<(), AppError> {
    match parent {
        Parent::Document(doc) => store::mirror(tx, doc, at),
        Parent::Template(_) => Ok(()),
    }
}
