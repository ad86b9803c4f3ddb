//! The sending API's answers (send, resend, audit log, download). Their OpenAPI schemas are
//! derived from these types.

use crate::core::ids::{DocumentId, RecipientId};
use serde::Serialize;
use utoipa::ToSchema;

use crate::signing::documents::audit::AuditEvent;
use crate::signing::documents::view::DocumentView;

/// `POST /api/v1/documents/{id}/send`: the document, with the other signing service's
/// confirmation.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(as = SentDocument)]
pub struct Sent {
    #[serde(flatten)]
    pub document: DocumentView,
    /// "Document sent for signing successfully".
    pub message: &'static str,
}

impl Sent {
    pub fn of(document: DocumentView) -> Sent {
        Sent {
            document,
            message: "Document sent for signing successfully",
        }
    }
}

/// `POST /api/v1/documents/{id}/resend`: the recipients e-mailed again.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = ResendResponse)]
pub struct Resent {
    pub document_id: DocumentId,
    pub recipients: Vec<RecipientId>,
    /// "Document resend successfully initiated".
    pub message: &'static str,
}

impl Resent {
    pub fn of(document_id: DocumentId, recipients: Vec<RecipientId>) -> Resent {
        Resent {
            document_id,
            recipients,
            message: "Document resend successfully initiated",
        }
    }
}

/// `DELETE /api/v1/documents/{id}/reminders`: how many scheduled reminders were dropped.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = RemindersStopped)]
pub struct RemindersStopped {
    pub document_id: DocumentId,
    /// Recipients whose next reminder was dropped.
    pub stopped: usize,
}

/// `GET /api/v1/documents/{id}/audit-log`: a page of events, oldest first.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditLog {
    pub document_id: DocumentId,
    pub events: Vec<AuditEvent>,
    pub total_pages: i64,
}

/// `GET /api/v1/documents/{id}/download`: a signed, expiring URL of the file.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DownloadUrl {
    #[schema(format = "uri")]
    pub download_url: String,
}
