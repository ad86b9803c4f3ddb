//! The webhook use cases of the API and of the settings pages: register (the secret sealed at
//! rest, shown once), list, read, change (URL, events, on or off), delete, read an endpoint's
//! deliveries, send a test event and deliver one again. One made with an OAuth access token belongs to that
//! app's grant, and the app sees only its own (`store::Visible`).

use super::request::NewWebhook;
use crate::core::context::Context;
use crate::core::crypto::SecretBox;
use crate::core::db::now;
use crate::core::error::{AppError, FieldError};
use crate::identity::principal::Principal;
use crate::identity::scope::Scope;
use crate::outbox::webhooks::store::Change;
use crate::outbox::webhooks::{Event, log};
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
    ctx.admit_new_work()?;
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

/// Endpoint `id` as `who` sees it, or a 404.
pub async fn get(ctx: &Context, who: &Principal, id: i64) -> Result<Webhook, AppError> {
    let who = visible(who);
    ctx.db.read(move |c| store::owned(c, who, id)).await
}

/// Changes the endpoint's URL, events or state (the events need the scopes a new endpoint's
/// would); the endpoint as it is now.
pub async fn update(
    ctx: &Context,
    who: &Principal,
    id: i64,
    change: Change,
) -> Result<Webhook, AppError> {
    for event in change.events.iter().flatten() {
        who.require(scope_for(*event))?;
    }
    let who = visible(who);
    ctx.db
        .write(move |tx| store::update(tx, who, id, &change))
        .await
}

/// Queues a test delivery of `event` (one the endpoint subscribes to; its first when `None`)
/// with a payload that names nothing real; the delivery, still pending. A switched-off
/// endpoint is a 400: it takes no deliveries.
pub async fn send_test(
    ctx: &Context,
    who: &Principal,
    id: i64,
    event: Option<Event>,
) -> Result<Delivery, AppError> {
    let visible = visible(who);
    let hook = ctx.db.read(move |c| store::owned(c, visible, id)).await?;
    let event = match event {
        Some(e) if hook.events.contains(&e) => e,
        Some(e) => {
            return Err(AppError::validation(vec![FieldError::new(
                "event",
                format!("this webhook does not subscribe to {}", e.as_str()),
            )]));
        }
        None => *hook
            .events
            .first()
            .ok_or_else(|| AppError::internal("no events"))?,
    };
    who.require(scope_for(event))?;
    require_enabled(&hook)?;
    let delivery = ctx
        .db
        .write(move |tx| {
            let t = now();
            let body = crate::outbox::webhooks::test_body(event, t, &hook.url).to_string();
            let queued = store::insert_delivery(tx, id, event, &body, t)?;
            log::get(tx, id, queued)
        })
        .await?;
    ctx.workers.webhooks.wake();
    Ok(delivery)
}

/// Queues delivery `delivery` of endpoint `id` again (the same event and body, as a new
/// delivery); the new delivery, still pending. 404 for another user's endpoint or delivery.
pub async fn redeliver(
    ctx: &Context,
    who: &Principal,
    id: i64,
    delivery: i64,
) -> Result<Delivery, AppError> {
    let who = visible(who);
    let queued = ctx
        .db
        .write(move |tx| {
            let hook = store::owned(tx, who, id)?;
            log::get(tx, id, delivery)?;
            require_enabled(&hook)?;
            let queued = log::redeliver(tx, id, delivery, now())?;
            log::get(tx, id, queued)
        })
        .await?;
    ctx.workers.webhooks.wake();
    Ok(queued)
}

/// A switched-off endpoint takes no deliveries.
fn require_enabled(hook: &Webhook) -> Result<(), AppError> {
    if hook.enabled {
        return Ok(());
    }
    Err(AppError::wrong_state(
        "this webhook is switched off; switch it on to send it deliveries",
    ))
}
