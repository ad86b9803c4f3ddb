//! `--blob-url`: the real binary with its blobs in an S3 bucket (when `DOCKET_TEST_BLOB_URL` and
//! the `AWS_*` variables name one, e.g. from `eval "$(tests/s3/moto.sh start)"`), and the
//! checks at start that need no bucket at all.

use std::path::Path;
use std::time::Duration;

use docket::{core::blob::BlobId, core::blob::BlobStore, core::blob::BlobUrl};
use serde_json::json;

use crate::support::api::{Api, add_user, create_api_key, fixture};
use crate::support::stores::files_under;
use crate::support::{BIN, BinServer, client, docket};

/// `DOCKET_TEST_BLOB_URL` with a fresh prefix under it, or `None` (and a notice) when unset.
fn test_bucket() -> Option<String> {
    let Ok(raw) = std::env::var("DOCKET_TEST_BLOB_URL") else {
        eprintln!(
            "skipping the S3 blob store test: set DOCKET_TEST_BLOB_URL=s3://bucket and AWS_* \
             (eval \"$(tests/s3/moto.sh start)\")"
        );
        return None;
    };
    let run = docket::core::crypto::random_base62(10).to_lowercase();
    Some(format!("{}/it-{run}", raw.trim_end_matches('/')))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uploads_land_in_the_bucket_and_come_back() {
    let Some(url) = test_bucket() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let data_str = data.to_str().unwrap();
    let server = BinServer::start(
        &[
            "--data-dir",
            data_str,
            "--listen",
            "127.0.0.1:0",
            "--tls",
            "off",
            "--blob-url",
            &url,
        ],
        &[],
    );
    let base = format!("http://localhost:{}", server.addr.port());
    let http = client(server.addr, None);
    add_user(&data, "owner@example.com", &["--name", "Owner"]);
    let api = Api::new(
        http.clone(),
        &base,
        create_api_key(&data, "owner@example.com")["key"]
            .as_str()
            .unwrap(),
    );

    let health = http.get(format!("{base}/healthz")).send().await.unwrap();
    assert_eq!(health.status(), 200);
    let health: serde_json::Value = health.json().await.unwrap();
    assert_eq!(health["blobs"], "ok");

    let created = api
        .create_document(json!({"title": "In a bucket", "recipients": [{"name": "Ann", "email": "ann@example.com", "role": "SIGNER"}]}))
        .await;
    let id = created.document_id();
    let pdf = fixture("a4-1p.pdf");
    let up = api.upload_ok(created.upload_url(), pdf.clone()).await;
    assert_eq!(up["sha256"], docket::core::crypto::sha256_hex(&pdf));
    assert!(api.original(id).await == pdf);

    // The object is in the bucket under the prefix, and nothing of it under <data>/blobs.
    let store = tokio::task::spawn_blocking({
        let (url, dir) = (url.clone(), tmp.path().to_path_buf());
        move || {
            BlobStore::open_url(
                &BlobUrl::parse(&url).unwrap(),
                &dir.join("probe"),
                &dir.join("probe-cache"),
            )
            .unwrap()
        }
    })
    .await
    .unwrap();
    let keys = keys_in(&store).await;
    assert_eq!(keys.len(), 1, "{keys:?}");
    let blob = BlobId::parse(keys[0].rsplit('/').next().unwrap()).unwrap();
    assert!(store.read_async(&blob).await.unwrap() == pdf);
    assert!(files_under(&data.join("blobs")).is_empty());

    // Deleting a draft deletes its object.
    let draft = api
        .create_document(json!({"title": "Gone", "recipients": [{"name": "Bo", "email": "bo@example.com", "role": "SIGNER"}]}))
        .await;
    api.upload_ok(draft.upload_url(), fixture("a4-1p.pdf"))
        .await;
    assert_eq!(keys_in(&store).await.len(), 2);
    let gone = format!("/api/v1/documents/{}", draft.document_id());
    assert_eq!(api.delete(&gone).await.0, 200);
    assert_eq!(keys_in(&store).await, keys);

    // The signing page renders from this node's copy, fetched from the bucket.
    let rid = created["recipients"][0]["recipientId"].clone();
    let field = json!({"recipientId": rid, "type": "SIGNATURE", "pageNumber": 1, "pageX": 10, "pageY": 80, "pageWidth": 30, "pageHeight": 8});
    let fields = format!("/api/v1/documents/{id}/fields");
    assert_eq!(api.post(&fields, field).await.0, 200);
    let sent = api.send(id).await;
    assert_eq!(sent.0, 200, "{}", sent.1);
    let png = http
        .get(format!("{base}/sign/{}/pages/1.png", created.token(0)))
        .send()
        .await
        .unwrap();
    assert_eq!(png.status(), 200);
    assert!(png.bytes().await.unwrap().starts_with(b"\x89PNG"));
    let copy = data
        .join("cache/blobs")
        .join(&blob.as_str()[..2])
        .join(blob.as_str());
    assert!(std::fs::read(copy).unwrap() == pdf);

    drop(server);
}

async fn keys_in(store: &BlobStore) -> Vec<String> {
    let s = store.clone();
    tokio::task::spawn_blocking(move || s.remote_keys().unwrap())
        .await
        .unwrap()
}

/// `docket serve` with `args` and the `AWS_*` variables in `env`: its exit code and stderr,
/// once it exits (within 60 s).
fn serve_fails(data: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String) {
    let mut cmd = std::process::Command::new(BIN);
    cmd.args(["serve", "--listen", "127.0.0.1:0", "--tls", "off"])
        .args(args)
        .env("DOCKET_DATA_DIR", data)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    for var in [
        "AWS_ENDPOINT_URL",
        "AWS_ENDPOINT",
        "AWS_REGION",
        "DOCKET_BLOB_URL",
    ] {
        cmd.env_remove(var);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("docket serve {args:?} did not stop");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn an_unreachable_bucket_stops_the_server_at_start_with_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    // A port nothing listens on: bound, then closed.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let endpoint = format!("http://127.0.0.1:{port}");
    let (code, err) = serve_fails(
        tmp.path(),
        &["--blob-url", "s3://docket-blobs/node"],
        &[
            ("AWS_ENDPOINT_URL", &endpoint),
            ("AWS_REGION", "garage"),
            ("AWS_ACCESS_KEY_ID", "GK0000"),
            ("AWS_SECRET_ACCESS_KEY", "secret"),
        ],
    );
    assert_eq!(code, 1, "{err}");
    let last = err.lines().last().unwrap_or_default();
    assert!(
        last.starts_with(&format!(
            "docket: error: blob store s3://docket-blobs/node at {endpoint}: "
        )),
        "{err}"
    );
}

#[test]
fn an_s3_url_without_a_bucket_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    let (code, err) = serve_fails(tmp.path(), &["--blob-url", "s3://"], &[]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--blob-url \"s3://\": the URL names no bucket"),
        "{err}"
    );
}

