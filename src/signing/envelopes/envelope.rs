//! The envelope shapes: `Envelope` (get, get-many) and `EnvelopeSummary` (find), one builder
//! for documents and templates alike from their read models.

use serde::Serialize;
use serde_json::{Map, Value};

use super::meta::DocumentMeta;
use super::people::{Parent, V2Field, V2Recipient};
use super::{Reader, time};
use crate::core::ids::UserId;
use crate::core::owner::Visibility;
use crate::signing::documents::Status;
use crate::signing::documents::auth_options::AuthOptions;
use crate::signing::documents::model::Document;
use crate::signing::envelope_ids::Envelope;
use crate::signing::templates::TemplateType;
use crate::signing::templates::model::Template;

/// A document or a template, read for one caller.
#[derive(Debug, Clone)]
pub enum Loaded {
    Document(Box<Document>),
    Template(Box<Template>),
}

/// The workspace and account a document or template belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Whose {
    pub user: UserBrief,
    /// The team's id, its slug and its name; none for a personal one.
    pub team: Option<(i64, String, String)>,
}

/// The account an envelope belongs to (`user`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[schema(as = V2User)]
pub struct UserBrief {
    pub id: UserId,
    pub name: String,
    pub email: String,
}

/// `team`: the team's id and slug; a personal workspace is the peer's "personal team", the
/// account's id with the url `personal`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = V2Team)]
pub struct TeamBrief {
    pub id: i64,
    pub url: String,
    pub name: String,
}

impl Whose {
    pub fn team_id(&self) -> i64 {
        self.team.as_ref().map_or(self.user.id.get(), |t| t.0)
    }

    pub fn team(&self) -> TeamBrief {
        match &self.team {
            Some((id, slug, name)) => TeamBrief {
                id: *id,
                url: slug.clone(),
                name: name.clone(),
            },
            None => TeamBrief {
                id: self.user.id.get(),
                url: "personal".into(),
                name: "Personal".into(),
            },
        }
    }
}

/// How an answer is made: for which client, and whether it shows signing links.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shown {
    pub reader: Reader,
    pub links: bool,
}

/// A status as the reader knows it (a cancelled document reads REJECTED to a client that
/// knows no CANCELLED).
pub fn status(s: Status, reader: Reader) -> &'static str {
    match s {
        Status::Cancelled if !reader.knows_newer_values() => "REJECTED",
        other => other.as_str(),
    }
}

/// `directLink` of a template.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = V2DirectLink)]
pub struct DirectLinkBrief {
    pub id: String,
    pub envelope_id: String,
    pub template_id: i64,
    pub token: String,
    pub enabled: bool,
    pub direct_template_recipient_id: i64,
    pub created_at: String,
}

impl DirectLinkBrief {
    /// The template's direct link, once it names a recipient.
    pub fn of(t: &Template) -> Option<DirectLinkBrief> {
        let recipient = t.direct_link_recipient?;
        Some(DirectLinkBrief {
            id: format!("direct_{}", t.id),
            envelope_id: Envelope::Template(t.id).id(),
            template_id: t.id.get(),
            token: t.direct_link_token.clone(),
            enabled: t.direct_recipient().is_some(),
            direct_template_recipient_id: recipient.get(),
            created_at: time(t.created_at),
        })
    }
}

/// One file of an envelope (`envelopeItems[]`).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = V2EnvelopeItem)]
pub struct Item {
    pub envelope_id: String,
    pub id: String,
    pub title: String,
    pub order: i64,
    pub document_data_id: String,
}

/// What every envelope shape has (the peer's `EnvelopeSummary` without `team`).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = V2EnvelopeHead)]
pub struct Head {
    pub internal_version: i64,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub status: &'static str,
    pub source: &'static str,
    pub visibility: Visibility,
    pub template_type: TemplateType,
    pub id: String,
    pub secondary_id: String,
    pub external_id: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    pub completed_at: Option<String>,
    pub deleted_at: Option<String>,
    pub title: String,
    pub auth_options: Option<AuthOptions>,
    #[schema(value_type = Option<Object>)]
    pub form_values: Option<Map<String, Value>>,
    pub public_title: String,
    pub public_description: String,
    pub user_id: UserId,
    pub team_id: i64,
    pub folder_id: Option<String>,
    pub template_id: Option<i64>,
    pub recipients: Vec<V2Recipient>,
}

/// `Envelope`: get and get-many.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = V2Envelope)]
pub struct Full {
    #[serde(flatten)]
    pub head: Head,
    pub document_meta: DocumentMeta,
    pub fields: Vec<V2Field>,
    pub envelope_items: Vec<Item>,
    pub direct_link: Option<DirectLinkBrief>,
    pub team: TeamBrief,
    pub user: UserBrief,
}

