//! `PATCH /api/v1/documents/{id}`: a draft's settings (title, externalId, meta, authOptions).
//! Members left out keep their values; `null` clears what may be empty (externalId, and meta's
//! subject, message and redirectUrl). Read with the same lenient shapes and checks as create
//! (`MetaInput`, `meta::parse_meta`, `auth_options::parse_auth_options`, `check_tier`).

use serde::Deserialize;
use utoipa::ToSchema;

use super::auth_options::{self, AuthOptions};
use super::check::{Against, Check};
use super::meta::{self, Meta};
use super::request::{AuthOptionsInput, MetaInput, title};
use super::store;
use super::{DocumentView, SigningLinks};
use crate::core::context::Context;
use crate::core::db::now;
use crate::core::error::AppError;
use crate::core::ids::DocumentId;
use crate::core::lenient::{Given, Object, OneOrMany};
use crate::identity::principal::Principal;

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
}

/// A checked settings change: `None` keeps the current value.
#[derive(Debug, Clone)]
pub struct SettingsChange {
    pub title: Option<String>,
    pub external_id: Option<Option<String>>,
    pub meta: Meta,
    pub auth_options: AuthOptions,
}

/// A draft's settings as they are, what a change is laid over.
#[derive(Debug, Clone)]
pub struct Settings {
    pub meta: Meta,
    pub auth_options: AuthOptions,
}

impl Settings {
    pub fn of(meta: &Meta, auth_options: &AuthOptions) -> Settings {
        Settings {
            meta: meta.clone(),
            auth_options: auth_options.clone(),
        }
    }
}

/// A settings change, checked against the draft's current `Settings`.
pub type UpdateSettings = Against<Settings, SettingsChange>;

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
            given => Some(c.text(given, "externalId", 255)),
        };
        let mut meta = meta::parse_meta(&mut c, &self.meta, meta.clone(), true);
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
                auth_options::parse_auth_options(&mut c, &Given::Valid(Object(over)))
            }
            given => auth_options::parse_auth_options(&mut c, given),
        };
        c.finish(SettingsChange {
            title,
            external_id,
            meta,
            auth_options,
        })
    }
}

/// Changes the settings of the user's draft `id`: 409 once it is sent, 403 for authentication
/// options the account's tier does not include. Answers the document as it now is.
pub async fn update(
    ctx: &Context,
    who: &Principal,
    id: DocumentId,
    change: UpdateSettings,
) -> Result<DocumentView, AppError> {
    let (user, app) = (who.user_id, ctx.app.clone());
    let view = ctx
        .db
        .write(move |tx| {
            let doc = store::owned(tx, user, id)?;
            doc.require_draft("change the document's settings")?;
            let change = change.check(&Settings::of(&doc.meta, &doc.auth_options))?;
            let tier = crate::identity::users::store::tier(tx, user)?;
            let recipients: Vec<_> = doc.recipients.iter().map(|r| r.as_new()).collect();
            super::check_tier(&change.auth_options, &recipients, tier)?;
            store::set_settings(tx, &doc, &change, now())?;
            Ok(DocumentView::of(&store::load(tx, id)?, &app))
        })
        .await?;
    Ok(view.links_shown_if(who.sees_signing_links()))
}
