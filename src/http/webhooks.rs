//! The webhook API under `/api/v1/webhooks`: thin handlers over
//! `crate::outbox::webhooks`. Same credentials and errors as the document API; another user's webhook
//! is a 404. A webhook is a way to read documents, so every call needs READ_DOCUMENT; one made
//! with an OAuth access token belongs to that app's grant, and the app sees only its own.

use serde_json::{Value, json};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::auth::api;
use super::reply::json_result;
use super::with_state;
use crate::core::error::AppError;
use crate::http::state::AppState;
use crate::identity::principal::Principal;
use crate::identity::scope::Scope;
use crate::integrations::request::CreateWebhookRequest;
use crate::integrations::webhooks as manage;

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
        .and(super::body::object::<CreateWebhookRequest>())
        .and(s())
        .then(|w, b, st| async move { json_result(create(st, w, b).await) });
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
    create
        .or(list)
        .unify()
        .or(delete)
        .unify()
        .or(deliveries)
        .unify()
        .boxed()
}

/// `POST /api/v1/webhooks`: the secret is in this response only.
async fn create(
    state: AppState,
    who: Principal,
    body: CreateWebhookRequest,
) -> Result<Value, AppError> {
    let max = state.config.max_webhooks_per_user;
    let new = body.validate()?;
    let (hook, secret) =
        manage::create(&state.ctx(), &state.webhook_secrets, &who, new, max).await?;
    let mut out = json!(hook);
    out["secret"] = Value::String(secret);
    Ok(out)
}

async fn list(state: AppState, who: Principal) -> Result<Value, AppError> {
    let hooks = manage::list(&state.ctx(), &who).await?;
    Ok(json!({ "webhooks": hooks }))
}

async fn delete(state: AppState, who: Principal, id: i64) -> Result<Value, AppError> {
    manage::delete(&state.ctx(), &who, id, None).await?;
    Ok(json!({"id": id, "deleted": true}))
}

async fn deliveries(state: AppState, who: Principal, id: i64) -> Result<Value, AppError> {
    let list = manage::deliveries(&state.ctx(), &who, id).await?;
    Ok(json!({ "webhookId": id, "deliveries": list }))
}
