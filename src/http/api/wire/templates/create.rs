//! `POST /api/v1/templates` as a type, turned into the template to create: the document's
//! recipient, meta and auth shapes, recipients without an e-mail getting placeholders.

use serde::Deserialize;
use utoipa::ToSchema;

use super::super::documents::List;
use super::super::documents::auth::{
    AuthOptionsInput, Methods, access_methods_schema, action_methods_schema, parse_auth_options,
    parse_global_auth,
};
use super::super::documents::create::title;
use super::super::documents::meta::{MetaInput, chosen, parse_meta};
use super::super::documents::recipients::{RecipientInput, parse_recipients};
use crate::core::error::AppError;
use crate::core::lenient::{Given, Object};
use crate::signing::documents::check::Check;
use crate::signing::documents::meta::Meta;
use crate::signing::documents::{MAX_EXTERNAL_ID, MAX_RECIPIENTS};
use crate::signing::templates::{CreateTemplate, TemplateType, placeholder_email};

/// A new template; recipients may come later, and without an e-mail.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = CreateTemplate, example = json!({"title": "Lease", "type": "PRIVATE",
    "recipients": [{"name": "Tenant", "role": "SIGNER"}]}))]
pub struct CreateTemplateRequest {
    #[serde(default)]
    #[schema(value_type = String, required = true, min_length = 1, max_length = 255)]
    pub title: Given<String>,
    #[serde(default)]
    #[schema(value_type = Option<String>, max_length = 255)]
    pub external_id: Given<String>,
    /// PRIVATE when left out.
    #[serde(default, rename = "type")]
    #[schema(value_type = Option<TemplateType>)]
    pub kind: Given<TemplateType>,
    #[serde(default)]
    #[schema(value_type = Option<Vec<RecipientInput>>, max_items = 100)]
    pub recipients: List<RecipientInput>,
    #[serde(default)]
    #[schema(value_type = Option<MetaInput>)]
    pub meta: Given<Object<MetaInput>>,
    #[serde(default)]
    #[schema(value_type = Option<AuthOptionsInput>)]
    pub auth_options: Given<Object<AuthOptionsInput>>,
    /// The signing service's newer form of `authOptions.globalAccessAuth`.
    #[serde(default)]
    #[schema(schema_with = access_methods_schema)]
    pub global_access_auth: Methods,
    /// The signing service's newer form of `authOptions.globalActionAuth`.
    #[serde(default)]
    #[schema(schema_with = action_methods_schema)]
    pub global_action_auth: Methods,
    /// Who in its team sees it: `EVERYONE` (the default), `MANAGER_AND_ABOVE` or `ADMIN` (a
    /// team's template only; a role gives only a visibility it sees).
    #[serde(default)]
    #[schema(value_type = Option<crate::core::owner::Visibility>)]
    pub visibility: Given<String>,
}

impl CreateTemplateRequest {
    /// The template to create: 400 listing every problem. The tier's rules are the use case's.
    pub fn validate(self) -> Result<CreateTemplate, AppError> {
        let mut c = Check::new();
        let title = title(&mut c, &self.title);
        let external_id = c.text(&self.external_id, "externalId", MAX_EXTERNAL_ID);
        let kind = c
            .given(&self.kind, "type", "must be PUBLIC or PRIVATE")
            .copied()
            .unwrap_or(TemplateType::Private);
        let mut raw = self.recipients;
        if let Given::Valid(list) = &mut raw {
            for (i, r) in list.iter_mut().enumerate() {
                if let Given::Valid(Object(one)) = r {
                    *one = with_placeholder(std::mem::take(one), i + 1);
                }
            }
        }
        // A template may start without recipients (the other signing service's clients create
        // them so) and get them later through its recipients route.
        let recipients = match raw {
            Given::Absent | Given::Null => Vec::new(),
            raw => parse_recipients(&mut c, &raw, "recipients", MAX_RECIPIENTS),
        };
        let meta = parse_meta(&mut c, &self.meta, Meta::default(), true);
        let chosen = chosen(&self.meta);
        let visibility =
            crate::http::api::wire::documents::settings::parse_visibility(&mut c, &self.visibility);
        // docket's `authOptions` object, or the signing service's newer top-level lists.
        let mut auth_options = parse_auth_options(&mut c, &self.auth_options);
        let top_level = AuthOptionsInput {
            global_access_auth: self.global_access_auth,
            global_action_auth: self.global_action_auth,
        };
        let top = parse_global_auth(&mut c, &top_level, "");
        if auth_options.global_access_auth.is_empty() {
            auth_options.global_access_auth = top.global_access_auth;
        }
        if auth_options.global_action_auth.is_empty() {
            auth_options.global_action_auth = top.global_action_auth;
        }
        c.finish(CreateTemplate {
            title,
            external_id,
            kind,
            recipients,
            meta,
            chosen,
            auth_options,
            visibility,
        })
    }
}

/// `raw` with the placeholder address of recipient `n` (`templates::placeholder_email`) when
/// it has no e-mail (absent or null).
fn with_placeholder(raw: RecipientInput, n: usize) -> RecipientInput {
    if raw.email.is_absent() {
        return RecipientInput {
            email: Given::Valid(placeholder_email(n)),
            ..raw
        };
    }
    raw
}
