//! A draft's settings (title, externalId, meta, authOptions): the change a `PATCH` makes
//! (`UpdateSettings`, built from the wire by `http::api::wire::documents::settings`), laid over
//! the settings as they are, and the use case that makes it (`update`; the tier's rules are
//! `check_tier`).

use super::auth_options::AuthOptions;
use super::check::Against;
use super::meta::Meta;
use super::store;
use super::{DocumentView, SigningLinks};
use crate::core::context::Context;
use crate::core::db::now;
use crate::core::error::AppError;
use crate::core::ids::DocumentId;
use crate::identity::principal::Principal;
use crate::teams::access;

/// A checked settings change: `None` keeps the current value.
#[derive(Debug, Clone)]
pub struct SettingsChange {
    pub title: Option<String>,
    pub external_id: Option<Option<String>>,
    pub meta: Meta,
    pub auth_options: AuthOptions,
    /// Who in the team sees it (a team's document or template only: `Access::may_give`).
    pub visibility: Option<crate::core::owner::Visibility>,
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

/// Changes the settings of the user's draft `id`: 409 once it is sent, 403 for authentication
/// options the account's tier does not include. Answers the document as it now is.
pub async fn update(
    ctx: &Context,
    who: &Principal,
    id: DocumentId,
    change: UpdateSettings,
) -> Result<DocumentView, AppError> {
    let (user, caller, app) = (who.user_id, who.clone(), ctx.app.clone());
    let view = ctx
        .db
        .write(move |tx| {
            let access = access::resolve(tx, &caller)?;
            let doc = store::owned(tx, &access.owner(), id)?;
            doc.require_draft("change the document's settings")?;
            let change = change.check(&Settings::of(&doc.meta, &doc.auth_options))?;
            if let Some(v) = change.visibility {
                access.may_give(v, "documents")?;
            }
            let tier = crate::identity::users::store::tier(tx, user)?;
            let recipients: Vec<_> = doc.recipients.iter().map(|r| r.as_new()).collect();
            super::check_tier(&change.auth_options, &recipients, tier)?;
            store::set_settings(tx, &doc, &change, now())?;
            Ok(DocumentView::of(&store::load(tx, id)?, &app))
        })
        .await?;
    Ok(view.links_shown_if(who.sees_signing_links()))
}
