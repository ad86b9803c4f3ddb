//! The webhook use cases of the API and of the settings pages: register (the secret sealed at
//! rest, shown once), list, read, change (URL, events, on or off), delete, read an endpoint's
//! deliveries, send a test event and deliver one again. One made with an OAuth access token belongs to that
//! app's grant, and the app sees only its own (`store::Visible`).

use super::checks::NewWebhook;
use crate::core::context::Context;
use crate::core::crypto::SecretBox;
use crate::core::db::{Conn, now};
use crate::core::error::{AppError, FieldError};
use crate::identity::accounts::access::{Source, notify_added};
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

/// The webhooks `who` may see and manage, read in `c` (`teams::access`): the user's own, or
/// the team's it acts for, which only the team's admins manage (403 for its other members).
pub(crate) fn visible(c: &Conn, who: &Principal) -> Result<Visible, AppError> {
    let access = crate::teams::access::resolve(c, who)?;
    access.require_manage("webhooks")?;
    Ok(Visible {
        owner: access.owner(),
        grant: who.grant(),
    })
}

/// A new endpoint and its signing secret (the only time the secret is shown).
pub async fn create(
    ctx: &Context,
    secrets: &SecretBox,
    who: &Principal,
    new: NewWebhook,
    (max, from): (u32, Source),
) -> Result<(Webhook, String), AppError> {
    for event in &new.events {
        who.require(scope_for(*event))?;
    }
    let hook = insert(
        ctx,
        secrets,
        who,
        (&new.url, new.events, &new.secret),
        Made::by(App::Api),
        (max, from),
    )
    .await?;
    Ok((hook, new.secret))
}

/// Through which route an endpoint is made, and how it starts.
pub(crate) struct Made {
    pub app: App,
    /// `false`: made switched off.
    pub enabled: bool,
    /// The scheduling service's payload template (`App::Cal` only).
    pub payload_template: Option<String>,
}

impl Made {
    /// Made through `app`'s route, switched on, without a template.
    pub fn by(app: App) -> Made {
        Made {
            app,
            enabled: true,
            payload_template: None,
        }
    }
}

/// Stores a new endpoint of `who` at `url` for `events` with `secret` (sealed), at most `max`
/// per user. A browser must have confirmed its session recently
/// (`Principal::require_confirmed`): an endpoint outlives the session and every password
/// change. One of the owner's (its payloads carry signing links) is told to the account by
/// mail, with where it came from (`from`).
pub(crate) async fn insert(
    ctx: &Context,
    secrets: &SecretBox,
    who: &Principal,
    (url, events, secret): (&str, Vec<Event>, &str),
    made: Made,
    (max, from): (u32, Source),
) -> Result<Webhook, AppError> {
    ctx.admit_new_work()?;
    let sealed = secrets.seal(secret)?;
    let (url, caller) = (url.to_string(), who.clone());
    let undo = undo(ctx);
    let hook = ctx
        .db
        .write(move |tx| {
            let t = now();
            let owner = visible(tx, &caller)?;
            if owner.owner.team().is_some() && events.iter().any(|e| e.is_booking()) {
                return Err(AppError::validation(vec![FieldError::new(
                    "events",
                    "bookings are personal: a team's webhook takes document events only",
                )]));
            }
            caller.require_confirmed(tx, t)?;
            let new = NewEndpoint {
                url: &url,
                events: &events,
                sealed_secret: &sealed,
                app: made.app,
                enabled: made.enabled,
                payload_template: made.payload_template.as_deref(),
            };
            let hook = store::insert(tx, &owner, &new, max, t)?;
            if hook.grant.is_none() {
                let what = format!(
                    "A webhook {} to {} was added",
                    posting(&hook.events),
                    hook.url
                );
                notify_added(tx, owner.owner.user(), (&what, &undo), &from, t)?;
            }
            Ok(hook)
        })
        .await?;
    ctx.workers.mail.wake();
    Ok(hook)
}

/// What a notice says to do about a webhook its owner did not add.
fn undo(ctx: &Context) -> String {
    format!(
        "delete it in Settings, Webhooks ({}/settings/webhooks)",
        ctx.app
    )
}

