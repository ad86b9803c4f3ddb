//! The one read model of the document aggregate: a document with its recipients and fields,
//! typed as stored (`documents::store::load` reads it). Templates hold the same `Recipient`
//! and `Field`. Every view of a document (the API's, the signing page's, the sealer's, the
//! notices') is made from these, never from a query of its own.

use serde_json::{Map, Value};

use super::Status;
use super::auth_options::{ActionAuth, AuthOptions, RecipientAuth};
use super::field_meta::FieldMeta;
use super::fields::{FieldType, NewField, Placement};
use super::meta::Meta;
use super::recipients::{NewRecipient, ReadStatus, Role, SendStatus, SigningStatus};
use crate::core::error::AppError;
use crate::core::ids::{DocumentId, FieldId, RecipientId, TeamId, UserId};
use crate::core::owner::Visibility;

/// A document, its recipients (by id) and its fields (by id).
#[derive(Debug, Clone)]
pub struct Document {
    pub id: DocumentId,
    /// Its creator; the owner when `team_id` is `None`.
    pub user_id: UserId,
    /// The team it belongs to; `None` for a personal document.
    pub team_id: Option<TeamId>,
    /// Who in its team sees it (meaningless for a personal document).
    pub visibility: Visibility,
    /// The folder it is in (`signing::folders`); `None` at the root.
    pub folder_id: Option<String>,
    pub external_id: Option<String>,
    pub title: String,
    pub status: Status,
    pub document_data_id: String,
    /// The uploaded (or form-filled) PDF.
    pub blob_id: Option<String>,
    /// `[width, height]` in points, one per page of `blob_id`; `None` before an upload.
    pub page_sizes: Option<Vec<[f64; 2]>>,
    pub meta: Meta,
    pub auth_options: AuthOptions,
    pub form_values: Option<Map<String, Value>>,
    pub sealed_blob_id: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
    pub completed_at: Option<i64>,
    pub seal: SealRecord,
    /// The template it was made from (null: uploaded, or the template since deleted).
    pub template_id: Option<crate::core::ids::TemplateId>,
    pub recipients: Vec<Recipient>,
    pub fields: Vec<Field>,
}

/// Failed sealing attempts: how many, the last error as the owner reads it, and when the next
/// attempt is due (none once sealed).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SealRecord {
    pub failures: i64,
    pub error: Option<String>,
    pub next_at: Option<i64>,
}

/// A recipient of a document or a template.
#[derive(Debug, Clone)]
pub struct Recipient {
    pub id: RecipientId,
    pub email: String,
    pub name: String,
    pub role: Role,
    pub signing_order: Option<i64>,
    /// The signing link's secret.
    pub token: String,
    pub auth: RecipientAuth,
    pub read_status: ReadStatus,
    pub signing_status: SigningStatus,
    pub send_status: SendStatus,
    pub opened_at: Option<i64>,
    pub signed_at: Option<i64>,
    /// Where they signed, approved or rejected from.
    pub acted_ip: Option<String>,
    pub acted_user_agent: Option<String>,
    /// What they proved when they finished (`None`: the link alone), and as which account.
    pub auth_method: Option<ActionAuth>,
    pub auth_user_id: Option<UserId>,
    /// Came through a template's direct link (`templates::direct`): acts first, alone.
    pub direct_link: bool,
    /// When their time to act ends (`deadline`), fixed at sending; `None`: no deadline.
    pub expires_at: Option<i64>,
    /// When the owner was told their time passed.
    pub expiration_notified_at: Option<i64>,
    /// Automatic reminders sent so far.
    pub reminders_sent: i64,
    /// Why they rejected, when they did.
    pub rejection_reason: Option<String>,
}

impl Recipient {
    /// Whether their time to act has passed at `now` (while they had not finished).
    pub fn expired(&self, now: i64) -> bool {
        self.signing_status == super::recipients::SigningStatus::NotSigned
            && self.expires_at.is_some_and(|at| at <= now)
    }
}