#[test]
fn backup_refuses_an_s3_blob_store_instead_of_skipping_its_blobs() {
    let tmp = tempfile::tempdir().unwrap();
    let dest = tmp.path().join("copy");
    let out = docket(
        &tmp.path().join("data"),
        &[
            "backup",
            dest.to_str().unwrap(),
            "--blob-url",
            "s3://docket-blobs",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("with --blob-url s3://docket-blobs back up the database"),
        "{err}"
    );
    assert!(!dest.exists());
    assert!(
        !tmp.path().join("data").exists(),
        "refused before opening the data dir"
    );
}

/// An S3 endpoint on loopback that refuses every request as Garage refuses an unknown access
/// key: 403 and its XML body, the declaration on a line of its own. Answers until dropped.
struct RefusingBucket {
    endpoint: String,
}

/// Garage's body for a list with an unknown key, verbatim.
const GARAGE_ACCESS_DENIED: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>AccessDenied</Code><Message>Forbidden: No such key: GK0000</Message><Resource>/docket-blobs</Resource><Region>garage</Region></Error>";

impl RefusingBucket {
    fn start() -> RefusingBucket {
        use std::io::{BufRead, BufReader, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let endpoint = format!("http://{}", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(mut conn) = conn else { return };
                // The request's head (a list has no body), then the refusal.
                let mut reader = BufReader::new(conn.try_clone().unwrap());
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                    line.clear();
                }
                let _ = write!(
                    conn,
                    "HTTP/1.1 403 Forbidden\r\nContent-Type: application/xml\r\n\
                     Content-Length: {}\r\nConnection: close\r\n\r\n{GARAGE_ACCESS_DENIED}",
                    GARAGE_ACCESS_DENIED.len()
                );
            }
        });
        RefusingBucket { endpoint }
    }
}

#[test]
fn a_refused_bucket_credential_stops_the_server_with_one_line_keeping_the_code_and_message() {
    let tmp = tempfile::tempdir().unwrap();
    let bucket = RefusingBucket::start();
    let (code, err) = serve_fails(
        tmp.path(),
        &["--blob-url", "s3://docket-blobs/node"],
        &[
            ("AWS_ENDPOINT_URL", &bucket.endpoint),
            ("AWS_REGION", "garage"),
            ("AWS_ACCESS_KEY_ID", "GK0000"),
            ("AWS_SECRET_ACCESS_KEY", "wrong"),
        ],
    );
    assert_eq!(code, 1, "{err}");
    // The message and nothing of the XML on any other line.
    assert!(!err.contains('<') && !err.contains("Resource"), "{err}");
    let last = err.lines().last().unwrap_or_default();
    assert!(
        last.starts_with(&format!(
            "docket: error: blob store s3://docket-blobs/node at {}: ",
            bucket.endpoint
        )),
        "{err}"
    );
    assert!(
        last.contains("403 Forbidden: AccessDenied: Forbidden: No such key: GK0000"),
        "{err}"
    );
}

