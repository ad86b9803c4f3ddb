//! `GET /healthz`: 200 after a real database round trip, 503 when the database does not answer.

use http::StatusCode;
use serde_json::json;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::reply::json_response;
use crate::app::AppState;
use crate::version::VERSION;

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    warp::path!("healthz")
        .and(warp::get().or(warp::head()).unify())
        .and(super::with_state(state))
        .then(healthz)
        .boxed()
}

async fn healthz(state: AppState) -> Response {
    let probe = state
        .db
        .call(|c| {
            Ok(c.query_row("SELECT count(*) FROM sqlite_master", [], |r| {
                r.get::<_, i64>(0)
            })?)
        })
        .await;
    match probe {
        Ok(_) => json_response(
            StatusCode::OK,
            &json!({"status": "ok", "version": VERSION, "database": "ok"}),
        ),
        Err(e) => {
            tracing::warn!(error = %e, "health check: database unavailable");
            json_response(
                StatusCode::SERVICE_UNAVAILABLE,
                &json!({"status": "unavailable", "version": VERSION, "database": "unavailable"}),
            )
        }
    }
}
