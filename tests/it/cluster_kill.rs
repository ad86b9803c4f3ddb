//! A node SIGKILLed mid-work loses nothing, and nothing is done twice (only with
//! `DOCKET_TEST_POSTGRES`; sealing also needs `DOCKET_TEST_BLOB_URL`). Real `docket serve`
//! processes (three for mail and webhooks, two for sealing) share one database with a short
//! `--queue-lease`; the peer of the work (an SMTP server, a webhook receiver, the bucket) stalls
//! the first exchange before it takes anything; the node in that exchange is killed; another
//! takes the item over once the lease runs out, and the peer gets it exactly once. And, on either backend, a live node cuts its attempt off
//! before its lease runs out, so that no item is ever in two nodes' hands.
//!
//! "Exactly once" is what the stall makes certain: a node killed after the peer accepted a
//! message but before it recorded so would send it again (delivery is at least once, with a
//! stable id for webhooks); killed while the peer has not accepted anything, it leaves one
//! message for one other node to send.

use std::net::{SocketAddr, ToSocketAddrs};
use std::time::{Duration, Instant};

use serde_json::json;
use tempfile::TempDir;

use crate::cluster::{skipped, skipped_without_a_bucket};
use crate::support::api::{
    Api, Signer, add_user, create_api_key, fixture, two_recipients, webhook,
};
use crate::support::stalling::{
    FreezingProxy, StallingReceiver, StallingSmtp, header, holds_connection,
};
use crate::support::wait::wait_until;
use crate::support::{BinServer, TestApp, TestDb, docket, postgres_for};

/// The nodes' lease in seconds: an attempt is cut off after 2.
const LEASE: u64 = 4;
/// How long the survivor may take: the lease, a poll, and room for a slow machine.
const TAKEOVER: Duration = Duration::from_secs(LEASE + 2 + 10);

/// Nodes sharing one database, each with a data dir of its own.
struct Cluster {
    /// The data dir whose database the nodes share: the CLI runs on it.
    shared: TempDir,
    nodes: Vec<Option<BinServer>>,
    _dirs: Vec<TempDir>,
}

impl Cluster {
    /// One node per entry of `envs` (its extra environment), started one after the other, each
    /// with `--queue-lease LEASE` and `extra`.
    fn start(extra: &[&str], envs: &[Vec<(&str, String)>]) -> Cluster {
        let shared = tempfile::tempdir().unwrap();
        let url = postgres_for(shared.path()).expect("on PostgreSQL");
        let lease = LEASE.to_string();
        let (mut nodes, mut dirs) = (Vec::new(), Vec::new());
        for env in envs {
            let dir = tempfile::tempdir().unwrap();
            let mut args = vec![
                "--data-dir",
                dir.path().to_str().unwrap(),
                "--listen",
                "127.0.0.1:0",
                "--tls",
                "off",
                "--database-url",
                &url,
                "--queue-lease",
                &lease,
                "--retry-base-ms",
                "500",
            ];
            args.extend_from_slice(extra);
            let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
            nodes.push(Some(BinServer::start(&args, &env)));
            dirs.push(dir);
        }
        Cluster {
            shared,
            nodes,
            _dirs: dirs,
        }
    }

    fn node(&self, i: usize) -> &BinServer {
        self.nodes[i].as_ref().expect("a live node")
    }

    fn base(&self, i: usize) -> String {
        format!("http://{}", self.node(i).addr)
    }

    /// A user with an API key (made with the CLI), its client at node `i`.
    fn owner_at(&self, i: usize) -> Api {
        let email = "owner@example.com";
        add_user(self.shared.path(), email, &["--name", "Owner"]);
        let key = create_api_key(self.shared.path(), email)["key"]
            .as_str()
            .unwrap()
            .to_string();
        Api::new(reqwest::Client::new(), &self.base(i), &key)
    }

    /// SIGKILLs node `i` (`Child::kill` on unix) and waits for it to be gone.
    fn kill(&mut self, i: usize) {
        let mut node = self.nodes[i].take().expect("a live node");
        node.child.kill().unwrap();
        node.child.wait().unwrap();
    }

    /// SIGKILLs the node holding the client end of the connection from `client` to `server`;
    /// returns which one it was.
    fn kill_holder(&mut self, client: SocketAddr, server: SocketAddr) -> usize {
        let i = (0..self.nodes.len())
            .find(|&i| {
                self.nodes[i]
                    .as_ref()
                    .is_some_and(|n| holds_connection(n.child.id(), client, server))
            })
            .expect("a node holds the stalled connection");
        self.kill(i);
        i
    }

