//! The routes Zapier's apps for the two peers call, answering as each peer does: the
//! scheduling service's under `/api/integrations/zapier/` (an `apiKey` query or a Bearer
//! token; sample bookings, booking subscriptions, the account check) and the signing
//! service's under `/api/v1/zapier/` (the API key in `Authorization`, any method; sample
//! documents, document subscriptions). Thin handlers over `webhooks::zapier` and
//! `bookings::manage`.

use http::StatusCode;
use serde::Deserialize;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::bookings::webhook::ZapierBooking;
use crate::core::error::AppError;
use crate::http::reply::{answer, json_created, json_result};
use crate::http::server::state::AppState;
use crate::http::{body, with_state};
use crate::identity::accounts::access::Source;
use crate::identity::principal::Principal;
use crate::identity::scope::Scope;
use crate::integrations::answers::{CalcomRow, DocumensoRow};
use crate::integrations::zapier;
use crate::{core::lenient::Int, core::lenient::OrDefault};
use crate::{
    http::api::wire::webhooks::CalSubscriptionRequest,
    http::api::wire::webhooks::SignSubscriptionRequest,
    http::api::wire::webhooks::SignUnsubscribeRequest,
};

/// Bookings the scheduling service's app reads as sample data.
const SAMPLE_BOOKINGS: u32 = 3;

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    scheduling_routes(state.clone())
        .or(signing_routes(state))
        .unify()
        .boxed()
}

/// The scheduling service's app: `?apiKey=` or `Authorization`, checked before any body.
fn scheduling_routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = || with_state(state.clone());
    // The scheduling service's routes: `?apiKey=` or `Authorization`, checked before any body.
    let cal = |name: &'static str, scopes: &'static [Scope]| {
        warp::path!("api" / "integrations" / "zapier" / ..)
            .and(warp::path(name))
            .and(warp::path::end())
            .and(crate::http::auth::query_key(&state, scopes))
    };
    const SUBSCRIBE: &[Scope] = &[Scope::ReadBooking, Scope::ReadProfile];
    let list_bookings = cal("listBookings", &[Scope::ReadBooking])
        .and(warp::get())
        .and(s())
        .then(list_bookings)
        .map(json_created);
    let add = cal("addSubscription", SUBSCRIBE)
        .and(warp::post())
        .and(s())
        .and(body::json::<OrDefault<CalSubscriptionRequest>>())
        .and(crate::http::source())
        .then(add_subscription)
        .map(json_result);
    let delete = cal("deleteSubscription", SUBSCRIBE)
        .and(warp::delete())
        .and(warp::query::<IdQuery>())
        .and(s())
        .then(delete_subscription)
        .map(answer);
    let me = cal("me", &[Scope::ReadProfile])
        .and(warp::get())
        .and(s())
        .then(me)
        .map(json_created);
    list_bookings
        .or(add)
        .unify()
        .or(delete)
        .unify()
        .or(me)
        .unify()
        .boxed()
}

/// The signing service's app: any method, the API key in `Authorization`.
fn signing_routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = || with_state(state.clone());
    let sign = |name: &'static str| {
        warp::path!("api" / "v1" / "zapier" / ..)
            .and(warp::path(name))
            .and(warp::path::end())
            .and(crate::http::auth::api_all(&state, &[Scope::ReadDocument]))
    };
    let list_documents = sign("list-documents")
        .and(s())
        .then(list_documents)
        .map(json_result);
    let subscribe = sign("subscribe")
        .and(s())
        .and(body::json::<OrDefault<SignSubscriptionRequest>>())
        .and(crate::http::source())
        .then(subscribe)
        .map(json_result);
    let unsubscribe = sign("unsubscribe")
        .and(s())
        .and(body::json::<OrDefault<SignUnsubscribeRequest>>())
        .then(unsubscribe)
        .map(json_result);
    list_documents
        .or(subscribe)
        .unify()
        .or(unsubscribe)
        .unify()
        .boxed()
}

#[derive(Debug, Deserialize)]
struct IdQuery {
    id: Option<String>,
}

/// A subscription's id as Zapier hands it back: text or a number (`lenient::Int`).
fn hook_id(raw: Option<Int>, key: &str) -> Result<i64, AppError> {
    raw.map(|i| i.0)
        .ok_or_else(|| AppError::bad_request(format!("{key}: give the subscription's id")))
}

/// `GET .../listBookings`: the newest bookings, as a subscription delivers them.
async fn list_bookings(who: Principal, state: AppState) -> Result<Vec<ZapierBooking>, AppError> {
    let bookings = crate::bookings::manage::newest(&state.ctx(), &who, SAMPLE_BOOKINGS).await?;
    Ok(bookings.iter().map(ZapierBooking::of).collect())
}

/// `POST .../addSubscription` with `{subscriberUrl, triggerEvent}`.
async fn add_subscription(
    who: Principal,
    state: AppState,
    OrDefault(b): OrDefault<CalSubscriptionRequest>,
    from: Source,
) -> Result<CalcomRow, AppError> {
    let hook = zapier::subscribe(
        &state.ctx(),
        &state.webhook_secrets,
        &who,
        (
            "subscriberUrl",
            b.subscriber_url.valid().map(String::as_str),
        ),
        ("triggerEvent", b.trigger_event.valid().map(String::as_str)),
        true,
        (state.config.max_webhooks_per_user, from),
    )
    .await?;
    Ok(CalcomRow::of(&hook, who.user_id))
}

/// `DELETE .../deleteSubscription?id=`: 204.
async fn delete_subscription(
    who: Principal,
    q: IdQuery,
    state: AppState,
) -> Result<StatusCode, AppError> {
    let id = hook_id(q.id.and_then(|s| s.trim().parse().ok()).map(Int), "id")?;
    zapier::unsubscribe(&state.ctx(), &who, id, true).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `GET .../me`: who the credential is (the peer's `{username}`, and docket's identity keys).
async fn me(
    who: Principal,
    state: AppState,
) -> Result<crate::oauth::identity::ApiAccount, AppError> {
    crate::oauth::identity::api_account(&state.ctx(), &who).await
}

/// `/api/v1/zapier/list-documents`: the sample a Zap shows while it is set up.
async fn list_documents(
    who: Principal,
    state: AppState,
) -> Result<Vec<crate::integrations::answers::SampleDelivery>, AppError> {
    zapier::documenso_sample(&state.ctx(), &who).await
}

/// `/api/v1/zapier/subscribe` with `{webhookUrl, eventTrigger}`.
async fn subscribe(
    who: Principal,
    state: AppState,
    OrDefault(b): OrDefault<SignSubscriptionRequest>,
    from: Source,
) -> Result<DocumensoRow, AppError> {
    let hook = zapier::subscribe(
        &state.ctx(),
        &state.webhook_secrets,
        &who,
        ("webhookUrl", b.webhook_url.valid().map(String::as_str)),
        ("eventTrigger", b.event_trigger.valid().map(String::as_str)),
        false,
        (state.config.max_webhooks_per_user, from),
    )
    .await?;
    Ok(DocumensoRow::of(&hook, who.user_id))
}

/// `/api/v1/zapier/unsubscribe` with `{webhookId}`: the deleted subscription.
async fn unsubscribe(
    who: Principal,
    state: AppState,
    OrDefault(b): OrDefault<SignUnsubscribeRequest>,
) -> Result<DocumensoRow, AppError> {
    let id = hook_id(b.webhook_id.into_valid(), "webhookId")?;
    let hook = zapier::unsubscribe(&state.ctx(), &who, id, false).await?;
    Ok(DocumensoRow::of(&hook, who.user_id))
}
