//! `PATCH /api/v1/documents/{id}` (and a template's `PATCH`) as a type: a draft's settings
//! (title, externalId, meta, authOptions), turned into the `UpdateSettings` command. Members left
//! out keep their values; `null` clears what may be empty (externalId, and meta's subject,
//! message and redirectUrl). Read with the same shapes and checks as create.

use serde::Deserialize;
use utoipa::ToSchema;

use super::auth::{AuthOptionsInput, parse_auth_options};
use super::create::title;
use super::meta::{MetaInput, parse_meta};
use crate::core::error::AppError;
use crate::core::lenient::{Given, Object, OneOrMany};
use crate::core::owner::Visibility;
use crate::signing::documents::MAX_EXTERNAL_ID;
use crate::signing::documents::auth_options::AuthOptions;
use crate::signing::documents::check::{Against, Check};
use crate::signing::documents::meta::Meta;
use crate::signing::documents::settings::{Settings, SettingsChange, UpdateSettings};

/// `PATCH /api/v1/documents/{id}`: each member optional.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = UpdateDocument, example = json!({"title": "NDA (v2)",
    "meta": {"subject": "Please sign {document.name}", "signingOrder": "SEQUENTIAL"}}))]
pub struct UpdateDocumentRequest {
    #[serde(default)]
    #[schema(value_type = Option<String>, min_length = 1, max_length = 255)]
    pub title: Given<String>,
    #[serde(default)]
    /// `null` clears it.
    #[schema(value_type = Option<String>, max_length = 255)]
    pub external_id: Given<String>,
    #[serde(default)]
    /// The members sent replace the current ones; `null` clears subject, message and
    /// redirectUrl.
    #[schema(value_type = Option<MetaInput>)]
    pub meta: Given<Object<MetaInput>>,
    #[serde(default)]
    /// A method list left out keeps its value; `null` clears it.
    #[schema(value_type = Option<AuthOptionsInput>)]
    pub auth_options: Given<Object<AuthOptionsInput>>,
    #[serde(default)]
    /// Who in its team sees it: `EVERYONE`, `MANAGER_AND_ABOVE` or `ADMIN` (a team's document
    /// or template only; a role gives only a visibility it sees).
    #[schema(value_type = Option<Visibility>)]
    pub visibility: Given<String>,
}

/// A `visibility` member: `EVERYONE`, `MANAGER_AND_ABOVE` or `ADMIN` (any case), or a problem
/// at `visibility`. Who may give it is the use case's (`teams::access::Access::may_give`).
pub fn parse_visibility(c: &mut Check, given: &Given<String>) -> Option<Visibility> {
    c.given(given, "visibility", "must be a string")
        .and_then(|v| {
            let parsed = Visibility::parse(v);
            if parsed.is_none() {
                c.fail("visibility", "must be EVERYONE, MANAGER_AND_ABOVE or ADMIN");
            }
            parsed
        })
}

impl UpdateDocumentRequest {
    /// The command: this change, checked against the settings it is laid over.
    pub fn command(self) -> UpdateSettings {
        Against::new(move |now: &Settings| self.validate(&now.meta, &now.auth_options))
    }

    /// The change laid over the document's current `meta` and `authOptions`: 400 listing every
    /// problem with its JSON path.
    pub fn validate(&self, meta: &Meta, auth: &AuthOptions) -> Result<SettingsChange, AppError> {
        let mut c = Check::new();
        let title = (!matches!(self.title, Given::Absent)).then(|| title(&mut c, &self.title));
        let external_id = match &self.external_id {
            Given::Absent => None,
            Given::Null => Some(None),
            given => Some(c.text(given, "externalId", MAX_EXTERNAL_ID)),
        };
        let mut meta = parse_meta(&mut c, &self.meta, meta.clone(), true);
        if let Some(Object(raw)) = self.meta.valid() {
            let cleared = |g: &Given<String>| matches!(g, Given::Null);
            if cleared(&raw.subject) {
                meta.subject = None;
            }
            if cleared(&raw.message) {
                meta.message = None;
            }
            if cleared(&raw.redirect_url) {
                meta.redirect_url = None;
            }
        }
        let auth_options = match &self.auth_options {
            Given::Absent => auth.clone(),
            Given::Valid(Object(raw)) => {
                let kept = |g: &Given<OneOrMany<String>>, current: &[String]| match g {
                    Given::Absent => Given::Valid(OneOrMany(current.to_vec())),
                    given => given.clone(),
                };
                let over = AuthOptionsInput {
                    global_access_auth: kept(&raw.global_access_auth, &auth.global_access_auth),
                    global_action_auth: kept(&raw.global_action_auth, &auth.global_action_auth),
                };
                parse_auth_options(&mut c, &Given::Valid(Object(over)))
            }
            given => parse_auth_options(&mut c, given),
        };
        let visibility = parse_visibility(&mut c, &self.visibility);
        c.finish(SettingsChange {
            title,
            external_id,
            meta,
            auth_options,
            visibility,
        })
    }
}