    fn db(&self) -> TestDb {
        TestDb::open(self.shared.path())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mail_whose_node_is_killed_while_the_smtp_server_stalls_is_sent_once_by_another() {
    if skipped() {
        return;
    }
    let smtp = StallingSmtp::start(1).await;
    // Three nodes: when the holder dies, the two others race for its message.
    let mut cluster = Cluster::start(&["--smtp-url", &smtp.url()], &[vec![], vec![], vec![]]);
    // Queued by the CLI: whichever node polls first takes it.
    let out = docket(
        cluster.shared.path(),
        &["mail", "test", "kill@example.com"],
        None,
    );
    assert!(out.status.success(), "{out:?}");

    let client = smtp.first_stalled(Duration::from_secs(15)).await;
    let stalled_at = Instant::now();
    let dead = cluster.kill_holder(client, smtp.addr());
    wait_until("another node sends it", TAKEOVER, || {
        !smtp.accepted().is_empty()
    })
    .await;
    // Not before the dead node's lease ran out (at least 3 s after its claim).
    assert!(
        stalled_at.elapsed() >= Duration::from_secs(2),
        "sent {:?} after the stall, within the lease (node {dead} was killed)",
        stalled_at.elapsed()
    );
    // The survivor had time to send it again; it did not.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let accepted = smtp.accepted();
    assert_eq!(accepted.len(), 1, "accepted once: {accepted:?}");
    assert!(
        accepted[0].contains("To: kill@example.com"),
        "{}",
        accepted[0]
    );
    assert_eq!(smtp.stalled().len(), 1);
    // One attempt on record: the killed node's left nothing behind.
    let (status, attempts): (String, i64) = cluster
        .db()
        .query_row(
            "SELECT status, attempts FROM mail_queue WHERE to_addr = 'kill@example.com'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((status.as_str(), attempts), ("SENT", 1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_webhook_whose_node_is_killed_while_the_receiver_stalls_is_delivered_once_by_another() {
    if skipped() {
        return;
    }
    let rx = StallingReceiver::start(1).await;
    let mut cluster = Cluster::start(&["--allow-private-webhooks"], &[vec![], vec![], vec![]]);
    let owner = cluster.owner_at(0);
    owner
        .add_webhook(webhook(&rx.url(), &["DOCUMENT_CREATED"]))
        .await;
    owner.create_document(two_recipients()).await;

    let client = rx.first_stalled(Duration::from_secs(15)).await;
    cluster.kill_holder(client, rx.addr());
    wait_until("another node delivers it", TAKEOVER, || {
        !rx.answered().is_empty()
    })
    .await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    let (stalled, answered) = (rx.stalled(), rx.answered());
    assert_eq!(answered.len(), 1, "answered once: {answered:?}");
    // The same delivery, under the same id: a receiver can tell a redelivery.
    let id = |r: &str| header(r, "x-docket-delivery").map(str::to_string);
    assert!(id(&answered[0]).is_some(), "{}", answered[0]);
    assert_eq!(id(&stalled[0]), id(&answered[0]));
    let (status, attempts): (String, i64) = cluster
        .db()
        .query_row("SELECT status, attempts FROM webhook_deliveries", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!((status.as_str(), attempts), ("DELIVERED", 1));
}

/// The bucket's address, from `AWS_ENDPOINT_URL` (tests/s3/moto.sh or garage.sh).
fn bucket_endpoint() -> SocketAddr {
    let endpoint = std::env::var("AWS_ENDPOINT_URL").expect("AWS_ENDPOINT_URL with the bucket");
    let url = url::Url::parse(&endpoint).unwrap();
    let host = (
        url.host_str().unwrap(),
        url.port_or_known_default().unwrap(),
    );
    host.to_socket_addrs().unwrap().next().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_document_whose_sealing_node_is_killed_mid_seal_is_sealed_once_by_the_other() {
    if skipped_without_a_bucket() {
        return;
    }
    // Each node reaches the bucket through a proxy of its own, which the test can freeze.
    let target = bucket_endpoint();
    let proxies = [
        FreezingProxy::start(target).await,
        FreezingProxy::start(target).await,
    ];
    let prefix = tempfile::tempdir().unwrap();
    let bucket = format!(
        "{}/kill-{}",
        std::env::var("DOCKET_TEST_BLOB_URL")
            .unwrap()
            .trim_end_matches('/'),
        prefix.path().file_name().unwrap().to_string_lossy()
    );
    let envs: Vec<Vec<(&str, String)>> = proxies
        .iter()
        .map(|p| vec![("AWS_ENDPOINT_URL", format!("http://{}", p.addr))])
        .collect();
    let mut cluster = Cluster::start(&["--blob-url", &bucket], &envs);
    let owner = cluster.owner_at(0);
    let created = owner
        .create_document(json!({"title": "Killed mid-seal", "recipients": [
            {"name": "Ann", "email": "ann@example.com", "role": "SIGNER"}]}))
        .await;
    let id = created.document_id();
    let (s, v) = owner
        .upload(created.upload_url(), fixture("a4-1p.pdf"))
        .await;
    assert_eq!(s, 200, "{v}");
    let field = owner
        .add_fields(
            id,
            json!([{"recipientId": created.recipient_id(0), "type": "SIGNATURE",
                "pageNumber": 1, "pageX": 10, "pageY": 80, "pageWidth": 30, "pageHeight": 5}]),
        )
        .await[0];
    let (s, v) = owner.send_with(id, json!({"sendEmail": false})).await;
    assert_eq!(s, 200, "{v}");
    let ann = Signer::at(&cluster.base(0), &created.token(0));
    assert_eq!(ann.sign(field).await.0, 200);

    // The bucket stalls; the last signature starts the sealing, which stalls with it (on
    // reading the original or storing the sealed file) on whichever node claimed it.
    for p in &proxies {
        p.freeze(true);
    }
    let (s, v) = ann.complete(json!({})).await;
    assert_eq!(s, 200, "{v}");
    wait_until("a node stalls sealing", Duration::from_secs(15), || {
        proxies.iter().any(|p| p.held() > 0)
    })
    .await;
    let holder = proxies.iter().position(|p| p.held() > 0).unwrap();
    let survivor = 1 - holder;
    // The claim row shows it: still PENDING, held until the lease runs out.
    let db = cluster.db();
    let (status, held_until): (String, Option<i64>) = db
        .query_row(
            "SELECT status, seal_next_at FROM documents WHERE id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(status, "PENDING");
    assert!(held_until.is_some(), "claimed for sealing");
    cluster.kill(holder);
    proxies[survivor].freeze(false);

    let at_survivor = Api::new(reqwest::Client::new(), &cluster.base(survivor), owner.key());
    let doc = at_survivor
        .wait_document(id, "COMPLETED", |d| d["status"] == "COMPLETED")
        .await;
    // The killed node's attempt left no failure behind: the survivor's was the first on record.
    assert!(doc.get("sealing").is_none(), "{doc}");
    let count = |sql: &str| -> i64 { db.query_row(sql, [id], |r| r.get(0)).unwrap() };
    assert_eq!(
        count("SELECT count(*) FROM audit_events WHERE document_id = ?1 AND type = 'COMPLETED'"),
        1
    );
    // One sealed file: the original and the sealed PDF are the only blobs.
    let blobs: i64 = db
        .query_row("SELECT count(*) FROM blobs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(blobs, 2);
    // The sealed file the survivor stored: whole, signed.
    let (s, v) = at_survivor
        .get(&format!("/api/v1/documents/{id}/download"))
        .await;
    assert_eq!(s, 200, "{v}");
    let sealed = reqwest::get(v["downloadUrl"].as_str().unwrap())
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert!(sealed.starts_with(b"%PDF"));
    assert!(
        sealed
            .windows(b"/ByteRange".len())
            .any(|w| w == b"/ByteRange")
    );
}

/// A live node never outlives its lease: an SMTP server that never answers does not keep the
/// message for the SMTP client's 30 s timeout; the send is cut off 2 s before the lease ends, recorded as a
/// failed attempt and retried (here by the same node), and the message is accepted once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_send_that_would_outlive_its_lease_is_cut_off_and_retried() {
    let smtp = StallingSmtp::start(1).await;
    let app = TestApp::spawn_with(&[
        "--tls",
        "off",
        "--smtp-url",
        &smtp.url(),
        "--queue-lease",
        "3",
        "--retry-base-ms",
        "200",
    ])
    .await;
    let out = docket(&app.data_dir(), &["mail", "test", "live@example.com"], None);
    assert!(out.status.success(), "{out:?}");
    smtp.first_stalled(Duration::from_secs(15)).await;
    // The SMTP client alone would wait 30 s for the answer.
    wait_until("the retry is accepted", Duration::from_secs(10), || {
        !smtp.accepted().is_empty()
    })
    .await;
    // The cut-off attempt and the one accepted.
    let (status, attempts): (String, i64) = app
        .db()
        .query_row(
            "SELECT status, attempts FROM mail_queue WHERE to_addr = 'live@example.com'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((status.as_str(), attempts), ("SENT", 2));
    assert_eq!(smtp.accepted().len(), 1);
    app.stop().await;
}
