//! The scheduling service's API v1 routes its clients call with `?apiKey=` (or
//! `Authorization`): `memberships` (n8n's credential test), `hooks` and `webhooks` (its
//! trigger's subscription: list, create, read, delete), `me` and `bookings`. Each answers under
//! `/v1/<name>` and under `/<name>`, as that service's API does (n8n's trigger calls the second
//! form on the host it is given). Thin handlers over `integrations::cal_v1`.

use serde::Deserialize;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::error::AppError;
use crate::http::reply::{json_created, json_result};
use crate::http::server::state::AppState;
use crate::http::{body, with_state};
use crate::identity::accounts::access::Source;
use crate::identity::principal::Principal;
use crate::identity::scope::Scope;
use crate::integrations::cal_answers::{
    CalBookings, CalHook, CalHookAnswer, CalHookList, CalMe, CalMemberships, CalMessage,
};
use crate::integrations::cal_v1::{self, NewHook};

/// The names the routes answer under, each also under `/v1/`.
const HOOKS: [&str; 2] = ["hooks", "webhooks"];

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = || with_state(state.clone());
    // `/v1/<name>` or `/<name>`, then the credential (before any body).
    let at = |name: &'static str, scopes: &'static [Scope]| {
        warp::path!("v1" / ..)
            .and(warp::path(name))
            .or(warp::path(name))
            .unify()
            .and(crate::http::auth::query_key(&state, scopes))
    };
    const HOOK: &[Scope] = &[Scope::ReadBooking];
    let memberships = at("memberships", &[])
        .and(warp::path::end())
        .and(warp::get())
        .and(s())
        .then(memberships)
        .map(json_result);
    let me = at("me", &[Scope::ReadProfile])
        .and(warp::path::end())
        .and(warp::get())
        .and(s())
        .then(me)
        .map(json_result);
    let bookings = at("bookings", &[Scope::ReadBooking])
        .and(warp::path::end())
        .and(warp::get())
        .and(warp::query::<PageQuery>())
        .and(s())
        .then(bookings)
        .map(json_result);
    // A hook: `/v1/hooks/{id}`, `/hooks/{id}`, and the same under `webhooks`.
    let one = || {
        warp::path!("v1" / "hooks" / i64)
            .or(warp::path!("hooks" / i64))
            .unify()
            .or(warp::path!("v1" / "webhooks" / i64))
            .unify()
            .or(warp::path!("webhooks" / i64))
            .unify()
            .and(crate::http::auth::query_key(&state, HOOK))
    };
    let get = one()
        .and(warp::get())
        .and(s())
        .then(get_hook)
        .map(json_result);
    let delete = one()
        .and(warp::delete())
        .and(s())
        .then(delete_hook)
        .map(json_result);
    let mut all = memberships
        .or(me)
        .unify()
        .or(bookings)
        .unify()
        .or(get)
        .unify()
        .or(delete)
        .unify()
        .boxed();
    for name in HOOKS {
        let list = at(name, HOOK)
            .and(warp::path::end())
            .and(warp::get())
            .and(s())
            .then(list_hooks)
            .map(json_result);
        let create = at(name, HOOK)
            .and(warp::path::end())
            .and(warp::post())
            .and(s())
            .and(body::json::<HookRequest>())
            .and(crate::http::source())
            .then(create_hook)
            .map(json_created);
        all = all.or(list).unify().or(create).unify().boxed();
    }
    all
}

/// `?take=&page=` of `GET /v1/bookings`.
#[derive(Debug, Deserialize)]
struct PageQuery {
    take: Option<String>,
    page: Option<String>,
}

/// A hook as n8n's trigger (and the other service's API) sends it; other members are refused,
/// as that service refuses them.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct HookRequest {
    subscriber_url: Option<String>,
    event_triggers: Option<Vec<String>>,
    active: Option<bool>,
    payload_template: Option<String>,
    event_type_id: Option<serde_json::Value>,
    secret: Option<String>,
    user_id: Option<serde_json::Value>,
    /// Sent by n8n's trigger when its "App ID" option is set; docket has no apps to name.
    app_id: Option<serde_json::Value>,
}

async fn memberships(who: Principal, state: AppState) -> Result<CalMemberships, AppError> {
    let all = cal_v1::memberships(&state.ctx(), &who).await?;
    Ok(CalMemberships::of(who.user_id, &all))
}

async fn me(who: Principal, state: AppState) -> Result<CalMe, AppError> {
    Ok(CalMe::of(&cal_v1::me(&state.ctx(), &who).await?))
}

async fn bookings(who: Principal, q: PageQuery, state: AppState) -> Result<CalBookings, AppError> {
    let paging = cal_v1::paging(q.take.as_deref(), q.page.as_deref())?;
    let all = cal_v1::bookings(&state.ctx(), &who, paging).await?;
    Ok(CalBookings::of(who.user_id, &all))
}

async fn list_hooks(who: Principal, state: AppState) -> Result<CalHookList, AppError> {
    let all = cal_v1::hooks(&state.ctx(), &who).await?;
    Ok(CalHookList {
        webhooks: all.iter().map(|h| CalHook::of(h, who.user_id)).collect(),
    })
}

async fn create_hook(
    who: Principal,
    state: AppState,
    b: HookRequest,
    from: Source,
) -> Result<CalHookAnswer, AppError> {
    if b.app_id.as_ref().is_some_and(|v| !v.is_null()) {
        return Err(AppError::bad_request(
            "appId: docket has no apps to tie a hook to; leave it out",
        ));
    }
    let new = NewHook {
        subscriber_url: b.subscriber_url,
        event_triggers: b.event_triggers,
        active: b.active,
        payload_template: b.payload_template,
        event_type_id: b.event_type_id.filter(|v| !v.is_null()),
        secret: b.secret,
        user_id: b.user_id.filter(|v| !v.is_null()),
    };
    let limits = (state.config.max_webhooks_per_user, from);
    let hook = cal_v1::subscribe(&state.ctx(), &state.webhook_secrets, &who, new, limits).await?;
    Ok(CalHookAnswer {
        webhook: CalHook::of(&hook, who.user_id),
        message: Some("Webhook created successfully".into()),
    })
}

async fn get_hook(id: i64, who: Principal, state: AppState) -> Result<CalHookAnswer, AppError> {
    let hook = cal_v1::hook(&state.ctx(), &who, id).await?;
    Ok(CalHookAnswer {
        webhook: CalHook::of(&hook, who.user_id),
        message: None,
    })
}

async fn delete_hook(id: i64, who: Principal, state: AppState) -> Result<CalMessage, AppError> {
    let hook = cal_v1::unsubscribe(&state.ctx(), &who, id).await?;
    Ok(CalMessage {
        message: format!("Webhook with id: {} deleted successfully", hook.id),
    })
}