/// "posting DOCUMENT_SIGNED and DOCUMENT_COMPLETED", "posting every event (12 kinds)".
fn posting(events: &[Event]) -> String {
    let names: Vec<&str> = events.iter().map(|e| e.as_str()).collect();
    match names.as_slice() {
        [one] => format!("posting {one}"),
        [a, b] => format!("posting {a} and {b}"),
        _ if events.len() == Event::ALL.len() => {
            format!("posting every event ({} kinds)", events.len())
        }
        many => format!(
            "posting {} kinds of event ({})",
            many.len(),
            many.join(", ")
        ),
    }
}

pub async fn list(ctx: &Context, who: &Principal) -> Result<Vec<Webhook>, AppError> {
    let caller = who.clone();
    ctx.db
        .read(move |c| store::list(c, &visible(c, &caller)?))
        .await
}

/// Deletes the endpoint (when `only` is given, only one made through that route); its pending
/// deliveries go with it. The endpoint as it was.
pub async fn delete(
    ctx: &Context,
    who: &Principal,
    id: i64,
    only: Option<App>,
) -> Result<Webhook, AppError> {
    let caller = who.clone();
    ctx.db
        .write(move |tx| store::delete(tx, &visible(tx, &caller)?, id, only))
        .await
}

/// The endpoint's latest deliveries, newest first.
pub async fn deliveries(
    ctx: &Context,
    who: &Principal,
    id: i64,
) -> Result<Vec<Delivery>, AppError> {
    let caller = who.clone();
    ctx.db
        .read(move |c| {
            store::owned(c, &visible(c, &caller)?, id)?;
            store::deliveries(c, id, DELIVERIES_SHOWN)
        })
        .await
}

/// Endpoint `id` as `who` sees it, or a 404.
pub async fn get(ctx: &Context, who: &Principal, id: i64) -> Result<Webhook, AppError> {
    let caller = who.clone();
    ctx.db
        .read(move |c| store::owned(c, &visible(c, &caller)?, id))
        .await
}

/// Changes the endpoint's URL, events or state (the events need the scopes a new endpoint's
/// would); the endpoint as it is now.
///
/// A new URL, or switching on an endpoint that was off, sends payloads where they did not go
/// before, as a new endpoint does: a browser must have confirmed its session recently, and for
/// one of the owner's the account is mailed a notice.
pub async fn update(
    ctx: &Context,
    who: &Principal,
    id: i64,
    change: Change,
    from: Source,
) -> Result<Webhook, AppError> {
    for event in change.events.iter().flatten() {
        who.require(scope_for(*event))?;
    }
    let (caller, undo) = (who.clone(), undo(ctx));
    let hook = ctx
        .db
        .write(move |tx| {
            let t = now();
            let visible = visible(tx, &caller)?;
            let before = store::owned(tx, &visible, id)?;
            let moved = change.url.as_ref().is_some_and(|u| *u != before.url);
            let resumed = change.enabled == Some(true) && !before.enabled;
            if moved || resumed {
                caller.require_confirmed(tx, t)?;
            }
            let hook = store::update(tx, &visible, id, &change)?;
            if (moved || resumed) && hook.grant.is_none() {
                let what = match moved {
                    true => format!(
                        "A webhook {} now posts to {}",
                        posting(&hook.events),
                        hook.url
                    ),
                    false => format!(
                        "A webhook {} to {} was switched on",
                        posting(&hook.events),
                        hook.url
                    ),
                };
                notify_added(tx, visible.owner.user(), (&what, &undo), &from, t)?;
            }
            Ok(hook)
        })
        .await?;
    ctx.workers.mail.wake();
    Ok(hook)
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
    let caller = who.clone();
    let hook = ctx
        .db
        .read(move |c| store::owned(c, &visible(c, &caller)?, id))
        .await?;
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
            let body = crate::outbox::webhooks::test_body(event, t, &hook.url)?;
            let queued = store::insert_delivery(tx, id, (event, store::Kind::Test), &body, t)?;
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
    let caller = who.clone();
    let queued = ctx
        .db
        .write(move |tx| {
            let hook = store::owned(tx, &visible(tx, &caller)?, id)?;
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