/// Begins `PUT url` with a body of `total` bytes and sends only `first` of them (a PDF header
/// and then filler): an upload in progress, held open by the returned connection.
fn begin_slow_upload(url: &str, total: usize, first: usize) -> std::net::TcpStream {
    use std::io::Write;
    let url = url::Url::parse(url).unwrap();
    let addr = (url.host_str().unwrap(), url.port().unwrap());
    let mut conn = std::net::TcpStream::connect(addr).unwrap();
    let target = match url.query() {
        Some(q) => format!("{}?{q}", url.path()),
        None => url.path().to_string(),
    };
    write!(
        conn,
        "PUT {target} HTTP/1.1\r\nHost: {}:{}\r\nContent-Type: application/pdf\r\n\
         Content-Length: {total}\r\n\r\n",
        addr.0, addr.1
    )
    .unwrap();
    let mut body = b"%PDF-1.7\n".to_vec();
    body.resize(first, b' ');
    conn.write_all(&body).unwrap();
    conn
}

/// A node SIGKILLed mid-upload leaves the upload's temp file, and one killed between storing
/// a blob and committing its row leaves a blob no row refers to; once older than the grace
/// period (shortened here with the hidden `--orphan-grace-secs`), the next start removes both,
/// and the blobs documents refer to stay. On the PostgreSQL + Garage run the blobs are objects
/// in the bucket (the same sweep, listing the store's prefix).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_a_killed_upload_leaves_is_swept_after_the_grace_period_and_live_blobs_stay() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let start = |grace: &str| {
        let data = data.clone();
        let grace = grace.to_string();
        move || BinServer::start_in(&data, &["--tls", "off", "--orphan-grace-secs", &grace])
    };
    let server = tokio::task::spawn_blocking(start("86400")).await.unwrap();
    let base = format!("http://localhost:{}", server.addr.port());
    add_user(&data, "owner@example.com", &["--name", "Owner"]);
    let key = create_api_key(&data, "owner@example.com");
    let api = Api::new(
        client(server.addr, None),
        &base,
        key["key"].as_str().unwrap(),
    );
    let doc = json!({"title": "Kept", "recipients": [{"name": "Ann", "email": "ann@example.com", "role": "SIGNER"}]});
    let live = api.create_document(doc.clone()).await;
    let pdf = fixture("a4-1p.pdf");
    api.upload_ok(live.upload_url(), pdf.clone()).await;

    // An upload under way: its temp file exists, then the node dies.
    let killed = api.create_document(doc).await;
    let temp_dir = data.join("blobs/tmp");
    let _conn = begin_slow_upload(killed.upload_url(), 8 << 20, 256 << 10);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let temp = loop {
        if let Some(f) = files_under(&temp_dir).into_iter().next() {
            break f;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no temp file appeared"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let mut server = server;
    server.child.kill().unwrap();
    server.child.wait().unwrap();
    drop(server);
    assert!(temp.exists(), "a SIGKILL leaves the temp file");

    // What a node killed after storing a blob but before its row committed leaves: a blob
    // in the store (the bucket, with S3) and no row.
    let store = tokio::task::spawn_blocking({
        let data = data.clone();
        move || crate::support::blob_store(&data)
    })
    .await
    .unwrap();
    let orphan = {
        let store = store.clone();
        tokio::task::spawn_blocking(move || store.put(b"%PDF-1.7 never recorded").unwrap())
    }
    .await
    .unwrap()
    .id;

    // Within the grace period a restart keeps both: their uploads might still commit.
    let server = tokio::task::spawn_blocking(start("86400")).await.unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(temp.exists() && store.exists(&orphan).unwrap());
    drop(server);

    // Past it, the next start removes them.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let server = tokio::task::spawn_blocking(start("2")).await.unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while temp.exists() || store.exists(&orphan).unwrap() {
        assert!(
            std::time::Instant::now() < deadline,
            "not swept: temp file {}, blob without row {}",
            temp.exists(),
            store.exists(&orphan).unwrap()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let base = format!("http://localhost:{}", server.addr.port());
    let api = Api::new(
        client(server.addr, None),
        &base,
        key["key"].as_str().unwrap(),
    );
    assert!(
        api.original(live.document_id()).await == pdf,
        "the live blob stays"
    );
    let listed = {
        let store = store.clone();
        tokio::task::spawn_blocking(move || store.committed_older_than(Duration::ZERO).unwrap())
    }
    .await
    .unwrap();
    assert_eq!(listed.len(), 1, "only the live blob is left: {listed:?}");
    drop(server);
}
