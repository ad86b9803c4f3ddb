//! The legacy v2 shapes, `/document/*` and `/template/*`: numbers for ids beside the envelope
//! id, built from the same read models and parts as the envelope shapes.

use serde::Serialize;
use serde_json::{Map, Value};

use super::envelope::{DirectLinkBrief, Shown, TeamBrief, UserBrief, Whose, source, status};
use super::meta::DocumentMeta;
use super::people::{Parent, V2Field, V2Recipient};
use super::time;
use crate::core::ids::UserId;
use crate::core::owner::Visibility;
use crate::signing::documents::auth_options::AuthOptions;
use crate::signing::documents::model::Document;
use crate::signing::envelope_ids::Envelope;
use crate::signing::folders::model::FolderView;
use crate::signing::templates::TemplateType;
use crate::signing::templates::model::Template;

/// `documentData` / `templateDocumentData`: where the file is. Docket's files are named by the
/// document's data id (`S3_PATH`, the peer's type for a stored file's key); the file itself is
/// read with the download operations.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = V2DocumentData)]
pub struct DocumentData {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub id: String,
    pub data: String,
    pub initial_data: String,
    pub envelope_item_id: String,
}

impl DocumentData {
    fn of(data_id: &str, parent: Parent) -> DocumentData {
        DocumentData {
            kind: "S3_PATH",
            id: data_id.to_string(),
            data: data_id.to_string(),
            initial_data: data_id.to_string(),
            envelope_item_id: parent.item_id(),
        }
    }
}

/// `envelopeItems[]` of a legacy answer.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = V2LegacyItem)]
pub struct ItemRef {
    pub id: String,
    pub envelope_id: String,
}

/// What the legacy document shapes share.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = V2LegacyDocumentHead)]
pub struct DocumentHead {
    pub visibility: Visibility,
    pub status: &'static str,
    pub source: &'static str,
    pub id: i64,
    pub external_id: Option<String>,
    pub user_id: UserId,
    pub auth_options: Option<AuthOptions>,
    #[schema(value_type = Option<Object>)]
    pub form_values: Option<Map<String, Value>>,
    pub title: String,
    pub created_at: String,
    pub updated_at: String,
    pub completed_at: Option<String>,
    pub deleted_at: Option<String>,
    pub team_id: i64,
    pub folder_id: Option<String>,
    pub envelope_id: String,
    pub internal_version: i64,
    pub template_id: Option<i64>,
    pub document_data_id: String,
    pub recipients: Vec<V2Recipient>,
}

/// `GET /document/{id}`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = V2LegacyDocument)]
pub struct LegacyDocument {
    #[serde(flatten)]
    pub head: DocumentHead,
    pub document_data: DocumentData,
    pub document_meta: DocumentMeta,
    pub envelope_items: Vec<ItemRef>,
    /// The folder it is in, when the caller sees that folder.
    pub folder: Option<FolderView>,
    pub fields: Vec<V2Field>,
}

/// An item of `GET /document` and `POST /document/get-many`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = V2LegacyDocumentSummary)]
pub struct LegacyDocumentSummary {
    #[serde(flatten)]
    pub head: DocumentHead,
    pub use_legacy_field_insertion: bool,
    pub user: UserBrief,
    pub team: Option<TeamBrief>,
}

fn legacy(envelope: Envelope) -> Parent {
    Parent {
        envelope,
        legacy: true,
    }
}

fn item_refs(parent: Parent) -> Vec<ItemRef> {
    vec![ItemRef {
        id: parent.item_id(),
        envelope_id: parent.envelope.id(),
    }]
}

fn document_head(d: &Document, whose: &Whose, shown: Shown) -> DocumentHead {
    let parent = legacy(Envelope::Document(d.id));
    DocumentHead {
        visibility: d.visibility,
        status: status(d.status, shown.reader),
        source: source(d),
        id: d.id.get(),
        external_id: d.external_id.clone(),
        user_id: d.user_id,
        auth_options: Some(d.auth_options.clone()),
        form_values: d.form_values.clone(),
        title: d.title.clone(),
        created_at: time(d.created_at),
        updated_at: time(d.updated_at),
        completed_at: d.completed_at.map(time),
        deleted_at: None,
        team_id: whose.team_id(),
        folder_id: d.folder_id.clone(),
        envelope_id: parent.envelope.id(),
        internal_version: 1,
        template_id: d.template_id.map(|t| t.get()),
        document_data_id: d.document_data_id.clone(),
        recipients: d
            .recipients
            .iter()
            .map(|r| V2Recipient::of(r, parent, shown.links))
            .collect(),
    }
}

