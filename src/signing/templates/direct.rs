//! Direct links: a template's public page, `{app_url}/d/{token}`. A visitor gives a name and an
//! e-mail address and becomes the template's chosen recipient (a SIGNER) in a new document of
//! the template's owner. The document is sent at once; the visitor signs it first and alone (a
//! recipient who `leads`, `workflow::current_turn`), and then it goes to the template's other
//! recipients in their order, as a sent document does. The owner is e-mailed when the visitor
//! has signed (`notify::direct_link_signed`), and the owner's webhooks get the document's
//! events as for any other document (DOCUMENT_CREATED and DOCUMENT_SENT here).
//!
//! The owner turns the link on and off, picks the recipient and may replace the token (`set`).
//! Turning it on checks what a visitor's document needs of the template; the send's own checks
//! run again for every visitor, so a template edited since is refused with the reason. A link
//! that is off, unknown, or whose recipient is gone is a 404. A visitor's document is started by
//! `workflow::direct` (it sends, which is the workflow's).

use crate::teams::access;
use serde::Serialize;
use utoipa::ToSchema;

use super::model::Template;
use super::{placeholder_number, store};
use crate::core::context::Context;
use crate::core::db::{Conn, now};
use crate::core::error::{AppError, FieldError};
use crate::core::ids::{RecipientId, TemplateId};
use crate::identity::principal::Principal;
use crate::signing::documents::model::{Recipient, is_signature};
use crate::signing::documents::recipients::{Role, new_token};

/// A change of the direct link, checked (members left out: `None`, `false`): the command
/// `set` takes.
#[derive(Debug)]
pub struct DirectLinkChange {
    pub enabled: Option<bool>,
    pub recipient: Option<RecipientId>,
    pub new_token: bool,
}

/// A template's direct link as its owner sees it.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = DirectLinkState)]
pub struct DirectLinkState {
    pub token: String,
    /// True while the link works: turned on, with its recipient still on the template.
    pub enabled: bool,
    /// The template recipient a visitor becomes (null until one is chosen).
    #[schema(value_type = Option<i64>, required = true)]
    pub recipient_id: Option<RecipientId>,
    /// The public page's address.
    pub url: String,
}

impl DirectLinkState {
    pub fn of(t: &Template, app_url: &str) -> DirectLinkState {
        DirectLinkState {
            token: t.direct_link_token.clone(),
            enabled: t.direct_recipient().is_some(),
            recipient_id: t.direct_link_recipient,
            url: format!("{app_url}/d/{}", t.direct_link_token),
        }
    }
}

/// `GET /api/v1/templates/{id}/direct-link`.
pub async fn get(
    ctx: &Context,
    who: &Principal,
    id: TemplateId,
) -> Result<DirectLinkState, AppError> {
    let (caller, app) = (who.clone(), ctx.app.clone());
    ctx.db
        .read(move |c| {
            Ok(DirectLinkState::of(
                &store::owned(c, &access::owner(c, &caller)?, id)?,
                &app,
            ))
        })
        .await
}

/// `PUT /api/v1/templates/{id}/direct-link`: on or off, its recipient, a new token. Turning
/// it on (or changing the recipient of a link that is on) checks `ready`.
pub async fn set(
    ctx: &Context,
    who: &Principal,
    id: TemplateId,
    change: DirectLinkChange,
) -> Result<DirectLinkState, AppError> {
    let (caller, app) = (who.clone(), ctx.app.clone());
    ctx.db
        .write(move |tx| {
            let owner = access::owner(tx, &caller)?;
            let t = store::owned(tx, &owner, id)?;
            if let Some(r) = change.recipient
                && !t.recipients.iter().any(|x| x.id == r)
            {
                return Err(field_error(
                    "recipientId",
                    "is not one of this template's recipients",
                ));
            }
            let recipient = change.recipient.or(t.direct_link_recipient);
            let enabled = change.enabled.unwrap_or(t.direct_link_enabled);
            if enabled {
                ready(&t, recipient)?;
            }
            let token = if change.new_token {
                new_token()
            } else {
                t.direct_link_token.clone()
            };
            store::set_direct_link(tx, id, (enabled, recipient, &token), now())?;
            Ok(DirectLinkState::of(&store::owned(tx, &owner, id)?, &app))
        })
        .await
}

