//! Link attachments of documents and templates: a label and an http(s) URL the owner adds,
//! shown to recipients on the signing page and copied with a template into the documents made
//! from it. The rules of a link (`model`), their SQL (`store`) and the use cases the API and
//! the pages call (`manage`; a recipient's list is the signing link's,
//! `workflow::link::list_attachments`); nothing here knows HTTP.

pub mod manage;
pub mod model;
pub mod store;

pub use manage::{create, delete, list, update};
pub use model::{Attachment, AttachmentId, AttachmentView, NewAttachment};

/// Whose attachments: a document's or a template's (the parent of recipients and fields too).
pub use crate::signing::documents::store::Parent;

/// At most this many attachments a document or template has (the API v1's bound on a new
/// document's `attachments` too).
pub const MAX_PER_PARENT: usize = crate::signing::documents::meta::MAX_ATTACHMENTS;
