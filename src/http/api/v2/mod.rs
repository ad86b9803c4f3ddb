//! The signing service's API v2 under `/api/v2/` (and its alias `/api/v2-beta/`, which the
//! server's middleware rewrites to it), as its official clients call it (decision 0127):
//! the API key raw or after `Bearer` in `Authorization`, every success 200 with JSON, errors
//! `{message, code, issues}` (`reply::Format::JsonV2`), every number taken as the Python
//! client sends it (`7.0`, in a path too: `core::lenient::Int`). Routes here are thin: each
//! reads its input and calls a use case of `signing::envelopes` (or of the modules v1 and
//! the web application call).

pub mod attachments;
pub mod changes;
pub mod envelopes;
pub mod folders;
pub mod legacy;
pub mod uses;
pub mod wire;
pub mod wire_attachments;
pub mod wire_changes;
pub mod wire_folders;
pub mod wire_use;

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::http::server::state::AppState;
use crate::signing::envelopes::Reader;

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    envelopes::routes(state.clone())
        .or(legacy::routes(state.clone()))
        .unify()
        .or(changes::routes(state.clone()))
        .unify()
        .or(uses::routes(state.clone()))
        .unify()
        .or(folders::routes(state.clone()))
        .unify()
        .or(attachments::routes(state))
        .unify()
        .boxed()
}

/// The client a request names in `user-agent` (for the enum values it knows).
pub fn reader() -> impl Filter<Extract = (Reader,), Error = warp::Rejection> + Clone {
    warp::header::optional::<String>("user-agent")
        .map(|ua: Option<String>| Reader::from_user_agent(ua.as_deref()))
}

/// 200 with `value` as JSON, or the error for the middleware to write in the v2 shape.
pub fn ok<T: serde::Serialize>(result: Result<T, crate::core::error::AppError>) -> Response {
    crate::http::reply::answer(
        result.map(|v| crate::http::reply::json_response(http::StatusCode::OK, &v)),
    )
}
