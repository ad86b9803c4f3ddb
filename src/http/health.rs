//! `GET /healthz`: 200 after a real database round trip, 503 when the database does not answer.

use http::StatusCode;
use serde_json::json;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::reply::json_response;
use crate::db::Db;
use crate::http::state::AppState;
use crate::version::VERSION;

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    warp::path!("healthz")
        .and(warp::get().or(warp::head()).unify())
        .and(super::with_state(state))
        .then(|state: AppState| async move { healthz(&state.db).await })
        .boxed()
}

async fn healthz(db: &Db) -> Response {
    match db.ping().await {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn answers_503_when_no_database_connection_is_available() {
        let tmp = tempfile::tempdir().unwrap();
        let db = Db::open_with(
            &tmp.path().join("t.db"),
            tmp.path(),
            1,
            Duration::from_millis(200),
        )
        .unwrap();
        assert_eq!(healthz(&db).await.status(), StatusCode::OK);
        let held = db.hold();
        let resp = healthz(&db).await;
        assert_eq!(resp.status(), StatusCode::SERVICE_UNAVAILABLE);
        drop(held);
        assert_eq!(healthz(&db).await.status(), StatusCode::OK);
    }
}
