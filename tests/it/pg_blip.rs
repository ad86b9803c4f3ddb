//! PostgreSQL going away under a running node and coming back (only with
//! `DOCKET_TEST_POSTGRES`): the node reaches its database through a TCP relay in the test,
//! which the test cuts (every open connection closed, new ones refused) and then restores.
//! Meanwhile `/healthz` and what needs the database answer 503 with a JSON body; afterwards the
//! node serves again on fresh connections, without a restart.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

use crate::support::{TestApp, on_postgres, postgres_for};

/// A relay from a loopback port to PostgreSQL that can be cut and restored.
struct Relay {
    addr: SocketAddr,
    up: watch::Sender<bool>,
}

impl Relay {
    async fn start(upstream: SocketAddr) -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (up, _) = watch::channel(true);
        let state = up.subscribe();
        tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                let mut state = state.clone();
                if !*state.borrow() {
                    continue; // refused: dropped at once
                }
                tokio::spawn(async move {
                    let Ok(mut server) = TcpStream::connect(upstream).await else {
                        return;
                    };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
                        _ = state.wait_for(|up| !*up) => {}
                    }
                });
            }
        });
        Relay { addr, up }
    }

    fn cut(&self) {
        self.up.send_replace(false);
    }

    fn restore(&self) {
        self.up.send_replace(true);
    }
}

/// Polls `GET /healthz` until it answers `status` (30 s at most); its body.
async fn health_becomes(app: &TestApp, status: u16) -> serde_json::Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let resp = app.get("/healthz").await;
        if resp.status().as_u16() == status {
            return resp.json().await.unwrap();
        }
        assert!(
            Instant::now() < deadline,
            "/healthz never answered {status}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_answers_503_while_postgresql_is_unreachable_and_recovers_without_a_restart() {
    if !on_postgres() {
        eprintln!("skipped: needs PostgreSQL (DOCKET_TEST_POSTGRES)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let direct = postgres_for(&dir.path().join("data")).unwrap();
    let mut url = url::Url::parse(&direct).unwrap();
    let upstream: SocketAddr = format!("127.0.0.1:{}", url.port().unwrap())
        .parse()
        .unwrap();
    let relay = Relay::start(upstream).await;
    url.set_port(Some(relay.addr.port())).unwrap();
    let app = TestApp::spawn_in(dir, &["--tls", "off", "--database-url", url.as_str()]).await;
    let api = app.user_with_key("owner@example.com", "standard");
    assert_eq!(api.get("/api/v1/documents").await.0, 200);
    assert_eq!(health_becomes(&app, 200).await["database"], "ok");

    relay.cut();
    let health = health_becomes(&app, 503).await;
    assert_eq!(
        (&health["database"], &health["blobs"]),
        (&"unavailable".into(), &"ok".into()),
        "{health}"
    );
    let started = Instant::now();
    let (status, body) = api.get("/api/v1/documents").await;
    assert_eq!(status, 503, "{body}");
    assert_eq!(body["error"], "unavailable", "{body}");
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "answered within the pool's wait: {:?}",
        started.elapsed()
    );

    relay.restore();
    assert_eq!(health_becomes(&app, 200).await["database"], "ok");
    let (status, body) = api
        .post(
            "/api/v1/documents",
            serde_json::json!({"title": "After", "recipients": []}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    app.stop().await;
}