/// `EnvelopeSummary`: find.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = V2EnvelopeSummary)]
pub struct Summary {
    #[serde(flatten)]
    pub head: Head,
    pub team: Option<TeamBrief>,
    pub user: UserBrief,
}

impl Loaded {
    pub fn envelope(&self) -> Envelope {
        match self {
            Loaded::Document(d) => Envelope::Document(d.id),
            Loaded::Template(t) => Envelope::Template(t.id),
        }
    }

    fn parent(&self) -> Parent {
        Parent {
            envelope: self.envelope(),
            legacy: false,
        }
    }

    fn people(
        &self,
    ) -> (
        &[crate::signing::documents::model::Recipient],
        &[crate::signing::documents::model::Field],
    ) {
        match self {
            Loaded::Document(d) => (&d.recipients, &d.fields),
            Loaded::Template(t) => (&t.recipients, &t.fields),
        }
    }

    pub fn head(&self, whose: &Whose, shown: Shown) -> Head {
        let parent = self.parent();
        let recipients = self
            .people()
            .0
            .iter()
            .map(|r| V2Recipient::of(r, parent, shown.links))
            .collect();
        match self {
            Loaded::Document(d) => Head {
                internal_version: 1,
                kind: "DOCUMENT",
                status: status(d.status, shown.reader),
                source: source(d),
                visibility: d.visibility,
                template_type: TemplateType::Private,
                id: parent.envelope.id(),
                secondary_id: format!("document_{}", d.id),
                external_id: d.external_id.clone(),
                created_at: time(d.created_at),
                updated_at: time(d.updated_at),
                completed_at: d.completed_at.map(time),
                deleted_at: None,
                title: d.title.clone(),
                auth_options: Some(d.auth_options.clone()),
                form_values: d.form_values.clone(),
                public_title: String::new(),
                public_description: String::new(),
                user_id: d.user_id,
                team_id: whose.team_id(),
                folder_id: d.folder_id.clone(),
                template_id: d.template_id.map(|t| t.get()),
                recipients,
            },
            Loaded::Template(t) => Head {
                internal_version: 1,
                kind: "TEMPLATE",
                status: "DRAFT",
                source: "DOCUMENT",
                visibility: t.visibility,
                template_type: t.kind,
                id: parent.envelope.id(),
                secondary_id: format!("template_{}", t.id),
                external_id: t.external_id.clone(),
                created_at: time(t.created_at),
                updated_at: time(t.updated_at),
                completed_at: None,
                deleted_at: None,
                title: t.title.clone(),
                auth_options: Some(t.auth_options.clone()),
                form_values: None,
                public_title: String::new(),
                public_description: String::new(),
                user_id: t.user_id,
                team_id: whose.team_id(),
                folder_id: t.folder_id.clone(),
                template_id: None,
                recipients,
            },
        }
    }

    /// The one file, as the envelope's only item.
    pub fn items(&self) -> Vec<Item> {
        let (title, data_id) = match self {
            Loaded::Document(d) => (&d.title, &d.document_data_id),
            Loaded::Template(t) => (&t.title, &t.document_data_id),
        };
        vec![Item {
            envelope_id: self.envelope().id(),
            id: self.parent().item_id(),
            title: title.clone(),
            order: 1,
            document_data_id: data_id.clone(),
        }]
    }

    pub fn meta(&self) -> DocumentMeta {
        match self {
            Loaded::Document(d) => DocumentMeta::of_document(d),
            Loaded::Template(t) => DocumentMeta::of(t.meta_id.clone(), &t.meta),
        }
    }

    pub fn full(&self, whose: &Whose, shown: Shown) -> Full {
        let parent = self.parent();
        Full {
            head: self.head(whose, shown),
            document_meta: self.meta(),
            fields: self
                .people()
                .1
                .iter()
                .map(|f| V2Field::of(f, parent))
                .collect(),
            envelope_items: self.items(),
            direct_link: match self {
                Loaded::Template(t) => DirectLinkBrief::of(t),
                Loaded::Document(_) => None,
            },
            team: whose.team(),
            user: whose.user.clone(),
        }
    }

    pub fn summary(&self, whose: &Whose, shown: Shown) -> Summary {
        Summary {
            head: self.head(whose, shown),
            team: Some(whose.team()),
            user: whose.user.clone(),
        }
    }
}

/// How a document came to be: uploaded, made from a template, or through a direct link.
pub fn source(d: &Document) -> &'static str {
    if d.recipients.iter().any(|r| r.direct_link) {
        "TEMPLATE_DIRECT_LINK"
    } else if d.template_id.is_some() {
        "TEMPLATE"
    } else {
        "DOCUMENT"
    }
}
