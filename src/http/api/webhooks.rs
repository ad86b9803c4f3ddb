//! The webhook API under `/api/v1/webhooks`: thin handlers over `crate::integrations::webhooks`
//! (create, list, read, change, delete, the delivery log, a test event, a redelivery). Same credentials and errors as the document API; another user's webhook
//! is a 404. The owner's browser (session cookie) must have confirmed its session recently to
//! add one or point one elsewhere (`integrations::webhooks`). A webhook is a way to read documents, so every call needs READ_DOCUMENT; one made
//! with an OAuth access token belongs to that app's grant, and the app sees only its own.

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::error::AppError;
use crate::http::api::wire::webhooks::{
    CreateWebhookRequest, TestWebhookRequest, UpdateWebhookRequest,
};
use crate::http::auth::api;
use crate::http::reply::json_result;
use crate::http::server::state::AppState;
use crate::http::with_state;
use crate::identity::accounts::access::Source;
use crate::identity::principal::Principal;
use crate::identity::scope::Scope;
use crate::integrations::answers::{DeliveryList, WebhookAdded, WebhookList, WebhookRemoved};
use crate::integrations::webhooks as manage;
use crate::outbox::webhooks::store::{Delivery, Webhook};

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    webhook_routes(state.clone())
        .or(delivery_routes(state))
        .unify()
        .boxed()
}

/// Create, list, read, change, delete.
fn webhook_routes(state: AppState) -> BoxedFilter<(Response,)> {
    // A webhook is a way to read documents: every call needs READ_DOCUMENT.
    let who = || api(&state, Scope::ReadDocument).and(with_state(state.clone()));
    let create = warp::path!("api" / "v1" / "webhooks")
        .and(warp::post())
        .and(who())
        .and(crate::http::body::object::<CreateWebhookRequest>())
        .and(crate::http::source())
        .then(create)
        .map(json_result);
    let list = warp::path!("api" / "v1" / "webhooks")
        .and(warp::get())
        .and(who())
        .then(list)
        .map(json_result);
    let delete = warp::path!("api" / "v1" / "webhooks" / i64)
        .and(warp::delete())
        .and(who())
        .then(delete)
        .map(json_result);
    let get = warp::path!("api" / "v1" / "webhooks" / i64)
        .and(warp::get())
        .and(who())
        .then(get)
        .map(json_result);
    let patch = warp::path!("api" / "v1" / "webhooks" / i64)
        .and(warp::patch())
        .and(who())
        .and(crate::http::body::object::<UpdateWebhookRequest>())
        .and(crate::http::source())
        .then(update)
        .map(json_result);
    create
        .or(list)
        .unify()
        .or(delete)
        .unify()
        .or(get)
        .unify()
        .or(patch)
        .unify()
        .boxed()
}

/// The delivery log, a test event, a redelivery.
fn delivery_routes(state: AppState) -> BoxedFilter<(Response,)> {
    let who = || api(&state, Scope::ReadDocument).and(with_state(state.clone()));
    let deliveries = warp::path!("api" / "v1" / "webhooks" / i64 / "deliveries")
        .and(warp::get())
        .and(who())
        .then(deliveries)
        .map(json_result);
    let test = warp::path!("api" / "v1" / "webhooks" / i64 / "test")
        .and(warp::post())
        .and(who())
        .and(crate::http::body::optional_json::<TestWebhookRequest>())
        .then(send_test)
        .map(json_result);
    let redeliver = warp::path!("api" / "v1" / "webhooks" / i64 / "deliveries" / i64 / "redeliver")
        .and(warp::post())
        .and(who())
        .then(redeliver)
        .map(json_result);
    deliveries.or(test).unify().or(redeliver).unify().boxed()
}

/// `GET /api/v1/webhooks/{id}`.
async fn get(id: i64, who: Principal, state: AppState) -> Result<Webhook, AppError> {
    manage::get(&state.ctx(), &who, id).await
}

/// `POST /api/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver`.
async fn redeliver(
    id: i64,
    delivery: i64,
    who: Principal,
    state: AppState,
) -> Result<Delivery, AppError> {
    manage::redeliver(&state.ctx(), &who, id, delivery).await
}

/// `PATCH /api/v1/webhooks/{id}`.
async fn update(
    id: i64,
    who: Principal,
    state: AppState,
    body: UpdateWebhookRequest,
    from: Source,
) -> Result<Webhook, AppError> {
    let change = body.validate()?;
    manage::update(&state.ctx(), &who, id, change, from).await
}

/// `POST /api/v1/webhooks/{id}/test`.
async fn send_test(
    id: i64,
    who: Principal,
    state: AppState,
    body: TestWebhookRequest,
) -> Result<Delivery, AppError> {
    let event = body.validate()?;
    manage::send_test(&state.ctx(), &who, id, event).await
}

/// `POST /api/v1/webhooks`: the secret is in this response only.
async fn create(
    who: Principal,
    state: AppState,
    body: CreateWebhookRequest,
    from: Source,
) -> Result<WebhookAdded, AppError> {
    let max = state.config.max_webhooks_per_user;
    let new = body.validate()?;
    let (hook, secret) =
        manage::create(&state.ctx(), &state.webhook_secrets, &who, new, (max, from)).await?;
    Ok(WebhookAdded {
        webhook: hook,
        secret,
    })
}

/// `GET /api/v1/webhooks`.
async fn list(who: Principal, state: AppState) -> Result<WebhookList, AppError> {
    let webhooks = manage::list(&state.ctx(), &who).await?;
    Ok(WebhookList { webhooks })
}

/// `DELETE /api/v1/webhooks/{id}`.
async fn delete(id: i64, who: Principal, state: AppState) -> Result<WebhookRemoved, AppError> {
    manage::delete(&state.ctx(), &who, id, None).await?;
    Ok(WebhookRemoved { id, deleted: true })
}

/// `GET /api/v1/webhooks/{id}/deliveries`.
async fn deliveries(id: i64, who: Principal, state: AppState) -> Result<DeliveryList, AppError> {
    let deliveries = manage::deliveries(&state.ctx(), &who, id).await?;
    Ok(DeliveryList {
        webhook_id: id,
        deliveries,
    })
}
