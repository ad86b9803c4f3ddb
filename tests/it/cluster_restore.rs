//! Backup and restore of a cluster, as docs/operate/backups.md gives it: `pg_dump` of
//! the shared database, and the bucket as it was at the dump (what bucket versioning rolls
//! back to; Garage, the test's S3 server, keeps no versions, so the test copies the objects).
//! Restored into an empty database and a new prefix, a node started with the same secret key
//! serves what was there when the dump was taken. Only with `DOCKET_TEST_POSTGRES` and a test
//! bucket (`DOCKET_TEST_BLOB_URL`).

use std::path::Path;
use std::process::Command;

use serde_json::json;

use crate::support::api::fixture;
use crate::support::{TestApp, blob_store, blob_url_for, on_postgres, postgres_for};

/// Runs `program args`, asserting success.
fn run(program: &str, args: &[&str]) {
    let out = Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{program} runs: {e}"));
    assert!(
        out.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every object of `data_dir`'s bucket prefix: (blob id, bytes).
fn bucket_snapshot(data_dir: &Path) -> Vec<(String, Vec<u8>)> {
    let store = blob_store(data_dir);
    std::thread::scope(|s| {
        s.spawn(|| {
            let keys = store.remote_keys().expect("the bucket lists");
            keys.iter()
                .map(|k| {
                    let id = k.rsplit('/').next().unwrap().to_string();
                    let blob = docket::core::blob::BlobId::parse(&id).expect("a blob key");
                    (id, store.read(&blob).expect("the object reads"))
                })
                .collect()
        })
        .join()
        .unwrap()
    })
}

/// Puts `objects` under `data_dir`'s bucket prefix, keys unchanged.
fn restore_bucket(data_dir: &Path, objects: &[(String, Vec<u8>)]) {
    let url = blob_url_for(data_dir).expect("a test bucket");
    let docket::core::blob::BlobUrl::S3 { bucket, prefix } =
        docket::core::blob::BlobUrl::parse(&url).unwrap()
    else {
        unreachable!("an s3:// URL")
    };
    let cache = tempfile::tempdir().unwrap();
    std::thread::scope(|s| {
        s.spawn(|| {
            let store = docket::core::blob::s3::S3Blobs::connect(&bucket, &prefix, cache.path())
                .expect("the bucket answers");
            for (id, bytes) in objects {
                let blob = docket::core::blob::BlobId::parse(id).unwrap();
                store
                    .upload(&blob, &mut bytes.as_slice(), bytes.len() as u64)
                    .expect("the object is put");
            }
        })
        .join()
        .unwrap()
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pg_dump_and_the_buckets_objects_restore_into_a_cluster_serving_the_same_data() {
    if !on_postgres() || std::env::var_os("DOCKET_TEST_BLOB_URL").is_none() {
        eprintln!(
            "skipped: the cluster restore needs PostgreSQL and a bucket (DOCKET_TEST_POSTGRES, DOCKET_TEST_BLOB_URL)"
        );
        return;
    }
    let app = TestApp::spawn().await;
    let data = app.data_dir();
    let api = app.user_with_key("owner@example.com", "standard");
    let body = json!({"title": "Kept", "recipients": []});
    let kept = api.create_document(body.clone()).await;
    let pdf = fixture("a4-1p.pdf");
    api.upload_ok(kept.upload_url(), pdf.clone()).await;
    let gone = api.create_document(body.clone()).await;
    let scan = fixture("scan-3p.pdf");
    api.upload_ok(gone.upload_url(), scan.clone()).await;
    // A signed upload URL issued before the backup, not used yet.
    let later = api.create_document(body.clone()).await;

    // The backup: the dump, then the bucket (every object a row of the dump names was written
    // before that row).
    let backup = tempfile::tempdir().unwrap();
    let dump = backup.path().join("docket.dump");
    let db_url = postgres_for(&data).unwrap();
    run(
        "pg_dump",
        &[
            "--format=custom",
            "--file",
            dump.to_str().unwrap(),
            "--dbname",
            &db_url,
        ],
    );
    let objects = bucket_snapshot(&data);
    assert_eq!(objects.len(), 2, "the two uploads");

    // After the backup: a draft and its file deleted, another document made.
    let (s, _) = api
        .delete(&format!("/api/v1/documents/{}", gone.document_id()))
        .await;
    assert_eq!(s, 200);
    let after = api.create_document(body).await;
    app.stop().await;

    // The restore: an empty database and an empty prefix (a new data dir has both).
    let restored_dir = tempfile::tempdir().unwrap();
    let restored_data = restored_dir.path().join("data");
    let restored_url = postgres_for(&restored_data).unwrap();
    run(
        "pg_restore",
        &[
            "--no-owner",
            "--exit-on-error",
            "--dbname",
            &restored_url,
            dump.to_str().unwrap(),
        ],
    );
    restore_bucket(&restored_data, &objects);

    // A node on them, with the same secret key (the harness gives every node the tests' key).
    let node = TestApp::spawn_in(restored_dir, &["--tls", "off"]).await;
    assert_eq!(node.get("/healthz").await.status(), 200);
    let api = node.api(api.key());
    assert_eq!(api.original(kept.document_id()).await, pdf);
    assert_eq!(
        api.original(gone.document_id()).await,
        scan,
        "what was deleted after the dump is back with its file"
    );
    let (s, _) = api
        .get(&format!("/api/v1/documents/{}", after.document_id()))
        .await;
    assert_eq!(s, 404, "what was made after the dump is not");
    // The key ring came back with the rows and opened with the same key: the old signed URL
    // is honoured by the new node.
    let path = later.upload_url().splitn(4, '/').nth(3).unwrap();
    let up = api
        .upload_ok(&node.url(&format!("/{path}")), pdf.clone())
        .await;
    assert_eq!(up["pages"], 1);
    node.stop().await;
}
