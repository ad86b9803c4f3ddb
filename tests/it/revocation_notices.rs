//! Revocation notices between nodes (`core::db::notices`, only with `DOCKET_TEST_POSTGRES`):
//! three nodes on one PostgreSQL database, each having just verified a credential (so each
//! remembers it for up to a second), and the credential revoked through one of them or by the
//! admin CLI: every node refuses it within `DEADLINE`, well inside that second, because the
//! revoking process tells the others. Node A runs in the test (its helpers drive it); B and C
//! are the real binary, each its own process with its own memory of credentials (nodes in one
//! process share the process's map and evict each other's entries, which would hide a node
//! that was never told).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::cluster::skipped;
use crate::oauth_rules::{code, pair, redeem, revoke};
use crate::settings_tokens::make_token;
use crate::support::login::{PASSWORD, browser, sign_in};
use crate::support::oauth::setup;
use crate::support::{BinServer, TestApp, docket, postgres_for};

const EMAIL: &str = "ada@example.com";
const SCOPES: &str = "READ_PROFILE READ_BOOKING";

/// Every node refuses a revoked credential by then; without notices one that a node had just
/// verified would be accepted there for up to a second.
const DEADLINE: Duration = Duration::from_millis(250);

/// Node A in this process, B and C as processes of their own, on A's database.
struct Nodes {
    a: TestApp,
    others: Vec<BinServer>,
}

impl Nodes {
    async fn start() -> Nodes {
        let first = tempfile::tempdir().unwrap();
        let url = postgres_for(&first.path().join("data")).expect("on PostgreSQL");
        let args = ["--tls", "off", "--database-url", url.as_str()];
        let a = TestApp::spawn_in(first, &args).await;
        let others = (0..2)
            .map(|i| BinServer::start_in(&a.dir.path().join(format!("node-{i}")), &args))
            .collect();
        Nodes { a, others }
    }

    /// The base URLs of A, B and C.
    fn bases(&self) -> Vec<String> {
        let mut bases = vec![self.a.base.clone()];
        bases.extend(self.others.iter().map(|s| format!("http://{}", s.addr)));
        bases
    }

    /// The status of `/api/auth/oauth/me` with `credential` at each node.
    async fn me(&self, base: &str, credential: &str) -> u16 {
        let url = format!("{base}/api/auth/oauth/me");
        let resp = self.a.client.get(url).bearer_auth(credential).send().await;
        resp.unwrap().status().as_u16()
    }

    /// `credential` works on every node, three times each: the later uses are answered from
    /// what each node verified at the first.
    async fn warm(&self, credential: &str) {
        for base in self.bases() {
            for _ in 0..3 {
                assert_eq!(self.me(&base, credential).await, 200, "at {base}");
            }
        }
    }

    /// How long after `since` each node first refused `credential`: polled on each in turn
    /// until all have, failing once `DEADLINE` has passed for one that still accepts it.
    async fn refused_everywhere(&self, credential: &str, since: Instant) -> Vec<Duration> {
        let bases = self.bases();
        let mut took: Vec<Option<Duration>> = vec![None; bases.len()];
        while took.iter().any(Option::is_none) {
            for (i, base) in bases.iter().enumerate() {
                if took[i].is_some() {
                    continue;
                }
                let status = self.me(base, credential).await;
                let elapsed = since.elapsed();
                match status {
                    401 => took[i] = Some(elapsed),
                    200 => assert!(
                        elapsed < DEADLINE,
                        "node {i} still accepts the revoked credential after {elapsed:?}"
                    ),
                    other => panic!("node {i} answered {other}"),
                }
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        took.into_iter().map(Option::unwrap).collect()
    }

    async fn stop(self) {
        self.a.stop().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revocation_at_one_of_three_nodes_is_refused_by_all_within_250_ms() {
    if skipped() {
        return;
    }
    let nodes = Nodes::start().await;
    let a = &nodes.a;
    let (id, secret) = setup(a, &[]);
    let cookie = sign_in(a, EMAIL, PASSWORD).await.unwrap();
    let mut worst = Duration::ZERO;

    // The client revokes an access token at node A (RFC 7009), a few times over.
    for _ in 0..3 {
        let issued = code(a, &cookie, &id, SCOPES, &[]).await;
        let (access, _) = pair(redeem(a, &id, &secret, &issued, &[]).await).await;
        nodes.warm(&access).await;
        let revoked = Instant::now();
        assert_eq!(revoke(a, &id, &secret, &access).await.status(), 200);
        let took = nodes.refused_everywhere(&access, revoked).await;
        eprintln!("an access token revoked at node A: refused after {took:?}");
        worst = worst.max(took.into_iter().max().unwrap());
    }

    // An API key revoked on node A's settings page.
    let ada = browser(a, EMAIL).await;
    let (key, key_id) = make_token(a, &ada, "Notices", "never").await;
    nodes.warm(&key).await;
    let revoked = Instant::now();
    let form = [("csrf_token", ada.csrf.as_str())];
    let path = format!("/settings/tokens/{key_id}/revoke");
    let resp = a.client.post(a.url(&path)).header("cookie", &ada.cookie);
    assert_eq!(resp.form(&form).send().await.unwrap().status(), 303);
    let took = nodes.refused_everywhere(&key, revoked).await;
    eprintln!("an API key revoked at node A: refused after {took:?}");
    worst = worst.max(took.into_iter().max().unwrap());

    eprintln!("revocation notices: every node refused within {worst:?}");
    nodes.stop().await;
}

/// The admin CLI is no server, but its revoking commands notify too: a user it disables is
/// refused by every node within `DEADLINE` of the commit (watched in the database), long
/// before the CLI's own answer (which waits out the second that holds when a notice is lost).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_user_disabled_by_the_cli_is_refused_by_every_node_within_250_ms() {
    if skipped() {
        return;
    }
    let nodes = Nodes::start().await;
    let a = &nodes.a;
    setup(a, &[]);
    let ada = browser(a, EMAIL).await;
    let (key, _) = make_token(a, &ada, "Disabled", "never").await;

    // Notes the moment the CLI's change is committed, as PostgreSQL shows it.
    let url = postgres_for(&a.data_dir()).expect("on PostgreSQL");
    let seen = Arc::new(AtomicBool::new(false));
    let watcher = {
        let seen = seen.clone();
        std::thread::spawn(move || {
            let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
            let sql = "SELECT disabled_at IS NOT NULL FROM users WHERE email = $1";
            let deadline = Instant::now() + Duration::from_secs(30);
            while Instant::now() < deadline {
                if client.query_one(sql, &[&EMAIL]).unwrap().get::<_, bool>(0) {
                    seen.store(true, Ordering::SeqCst);
                    return;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        })
    };
    nodes.warm(&key).await;
    let dir = a.data_dir();
    let cli = std::thread::spawn(move || docket(&dir, &["user", "disable", EMAIL], None));
    while !seen.load(Ordering::SeqCst) {
        // Still live everywhere until it is committed; calls keep each node's memory of it.
        assert!(!watcher.is_finished(), "the CLI's change never showed");
        for base in nodes.bases() {
            let status = nodes.me(&base, &key).await;
            assert!(status == 200 || status == 401, "{status}");
        }
    }
    let committed = Instant::now();
    let took = nodes.refused_everywhere(&key, committed).await;
    eprintln!("a user disabled by the CLI: refused after {took:?}");
    assert!(
        !cli.is_finished(),
        "the nodes refused before the CLI answered"
    );
    let out = tokio::task::spawn_blocking(move || cli.join().unwrap())
        .await
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    watcher.join().unwrap();
    nodes.stop().await;
}
