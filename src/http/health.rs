//! `GET /healthz`: 200 after a real database round trip and a blob store check (the bucket
//! answers a listing, or the blob directory is there); 503 naming what does not answer.

use http::StatusCode;
use serde_json::json;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::reply::json_response;
use crate::core::blob::BlobStore;
use crate::core::db::Db;
use crate::core::version::VERSION;
use crate::http::state::AppState;

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    warp::path!("healthz")
        .and(warp::get().or(warp::head()).unify())
        .and(super::with_state(state))
        .then(|state: AppState| async move { healthz(&state.db, &state.blobs).await })
        .boxed()
}

async fn healthz(db: &Db, blobs: &BlobStore) -> Response {
    let (database, blob_store) = tokio::join!(db.ping(), blobs.check());
    if let Err(e) = &database {
        tracing::warn!(error = %e, "health check: database unavailable");
    }
    if let Err(e) = &blob_store {
        tracing::warn!(error = %e, store = %blobs.describe(), "health check: blob store unavailable");
    }
    let word = |ok: bool| if ok { "ok" } else { "unavailable" };
    let healthy = database.is_ok() && blob_store.is_ok();
    json_response(
        if healthy {
            StatusCode::OK
        } else {
            StatusCode::SERVICE_UNAVAILABLE
        },
        &json!({
            "status": word(healthy),
            "version": VERSION,
            "database": word(database.is_ok()),
            "blobs": word(blob_store.is_ok()),
        }),
    )
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
        let blobs = BlobStore::open(&tmp.path().join("blobs")).unwrap();
        assert_eq!(healthz(&db, &blobs).await.status(), StatusCode::OK);
        let held = db.hold();
        let resp = healthz(&db, &blobs).await;
        assert_eq!(resp.status(), StatusCode::SERVICE_UNAVAILABLE);
        drop(held);
        assert_eq!(healthz(&db, &blobs).await.status(), StatusCode::OK);
    }

    #[tokio::test]
    async fn answers_503_naming_the_blob_store_when_it_is_gone() {
        let tmp = tempfile::tempdir().unwrap();
        let db = Db::open_with(
            &tmp.path().join("t.db"),
            tmp.path(),
            1,
            Duration::from_millis(200),
        )
        .unwrap();
        let blobs = BlobStore::open(&tmp.path().join("blobs")).unwrap();
        std::fs::remove_dir_all(tmp.path().join("blobs")).unwrap();
        let resp = healthz(&db, &blobs).await;
        assert_eq!(resp.status(), StatusCode::SERVICE_UNAVAILABLE);
        let body = http_body_util::BodyExt::collect(resp.into_body())
            .await
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&body.to_bytes()).unwrap();
        assert_eq!(v["blobs"], "unavailable");
        assert_eq!(v["database"], "ok");
    }
}
