//! The shapes the API shows a document in, made from its read model (`model::Document`).

use serde::Serialize;

use super::Status;
use super::auth_options::{AuthOptions, RecipientAuth};
use super::fields::FieldType;
use super::meta::Meta;
use super::model::{Document, Field, Recipient, SealRecord};
use super::recipients::{ReadStatus, Role, SendStatus, SigningStatus};
use crate::core::ids::{DocumentId, FieldId, RecipientId, UserId};
use crate::{core::timefmt::iso8601, core::timefmt::iso8601_opt};

/// A recipient as the API shows it, with `signingUrl`. `token` and `signingUrl` are the recipient's credential: null
/// for callers that may not see it (`SigningLinks`).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = Recipient)]
pub struct RecipientView {
    pub id: RecipientId,
    pub document_id: DocumentId,
    pub email: String,
    pub name: String,
    pub role: Role,
    #[schema(required = true)]
    pub signing_order: Option<i64>,
    /// The recipient's signing token: a credential of the recipient's, shown to the owner's
    /// API key only (null for OAuth access tokens).
    #[schema(required = true)]
    pub token: Option<String>,
    #[schema(required = true, format = DateTime)]
    pub signed_at: Option<String>,
    pub read_status: ReadStatus,
    pub signing_status: SigningStatus,
    pub send_status: SendStatus,
    /// The recipient's signing link: a credential of the recipient's, shown to the owner's
    /// API key only (null for OAuth access tokens).
    #[schema(required = true)]
    pub signing_url: Option<String>,
    /// How the recipient authenticates (`{accessAuth, actionAuth}`, lists).
    pub auth_options: RecipientAuth,
    /// When their time to act ends (`meta.envelopeExpirationPeriod`, fixed at sending); null:
    /// no deadline.
    #[schema(required = true, format = DateTime)]
    pub expires_at: Option<String>,
    /// When the owner was told their time passed.
    #[schema(required = true, format = DateTime)]
    pub expiration_notified_at: Option<String>,
    /// Whether their time passed before they finished: their link no longer acts.
    pub expired: bool,
}

/// Recipients in create, generate and upload responses (links as in `RecipientView`).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecipientBrief {
    pub recipient_id: RecipientId,
    pub name: String,
    pub email: String,
    /// The recipient's signing token: a credential of the recipient's, shown to the owner's
    /// API key only (null for OAuth access tokens).
    #[schema(required = true)]
    pub token: Option<String>,
    pub role: Role,
    #[schema(required = true)]
    pub signing_order: Option<i64>,
    /// The recipient's signing link: a credential of the recipient's, shown to the owner's
    /// API key only (null for OAuth access tokens).
    #[schema(required = true)]
    pub signing_url: Option<String>,
}

/// What carries recipients' signing links. A signing token lets whoever holds it sign as the
/// recipient, so only the document owner's own credential sees it; everything shown to an
/// OAuth app, or posted to an app's webhook, goes through `hide_signing_links` first.
pub trait SigningLinks {
    /// Sets every `token` and `signingUrl` inside to null.
    fn hide_signing_links(&mut self);

    /// `self`, with the links hidden unless `shown`.
    fn links_shown_if(mut self, shown: bool) -> Self
    where
        Self: Sized,
    {
        if !shown {
            self.hide_signing_links();
        }
        self
    }
}

impl SigningLinks for RecipientView {
    fn hide_signing_links(&mut self) {
        self.token = None;
        self.signing_url = None;
    }
}

impl SigningLinks for RecipientBrief {
    fn hide_signing_links(&mut self) {
        self.token = None;
        self.signing_url = None;
    }
}

impl SigningLinks for DocumentView {
    fn hide_signing_links(&mut self) {
        self.recipients.hide_signing_links();
    }
}

impl<T: SigningLinks> SigningLinks for Vec<T> {
    fn hide_signing_links(&mut self) {
        self.iter_mut().for_each(T::hide_signing_links);
    }
}

