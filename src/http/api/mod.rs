//! The JSON APIs: `/api/v1` (documents, templates, sending, webhooks, bookings, the OpenAPI
//! document), the signing link's calls under `/sign/<token>/`, uploads to signed URLs, and the
//! routes Zapier's apps and the scheduling integrations call (among them the scheduling
//! service's API v1, under `/v1/` and its bare names).

pub mod bookings;
pub mod bulk_sends;
pub mod cal_v1;
pub mod documents;
pub mod moves;
pub mod multipart_limits;
pub mod openapi;
#[cfg(test)]
mod openapi_check;
pub mod seal_check;
pub mod sending;
pub mod signing;
pub mod template_edit;
pub mod templates;
pub mod uploads;
pub mod v2;
pub mod webhooks;
pub mod wire;
pub mod zapier;

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::http::server::state::AppState;

/// This audience's routes, in the order they are tried.
pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    bookings::routes(state.clone())
        .or(bulk_sends::routes(state.clone()))
        .unify()
        .or(documents::routes(state.clone()))
        .unify()
        .or(moves::routes(state.clone()))
        .unify()
        .or(uploads::routes(state.clone()))
        .unify()
        .or(seal_check::routes(state.clone()))
        .unify()
        .or(sending::routes(state.clone()))
        .unify()
        .or(signing::routes(state.clone()))
        .unify()
        .or(templates::routes(state.clone()))
        .unify()
        .or(webhooks::routes(state.clone()))
        .unify()
        .or(zapier::routes(state.clone()))
        .unify()
        .or(cal_v1::routes(state.clone()))
        .unify()
        .or(v2::routes(state.clone()))
        .unify()
        .or(openapi::routes(state.clone()))
        .unify()
        .boxed()
}
