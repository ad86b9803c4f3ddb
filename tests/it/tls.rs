//! TLS: the self-issued CA is trusted by a client that loads `<data>/tls/ca.pem`, survives
//! restarts, and `--tls files` serves a given certificate.

use crate::support::{TestApp, client};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_trusting_ca_pem_reaches_healthz_over_https() {
    let app = TestApp::spawn_with(&[]).await;
    let resp = app.get("/healthz").await;
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.url().scheme(), "https");
    let hsts = resp.headers().get("strict-transport-security").cloned();
    assert!(hsts.is_some(), "HSTS is sent under TLS");
    let body: serde_json::Value = resp.json().await.unwrap();
    assert_eq!(body["status"], "ok");

    // A client that does not trust the local CA is refused.
    let stranger = client(app.addr, None);
    let err = stranger.get(app.url("/healthz")).send().await.unwrap_err();
    assert!(
        err.is_connect() || err.to_string().contains("certificate"),
        "{err}"
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_keeps_the_same_ca_and_certificate() {
    let app = TestApp::spawn_with(&[]).await;
    let ca_before = std::fs::read(app.data_dir().join("tls/ca.pem")).unwrap();
    let leaf_before = std::fs::read(app.data_dir().join("tls/server.pem")).unwrap();
    let fingerprint = app.running.as_ref().unwrap().banner.clone();
    let dir = app.stop().await;

    let app = TestApp::spawn_in(dir, &[]).await;
    assert_eq!(
        std::fs::read(app.data_dir().join("tls/ca.pem")).unwrap(),
        ca_before
    );
    assert_eq!(
        std::fs::read(app.data_dir().join("tls/server.pem")).unwrap(),
        leaf_before
    );
    let ca_line = |b: &str| {
        b.lines()
            .find(|l| l.contains("ca sha256"))
            .map(str::to_string)
    };
    assert_eq!(
        ca_line(&app.running.as_ref().unwrap().banner),
        ca_line(&fingerprint)
    );
    assert!(
        ca_line(&fingerprint).is_some(),
        "banner shows the CA fingerprint"
    );
    // A client built from the CA of the first run still trusts the second.
    let old_client = client(app.addr, Some(&ca_before));
    let resp = old_client.get(app.url("/healthz")).send().await.unwrap();
    assert_eq!(resp.status(), 200);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_names_get_a_new_leaf_from_the_same_ca() {
    let app = TestApp::spawn_with(&[]).await;
    let ca = std::fs::read(app.data_dir().join("tls/ca.pem")).unwrap();
    let leaf = std::fs::read(app.data_dir().join("tls/server.pem")).unwrap();
    let dir = app.stop().await;
    let app = TestApp::spawn_in(dir, &["--tls-names", "localhost,docket.test"]).await;
    assert_eq!(
        std::fs::read(app.data_dir().join("tls/ca.pem")).unwrap(),
        ca
    );
    assert_ne!(
        std::fs::read(app.data_dir().join("tls/server.pem")).unwrap(),
        leaf
    );
    assert_eq!(app.get("/healthz").await.status(), 200);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls_files_serves_the_given_certificate() {
    // Let one server issue a certificate, then serve it from files in another.
    let issuer = TestApp::spawn_with(&[]).await;
    let tls_dir = issuer.data_dir().join("tls");
    let issuer_dir = issuer.stop().await;
    let cert = tls_dir.join("server.pem");
    let key = tls_dir.join("server.key");
    let app = TestApp::spawn_with(&[
        "--tls",
        "files",
        "--tls-cert",
        cert.to_str().unwrap(),
        "--tls-key",
        key.to_str().unwrap(),
    ])
    .await;
    let ca = std::fs::read(tls_dir.join("ca.pem")).unwrap();
    let c = client(app.addr, Some(&ca));
    let resp = c.get(app.url("/healthz")).send().await.unwrap();
    assert_eq!(resp.status(), 200);
    assert!(
        !app.data_dir().join("tls/ca.pem").exists(),
        "files mode makes no CA"
    );
    app.stop().await;
    drop(issuer_dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tls_off_serves_plain_http_without_hsts() {
    let app = TestApp::spawn().await;
    let resp = app.get("/healthz").await;
    assert_eq!(resp.status(), 200);
    assert!(resp.headers().get("strict-transport-security").is_none());
    app.stop().await;
}