impl From<&RecipientView> for RecipientBrief {
    fn from(r: &RecipientView) -> Self {
        RecipientBrief {
            recipient_id: r.id,
            name: r.name.clone(),
            email: r.email.clone(),
            token: r.token.clone(),
            role: r.role,
            signing_order: r.signing_order,
            signing_url: r.signing_url.clone(),
        }
    }
}

/// A field as the API shows it, with `id`, `documentId`, `inserted` and `customText`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = Field)]
pub struct FieldView {
    pub id: FieldId,
    pub document_id: DocumentId,
    pub recipient_id: RecipientId,
    #[serde(rename = "type")]
    pub kind: FieldType,
    pub page_number: i64,
    pub page_x: f64,
    pub page_y: f64,
    pub page_width: f64,
    pub page_height: f64,
    /// The field's settings as given (`FieldMeta`), or null.
    #[schema(required = true, value_type = Option<Object>)]
    pub field_meta: Option<crate::signing::documents::field_meta::FieldMeta>,
    pub inserted: bool,
    /// The typed value; `""` until there is one (as the other signing service shows it).
    pub custom_text: String,
    /// The other signing service's names for the page and the box (the box as decimal
    /// strings, as it sends them), beside docket's own.
    pub page: i64,
    pub position_x: String,
    pub position_y: String,
    pub width: String,
    pub height: String,
    /// The other signing service's second id of a field (a string); here `field_<id>`.
    pub secondary_id: String,
    /// Whose field it is, in a document's `fields` (absent where the field is answered alone).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(required = false, nullable = false)]
    pub recipient: Option<FieldRecipient>,
}

/// A field's recipient as a document's `fields` show it.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FieldRecipient {
    pub name: String,
    pub email: String,
    pub signing_status: SigningStatus,
}

/// A document as the API shows it, with its `recipients`, `fields` and `meta`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = Document)]
pub struct DocumentView {
    pub id: DocumentId,
    #[schema(required = true)]
    pub external_id: Option<String>,
    pub user_id: UserId,
    #[schema(required = true)]
    pub team_id: Option<i64>,
    /// Who in its team sees it: carried to the webhook payload, not part of the API's answer
    /// (the signing service's v1 document has none).
    #[serde(skip)]
    pub visibility: crate::core::owner::Visibility,
    /// The folder it is in (`GET /folder` of the API v2 lists them); null at the root.
    #[schema(required = true)]
    pub folder_id: Option<String>,
    pub title: String,
    pub status: Status,
    pub document_data_id: String,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
    #[schema(required = true, format = DateTime)]
    pub completed_at: Option<String>,
    pub recipients: Vec<RecipientView>,
    pub fields: Vec<FieldView>,
    pub meta: Meta,
    /// How every recipient authenticates (`{globalAccessAuth, globalActionAuth}`, lists).
    pub auth_options: AuthOptions,
    /// Absent until a sealing attempt fails (so a document that seals at once keeps the
    /// documented shape); then how sealing is going.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(required = false, nullable = false)]
    pub sealing: Option<SealingView>,
}

/// How sealing a finished document went, once an attempt has failed: `FAILED` while it is being
/// retried (`nextAttemptAt`; `null` when the document was cancelled in between), `SEALED` once
/// a later attempt succeeded. `attempts` counts every attempt made, the successful one too.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = Sealing)]
pub struct SealingView {
    pub status: SealState,
    /// Attempts made so far, the successful one included.
    #[schema(minimum = 1)]
    pub attempts: i64,
    #[schema(required = true)]
    pub last_error: Option<String>,
    #[schema(required = true, format = DateTime)]
    pub next_attempt_at: Option<String>,
}

/// FAILED: the last attempt failed and sealing is retried at `nextAttemptAt` (while the
/// document is PENDING); SEALED: a later attempt succeeded.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq, utoipa::ToSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum SealState {
    Failed,
    Sealed,
}

