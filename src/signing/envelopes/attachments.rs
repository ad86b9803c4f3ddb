//! The API v2's attachment operations, of an envelope (`/envelope/attachment...`, by envelope
//! id) and of a document (`/document/attachment...`, by number): the use cases of
//! `signing::attachments`, the ones the pages call, answered in the peer's shapes. A list is
//! `{data: [AttachmentView]}` (`{id, type: "link", label, data}`), a creation `{id}`, a change
//! or a removal `Success`. Another workspace's document, template or attachment is a 404.

use serde::Serialize;

use super::Many;
use super::changes::Success;
use crate::core::context::Context;
use crate::core::error::AppError;
use crate::identity::principal::Principal;
use crate::signing::attachments::{self, AttachmentId, AttachmentView, NewAttachment, Parent};
use crate::signing::envelope_ids::Envelope;

/// The answer to a creation: the new attachment's id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[schema(as = V2AttachmentCreated)]
pub struct Created {
    pub id: String,
}

/// Whose attachments an envelope id names: its document's or its template's.
pub fn parent_of(envelope: Envelope) -> Parent {
    match envelope {
        Envelope::Document(d) => Parent::Document(d),
        Envelope::Template(t) => Parent::Template(t),
    }
}

/// The attachments of `parent`, in their order.
pub async fn find(
    ctx: &Context,
    who: &Principal,
    parent: Parent,
) -> Result<Many<AttachmentView>, AppError> {
    let list = attachments::list(ctx, who, parent).await?;
    Ok(Many {
        data: list.iter().map(AttachmentView::of).collect(),
    })
}

/// A new link on `parent`, last in its order.
pub async fn create(
    ctx: &Context,
    who: &Principal,
    parent: Parent,
    new: NewAttachment,
) -> Result<Created, AppError> {
    let id = attachments::create(ctx, who, parent, new).await?;
    Ok(Created { id: id.to_string() })
}

/// Attachment `id` (text as sent: one docket could not have given names none, a 404) with
/// new values.
pub async fn update(
    ctx: &Context,
    who: &Principal,
    id: &str,
    new: NewAttachment,
) -> Result<Success, AppError> {
    attachments::update(ctx, who, &named(id)?, new).await?;
    Ok(Success::DONE)
}

/// Attachment `id` removed.
pub async fn delete(ctx: &Context, who: &Principal, id: &str) -> Result<Success, AppError> {
    attachments::delete(ctx, who, &named(id)?).await?;
    Ok(Success::DONE)
}

fn named(id: &str) -> Result<AttachmentId, AppError> {
    AttachmentId::parse(id.trim()).ok_or_else(|| AppError::not_found("attachment"))
}