pub fn field_error(path: &str, message: &str) -> AppError {
    AppError::validation(vec![FieldError::new(path, message)])
}

/// How the pages and messages name a template recipient: its name, else "Recipient 2" for a
/// placeholder, else its address.
pub fn label(r: &Recipient) -> String {
    match (r.name.trim(), placeholder_number(&r.email)) {
        (name, _) if !name.is_empty() => name.to_string(),
        (_, Some(n)) => format!("Recipient {n}"),
        _ => r.email.clone(),
    }
}

/// What a visitor's document needs of template `t` with `recipient` as the visitor: the PDF;
/// the recipient, a SIGNER with a signature field; every other recipient with an address,
/// since the document goes on to them.
fn ready(t: &Template, recipient: Option<RecipientId>) -> Result<(), AppError> {
    if t.blob_id.is_none() {
        return Err(super::no_file());
    }
    let Some(id) = recipient else {
        return Err(field_error(
            "recipientId",
            "choose the recipient a visitor becomes",
        ));
    };
    let me =
        t.recipients.iter().find(|r| r.id == id).ok_or_else(|| {
            field_error("recipientId", "is not one of this template's recipients")
        })?;
    if me.role != Role::Signer {
        let why = format!(
            "{} is {}: a visitor signs, so choose a SIGNER",
            label(me),
            me.role.as_str()
        );
        return Err(field_error("recipientId", &why));
    }
    if !t
        .fields
        .iter()
        .any(|f| f.recipient_id == id && is_signature(f.kind))
    {
        return Err(AppError::Conflict(format!(
            "give {} a signature field first: that is where a visitor signs",
            label(me)
        )));
    }
    let unnamed: Vec<String> = t
        .recipients
        .iter()
        .filter(|r| r.id != id && super::is_placeholder(&r.email))
        .map(label)
        .collect();
    if !unnamed.is_empty() {
        return Err(AppError::Conflict(format!(
            "give every other recipient an e-mail address first, since a visitor's document goes on to them: {}",
            unnamed.join(", ")
        )));
    }
    Ok(())
}

/// The template behind a working direct link (404 otherwise, as for an unknown token).
pub fn open(conn: &Conn, token: &str) -> Result<Template, AppError> {
    store::by_direct_token(conn, token)?
        .filter(|t| t.direct_recipient().is_some() && t.blob_id.is_some())
        .ok_or_else(|| AppError::not_found("link"))
}

/// What the public page shows before the visitor starts.
#[derive(Debug, Clone)]
pub struct Invitation {
    pub title: String,
    pub sender_name: String,
    pub sender_email: String,
    pub pages: i64,
    /// Who the document goes to after the visitor, in order (names, or "Recipient 2").
    pub then: Vec<String>,
    /// The language the page speaks: the template's, which its documents take.
    pub language: crate::core::i18n::Lang,
}

/// The page of direct link `token`: 404 unless it works.
pub async fn invitation(ctx: &Context, token: String) -> Result<Invitation, AppError> {
    ctx.db
        .read(move |c| {
            let t = open(c, &token)?;
            let owner = crate::identity::users::store::get(c, t.user_id)?
                .ok_or_else(|| AppError::not_found("link"))?;
            let me = t.direct_link_recipient;
            let mut others: Vec<&Recipient> = t
                .recipients
                .iter()
                .filter(|r| Some(r.id) != me && r.role != Role::Cc)
                .collect();
            others.sort_by_key(|r| (r.signing_order.unwrap_or(i64::MAX), r.id));
            let sender_name = crate::signing::documents::team_settings::sender_shown(
                c,
                &owner.name,
                t.team_id,
                t.meta.language,
            )?;
            Ok(Invitation {
                title: t.title.clone(),
                sender_name,
                sender_email: owner.email,
                pages: t.pages().unwrap_or(0),
                then: others.into_iter().map(label).collect(),
                language: t.meta.language,
            })
        })
        .await
}