/// A field of a document or a template.
#[derive(Debug, Clone)]
pub struct Field {
    pub id: FieldId,
    pub recipient_id: RecipientId,
    pub kind: FieldType,
    pub page: i64,
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    pub meta: Option<FieldMeta>,
    pub inserted: bool,
    /// A typed value (text, a typed signature, a checkbox's JSON list).
    pub custom_text: Option<String>,
    /// Whether a signature or initials were drawn (the PNG is read on its own when needed).
    pub drawn: bool,
}

impl Document {
    /// Page count of its file, once there is one.
    pub fn pages(&self) -> Option<i64> {
        self.page_sizes.as_ref().map(|s| s.len() as i64)
    }

    pub fn recipient(&self, id: RecipientId) -> Option<&Recipient> {
        self.recipients.iter().find(|r| r.id == id)
    }

    /// Recipient `recipient`'s fields, in reading order (page, top to bottom, left to right).
    pub fn fields_of(&self, recipient: RecipientId) -> Vec<&Field> {
        let mut mine: Vec<&Field> = self
            .fields
            .iter()
            .filter(|f| f.recipient_id == recipient)
            .collect();
        mine.sort_by(|a, b| {
            (a.page, a.y, a.x, a.id)
                .partial_cmp(&(b.page, b.y, b.x, b.id))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        mine
    }

    /// Whether recipient `recipient` has a signature field (SIGNATURE or FREE_SIGNATURE).
    pub fn has_signature_field(&self, recipient: RecipientId) -> bool {
        self.fields
            .iter()
            .any(|f| f.recipient_id == recipient && is_signature(f.kind))
    }

    /// Where each field sits, for the checks against a file.
    pub fn placements(&self) -> Vec<Placement> {
        placements(&self.fields)
    }

    /// 400 unless the document is still open (DRAFT or PENDING): recipients may change until
    /// it is finished or cancelled.
    pub fn require_open(&self, action: &str) -> Result<(), AppError> {
        if matches!(self.status, Status::Draft | Status::Pending) {
            Ok(())
        } else {
            Err(AppError::wrong_state(format!(
                "cannot {action}: the document is {}",
                self.status.as_str()
            )))
        }
    }

    /// 409 unless the document is a draft.
    pub fn require_draft(&self, action: &str) -> Result<(), AppError> {
        if self.status == Status::Draft {
            Ok(())
        } else {
            Err(AppError::Conflict(format!(
                "cannot {action}: the document is {}, not DRAFT",
                self.status.as_str()
            )))
        }
    }
}

/// A signature field: SIGNATURE or FREE_SIGNATURE.
pub fn is_signature(kind: FieldType) -> bool {
    matches!(kind, FieldType::Signature | FieldType::FreeSignature)
}

impl Document {
    /// Fields may change while the document is a draft, and while it is PENDING for recipients
    /// who have not finished (`recipients`: those whose fields change). 400 otherwise.
    pub fn require_fields_editable(
        &self,
        action: &str,
        recipients: &[RecipientId],
    ) -> Result<(), AppError> {
        match self.status {
            Status::Draft => Ok(()),
            Status::Pending => {
                for id in recipients {
                    if let Some(r) = self.recipient(*id)
                        && r.signing_status != SigningStatus::NotSigned
                    {
                        return Err(AppError::wrong_state(format!(
                            "cannot {action}: {} has already finished",
                            r.email
                        )));
                    }
                }
                Ok(())
            }
            other => Err(AppError::wrong_state(format!(
                "cannot {action}: the document is {}",
                other.as_str()
            ))),
        }
    }

    /// On a PENDING document, field `field` may not stop being the last signature field of its
    /// signer (`after`: what it becomes; `None`: deleted), nor change once filled.
    pub fn require_field_change_keeps_it_signable(
        &self,
        field: &Field,
        after: Option<&NewField>,
    ) -> Result<(), AppError> {
        if self.status != Status::Pending {
            return Ok(());
        }
        if field.inserted {
            return Err(AppError::Conflict(
                "the field holds the recipient's value and cannot change".into(),
            ));
        }
        let Some(owner) = self.recipient(field.recipient_id) else {
            return Ok(());
        };
        if owner.role != Role::Signer || !is_signature(field.kind) {
            return Ok(());
        }
        let stays = after.is_some_and(|f| f.recipient_id == owner.id && is_signature(f.kind));
        let another = self
            .fields
            .iter()
            .any(|f| f.id != field.id && f.recipient_id == owner.id && is_signature(f.kind));
        if stays || another {
            Ok(())
        } else {
            Err(AppError::Conflict(format!(
                "every signer needs a SIGNATURE field; this is the last of {}",
                owner.email
            )))
        }
    }
}

impl Document {
    /// 400 naming every choice field (RADIO, CHECKBOX, SELECT/DROPDOWN) meant for a signer that
    /// has no values to choose from: such a field may be created without them (as the other
    /// signing service allows), but no signer could fill it.
    pub fn require_choices(&self) -> Result<(), AppError> {
        let empty: Vec<(usize, String)> = self
            .fields
            .iter()
            .enumerate()
            .filter(|(_, f)| {
                !f.read_only() && super::field_meta::lacks_choices(f.kind, f.meta.as_ref())
            })
            .filter(|(_, f)| {
                self.recipient(f.recipient_id)
                    .is_some_and(|r| r.role == Role::Signer)
            })
            .map(|(i, f)| (i, format!("field {} ({})", f.id, f.kind.as_str())))
            .collect();
        if empty.is_empty() {
            return Ok(());
        }
        let names: Vec<&str> = empty.iter().map(|(_, n)| n.as_str()).collect();
        let details = empty
            .iter()
            .map(|(i, n)| {
                crate::core::error::FieldError::new(
                    format!("fields[{i}].fieldMeta.values"),
                    format!("{n} needs at least one value"),
                )
            })
            .collect();
        Err(AppError::wrong_state_at(
            format!(
                "choice fields need at least one value in fieldMeta.values before a signer gets them: {}",
                names.join(", ")
            ),
            details,
        ))
    }
}

/// Where each of `fields` sits.
pub fn placements(fields: &[Field]) -> Vec<Placement> {
    fields.iter().map(Field::placement).collect()
}

impl Recipient {
    /// The recipient as a new one to copy (a template's into a generated document).
    pub fn as_new(&self) -> NewRecipient {
        NewRecipient {
            email: self.email.clone(),
            name: self.name.clone(),
            role: self.role,
            signing_order: self.signing_order,
            auth: self.auth.clone(),
        }
    }
}

impl Field {
    pub fn placement(&self) -> Placement {
        Placement {
            id: self.id,
            page: self.page,
            x: self.x,
            y: self.y,
            width: self.width,
            height: self.height,
        }
    }

    /// The field as a new one to copy (a template's into a generated document), still on
    /// its recipient's id.
    pub fn as_new(&self) -> NewField {
        NewField {
            recipient_id: self.recipient_id,
            kind: self.kind,
            page_number: self.page,
            page_x: self.x,
            page_y: self.y,
            page_width: self.width,
            page_height: self.height,
            field_meta: self.meta.clone(),
        }
    }

    /// Whether `fieldMeta.readOnly` is set: the recipient cannot change the field's value.
    pub fn read_only(&self) -> bool {
        self.meta.as_ref().is_some_and(FieldMeta::read_only)
    }

    /// Whether completing needs a value here: every signature field, and fields marked
    /// `required` (DATE fields are filled at completion). A read-only field other than a
    /// signature is never required: its signer cannot fill it, and what it holds (a default, a
    /// prefill) stands as it is.
    pub fn required(&self) -> bool {
        let signature = matches!(self.kind, FieldType::Signature | FieldType::FreeSignature);
        if self.read_only() && !signature {
            return false;
        }
        self.kind != FieldType::Date
            && (matches!(self.kind, FieldType::Signature | FieldType::FreeSignature)
                || self.meta.as_ref().is_some_and(FieldMeta::required))
    }
}
