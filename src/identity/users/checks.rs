//! The process-wide bound on password checks. Each argon2id verification holds 19 MiB for its
//! duration, so at most `--max-password-checks` run at once (memory stays under that many times
//! 19 MiB). A check waits for a turn at most `WAIT`, and at most `QUEUE_PER_CHECK` times the
//! bound may wait at all; beyond either it is refused as `AppError::Overloaded` (503 with
//! `Retry-After`) instead of queueing without limit.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use tokio::sync::Semaphore;

use super::password;
use crate::core::error::AppError;

/// The longest a check waits for a turn.
pub const WAIT: Duration = Duration::from_secs(5);
/// Waiting checks allowed per running one.
pub const QUEUE_PER_CHECK: usize = 16;
/// What a refused check tells the client to wait, in seconds.
pub const RETRY_AFTER: u64 = 2;

/// The default bound: two checks per CPU.
pub fn default_max() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get() * 2)
}

#[derive(Clone)]
pub struct PasswordChecks {
    permits: Arc<Semaphore>,
    /// Checks running or waiting; bounded by `limit`.
    admitted: Arc<AtomicUsize>,
    limit: usize,
    wait: Duration,
    /// An argon2id hash of a random password, made once inside the bound, so that unknown
    /// accounts cost the same time as known ones.
    dummy: Arc<OnceLock<String>>,
}

impl PasswordChecks {
    pub fn new(max: usize) -> PasswordChecks {
        Self::with_wait(max, WAIT)
    }

    pub fn with_wait(max: usize, wait: Duration) -> PasswordChecks {
        let max = max.max(1);
        PasswordChecks {
            permits: Arc::new(Semaphore::new(max)),
            admitted: Arc::new(AtomicUsize::new(0)),
            limit: max * (1 + QUEUE_PER_CHECK),
            wait,
            dummy: Arc::new(OnceLock::new()),
        }
    }

    /// True when `password` matches `phc`; with no `phc` (no such account) the same work is
    /// done against a dummy hash and the answer is false. Runs off the async threads, within
    /// the bound.
    pub async fn verify(&self, password: String, phc: Option<String>) -> Result<bool, AppError> {
        let dummy = self.dummy.clone();
        self.run(move || match phc {
            Some(phc) => password::verify(&password, &phc),
            None => {
                let hash =
                    dummy.get_or_init(|| password::hash(&password::generate()).unwrap_or_default());
                password::verify(&password, hash);
                false
            }
        })
        .await
    }

    /// The argon2id hash of a new password, made off the async threads within the same bound.
    pub async fn hash(&self, password: String) -> Result<String, AppError> {
        self.run(move || password::hash(&password)).await?
    }

    async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, AppError> {
        let overloaded = || AppError::Overloaded {
            retry_after: RETRY_AFTER,
            message: "too many sign-ins at once; try again in a moment".into(),
        };
        let _admitted = Admitted::enter(&self.admitted, self.limit).ok_or_else(overloaded)?;
        let permit = tokio::time::timeout(self.wait, self.permits.clone().acquire_owned())
            .await
            .map_err(|_| overloaded())?
            .map_err(AppError::internal)?;
        tokio::task::spawn_blocking(move || {
            let value = work();
            drop(permit);
            value
        })
        .await
        .map_err(AppError::internal)
    }
}

/// One admitted check; leaving (drop) makes room for another.
struct Admitted<'a>(&'a AtomicUsize);

impl<'a> Admitted<'a> {
    fn enter(count: &'a AtomicUsize, limit: usize) -> Option<Admitted<'a>> {
        count
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < limit).then_some(n + 1)
            })
            .ok()
            .map(|_| Admitted(count))
    }
}

impl Drop for Admitted<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn checks_beyond_the_bound_wait_then_are_refused() {
        let checks = PasswordChecks::with_wait(1, Duration::from_millis(50));
        let (started, release) = (
            Arc::new(tokio::sync::Notify::new()),
            Arc::new(std::sync::Barrier::new(2)),
        );
        let busy = {
            let (checks, started, release) = (checks.clone(), started.clone(), release.clone());
            tokio::spawn(async move {
                checks
                    .run(move || {
                        started.notify_one();
                        release.wait();
                    })
                    .await
            })
        };
        started.notified().await;
        // The one turn is taken: the next check waits 50 ms, then is refused with a retry time.
        match checks.run(|| ()).await {
            Err(AppError::Overloaded { retry_after, .. }) => assert_eq!(retry_after, RETRY_AFTER),
            other => panic!("expected Overloaded, got {other:?}"),
        }
        release.wait();
        busy.await.unwrap().unwrap();
        assert!(checks.run(|| ()).await.is_ok(), "the turn is free again");
    }

    #[test]
    fn no_more_than_the_queue_limit_may_wait() {
        let count = AtomicUsize::new(0);
        let held: Vec<_> = (0..3)
            .map(|_| Admitted::enter(&count, 3).unwrap())
            .collect();
        assert!(Admitted::enter(&count, 3).is_none());
        drop(held);
        assert!(Admitted::enter(&count, 3).is_some());
    }

    #[tokio::test]
    async fn unknown_accounts_are_checked_against_a_dummy_hash() {
        let checks = PasswordChecks::new(1);
        let real = password::hash("correct horse").unwrap();
        assert!(
            checks
                .verify("correct horse".into(), Some(real.clone()))
                .await
                .unwrap()
        );
        assert!(!checks.verify("wrong".into(), Some(real)).await.unwrap());
        assert!(!checks.verify("correct horse".into(), None).await.unwrap());
        assert!(checks.dummy.get().unwrap().starts_with("$argon2id$"));
    }
}
