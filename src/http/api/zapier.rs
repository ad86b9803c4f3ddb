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
use crate::http::reply::{Format, error_response, json_result, json_result_as};
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
    let s = {
        let state = state.clone();
        move || with_state(state.clone())
    };
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
        .then(
            |w, st| async move { json_result_as(StatusCode::CREATED, list_bookings(st, w).await) },
        );
    let add = cal("addSubscription", SUBSCRIBE)
        .and(warp::post())
        .and(s())
        .and(body::json::<OrDefault<CalSubscriptionRequest>>())
        .and(crate::http::source())
        .then(|w, st, b, f| async move { json_result(add_subscription(st, w, b, f).await) });
    let delete = cal("deleteSubscription", SUBSCRIBE)
        .and(warp::delete())
        .and(warp::query::<IdQuery>())
        .and(s())
        .then(|w, q, st| async move {
            match delete_subscription(st, w, q).await {
                Ok(()) => warp::http::Response::builder()
                    .status(StatusCode::NO_CONTENT)
                    .body(Default::default())
                    .unwrap_or_default(),
                Err(e) => error_response(&e, Format::Json),
            }
        });
    let me = cal("me", &[Scope::ReadProfile])
        .and(warp::get())
        .and(s())
        .then(|w, st| async move { json_result_as(StatusCode::CREATED, me(st, w).await) });

    // The signing service's routes: any method, the API key in `Authorization`.
    let sign = |name: &'static str| {
        warp::path!("api" / "v1" / "zapier" / ..)
            .and(warp::path(name))
            .and(warp::path::end())
            .and(crate::http::auth::api_all(&state, &[Scope::ReadDocument]))
    };
    let list_documents = sign("list-documents")
        .and(s())
        .then(|w, st| async move { json_result(list_documents(st, w).await) });
    let subscribe = sign("subscribe")
        .and(s())
        .and(body::json::<OrDefault<SignSubscriptionRequest>>())
        .and(crate::http::source())
        .then(|w, st, b, f| async move { json_result(subscribe(st, w, b, f).await) });
    let unsubscribe = sign("unsubscribe")
        .and(s())
        .and(body::json::<OrDefault<SignUnsubscribeRequest>>())
        .then(|w, st, b| async move { json_result(unsubscribe(st, w, b).await) });

    list_bookings
        .or(add)
        .unify()
        .or(delete)
        .unify()
        .or(me)
        .unify()
        .or(list_documents)
        .unify()
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
async fn list_bookings(state: AppState, who: Principal) -> Result<Vec<ZapierBooking>, AppError> {
    let bookings = crate::bookings::manage::newest(&state.ctx(), &who, SAMPLE_BOOKINGS).await?;
    Ok(bookings.iter().map(ZapierBooking::of).collect())
}

/// `POST .../addSubscription` with `{subscriberUrl, triggerEvent}`.
async fn add_subscription(
    state: AppState,
    who: Principal,
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
async fn delete_subscription(state: AppState, who: Principal, q: IdQuery) -> Result<(), AppError> {
    let id = hook_id(q.id.and_then(|s| s.trim().parse().ok()).map(Int), "id")?;
    zapier::unsubscribe(&state.ctx(), &who, id, true).await?;
    Ok(())
}

/// `GET .../me`: who the credential is (the peer's `{username}`, and docket's identity keys).
async fn me(
    state: AppState,
    who: Principal,
) -> Result<crate::oauth::identity::ApiAccount, AppError> {
    crate::oauth::identity::api_account(&state.ctx(), &who).await
}

/// `/api/v1/zapier/list-documents`: the sample a Zap shows while it is set up.
async fn list_documents(
    state: AppState,
    who: Principal,
) -> Result<Vec<crate::integrations::answers::SampleDelivery>, AppError> {
    zapier::documenso_sample(&state.ctx(), &who).await
}

/// `/api/v1/zapier/subscribe` with `{webhookUrl, eventTrigger}`.
async fn subscribe(
    state: AppState,
    who: Principal,
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
    state: AppState,
    who: Principal,
    OrDefault(b): OrDefault<SignUnsubscribeRequest>,
) -> Result<DocumensoRow, AppError> {
    let id = hook_id(b.webhook_id.into_valid(), "webhookId")?;
    let hook = zapier::unsubscribe(&state.ctx(), &who, id, false).await?;
    Ok(DocumensoRow::of(&hook, who.user_id))
}