impl LegacyDocument {
    pub fn of(
        d: &Document,
        whose: &Whose,
        shown: Shown,
        folder: Option<FolderView>,
    ) -> LegacyDocument {
        let parent = legacy(Envelope::Document(d.id));
        let mut meta = DocumentMeta::of_document(d);
        meta.document_id = Some(d.id.get());
        meta.password = Some(None);
        LegacyDocument {
            head: document_head(d, whose, shown),
            document_data: DocumentData::of(&d.document_data_id, parent),
            document_meta: meta,
            envelope_items: item_refs(parent),
            folder,
            fields: d.fields.iter().map(|f| V2Field::of(f, parent)).collect(),
        }
    }
}

impl LegacyDocumentSummary {
    pub fn of(d: &Document, whose: &Whose, shown: Shown) -> LegacyDocumentSummary {
        LegacyDocumentSummary {
            head: document_head(d, whose, shown),
            use_legacy_field_insertion: false,
            user: whose.user.clone(),
            team: Some(whose.team()),
        }
    }
}

/// What the legacy template shapes share.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = V2LegacyTemplateHead)]
pub struct TemplateHead {
    #[serde(rename = "type")]
    pub kind: TemplateType,
    pub visibility: Visibility,
    pub id: i64,
    pub external_id: Option<String>,
    pub title: String,
    pub user_id: UserId,
    pub team_id: i64,
    pub auth_options: Option<AuthOptions>,
    pub created_at: String,
    pub updated_at: String,
    pub public_title: String,
    pub public_description: String,
    pub folder_id: Option<String>,
    pub envelope_id: String,
    pub template_document_data_id: String,
    pub template_meta: DocumentMeta,
    pub direct_link: Option<DirectLinkBrief>,
    pub recipients: Vec<V2Recipient>,
    pub fields: Vec<V2Field>,
}

/// `GET /template/{id}`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = V2LegacyTemplate)]
pub struct LegacyTemplate {
    #[serde(flatten)]
    pub head: TemplateHead,
    pub template_document_data: DocumentData,
    pub user: UserBrief,
    /// The folder it is in, when the caller sees that folder.
    pub folder: Option<FolderView>,
    pub envelope_items: Vec<ItemRef>,
}

/// An item of `GET /template` and `POST /template/get-many`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = V2LegacyTemplateSummary)]
pub struct LegacyTemplateSummary {
    #[serde(flatten)]
    pub head: TemplateHead,
    pub use_legacy_field_insertion: bool,
    pub team: Option<TeamBrief>,
}

fn template_head(t: &Template, whose: &Whose, shown: Shown) -> TemplateHead {
    let parent = legacy(Envelope::Template(t.id));
    let mut meta = DocumentMeta::of(t.meta_id.clone(), &t.meta);
    meta.template_id = Some(Some(t.id.get()));
    TemplateHead {
        kind: t.kind,
        visibility: t.visibility,
        id: t.id.get(),
        external_id: t.external_id.clone(),
        title: t.title.clone(),
        user_id: t.user_id,
        team_id: whose.team_id(),
        auth_options: Some(t.auth_options.clone()),
        created_at: time(t.created_at),
        updated_at: time(t.updated_at),
        public_title: String::new(),
        public_description: String::new(),
        folder_id: t.folder_id.clone(),
        envelope_id: parent.envelope.id(),
        template_document_data_id: t.document_data_id.clone(),
        template_meta: meta,
        direct_link: DirectLinkBrief::of(t),
        recipients: t
            .recipients
            .iter()
            .map(|r| V2Recipient::of(r, parent, shown.links))
            .collect(),
        fields: t.fields.iter().map(|f| V2Field::of(f, parent)).collect(),
    }
}

impl LegacyTemplate {
    pub fn of(
        t: &Template,
        whose: &Whose,
        shown: Shown,
        folder: Option<FolderView>,
    ) -> LegacyTemplate {
        let parent = legacy(Envelope::Template(t.id));
        LegacyTemplate {
            head: template_head(t, whose, shown),
            template_document_data: DocumentData::of(&t.document_data_id, parent),
            user: whose.user.clone(),
            folder,
            envelope_items: item_refs(parent),
        }
    }
}

impl LegacyTemplateSummary {
    pub fn of(t: &Template, whose: &Whose, shown: Shown) -> LegacyTemplateSummary {
        LegacyTemplateSummary {
            head: template_head(t, whose, shown),
            use_legacy_field_insertion: false,
            team: Some(whose.team()),
        }
    }
}
