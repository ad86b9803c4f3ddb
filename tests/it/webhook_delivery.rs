//! Webhook delivery under hostile or slow receivers: endpoints that never answer do not delay
//! other users' deliveries, one endpoint gets one attempt at a time and in order, targets
//! inside special-purpose ranges are refused, and `--outbound loopback-only` (the harness
//! default) refuses everything beyond this machine without looking a name up.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::json;
use tokio::net::TcpListener;

use crate::support::TestApp;
use crate::support::api::{two_recipients, webhook};
use crate::support::wait::wait_until;
use crate::support::webhook::Receiver;

/// What the webhooks here subscribe to.
const CREATED: &[&str] = &["DOCUMENT_CREATED"];

/// A receiver on 127.0.0.1:0 that accepts connections and never answers, holding them open.
struct Silent {
    addr: SocketAddr,
    accepted: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Silent {
    async fn start() -> Silent {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let accepted = Arc::new(AtomicUsize::new(0));
        let count = accepted.clone();
        let task = tokio::spawn(async move {
            let mut held = Vec::new();
            while let Ok((sock, _)) = listener.accept().await {
                count.fetch_add(1, Ordering::SeqCst);
                held.push(sock);
            }
        });
        Silent {
            addr,
            accepted,
            task,
        }
    }
}

impl Drop for Silent {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// One request a `Receiver` took: the document id in its payload and the status answered.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    document: i64,
    status: u16,
}

/// The requests `rx` took, as seen here.
fn seen(rx: &Receiver) -> Vec<Seen> {
    rx.received()
        .iter()
        .map(|r| Seen {
            document: r.json()["payload"]["id"].as_i64().unwrap_or(-1),
            status: r.status,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn endpoints_that_never_answer_do_not_delay_another_users_delivery() {
    let app = TestApp::spawn_with(&["--tls", "off", "--allow-private-webhooks"]).await;
    let a = app.user_with_key("a@example.com", "standard");
    let b = app.user_with_key("b@example.com", "standard");
    let silent = Silent::start().await;
    for i in 0..9 {
        a.add_webhook(webhook(
            &format!("http://127.0.0.1:{}/a{i}", silent.addr.port()),
            CREATED,
        ))
        .await["id"]
            .as_i64()
            .unwrap();
    }
    let rx = Receiver::start(&[]).await;
    b.add_webhook(webhook(&rx.url(), CREATED)).await["id"]
        .as_i64()
        .unwrap();

    a.create_document(two_recipients()).await;
    // A's deliveries are in flight (each would hang for the 10 s request timeout).
    wait_until(
        "A's first delivery connects",
        Duration::from_secs(10),
        || silent.accepted.load(Ordering::SeqCst) >= 1,
    )
    .await;
    b.create_document(two_recipients()).await;
    // Well under one 10 s attempt, let alone nine of them.
    wait_until("B's delivery arrives", Duration::from_secs(5), || {
        !seen(&rx).is_empty()
    })
    .await;
    // All nine of A's endpoints were tried at once, each one connection.
    wait_until(
        "all of A's endpoints are tried",
        Duration::from_secs(5),
        || silent.accepted.load(Ordering::SeqCst) >= 9,
    )
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(silent.accepted.load(Ordering::SeqCst), 9);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_endpoint_gets_one_attempt_at_a_time_and_its_events_in_order() {
    let app = TestApp::spawn_with(&[
        "--tls",
        "off",
        "--allow-private-webhooks",
        "--retry-base-ms",
        "200",
    ])
    .await;
    let api = app.user_with_key("owner@example.com", "standard");
    // Slow answers, and the first one a failure that is retried.
    let rx = Receiver::slow(Duration::from_millis(500), &[500]).await;
    api.add_webhook(webhook(&rx.url(), CREATED)).await["id"]
        .as_i64()
        .unwrap();
    let mut docs = Vec::new();
    for _ in 0..3 {
        docs.push(
            api.create_document(two_recipients()).await["documentId"]
                .as_i64()
                .unwrap(),
        );
    }
    wait_until("four requests arrive", Duration::from_secs(30), || {
        seen(&rx).len() >= 4
    })
    .await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    let ok = |document| Seen {
        document,
        status: 200,
    };
    assert_eq!(
        seen(&rx),
        [
            Seen {
                document: docs[0],
                status: 500
            },
            ok(docs[0]),
            ok(docs[1]),
            ok(docs[2])
        ],
        "the failed first event is retried before the later ones go out"
    );
    assert_eq!(rx.most_at_once(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn special_purpose_targets_are_refused_without_the_flag() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let rx = Receiver::start(&[]).await;
    let port = rx.addr().port();
    let mut hooks = Vec::new();
    for (host, kind) in [
        ("[::ffff:0:7f00:1]", "IPv4-translated (SIIT)"),
        ("[::ffff:7f00:1]", "IPv4-mapped"),
        ("[2002:7f00:1::1]", "6to4"),
        ("[64:ff9b:1::7f00:1]", "NAT64 local-use"),
        ("[64:ff9b::7f00:1]", "loopback"),
        ("[fec0::1]", "site-local"),
        ("198.18.0.1", "benchmarking"),
        ("192.0.0.8", "IETF protocol assignment"),
    ] {
        let url = format!("http://{host}:{port}/hook");
        hooks.push((
            api.add_webhook(webhook(&url, CREATED)).await["id"]
                .as_i64()
                .unwrap(),
            kind,
        ));
    }
    api.create_document(two_recipients()).await;
    for (hook, kind) in hooks {
        let d = api.wait_delivery(hook, |d| d["status"] != "PENDING").await;
        assert_eq!(d["status"], "FAILED", "{d}");
        assert_eq!(d["attempts"], 1, "{d}");
        let err = d["lastError"].as_str().unwrap();
        assert!(
            err.contains(&format!("a {kind} address")) && err.contains("--allow-private-webhooks"),
            "{kind}: {err}"
        );
    }
    assert!(seen(&rx).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loopback_only_refuses_other_targets_without_a_lookup() {
    // The harness passes --outbound loopback-only; private targets are allowed, so what
    // refuses below is the loopback-only policy alone.
    let app = TestApp::spawn_with(&["--tls", "off", "--allow-private-webhooks"]).await;
    let api = app.user_with_key("owner@example.com", "standard");
    let rx = Receiver::start(&[]).await;
    let port = rx.addr().port();
    let named = api.add_webhook(webhook("http://0.com/hook", CREATED)).await["id"]
        .as_i64()
        .unwrap();
    let long = api
        .add_webhook(webhook(
            "https://qzv8x2k4m7w1r9t3y6u0p5s.docket-test.example.com:8443/h",
            CREATED,
        ))
        .await["id"]
        .as_i64()
        .unwrap();
    let outside = api
        .add_webhook(webhook("http://192.0.2.10/hook", CREATED))
        .await["id"]
        .as_i64()
        .unwrap();
    let local = api
        .add_webhook(webhook(&format!("http://localhost:{port}/hook"), CREATED))
        .await["id"]
        .as_i64()
        .unwrap();
    api.create_document(two_recipients()).await;
    for (hook, name) in [
        (named, "0.com"),
        (long, "qzv8x2k4m7w1r9t3y6u0p5s.docket-test.example.com"),
    ] {
        let d = api.wait_delivery(hook, |d| d["status"] != "PENDING").await;
        assert_eq!(
            (&d["status"], &d["attempts"]),
            (&json!("FAILED"), &json!(1))
        );
        let err = d["lastError"].as_str().unwrap();
        assert!(
            err.contains("refused by --outbound loopback-only")
                && err.contains(&format!("{name} is not looked up")),
            "{err}"
        );
    }
    let d = api
        .wait_delivery(outside, |d| d["status"] != "PENDING")
        .await;
    assert_eq!(d["status"], "FAILED");
    let err = d["lastError"].as_str().unwrap();
    assert!(
        err.contains("refused by --outbound loopback-only") && err.contains("192.0.2.10"),
        "{err}"
    );
    // `localhost` is loopback without a lookup, and is delivered to.
    let d = api.wait_delivery(local, |d| d["status"] != "PENDING").await;
    assert_eq!(d["status"], "DELIVERED", "{d}");
    assert_eq!(seen(&rx).len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_and_failures_never_show_what_a_name_resolved_to() {
    // A name that is internal, refused without the flag: the owner learns that much, not the
    // address (`localhost is 127.0.0.1` would tell them the internal DNS answers).
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let rx = Receiver::start(&[]).await;
    let port = rx.addr().port();
    let named = api
        .add_webhook(webhook(&format!("http://localhost:{port}/hook"), CREATED))
        .await["id"]
        .as_i64()
        .unwrap();
    api.create_document(two_recipients()).await;
    let d = api.wait_delivery(named, |d| d["status"] != "PENDING").await;
    assert_eq!(d["status"], "FAILED", "{d}");
    let err = d["lastError"].as_str().unwrap();
    assert!(
        err.starts_with("refused: internal address;") && err.contains("--allow-private-webhooks"),
        "{err}"
    );
    for address in ["127.0.0.1", "::1", "loopback"] {
        assert!(!err.contains(address), "{err}");
    }
    assert!(seen(&rx).is_empty());

    // Allowed, but nothing listens there: the transport error names no address either.
    let app = TestApp::spawn_with(&["--tls", "off", "--allow-private-webhooks"]).await;
    let api = app.user_with_key("owner@example.com", "standard");
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let hook = api
        .add_webhook(webhook(&format!("http://localhost:{port}/hook"), CREATED))
        .await["id"]
        .as_i64()
        .unwrap();
    api.create_document(two_recipients()).await;
    let d = api.wait_delivery(hook, |d| d["attempts"] != 0).await;
    let err = d["lastError"].as_str().unwrap();
    assert!(!err.is_empty(), "{d}");
    for address in ["127.0.0.1", "::1"] {
        assert!(!err.contains(address), "{err}");
    }
}
