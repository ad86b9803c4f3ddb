//! Subscriptions made by Zapier's apps through the REST-hook routes the two peers serve: the
//! scheduling service's (`addSubscription`, `deleteSubscription`: booking events) and the
//! signing service's (`subscribe`, `unsubscribe`: document events). A subscription is an
//! ordinary endpoint marked `App::Zapier`: same queue, retries, address checks and per-user cap;
//! its secret is generated and never shown (Zapier has nowhere to keep one); its booking
//! deliveries take the flat shape Zapier's app maps. Also the sample each app reads while a Zap
//! is set up, and the subscription rows as each peer answers them.

use crate::integrations::answers::SampleDelivery;

use super::webhooks as manage;
use crate::core::context::Context;
use crate::core::crypto::SecretBox;
use crate::identity::accounts::access::Source;
use crate::identity::principal::Principal;
use crate::signing::documents::DocumentView;
use crate::signing::documents::webhook::DocumentPayload;
use crate::{core::error::AppError, core::error::FieldError};
use crate::{
    outbox::webhooks::Event, outbox::webhooks::check_url, outbox::webhooks::generate_secret,
};
use crate::{
    outbox::webhooks::store, outbox::webhooks::store::App, outbox::webhooks::store::Webhook,
};

/// A new subscription of `who` to the one event `trigger` at `url`: a booking event when
/// `bookings`, else a document event.
pub async fn subscribe(
    ctx: &Context,
    secrets: &SecretBox,
    who: &Principal,
    (url_key, url): (&str, Option<&str>),
    (trigger_key, trigger): (&str, Option<&str>),
    bookings: bool,
    (max, from): (u32, Source),
) -> Result<Webhook, AppError> {
    let mut problems = Vec::new();
    let mut fail = |path: &str, message: String| {
        problems.push(FieldError {
            path: path.to_string(),
            message,
        })
    };
    let url = match url.map(check_url) {
        Some(Ok(u)) => Some(u),
        Some(Err(m)) => {
            fail(url_key, m.to_string());
            None
        }
        None => {
            fail(url_key, "required".into());
            None
        }
    };
    let event = trigger
        .map(str::trim)
        .and_then(Event::parse)
        .filter(|e| e.is_booking() == bookings);
    if event.is_none() {
        let names = Event::names_of(bookings).join(", ");
        fail(trigger_key, format!("must be one of {names}"));
    }
    let (Some(url), Some(event)) = (url, event) else {
        return Err(AppError::validation(problems));
    };
    who.require(manage::scope_for(event))?;
    let secret = generate_secret();
    let what = (url.as_str(), vec![event], secret.as_str());
    manage::insert(
        ctx,
        secrets,
        who,
        what,
        manage::Made::by(App::Zapier),
        (max, from),
    )
    .await
}

/// Deletes `who`'s endpoint `id`; `only_zapier`: only one made through a Zapier route (404
/// otherwise). The endpoint as it was.
pub async fn unsubscribe(
    ctx: &Context,
    who: &Principal,
    id: i64,
    only_zapier: bool,
) -> Result<Webhook, AppError> {
    manage::delete(ctx, who, id, only_zapier.then_some(App::Zapier)).await
}

/// How many of the newest documents the sample looks through for one with recipients.
const SAMPLE_SCAN: i64 = 20;

/// What the signing service's Zapier app reads as sample data while a Zap is set up: nothing
/// until `who` has an endpoint and a document with recipients; then one delivery as the
/// oldest endpoint would receive it, carrying the newest such document.
pub async fn documenso_sample(
    ctx: &Context,
    who: &Principal,
) -> Result<Vec<SampleDelivery>, AppError> {
    let (caller, app) = (who.clone(), ctx.app.clone());
    let found = ctx
        .db
        .read(move |c| {
            let Some(hook) = store::first(c, &manage::visible(c, &caller)?)? else {
                return Ok(None);
            };
            use crate::signing::documents::store::listing::{Query, list};
            let owner = crate::teams::access::owner(c, &caller)?;
            let (docs, _) = list(c, &Query::owned(owner, None, SAMPLE_SCAN, 0))?;
            Ok(docs
                .iter()
                .find(|d| !d.recipients.is_empty())
                .map(|d| (hook, DocumentView::of(d, &app))))
        })
        .await?;
    let Some((hook, doc)) = found else {
        return Ok(Vec::new());
    };
    let events: Vec<&str> = hook.events.iter().map(|e| e.as_str()).collect();
    let shown = DocumentPayload::of(&doc, who.sees_signing_links());
    // As a delivery's body has it: the keys of every object sorted (`webhooks::payload::body`).
    let payload = serde_json::to_value(shown).map_err(AppError::internal)?;
    Ok(vec![SampleDelivery {
        event: events.join(","),
        created_at: hook.created_at,
        webhook_endpoint: hook.url,
        payload,
    }])
}
