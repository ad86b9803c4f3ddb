//! What the API v2's changes to a whole envelope take: update, delete, distribute and
//! redistribute, in the envelope form (`envelopeId`) and the legacy forms (`documentId`,
//! `templateId`), every number as either client sends it. An update's `data` and `meta` are read
//! as v1's `PATCH` reads its body (`UpdateDocumentRequest`), so both check a change the same way.

use serde::Deserialize;

use crate::core::error::AppError;
use crate::core::ids::{DocumentId, RecipientId, TemplateId};
use crate::core::lenient::{Given, Int, Object};
use crate::http::api::wire::documents::auth::{AuthOptionsInput, Methods};
use crate::http::api::wire::documents::meta::MetaInput;
use crate::http::api::wire::documents::settings::UpdateDocumentRequest;
use crate::signing::envelope_ids::Envelope;
use crate::signing::envelopes::changes::Update;
use crate::signing::workflow::sending::MAX_RESEND;

/// An envelope id as sent: one docket could not have given names nothing (404).
pub fn envelope(id: &str) -> Result<Envelope, AppError> {
    Envelope::parse(id).ok_or_else(|| AppError::not_found("envelope"))
}

/// `{envelopeId}`: a delete's or a duplicate's body.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EnvelopeRef {
    /// `envelope_` and 16 letters.
    pub envelope_id: String,
}

/// `{documentId}`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DocumentRef {
    #[schema(value_type = i64)]
    pub document_id: Int,
}

/// `{templateId}`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemplateRef {
    #[schema(value_type = i64)]
    pub template_id: Int,
}

/// An update's `data`: each member optional; `null` clears externalId and takes the envelope
/// out of its folder.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = V2UpdateData)]
pub struct UpdateData {
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub title: Given<String>,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub external_id: Given<String>,
    #[serde(default)]
    /// EVERYONE, MANAGER_AND_ABOVE or ADMIN (a team's envelope).
    #[schema(value_type = Option<String>)]
    pub visibility: Given<String>,
    #[serde(default)]
    #[schema(value_type = Option<Vec<String>>)]
    pub global_access_auth: Methods,
    #[serde(default)]
    #[schema(value_type = Option<Vec<String>>)]
    pub global_action_auth: Methods,
    #[serde(default)]
    /// A folder of the workspace, or `null` for none.
    #[schema(value_type = Option<String>)]
    pub folder_id: Given<String>,
}

/// `POST /envelope/update`, `/document/update` and `/template/update`: the envelope named by
/// one of the three ids, `data` and `meta` each optional.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = V2Update)]
pub struct UpdateRequest {
    #[serde(default)]
    #[schema(required = false)]
    pub envelope_id: Option<String>,
    #[serde(default)]
    #[schema(value_type = Option<i64>, required = false)]
    pub document_id: Option<Int>,
    #[serde(default)]
    #[schema(value_type = Option<i64>, required = false)]
    pub template_id: Option<Int>,
    #[serde(default)]
    #[schema(value_type = Option<UpdateData>)]
    pub data: Given<Object<UpdateData>>,
    #[serde(default)]
    #[schema(value_type = Option<MetaInput>)]
    pub meta: Given<Object<MetaInput>>,
}

/// Which id a legacy group's body carries.
#[derive(Debug, Clone, Copy)]
pub enum Group {
    Envelope,
    Document,
    Template,
}

fn missing(name: &str) -> AppError {
    AppError::validation(vec![crate::core::error::FieldError::new(
        name,
        "is required",
    )])
}

impl UpdateRequest {
    /// The envelope the body names in `group`'s id.
    pub fn target(&self, group: Group) -> Result<Envelope, AppError> {
        match group {
            Group::Envelope => envelope(self.envelope_id.as_deref().ok_or(missing("envelopeId"))?),
            Group::Document => Ok(Envelope::Document(DocumentId::new(
                self.document_id.ok_or(missing("documentId"))?.0,
            ))),
            Group::Template => Ok(Envelope::Template(TemplateId::new(
                self.template_id.ok_or(missing("templateId"))?.0,
            ))),
        }
    }

