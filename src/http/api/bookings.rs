//! Bookings over HTTP: the integrations' `GET /listBookings` and the `/api/v1/bookings` API.
//! Thin handlers: authenticate with the scope (before the body), parse, one call to
//! `bookings::manage`.

use serde::Deserialize;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::error::AppError;
use crate::http::api::wire::bookings::CreateRequest;
use crate::http::auth::{api, bearer_or_query_key};
use crate::http::reply::{json_created, json_result, json_text_result};
use crate::http::server::state::AppState;
use crate::http::{body, with_state};
use crate::identity::scope::Scope;
use crate::{bookings, bookings::Booking, bookings::manage};
use crate::{identity::principal::Credentials, identity::principal::Principal};

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let list_legacy = warp::path!("listBookings")
        .and(warp::get())
        .and(warp::query::<LimitQuery>())
        .and(bearer_or_query_key(&state))
        .and(with_state(state.clone()))
        .then(list_legacy)
        .map(json_text_result);

    let create = warp::path!("api" / "v1" / "bookings")
        .and(warp::post())
        .and(api(&state, Scope::WriteBooking))
        .and(body::json::<CreateRequest>())
        .and(with_state(state.clone()))
        .then(create)
        .map(json_created);

    let list = warp::path!("api" / "v1" / "bookings")
        .and(warp::get())
        .and(api(&state, Scope::ReadBooking))
        .and(warp::query::<PageQuery>())
        .and(with_state(state.clone()))
        .then(list)
        .map(json_text_result);

    let get = warp::path!("api" / "v1" / "bookings" / i64)
        .and(warp::get())
        .and(api(&state, Scope::ReadBooking))
        .and(with_state(state.clone()))
        .then(get)
        .map(json_result);

    let cancel = warp::path!("api" / "v1" / "bookings" / i64 / "cancel")
        .and(warp::post())
        .and(api(&state, Scope::WriteBooking))
        .and(body::optional_json::<CancelRequest>())
        .and(with_state(state))
        .then(cancel)
        .map(json_result);

    list_legacy
        .or(create)
        .unify()
        .or(list)
        .unify()
        .or(get)
        .unify()
        .or(cancel)
        .unify()
        .boxed()
}

/// Query parameters arrive as text and are checked after authentication, so an anonymous
/// request gets 401 whatever its query says.
#[derive(Debug, Deserialize)]
struct LimitQuery {
    limit: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct PageQuery {
    page: Option<String>,
    per_page: Option<String>,
    status: Option<String>,
}

/// `POST /api/v1/bookings/{id}/cancel`'s body (optional).
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
pub struct CancelRequest {
    #[schema(max_length = 500)]
    reason: Option<String>,
}

/// `GET /listBookings?limit=`: the caller's newest bookings as a bare array.
async fn list_legacy(
    q: LimitQuery,
    creds: Credentials,
    state: AppState,
) -> Result<String, AppError> {
    // The hot path of app integrations: credential check and read in one database trip.
    let list = manage::list_legacy(&state.ctx(), &state.verified, creds, q.limit).await?;
    Ok(list.0)
}

/// `POST /api/v1/bookings`.
async fn create(who: Principal, req: CreateRequest, state: AppState) -> Result<Booking, AppError> {
    manage::create(&state.ctx(), &who, req.validate()?).await
}

/// `GET /api/v1/bookings?page&perPage&status`: `{bookings, totalPages}` (the OpenAPI's
/// `BookingList`) as JSON text.
async fn list(who: Principal, q: PageQuery, state: AppState) -> Result<String, AppError> {
    let page = bookings::parse_page(
        q.page.as_deref(),
        q.per_page.as_deref(),
        q.status.as_deref(),
    )?;
    let (bookings, total_pages) = manage::list(&state.ctx(), &who, page).await?;
    Ok(format!(
        "{{\"bookings\":{},\"totalPages\":{total_pages}}}",
        bookings.0
    ))
}

/// `GET /api/v1/bookings/{id}`.
async fn get(id: i64, who: Principal, state: AppState) -> Result<Booking, AppError> {
    manage::get(&state.ctx(), &who, id).await
}

/// `POST /api/v1/bookings/{id}/cancel` with `{"reason"?}`.
async fn cancel(
    id: i64,
    who: Principal,
    req: CancelRequest,
    state: AppState,
) -> Result<Booking, AppError> {
    manage::cancel(&state.ctx(), &who, id, req.reason.as_deref()).await
}
