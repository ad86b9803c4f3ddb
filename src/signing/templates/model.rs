//! The one read model of a template: its row with its recipients and fields, the same
//! `Recipient` and `Field` a document holds (`templates::store::owned` reads it), and the
//! shapes the API shows, made from it.

use super::{
    Base, DOCUMENT_DATA_TYPE, DirectLink, TemplateDocumentData, TemplateField, TemplateMeta,
    TemplateRecipient, TemplateType, TemplateView,
};
use crate::core::ids::{RecipientId, TeamId, TemplateId, UserId};
use crate::core::owner::Visibility;
use crate::core::timefmt::iso8601;
use crate::signing::documents::view::decimal;
use crate::{signing::documents::auth_options::AuthOptions, signing::documents::meta::Meta};
use crate::{signing::documents::model::Field, signing::documents::model::Recipient};

/// A template, its recipients (by id) and its fields (by id).
#[derive(Debug, Clone)]
pub struct Template {
    pub id: TemplateId,
    /// Its creator; the owner when `team_id` is `None`.
    pub user_id: UserId,
    /// The team it belongs to; `None` for a personal template.
    pub team_id: Option<TeamId>,
    /// Who in its team sees it (meaningless for a personal template).
    pub visibility: Visibility,
    /// The folder it is in (`signing::folders`); `None` at the root.
    pub folder_id: Option<String>,
    pub external_id: Option<String>,
    pub kind: TemplateType,
    pub title: String,
    pub document_data_id: String,
    pub blob_id: Option<String>,
    /// The SHA-256 of the uploaded PDF.
    pub blob_sha256: Option<String>,
    /// `[width, height]` in points, one per page of `blob_id`; `None` before an upload.
    pub page_sizes: Option<Vec<[f64; 2]>>,
    pub meta_id: String,
    pub meta: Meta,
    pub auth_options: AuthOptions,
    pub direct_link_token: String,
    pub direct_link_enabled: bool,
    /// The recipient a visitor of the direct link becomes (`templates::direct`).
    pub direct_link_recipient: Option<RecipientId>,
    pub created_at: i64,
    pub updated_at: i64,
    pub recipients: Vec<Recipient>,
    pub fields: Vec<Field>,
}

impl Template {
    /// Page count of its file, once there is one.
    pub fn pages(&self) -> Option<i64> {
        self.page_sizes.as_ref().map(|s| s.len() as i64)
    }

    /// What a generated document starts from: title, meta, auth options and recipients.
    pub fn base(&self) -> Base {
        Base {
            title: self.title.clone(),
            meta: self.meta.clone(),
            auth_options: self.auth_options.clone(),
            recipients: self.recipients.iter().map(|r| (r.id, r.as_new())).collect(),
            fields: self.fields.clone(),
        }
    }

    /// The recipient a visitor of the direct link becomes, while the link is on and that
    /// recipient is still the template's.
    pub fn direct_recipient(&self) -> Option<&Recipient> {
        let id = self
            .direct_link_recipient
            .filter(|_| self.direct_link_enabled)?;
        self.recipients.iter().find(|r| r.id == id)
    }

    /// The number of the next placeholder address: after the template's recipients, and free.
    pub fn next_placeholder(&self) -> usize {
        let mut n = self.recipients.len() + 1;
        while self
            .recipients
            .iter()
            .any(|r| r.email == super::placeholder_email(n))
        {
            n += 1;
        }
        n
    }
}

impl TemplateRecipient {
    pub fn of(r: &Recipient) -> TemplateRecipient {
        TemplateRecipient {
            id: r.id,
            email: r.email.clone(),
            name: r.name.clone(),
            signing_order: r.signing_order,
            auth_options: if r.auth.is_empty() {
                String::new()
            } else {
                serde_json::to_string(&r.auth).unwrap_or_default()
            },
            role: r.role,
        }
    }
}

impl TemplateField {
    pub fn of(f: &Field) -> TemplateField {
        TemplateField {
            id: f.id,
            recipient_id: f.recipient_id,
            kind: f.kind,
            page: f.page,
            position_x: decimal(f.x),
            position_y: decimal(f.y),
            width: decimal(f.width),
            height: decimal(f.height),
            field_meta: f.meta.clone(),
        }
    }
}

impl TemplateView {
    pub fn of(t: &Template) -> TemplateView {
        TemplateView {
            id: t.id,
            external_id: t.external_id.clone(),
            kind: t.kind,
            title: t.title.clone(),
            user_id: t.user_id,
            team_id: t.team_id.map(|t| t.get()),
            template_document_data_id: t.document_data_id.clone(),
            created_at: iso8601(t.created_at),
            updated_at: iso8601(t.updated_at),
            template_meta: TemplateMeta::new(t.meta_id.clone(), t.id, t.meta.clone()),
            direct_link: DirectLink {
                token: t.direct_link_token.clone(),
                enabled: t.direct_recipient().is_some(),
            },
            template_document_data: TemplateDocumentData {
                id: t.document_data_id.clone(),
                kind: DOCUMENT_DATA_TYPE,
                data: t.blob_sha256.clone().unwrap_or_default(),
            },
            fields: t.fields.iter().map(TemplateField::of).collect(),
            recipients: t.recipients.iter().map(TemplateRecipient::of).collect(),
        }
    }
}
