//! The v2 changes to a whole envelope: update, delete, distribute and redistribute. Each is
//! made by the use case v1 and the web application call (`documents::settings`,
//! `documents::manage`, `workflow::sending`, `templates::edit`, `folders`), so no v2 change has
//! a rule of its own; the answers are read back afterwards (`reads`).

use serde::Serialize;

use crate::core::context::Context;
use crate::core::error::AppError;
use crate::core::ids::{DocumentId, RecipientId};
use crate::identity::principal::Principal;
use crate::signing::documents::audit::Origin;
use crate::signing::documents::recipients::Role;
use crate::signing::documents::settings::UpdateSettings;
use crate::signing::documents::{DocumentView, SigningLinks, manage, settings};
use crate::signing::envelope_ids::Envelope;
use crate::signing::folders;
use crate::signing::templates::edit;
use crate::signing::templates::manage as templates;
use crate::signing::workflow::sending::{self, Resend, SendDocument};

/// `{success: true}`: the answer of a delete or a redistribute.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct Success {
    pub success: bool,
}

impl Success {
    pub const DONE: Success = Success { success: true };
}

/// A recipient of a distributed document with the link to sign by (empty to a caller that
/// may not see signing links).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SigningLink {
    pub id: RecipientId,
    pub name: String,
    pub email: String,
    pub token: String,
    pub role: Role,
    #[schema(required = true)]
    pub signing_order: Option<i64>,
    pub signing_url: String,
}

/// The answer of an envelope's distribute: the envelope and each recipient's link.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Distributed {
    pub success: bool,
    pub id: String,
    pub recipients: Vec<SigningLink>,
}

impl Distributed {
    fn of(view: &DocumentView) -> Distributed {
        Distributed {
            success: true,
            id: Envelope::Document(view.id).id(),
            recipients: view
                .recipients
                .iter()
                .map(|r| SigningLink {
                    id: r.id,
                    name: r.name.clone(),
                    email: r.email.clone(),
                    token: r.token.clone().unwrap_or_default(),
                    role: r.role,
                    signing_order: r.signing_order,
                    signing_url: r.signing_url.clone().unwrap_or_default(),
                })
                .collect(),
        }
    }
}

/// What an update changes: the settings (title, externalId, visibility, authentication, meta)
/// and the folder (`Some(None)`: out of any folder). `None` leaves each as it is.
#[derive(Debug)]
pub struct Update {
    pub settings: Option<UpdateSettings>,
    pub folder: Option<Option<String>>,
}

/// Updates the caller's envelope `id`: the settings first (a document only while it is a
/// draft, as v1's `PATCH`), then the folder (`folders::move_*`, which checks the folder is the
/// workspace's and of the right kind). Two steps: a folder refused leaves the settings changed,
/// and the answer says what was refused.
pub async fn update(
    ctx: &Context,
    who: &Principal,
    id: Envelope,
    change: Update,
) -> Result<(), AppError> {
    match id {
        Envelope::Document(d) => {
            if let Some(s) = change.settings {
                settings::update(ctx, who, d, s).await?;
            }
            if let Some(f) = change.folder {
                folders::move_document(ctx, who, d, f).await?;
            }
        }
        Envelope::Template(t) => {
            if let Some(s) = change.settings {
                edit::update(ctx, who, t, s).await?;
            }
            if let Some(f) = change.folder {
                folders::move_template(ctx, who, t, f).await?;
            }
        }
    }
    Ok(())
}

/// Deletes the caller's envelope `id` as v1 does: a draft document is removed, a pending one
/// cancelled, a finished one hidden; a template removed.
pub async fn delete(
    ctx: &Context,
    who: &Principal,
    id: Envelope,
    origin: Origin,
) -> Result<Success, AppError> {
    match id {
        Envelope::Document(d) => {
            manage::delete(ctx, who, d, origin).await?;
        }
        Envelope::Template(t) => {
            templates::delete(ctx, who, t).await?;
        }
    }
    Ok(Success::DONE)
}

/// The document an envelope id names, for the operations only documents have (a template is
/// used, not sent: 400).
pub fn document(id: Envelope, what: &str) -> Result<DocumentId, AppError> {
    match id {
        Envelope::Document(d) => Ok(d),
        Envelope::Template(_) => Err(AppError::bad_request(format!(
            "a template cannot be {what}; use it to make a document (POST /envelope/use)"
        ))),
    }
}

/// Sends the caller's document `id` (v1's send): its meta changed first when `meta` is given
/// (while it is a draft), then DRAFT to PENDING with the first recipients e-mailed unless its
/// distribution method is NONE. Answers each recipient's link.
pub async fn distribute(
    ctx: &Context,
    who: &Principal,
    id: DocumentId,
    meta: Option<UpdateSettings>,
    origin: Origin,
) -> Result<Distributed, AppError> {
    if let Some(change) = meta {
        settings::update(ctx, who, id, change).await?;
    }
    let view = sending::send(ctx, who, id, SendDocument::default(), origin).await?;
    Ok(Distributed::of(
        &view.links_shown_if(who.sees_signing_links()),
    ))
}

/// E-mails again those of `recipients` whose turn it is and who have not finished (v1's
/// resend).
pub async fn redistribute(
    ctx: &Context,
    who: &Principal,
    id: DocumentId,
    recipients: Vec<RecipientId>,
) -> Result<Success, AppError> {
    sending::resend(ctx, who, id, Resend { recipients }).await?;
    Ok(Success::DONE)
}
