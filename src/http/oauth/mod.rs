//! The OAuth provider over HTTP: the endpoints apps call (`endpoints`: token, revoke,
//! introspect, the identity check, discovery) and the consent page people see (`authorize`).

pub mod authorize;
pub mod endpoints;

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::http::server::state::AppState;

/// This audience's routes, in the order they are tried.
pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    endpoints::routes(state.clone())
        .or(authorize::routes(state.clone()))
        .unify()
        .boxed()
}
