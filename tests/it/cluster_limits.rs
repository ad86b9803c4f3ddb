//! The API rate limit across nodes (only with `DOCKET_TEST_POSTGRES`): two servers on one
//! PostgreSQL database count one budget per credential, so `--rate-limit N` holds for the
//! cluster as a whole, not N per node.

use crate::support::api::Api;
use crate::support::{TestApp, on_postgres, postgres_for};

/// Two nodes on the first one's database, each started with `extra`.
async fn two_nodes(extra: &[&str]) -> (TestApp, TestApp) {
    let first = tempfile::tempdir().unwrap();
    let url = postgres_for(&first.path().join("data")).expect("on PostgreSQL");
    let mut args = vec!["--tls", "off", "--database-url", url.as_str()];
    args.extend_from_slice(extra);
    let a = TestApp::spawn_in(first, &args).await;
    let b = TestApp::spawn_with(&args).await;
    (a, b)
}

async fn status(api: &Api) -> u16 {
    api.get_response("/api/v1/documents")
        .await
        .status()
        .as_u16()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rate_limit_holds_for_the_cluster_not_per_node() {
    if !on_postgres() {
        eprintln!("skipped: the cluster tests need PostgreSQL (DOCKET_TEST_POSTGRES)");
        return;
    }
    let (a, b) = two_nodes(&["--rate-limit", "5"]).await;
    let at_a = a.user_with_key("owner@example.com", "standard");
    let at_b = b.api(at_a.key());
    crate::support::wait::clear_of_a_window_boundary().await;

    for _ in 0..3 {
        assert_eq!(status(&at_a).await, 200);
    }
    for _ in 0..2 {
        assert_eq!(status(&at_b).await, 200);
    }
    // Five in all: the sixth is refused at either node, though each has seen fewer than five.
    for api in [&at_a, &at_b] {
        let r = api.get_response("/api/v1/documents").await;
        assert_eq!(r.status(), 429);
        let retry: u64 = r.headers()["retry-after"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!((1..=60).contains(&retry), "{retry}");
        assert_eq!(r.headers()["x-ratelimit-limit"], "5");
    }
    // Another credential has its own budget, at both nodes.
    let other = a.user_with_key("other@example.com", "standard");
    assert_eq!(status(&other).await, 200);
    assert_eq!(status(&b.api(other.key())).await, 200);
    a.stop().await;
    b.stop().await;
}
