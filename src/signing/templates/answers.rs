//! The template API's answers around a template's own shape (`TemplateView`): creation, lists,
//! deletion, added recipients and fields. Their OpenAPI schemas are derived from these types.

use crate::core::ids::TemplateId;
use serde::Serialize;
use utoipa::ToSchema;

use super::{TemplateField, TemplateRecipient, TemplateView};
use crate::signing::documents::answers::always_true;
use crate::signing::documents::view::RecipientBrief;

/// `POST /api/v1/templates`: the template with its recipients, and the signed upload URL of
/// its PDF (the same `PUT` as for documents).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = CreateTemplateResponse)]
pub struct TemplateCreated {
    pub template_id: TemplateId,
    pub upload_url: String,
    pub recipients: Vec<RecipientBrief>,
    /// The new template, where the other signing service's clients read it.
    pub template: TemplateView,
}

/// `GET /api/v1/templates`: a page of templates, newest first.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemplateList {
    pub templates: Vec<TemplateView>,
    pub total_pages: i64,
}

/// A deleted template as it was (the other signing service's answer), with `deleted: true`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(as = DeletedTemplate)]
pub struct TemplateRemoved {
    #[serde(flatten)]
    pub template: TemplateView,
    #[schema(schema_with = always_true)]
    pub deleted: bool,
}

/// An added template recipient, with the template it belongs to.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = AddedTemplateRecipient)]
pub struct RecipientAdded {
    #[serde(flatten)]
    pub recipient: TemplateRecipient,
    pub template_id: TemplateId,
}

/// `POST /api/v1/templates/{id}/fields`: the added fields.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = TemplateFieldsResponse)]
pub struct TemplateFieldsAdded {
    pub template_id: TemplateId,
    pub fields: Vec<TemplateField>,
}

/// A removed template recipient as it was, with `deleted: true`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(as = DeletedTemplateRecipient)]
pub struct TemplateRecipientRemoved {
    #[serde(flatten)]
    pub recipient: TemplateRecipient,
    #[schema(schema_with = always_true)]
    pub deleted: bool,
}

/// A removed template field as it was, with `deleted: true`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(as = DeletedTemplateField)]
pub struct TemplateFieldRemoved {
    #[serde(flatten)]
    pub field: TemplateField,
    #[schema(schema_with = always_true)]
    pub deleted: bool,
}