impl SealingView {
    /// From the document's status and its record of failed attempts.
    pub fn of(status: Status, seal: &SealRecord) -> Option<SealingView> {
        if seal.failures <= 0 {
            return None;
        }
        let sealed = status == Status::Completed;
        Some(SealingView {
            status: if sealed {
                SealState::Sealed
            } else {
                SealState::Failed
            },
            attempts: seal.failures + i64::from(sealed),
            last_error: seal.error.clone(),
            next_attempt_at: seal
                .next_at
                .filter(|_| status == Status::Pending)
                .map(crate::core::timefmt::iso8601),
        })
    }
}

/// The signing link of a recipient whose token is `token`.
fn signing_url(app_url: &str, token: &str) -> String {
    format!("{app_url}/sign/{token}")
}

impl RecipientView {
    pub fn of(r: &Recipient, document_id: DocumentId, app_url: &str) -> RecipientView {
        RecipientView {
            id: r.id,
            document_id,
            email: r.email.clone(),
            name: r.name.clone(),
            role: r.role,
            signing_order: r.signing_order,
            token: Some(r.token.clone()),
            signed_at: iso8601_opt(r.signed_at),
            read_status: r.read_status,
            signing_status: r.signing_status,
            send_status: r.send_status,
            signing_url: Some(signing_url(app_url, &r.token)),
            auth_options: r.auth.clone(),
            expires_at: iso8601_opt(r.expires_at),
            expiration_notified_at: iso8601_opt(r.expiration_notified_at),
            expired: r.expired(crate::core::db::now()),
        }
    }
}

impl RecipientBrief {
    pub fn of(r: &Recipient, app_url: &str) -> RecipientBrief {
        RecipientBrief {
            recipient_id: r.id,
            name: r.name.clone(),
            email: r.email.clone(),
            token: Some(r.token.clone()),
            role: r.role,
            signing_order: r.signing_order,
            signing_url: Some(signing_url(app_url, &r.token)),
        }
    }
}

impl FieldView {
    pub fn of(f: &Field, document_id: DocumentId) -> FieldView {
        FieldView {
            id: f.id,
            document_id,
            recipient_id: f.recipient_id,
            kind: f.kind,
            page_number: f.page,
            page_x: f.x,
            page_y: f.y,
            page_width: f.width,
            page_height: f.height,
            field_meta: f.meta.clone(),
            inserted: f.inserted,
            custom_text: f.custom_text.clone().unwrap_or_default(),
            page: f.page,
            position_x: crate::signing::documents::view::decimal(f.x),
            position_y: crate::signing::documents::view::decimal(f.y),
            width: crate::signing::documents::view::decimal(f.width),
            height: crate::signing::documents::view::decimal(f.height),
            secondary_id: format!("field_{}", f.id),
            recipient: None,
        }
    }
}

impl DocumentView {
    pub fn of(d: &Document, app_url: &str) -> DocumentView {
        DocumentView {
            id: d.id,
            external_id: d.external_id.clone(),
            user_id: d.user_id,
            team_id: d.team_id.map(|t| t.get()),
            visibility: d.visibility,
            folder_id: d.folder_id.clone(),
            title: d.title.clone(),
            status: d.status,
            document_data_id: d.document_data_id.clone(),
            created_at: iso8601(d.created_at),
            updated_at: iso8601(d.updated_at),
            completed_at: iso8601_opt(d.completed_at),
            recipients: d
                .recipients
                .iter()
                .map(|r| RecipientView::of(r, d.id, app_url))
                .collect(),
            fields: d
                .fields
                .iter()
                .map(|f| {
                    let mut v = FieldView::of(f, d.id);
                    v.recipient = d.recipient(f.recipient_id).map(|r| FieldRecipient {
                        name: r.name.clone(),
                        email: r.email.clone(),
                        signing_status: r.signing_status,
                    });
                    v
                })
                .collect(),
            meta: d.meta.clone(),
            auth_options: d.auth_options.clone(),
            sealing: SealingView::of(d.status, &d.seal),
        }
    }
}
/// A percentage as the API's decimal string: `10`, `12.5`.
pub fn decimal(v: f64) -> String {
    format!("{v}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_read_like_the_seed() {
        assert_eq!(decimal(10.0), "10");
        assert_eq!(decimal(12.5), "12.5");
    }
}
