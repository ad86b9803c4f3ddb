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
    let s = {
        let state = state.clone();
        move || with_state(state.clone())
    };
    // A webhook is a way to read documents: every call needs READ_DOCUMENT.
    let who = move || api(&state, Scope::ReadDocument);
    let create = warp::path!("api" / "v1" / "webhooks")
        .and(warp::post())
        .and(who())
        .and(crate::http::body::object::<CreateWebhookRequest>())
        .and(s())
        .and(crate::http::source())
        .then(|w, b, st, f| async move { json_result(create(st, w, b, f).await) });
    let list = warp::path!("api" / "v1" / "webhooks")
        .and(warp::get())
        .and(who())
        .and(s())
        .then(|w, st| async move { json_result(list(st, w).await) });
    let delete = warp::path!("api" / "v1" / "webhooks" / i64)
        .and(warp::delete())
        .and(who())
        .and(s())
        .then(|id, w, st| async move { json_result(delete(st, w, id).await) });
    let deliveries = warp::path!("api" / "v1" / "webhooks" / i64 / "deliveries")
        .and(warp::get())
        .and(who())
        .and(s())
        .then(|id, w, st| async move { json_result(deliveries(st, w, id).await) });
    let get = warp::path!("api" / "v1" / "webhooks" / i64)
        .and(warp::get())
        .and(who())
        .and(s())
        .then(
            |id, w, st: AppState| async move { json_result(manage::get(&st.ctx(), &w, id).await) },
        );
    let patch = warp::path!("api" / "v1" / "webhooks" / i64)
        .and(warp::patch())
        .and(who())
        .and(crate::http::body::object::<UpdateWebhookRequest>())
        .and(s())
        .and(crate::http::source())
        .then(|id, w, b, st, f| async move { json_result(update(st, w, id, b, f).await) });
    let test = warp::path!("api" / "v1" / "webhooks" / i64 / "test")
        .and(warp::post())
        .and(who())
        .and(crate::http::body::optional_json::<TestWebhookRequest>())
        .and(s())
        .then(|id, w, b, st| async move { json_result(send_test(st, w, id, b).await) });
    let redeliver = warp::path!("api" / "v1" / "webhooks" / i64 / "deliveries" / i64 / "redeliver")
        .and(warp::post())
        .and(who())
        .and(s())
        .then(|id, d, w, st: AppState| async move {
            json_result(manage::redeliver(&st.ctx(), &w, id, d).await)
        });
    create
        .or(list)
        .unify()
        .or(delete)
        .unify()
        .or(deliveries)
        .unify()
        .or(get)
        .unify()
        .or(patch)
        .unify()
        .or(test)
        .unify()
        .or(redeliver)
        .unify()
        .boxed()
}

/// `PATCH /api/v1/webhooks/{id}`.
async fn update(
    state: AppState,
    who: Principal,
    id: i64,
    body: UpdateWebhookRequest,
    from: Source,
) -> Result<Webhook, AppError> {
    let change = body.validate()?;
    manage::update(&state.ctx(), &who, id, change, from).await
}

/// `POST /api/v1/webhooks/{id}/test`.
async fn send_test(
    state: AppState,
    who: Principal,
    id: i64,
    body: TestWebhookRequest,
) -> Result<Delivery, AppError> {
    let event = body.validate()?;
    manage::send_test(&state.ctx(), &who, id, event).await
}

/// `POST /api/v1/webhooks`: the secret is in this response only.
async fn create(
    state: AppState,
    who: Principal,
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

async fn list(state: AppState, who: Principal) -> Result<WebhookList, AppError> {
    let webhooks = manage::list(&state.ctx(), &who).await?;
    Ok(WebhookList { webhooks })
}

async fn delete(state: AppState, who: Principal, id: i64) -> Result<WebhookRemoved, AppError> {
    manage::delete(&state.ctx(), &who, id, None).await?;
    Ok(WebhookRemoved { id, deleted: true })
}

async fn deliveries(state: AppState, who: Principal, id: i64) -> Result<DeliveryList, AppError> {
    let deliveries = manage::deliveries(&state.ctx(), &who, id).await?;
    Ok(DeliveryList {
        webhook_id: id,
        deliveries,
    })
}
