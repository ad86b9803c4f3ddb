//! What the API v2's `POST /template/use` takes: the template, its recipients by id (numbers
//! as either client sends them), `override` (title and meta), `prefillFields`, `formValues`,
//! whether to send at once and the folder. Read into v1's `GenerateRequest`, so a document made
//! through v2 is checked as one made through v1's generate-document.

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::core::ids::{RecipientId, TemplateId};
use crate::core::lenient::{Given, Int, Object};
use crate::http::api::wire::documents::meta::MetaInput;
use crate::http::api::wire::templates::generate::{GenerateRequest, NamedRecipientInput};
use crate::http::api::wire::templates::prefill::PrefillInput;
use crate::signing::envelopes::uses::Use;

/// A template recipient by id, and what changes for this document.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = V2UseRecipient)]
pub struct UseRecipient {
    #[schema(value_type = i64)]
    pub id: Int,
    #[serde(default)]
    /// `""` keeps the template's address.
    #[schema(value_type = Option<String>)]
    pub email: Given<String>,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub name: Given<String>,
    #[serde(default)]
    #[schema(value_type = Option<i64>)]
    pub signing_order: Given<serde_json::Number>,
}

/// `override`: the title and the meta over the template's.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = V2UseOverride)]
pub struct Override {
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub title: Given<String>,
    #[serde(flatten)]
    pub meta: MetaInput,
}

/// `POST /template/use`.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = V2TemplateUse)]
pub struct TemplateUseRequest {
    #[schema(value_type = i64)]
    pub template_id: Int,
    #[serde(default)]
    pub recipients: Vec<UseRecipient>,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub external_id: Given<String>,
    #[serde(default)]
    /// Send the document at once.
    #[schema(value_type = Option<bool>)]
    pub distribute_document: Given<bool>,
    #[serde(default)]
    /// A document folder of the workspace.
    pub folder_id: Option<String>,
    #[serde(default)]
    #[schema(value_type = Option<Vec<PrefillInput>>)]
    pub prefill_fields: Given<Vec<Given<Object<PrefillInput>>>>,
    #[serde(default, rename = "override")]
    #[schema(value_type = Option<Override>)]
    pub overrides: Given<Object<Override>>,
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    pub form_values: Given<Map<String, Value>>,
}

impl TemplateUseRequest {
    pub fn template(&self) -> TemplateId {
        TemplateId::new(self.template_id.0)
    }

    /// The use: v1's generate command, whether to send, and the folder.
    pub fn command(self) -> Use {
        let recipients = self
            .recipients
            .into_iter()
            .map(|r| {
                Given::Valid(Object(NamedRecipientInput {
                    id: Given::Valid(RecipientId::new(r.id.0)),
                    email: match r.email {
                        Given::Valid(e) if e.is_empty() => Given::Absent,
                        e => e,
                    },
                    name: r.name,
                    signing_order: r.signing_order,
                    role: Given::Absent,
                }))
            })
            .collect();
        let (title, meta) = match self.overrides {
            Given::Valid(Object(o)) => (o.title, Given::Valid(Object(o.meta))),
            _ => (Given::Absent, Given::Absent),
        };
        Use {
            generate: GenerateRequest {
                title,
                external_id: self.external_id,
                recipients: Given::Valid(recipients),
                meta,
                auth_options: Given::Absent,
                form_values: self.form_values,
                prefill_fields: self.prefill_fields,
            }
            .command(),
            distribute: matches!(self.distribute_document, Given::Valid(true)),
            folder: self.folder_id,
        }
    }
}
