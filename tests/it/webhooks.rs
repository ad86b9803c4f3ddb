//! Webhooks through the real server: the API, and deliveries to a real receiver on
//! 127.0.0.1:0 (signed, retried, surviving a restart, refused for internal addresses).

use std::time::Duration;

use hmac::{Hmac, Mac};
use reqwest::Method;
use serde_json::{Value, json};
use sha2::Sha256;

use crate::support::api::{Api, add_user, create_api_key, two_recipients};
use crate::support::wait::eventually;
use crate::support::webhook::Receiver;
use crate::support::{BinServer, TestApp};

fn verify(secret: &str, header: &str, body: &str) -> bool {
    let mut t = None;
    let mut v1 = None;
    for part in header.split(',') {
        match part.split_once('=') {
            Some(("t", x)) => t = Some(x.to_string()),
            Some(("v1", x)) => v1 = Some(x.to_string()),
            _ => {}
        }
    }
    let (Some(t), Some(v1)) = (t, v1) else {
        return false;
    };
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{t}.{body}").as_bytes());
    mac.verify_slice(&hex::decode(v1).unwrap_or_default())
        .is_ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn document_created_is_delivered_signed_with_the_documents_shape() {
    let app = TestApp::spawn_with(&["--tls", "off", "--allow-private-webhooks"]).await;
    let api = app.user_with_key("owner@example.com", "standard");
    let rx = Receiver::start(&[]).await;
    let hook = api
        .add_webhook(
            json!({"url": rx.url(), "events": ["DOCUMENT_CREATED"], "secret": "topsecret"}),
        )
        .await;
    assert_eq!(hook["secret"], "topsecret");
    let created = api.create_document(two_recipients()).await;
    let doc = created.document_id();

    let got = rx.wait_for(1).await;
    let r = &got[0];
    assert_eq!(r.headers["content-type"], "application/json");
    assert!(
        verify("topsecret", &r.headers["x-docket-signature"], &r.body),
        "{r:?}"
    );
    assert!(!verify(
        "othersecret",
        &r.headers["x-docket-signature"],
        &r.body
    ));
    let body: Value = serde_json::from_str(&r.body).unwrap();
    let mut keys: Vec<&str> = body
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort();
    assert_eq!(keys, ["createdAt", "event", "payload", "webhookEndpoint"]);
    assert_eq!(body["event"], "DOCUMENT_CREATED");
    assert_eq!(body["webhookEndpoint"], rx.url());
    let (_, view) = api.get(&format!("/api/v1/documents/{doc}")).await;
    // The document as GET shows it, plus the keys of the other signing service's payload,
    // which are derived from it: nothing else.
    let mut payload = body["payload"].clone();
    let extra = payload.as_object_mut().unwrap();
    assert_eq!(extra.remove("Recipient").unwrap(), extra["recipients"]);
    let meta = extra.remove("documentMeta").unwrap();
    assert_eq!(meta["id"], doc.to_string());
    for (k, v) in meta.as_object().unwrap() {
        if k != "id" && k != "documentId" {
            assert_eq!(v, &view["meta"][k], "documentMeta.{k}");
        }
    }
    for (key, value) in [
        ("deletedAt", Value::Null),
        ("templateId", Value::Null),
        ("formValues", Value::Null),
        ("source", json!("DOCUMENT")),
        ("visibility", json!("EVERYONE")),
    ] {
        assert_eq!(extra.remove(key), Some(value), "{key}");
    }
    for r in extra["recipients"].as_array_mut().unwrap() {
        let r = r.as_object_mut().unwrap();
        // `expired`, `expiresAt` and `expirationNotifiedAt` are the recipient's own, as GET
        // shows them.
        for key in ["templateId", "documentDeletedAt", "rejectionReason"] {
            assert_eq!(r.remove(key), Some(Value::Null), "{key}");
        }
    }
    assert_eq!(payload, view, "the payload is the document as GET shows it");

    let d = api
        .wait_delivery(hook["id"].as_i64().unwrap(), |d| d["status"] == "DELIVERED")
        .await;
    assert_eq!(d["lastStatus"], 200);
    assert_eq!(d["attempts"], 1);
    // Not subscribed: nothing else was sent.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(rx.received().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_receiver_gets_the_delivery_on_retry() {
    let app = TestApp::spawn_with(&[
        "--tls",
        "off",
        "--allow-private-webhooks",
        "--retry-base-ms",
        "300",
    ])
    .await;
    let api = app.user_with_key("owner@example.com", "standard");
    let rx = Receiver::start(&[500, 302]).await;
    let hook = api
        .add_webhook(json!({"url": rx.url(), "events": ["DOCUMENT_CREATED"]}))
        .await;
    let secret = hook["secret"].as_str().unwrap().to_string();
    api.create_document(two_recipients()).await;
    let got = rx.wait_for(3).await;
    // The same body each time, signed afresh.
    assert!(got.iter().all(|r| r.body == got[0].body));
    assert!(
        got.iter()
            .all(|r| verify(&secret, &r.headers["x-docket-signature"], &r.body))
    );
    let d = api
        .wait_delivery(hook["id"].as_i64().unwrap(), |d| d["status"] == "DELIVERED")
        .await;
    assert_eq!(d["attempts"], 3);
    assert_eq!(d["lastStatus"], 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pending_delivery_survives_a_restart() {
    let args = ["--tls", "off", "--allow-private-webhooks"];
    let app = TestApp::spawn_with(&args).await;
    let api = app.user_with_key("owner@example.com", "standard");
    // A port with nobody listening yet: the first attempt fails, the next is 15-30 s away.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/hook");
    let hook = api
        .add_webhook(json!({"url": url, "events": ["DOCUMENT_CREATED"]}))
        .await;
    let id = hook["id"].as_i64().unwrap();
    api.create_document(two_recipients()).await;
    let d = api.wait_delivery(id, |d| d["attempts"] == 1).await;
    assert_eq!(d["status"], "PENDING");
    assert!(d["lastError"].as_str().is_some_and(|e| !e.is_empty()));
    let dir = app.stop().await;

    // Restarted with a short schedule, with the receiver up: the stored delivery goes out.
    let rx = Receiver::start_on(format!("127.0.0.1:{port}").parse().unwrap(), &[]).await;
    let app = TestApp::spawn_in(
        dir,
        &[
            "--tls",
            "off",
            "--allow-private-webhooks",
            "--retry-base-ms",
            "1",
        ],
    )
    .await;
    let api = app.api(api.key());
    // The retry time was fixed before the restart; make it due now.
    let db = crate::support::open_db(&app.data_dir());
    db.write(|c| Ok(c.execute("UPDATE webhook_deliveries SET next_attempt_at = 0", [])?))
        .await
        .unwrap();
    rx.wait_for(1).await;
    let d = api.wait_delivery(id, |d| d["status"] == "DELIVERED").await;
    assert_eq!(d["attempts"], 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loopback_targets_are_refused_without_the_flag() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let rx = Receiver::start(&[]).await;
    let hook = api
        .add_webhook(json!({"url": rx.url(), "events": ["DOCUMENT_CREATED"]}))
        .await;
    api.create_document(two_recipients()).await;
    let d = api
        .wait_delivery(hook["id"].as_i64().unwrap(), |d| d["status"] == "FAILED")
        .await;
    let err = d["lastError"].as_str().unwrap();
    assert!(
        err.contains("loopback") && err.contains("--allow-private-webhooks"),
        "{err}"
    );
    assert_eq!(d["attempts"], 1);
    assert!(rx.received().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_validates_and_keeps_users_apart() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let other = app.user_with_key("other@example.com", "standard");
    let (status, v) = api
        .post(
            "/api/v1/webhooks",
            json!({"url": "ftp://x/", "events": ["NOPE"]}),
        )
        .await;
    assert_eq!(status, 400);
    let paths: Vec<&str> = v["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["url", "events[0]"]);
    let hook = api.add_webhook(json!({"url": "https://hooks.example.com/x", "events": ["DOCUMENT_SIGNED", "DOCUMENT_COMPLETED"]})).await;
    assert!(hook["secret"].as_str().unwrap().starts_with("whsec_"));
    let id = hook["id"].as_i64().unwrap();
    let (_, list) = api.get("/api/v1/webhooks").await;
    assert_eq!(list["webhooks"].as_array().unwrap().len(), 1);
    assert!(
        list["webhooks"][0].get("secret").is_none(),
        "the secret is shown once"
    );
    assert_eq!(
        list["webhooks"][0]["events"],
        json!(["DOCUMENT_SIGNED", "DOCUMENT_COMPLETED"])
    );
    // The secret is not stored in clear.
    let secret = hook["secret"].as_str().unwrap().as_bytes();
    for file in ["docket.db", "docket.db-wal"] {
        let bytes = std::fs::read(app.data_dir().join(file)).unwrap_or_default();
        assert!(!bytes.windows(secret.len()).any(|w| w == secret), "{file}");
    }

    let (_, list) = other.get("/api/v1/webhooks").await;
    assert_eq!(list["webhooks"], json!([]));
    for (m, p) in [
        (Method::GET, format!("/api/v1/webhooks/{id}/deliveries")),
        (Method::DELETE, format!("/api/v1/webhooks/{id}")),
    ] {
        let (status, _) = other.call(m, &p, None).await;
        assert_eq!(status, 404, "{p}");
    }
    let (status, _) = app.api("").get("/api/v1/webhooks").await;
    assert_eq!(status, 401);
    let (status, v) = api.delete(&format!("/api/v1/webhooks/{id}")).await;
    assert_eq!((status, v), (200, json!({"id": id, "deleted": true})));
    let (status, _) = api.delete(&format!("/api/v1/webhooks/{id}")).await;
    assert_eq!(status, 404);
}

/// The real binary, killed (SIGKILL, no shutdown) with a delivery pending: the next process
/// delivers it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pending_delivery_survives_a_crash_of_the_binary() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    add_user(&data, "o@example.com", &["--name", "O"]);
    let key = create_api_key(&data, "o@example.com")["key"]
        .as_str()
        .unwrap()
        .to_string();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let args = [
        "--tls",
        "off",
        "--allow-private-webhooks",
        "--retry-base-ms",
        "4000",
    ];
    let server = BinServer::start_in(&data, &args);
    let http = reqwest::Client::new();
    let api = Api::new(http.clone(), &format!("http://{}", server.addr), &key);
    let hook: Value = api
        .post_response(
            "/api/v1/webhooks",
            &json!({"url": format!("http://127.0.0.1:{port}/hook"), "events": ["DOCUMENT_CREATED"]}),
        )
        .await
        .json()
        .await
        .unwrap();
    let id = hook["id"].as_i64().unwrap();
    assert_eq!(
        api.post_response("/api/v1/documents", &two_recipients())
            .await
            .status(),
        200
    );
    let deliveries = format!("/api/v1/webhooks/{id}/deliveries");
    wait_first_attempt_still_pending(&api, &deliveries).await;
    server.stop_with(nix::sys::signal::Signal::SIGKILL);

    let rx = Receiver::start_on(format!("127.0.0.1:{port}").parse().unwrap(), &[]).await;
    let server = BinServer::start_in(&data, &args);
    let got = rx.wait_for(1).await;
    let body: Value = serde_json::from_str(&got[0].body).unwrap();
    assert_eq!(body["event"], "DOCUMENT_CREATED");
    let api = Api::new(http, &format!("http://{}", server.addr), &key);
    wait_delivered_after_a_retry(&api, &deliveries).await;
}

/// Polls `deliveries` (30 s at most) until the newest delivery was attempted; it is still
/// PENDING.
async fn wait_first_attempt_still_pending(api: &Api, deliveries: &str) {
    let newest = eventually(Duration::from_secs(30), || async move {
        let v: Value = api.get_response(deliveries).await.json().await.unwrap();
        if v["deliveries"][0]["attempts"].as_i64().unwrap_or(0) >= 1 {
            Ok(v["deliveries"][0].clone())
        } else {
            Err(format!("no attempt: {v}"))
        }
    })
    .await;
    assert_eq!(newest["status"], "PENDING");
}

/// Polls `deliveries` (30 s at most) until the newest delivery is DELIVERED, after more than
/// one attempt.
async fn wait_delivered_after_a_retry(api: &Api, deliveries: &str) {
    let newest = eventually(Duration::from_secs(30), || async move {
        let v: Value = api.get_response(deliveries).await.json().await.unwrap();
        if v["deliveries"][0]["status"] == "DELIVERED" {
            Ok(v["deliveries"][0].clone())
        } else {
            Err(format!("not delivered: {v}"))
        }
    })
    .await;
    assert!(newest["attempts"].as_i64().unwrap() >= 2);
}
