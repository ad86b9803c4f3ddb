//! `/api/v2/envelope...`: the envelope reads (get, find, get-many, the audit log) over
//! `signing::envelopes::reads`.

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::wire::{EnvelopeIds, FindQuery};
use super::{ok, reader};
use crate::core::error::AppError;
use crate::http::auth::caller;
use crate::http::body::{object, query};
use crate::http::server::state::AppState;
use crate::identity::principal::Principal;
use crate::identity::scope::Scope;
use crate::signing::envelope_ids::Envelope;
use crate::signing::envelopes::envelope::{Full, Summary};
use crate::signing::envelopes::{Many, Page, Reader, reads};

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let read = Scope::ReadDocument;
    let get = warp::path!("api" / "v2" / "envelope" / Envelope)
        .and(warp::get())
        .and(caller(&state, read))
        .and(reader())
        .then(get)
        .map(ok);
    let find = warp::path!("api" / "v2" / "envelope")
        .and(warp::get())
        .and(caller(&state, read))
        .and(reader())
        .and(query::<FindQuery>())
        .then(find)
        .map(ok);
    let many = warp::path!("api" / "v2" / "envelope" / "get-many")
        .and(warp::post())
        .and(caller(&state, read))
        .and(reader())
        .and(object::<EnvelopeIds>())
        .then(get_many)
        .map(ok);
    let audit = warp::path!("api" / "v2" / "envelope" / Envelope / "audit-log")
        .and(warp::get())
        .and(caller(&state, read))
        .and(reader())
        .and(query::<FindQuery>())
        .then(audit_log)
        .map(ok);
    get.or(find)
        .unify()
        .or(many)
        .unify()
        .or(audit)
        .unify()
        .boxed()
}

async fn get(id: Envelope, who: Principal, state: AppState, r: Reader) -> Result<Full, AppError> {
    reads::get(&state.ctx(), &who, id, r).await
}

async fn find(
    who: Principal,
    state: AppState,
    r: Reader,
    q: FindQuery,
) -> Result<Page<Summary>, AppError> {
    reads::find(&state.ctx(), &who, q.find(None)?, r).await
}

async fn get_many(
    who: Principal,
    state: AppState,
    r: Reader,
    b: EnvelopeIds,
) -> Result<Many<Full>, AppError> {
    reads::get_many(&state.ctx(), &who, b.envelopes()?, r).await
}

async fn audit_log(
    id: Envelope,
    who: Principal,
    state: AppState,
    r: Reader,
    q: FindQuery,
) -> Result<Page<serde_json::Value>, AppError> {
    reads::audit_log(&state.ctx(), &who, id, q.paging(50)?, r).await
}
