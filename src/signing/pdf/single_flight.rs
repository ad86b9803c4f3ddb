//! One shared run per key: callers asking for the same key while a run is under way await
//! that run instead of starting another, and the run is dropped (cancelled) when the last of
//! them stops waiting.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex};

use futures_util::FutureExt;
use futures_util::future::{BoxFuture, Shared, WeakShared};

type Run<T> = Shared<BoxFuture<'static, T>>;

/// The runs under way, by key. Clones share them.
pub struct SingleFlight<K, T: Clone> {
    runs: Arc<Mutex<Runs<K, T>>>,
}

struct Runs<K, T: Clone> {
    next: u64,
    /// Weak, so that the map does not keep a run alive once every caller has gone.
    by_key: HashMap<K, (u64, WeakShared<BoxFuture<'static, T>>)>,
}

impl<K, T: Clone> Clone for SingleFlight<K, T> {
    fn clone(&self) -> Self {
        SingleFlight {
            runs: self.runs.clone(),
        }
    }
}

impl<K, T> Default for SingleFlight<K, T>
where
    K: Eq + Hash + Clone + Send + 'static,
    T: Clone + Send + Sync + 'static,
{
    fn default() -> Self {
        SingleFlight {
            runs: Arc::new(Mutex::new(Runs {
                next: 0,
                by_key: HashMap::new(),
            })),
        }
    }
}

impl<K, T> SingleFlight<K, T>
where
    K: Eq + Hash + Clone + Send + 'static,
    T: Clone + Send + Sync + 'static,
{
    /// Joins the run for `key` under way, or starts `start()` as the run for `key`. The run
    /// leaves the map when it finishes or is dropped.
    pub fn run<F>(&self, key: K, start: impl FnOnce() -> F) -> Run<T>
    where
        F: Future<Output = T> + Send + 'static,
    {
        let mut runs = self.runs.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(run) = runs.by_key.get(&key).and_then(|(_, weak)| weak.upgrade()) {
            return run;
        }
        runs.next += 1;
        let id = runs.next;
        let leave = Leave {
            runs: Arc::downgrade(&self.runs),
            key: key.clone(),
            id,
        };
        let fut = start();
        let run = async move {
            let _leave = leave;
            fut.await
        }
        .boxed()
        .shared();
        let weak = run.downgrade().expect("a run not yet polled");
        runs.by_key.insert(key, (id, weak));
        run
    }

    /// How many runs are under way.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        let runs = self.runs.lock().unwrap_or_else(|e| e.into_inner());
        runs.by_key
            .values()
            .filter(|(_, w)| w.upgrade().is_some())
            .count()
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Removes its run from the map when dropped (finished or cancelled), unless another run
/// replaced it meanwhile.
struct Leave<K: Eq + Hash, T: Clone> {
    runs: std::sync::Weak<Mutex<Runs<K, T>>>,
    key: K,
    id: u64,
}

impl<K: Eq + Hash, T: Clone> Drop for Leave<K, T> {
    fn drop(&mut self) {
        let Some(runs) = self.runs.upgrade() else {
            return;
        };
        let mut runs = runs.lock().unwrap_or_else(|e| e.into_inner());
        if runs
            .by_key
            .get(&self.key)
            .is_some_and(|(id, _)| *id == self.id)
        {
            runs.by_key.remove(&self.key);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn callers_of_one_key_share_one_run() {
        let flights: SingleFlight<&str, u32> = SingleFlight::default();
        let started = Arc::new(AtomicU32::new(0));
        let (go, wait) = tokio::sync::watch::channel(false);
        let start = || {
            let (started, mut wait) = (started.clone(), wait.clone());
            async move {
                started.fetch_add(1, Ordering::SeqCst);
                let _ = wait.wait_for(|go| *go).await;
                7
            }
        };
        let a = flights.run("k", start);
        let b = flights.run("k", start);
        let other = flights.run("other", start);
        assert_eq!(flights.len(), 2);
        go.send(true).unwrap();
        assert_eq!((a.await, b.await, other.await), (7, 7, 7));
        assert_eq!(started.load(Ordering::SeqCst), 2);
        assert!(flights.is_empty(), "finished runs leave the map");
    }

    #[tokio::test]
    async fn the_run_is_dropped_when_the_last_caller_leaves() {
        let flights: SingleFlight<u8, ()> = SingleFlight::default();
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        // The run holds `tx`; it is dropped (and `rx` sees the drop) only with the run.
        let start = move || async move {
            let _held = tx;
            std::future::pending::<()>().await
        };
        let a = flights.run(1, start);
        let b = flights.run(1, || async { unreachable!("joins the first run") });
        let mut a = tokio::spawn(a);
        tokio::time::sleep(Duration::from_millis(20)).await;
        drop(b);
        assert!(
            tokio::time::timeout(Duration::from_millis(50), &mut a)
                .await
                .is_err(),
            "still running for the first caller"
        );
        a.abort();
        let _ = a.await;
        assert!(rx.await.is_err(), "the run was dropped");
        assert!(flights.is_empty());
    }
}
