//! The webhook use cases of the API: register (the secret sealed at rest, shown once), list,
//! delete and read an endpoint's deliveries. One made with an OAuth access token belongs to that
//! app's grant, and the app sees only its own (`store::Visible`).

use super::request::NewWebhook;
use crate::core::context::Context;
use crate::core::crypto::SecretBox;
use crate::core::db::now;
use crate::core::error::AppError;
use crate::identity::principal::Principal;
use crate::identity::scope::Scope;
use crate::outbox::webhooks::Event;
use crate::{
    outbox::webhooks::store, outbox::webhooks::store::App, outbox::webhooks::store::Delivery,
    outbox::webhooks::store::NewEndpoint, outbox::webhooks::store::Visible,
    outbox::webhooks::store::Webhook,
};

/// The scope a credential needs to subscribe to `event`: a webhook is a way to read.
pub fn scope_for(event: Event) -> Scope {
    if event.is_booking() {
        Scope::ReadBooking
    } else {
        Scope::ReadDocument
    }
}

/// Deliveries listed per endpoint, newest first.
const DELIVERIES_SHOWN: i64 = 100;

/// The webhooks `who` may see and manage.
pub(crate) fn visible(who: &Principal) -> Visible {
    Visible {
        user: who.user_id,
        grant: who.grant(),
    }
}

/// A new endpoint and its signing secret (the only time the secret is shown).
pub async fn create(
    ctx: &Context,
    secrets: &SecretBox,
    who: &Principal,
    new: NewWebhook,
    max: u32,
) -> Result<(Webhook, String), AppError> {
    for event in &new.events {
        who.require(scope_for(*event))?;
    }
    let hook = insert(
        ctx,
        secrets,
        who,
        &new.url,
        new.events,
        &new.secret,
        App::Api,
        max,
    )
    .await?;
    Ok((hook, new.secret))
}

/// Stores a new endpoint of `who` (at most `max` per user), its secret sealed.
#[allow(clippy::too_many_arguments)]
pub(crate) async fn insert(
    ctx: &Context,
    secrets: &SecretBox,
    who: &Principal,
    url: &str,
    events: Vec<Event>,
    secret: &str,
    app: App,
    max: u32,
) -> Result<Webhook, AppError> {
    let sealed = secrets.seal(secret)?;
    let (url, owner) = (url.to_string(), visible(who));
    ctx.db
        .write(move |tx| {
            let new = NewEndpoint {
                url: &url,
                events: &events,
                sealed_secret: &sealed,
                app,
            };
            store::insert(tx, owner, &new, max, now())
        })
        .await
}

pub async fn list(ctx: &Context, who: &Principal) -> Result<Vec<Webhook>, AppError> {
    let who = visible(who);
    ctx.db.read(move |c| store::list(c, who)).await
}

/// Deletes the endpoint (when `only` is given, only one made through that route); its pending
/// deliveries go with it. The endpoint as it was.
pub async fn delete(
    ctx: &Context,
    who: &Principal,
    id: i64,
    only: Option<App>,
) -> Result<Webhook, AppError> {
    let who = visible(who);
    ctx.db
        .write(move |tx| store::delete(tx, who, id, only))
        .await
}

/// The endpoint's latest deliveries, newest first.
pub async fn deliveries(
    ctx: &Context,
    who: &Principal,
    id: i64,
) -> Result<Vec<Delivery>, AppError> {
    let who = visible(who);
    ctx.db
        .read(move |c| {
            store::owned(c, who, id)?;
            store::deliveries(c, id, DELIVERIES_SHOWN)
        })
        .await
}