    /// The change: `data` and `meta` as v1's `PATCH` body (checked by the use case against the
    /// settings as they are), and the folder.
    pub fn update(self) -> Update {
        let data = match self.data {
            Given::Valid(Object(d)) => d,
            _ => UpdateData::default(),
        };
        let folder = match data.folder_id {
            Given::Absent => None,
            Given::Null => Some(None),
            Given::Valid(f) => Some(Some(f)),
            // Not text: a folder id that names no folder.
            Given::Invalid(_) => Some(Some(String::new())),
        };
        let auth_given = !matches!(data.global_access_auth, Given::Absent)
            || !matches!(data.global_action_auth, Given::Absent);
        let settings_given = auth_given
            || !matches!(data.title, Given::Absent)
            || !matches!(data.external_id, Given::Absent)
            || !matches!(data.visibility, Given::Absent)
            || !matches!(self.meta, Given::Absent);
        let settings = settings_given.then(|| {
            UpdateDocumentRequest {
                title: data.title,
                external_id: data.external_id,
                meta: self.meta,
                auth_options: if auth_given {
                    Given::Valid(Object(AuthOptionsInput {
                        global_access_auth: data.global_access_auth,
                        global_action_auth: data.global_action_auth,
                    }))
                } else {
                    Given::Absent
                },
                visibility: data.visibility,
            }
            .command()
        });
        Update { settings, folder }
    }
}

/// `POST /envelope/distribute` and `/document/distribute`: the document, and meta to set first.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = V2Distribute)]
pub struct DistributeRequest {
    #[serde(default)]
    #[schema(required = false)]
    pub envelope_id: Option<String>,
    #[serde(default)]
    #[schema(value_type = Option<i64>, required = false)]
    pub document_id: Option<Int>,
    #[serde(default)]
    #[schema(value_type = Option<MetaInput>)]
    pub meta: Given<Object<MetaInput>>,
}

impl DistributeRequest {
    pub fn target(&self, group: Group) -> Result<Envelope, AppError> {
        document_target(self.envelope_id.as_deref(), self.document_id, group)
    }

    /// The meta change to make before sending, when `meta` names any.
    pub fn meta(self) -> Option<crate::signing::documents::settings::UpdateSettings> {
        let given = !matches!(self.meta, Given::Absent | Given::Null);
        given.then(|| {
            UpdateDocumentRequest {
                meta: self.meta,
                ..UpdateDocumentRequest::default()
            }
            .command()
        })
    }
}

fn document_target(
    envelope_id: Option<&str>,
    document_id: Option<Int>,
    group: Group,
) -> Result<Envelope, AppError> {
    match group {
        Group::Document => Ok(Envelope::Document(DocumentId::new(
            document_id.ok_or(missing("documentId"))?.0,
        ))),
        _ => envelope(envelope_id.ok_or(missing("envelopeId"))?),
    }
}

/// `POST /envelope/redistribute` and `/document/redistribute`: the recipients to e-mail again.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = V2Redistribute)]
pub struct RedistributeRequest {
    #[serde(default)]
    #[schema(required = false)]
    pub envelope_id: Option<String>,
    #[serde(default)]
    #[schema(value_type = Option<i64>, required = false)]
    pub document_id: Option<Int>,
    /// Recipient ids, at most 100.
    #[schema(value_type = Vec<i64>)]
    pub recipients: Vec<Int>,
}

impl RedistributeRequest {
    pub fn target(&self, group: Group) -> Result<Envelope, AppError> {
        document_target(self.envelope_id.as_deref(), self.document_id, group)
    }

    pub fn recipients(&self) -> Result<Vec<RecipientId>, AppError> {
        if self.recipients.len() > MAX_RESEND {
            return Err(AppError::validation(vec![
                crate::core::error::FieldError::new(
                    "recipients",
                    format!("at most {MAX_RESEND} recipient ids"),
                ),
            ]));
        }
        Ok(self
            .recipients
            .iter()
            .map(|r| RecipientId::new(r.0))
            .collect())
    }
}
