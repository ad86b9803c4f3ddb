//! Waiting for what a server does in the background (a mail sent, a webhook delivered, a
//! process started): poll a check until it holds, and fail the test past a bound.

use std::future::Future;
use std::time::{Duration, Instant};

/// How often a check is polled.
const EVERY: Duration = Duration::from_millis(50);

/// Polls `done` until it holds; fails with "`what` within `within`" when it has not by then.
pub async fn wait_until(what: &str, within: Duration, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + within;
    while !done() {
        assert!(Instant::now() < deadline, "{what} within {within:?}");
        tokio::time::sleep(EVERY).await;
    }
}

/// Polls `check` until it returns `Ok`, and returns its value; fails with the last `Err` (what
/// was still missing) when `within` has passed.
pub async fn wait_for<T>(within: Duration, mut check: impl FnMut() -> Result<T, String>) -> T {
    let deadline = Instant::now() + within;
    loop {
        match check() {
            Ok(v) => return v,
            Err(missing) => assert!(Instant::now() < deadline, "{missing}"),
        }
        tokio::time::sleep(EVERY).await;
    }
}

/// As [`wait_for`], for a check that has to await (an HTTP request).
pub async fn eventually<T, F>(within: Duration, mut check: impl FnMut() -> F) -> T
where
    F: Future<Output = Result<T, String>>,
{
    let deadline = Instant::now() + within;
    loop {
        match check().await {
            Ok(v) => return v,
            Err(missing) => assert!(Instant::now() < deadline, "{missing}"),
        }
        tokio::time::sleep(EVERY).await;
    }
}

/// Waits out the end of the current minute when it is near, so that a burst of requests falls
/// in one rate-limit window (the limits count in fixed windows of a minute).
pub async fn clear_of_a_window_boundary() {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    let into_minute = now.as_secs_f64() % 60.0;
    if into_minute > 45.0 {
        tokio::time::sleep(Duration::from_secs_f64(60.5 - into_minute)).await;
    }
}
