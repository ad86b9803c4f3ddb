//! `GET /healthz` (liveness): 200 after a real database round trip and a blob store check (the
//! bucket answers a listing, or the blob directory is there); 503 naming what does not answer.
//! Its body says `degraded` while the disk is low. `GET /readyz` (readiness for new work): the
//! same checks, and 503 `degraded` while the disk is below `--min-free-mb`, with the figures.

use http::StatusCode;
use serde_json::json;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::blob::BlobStore;
use crate::core::db::Db;
use crate::core::disk_space::Status as DiskStatus;
use crate::core::version::VERSION;
use crate::http::reply::json_response;
use crate::http::server::state::AppState;

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let healthz = warp::path!("healthz")
        .and(warp::get().or(warp::head()).unify())
        .and(crate::http::with_state(state.clone()))
        .then(|state: AppState| async move {
            let disk = state.disk.status();
            answer(Probe::Liveness, checks(&state.db, &state.blobs).await, disk)
        });
    let readyz = warp::path!("readyz")
        .and(warp::get().or(warp::head()).unify())
        .and(crate::http::with_state(state))
        .then(|state: AppState| async move {
            let disk = state.disk.status();
            answer(
                Probe::Readiness,
                checks(&state.db, &state.blobs).await,
                disk,
            )
        });
    healthz.or(readyz).unify().boxed()
}

/// Which question is asked: is the process alive and its stores answering (`/healthz`), or
/// may it be given new work (`/readyz`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Probe {
    Liveness,
    Readiness,
}

/// Whether the database and the blob store answered.
struct Checks {
    database: bool,
    blobs: bool,
}

/// The answer to `probe`: 503 when a store does not answer; while the disk is low, `/healthz`
/// still 200 (the process is fine, restarting it frees nothing) with `degraded` in its body,
/// `/readyz` 503 `degraded`, so that a load balancer sends new work elsewhere.
fn answer(probe: Probe, checks: Checks, disk: DiskStatus) -> Response {
    let word = |ok: bool| if ok { "ok" } else { "unavailable" };
    let stores = checks.database && checks.blobs;
    let (status, word_now) = match (stores, disk.low, probe) {
        (false, _, _) => (StatusCode::SERVICE_UNAVAILABLE, "unavailable"),
        (true, true, Probe::Liveness) => (StatusCode::OK, "degraded"),
        (true, true, Probe::Readiness) => (StatusCode::SERVICE_UNAVAILABLE, "degraded"),
        (true, false, Probe::Liveness) => (StatusCode::OK, "ok"),
        (true, false, Probe::Readiness) => (StatusCode::OK, "ready"),
    };
    let mut body = json!({
        "status": word_now,
        "version": VERSION,
        "database": word(checks.database),
        "blobs": word(checks.blobs),
        "disk": if disk.low { "low" } else { "ok" },
    });
    if disk.low {
        body["reason"] = json!(format!(
            "low on disk space: {} MiB free, {} MiB required; new work is refused (507)",
            disk.free >> 20,
            disk.min_free >> 20
        ));
        body["free_bytes"] = json!(disk.free);
        body["min_free_bytes"] = json!(disk.min_free);
    }
    json_response(status, &body)
}

async fn checks(db: &Db, blobs: &BlobStore) -> Checks {
    let (database, blob_store) = tokio::join!(db.ping(), blobs.check());
    if let Err(e) = &database {
        tracing::warn!(error = %e, "health check: database unavailable");
    }
    if let Err(e) = &blob_store {
        tracing::warn!(error = %e, store = %blobs.describe(), "health check: blob store unavailable");
    }
    Checks {
        database: database.is_ok(),
        blobs: blob_store.is_ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    async fn healthz(db: &Db, blobs: &BlobStore) -> Response {
        let fine = DiskStatus {
            low: false,
            free: 1 << 40,
            min_free: 256 << 20,
        };
        answer(Probe::Liveness, checks(db, blobs).await, fine)
    }

    #[test]
    fn a_low_disk_is_degraded_alive_but_not_ready() {
        let stores = || Checks {
            database: true,
            blobs: true,
        };
        let low = DiskStatus {
            low: true,
            free: 10 << 20,
            min_free: 256 << 20,
        };
        let alive = answer(Probe::Liveness, stores(), low);
        assert_eq!(alive.status(), StatusCode::OK);
        let ready = answer(Probe::Readiness, stores(), low);
        assert_eq!(ready.status(), StatusCode::SERVICE_UNAVAILABLE);
        let fine = DiskStatus { low: false, ..low };
        assert_eq!(answer(Probe::Readiness, stores(), fine).status(), 200);
        let down = Checks {
            database: false,
            blobs: true,
        };
        assert_eq!(answer(Probe::Liveness, down, fine).status(), 503);
    }

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
