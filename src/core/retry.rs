//! What the outgoing queues (mail, webhooks) share: a wake-up handle for their worker and the
//! retry schedule (exponential backoff with jitter).

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Notify;

/// Wakes a queue's worker right after something was queued. Cloneable; waking with nobody
/// waiting is remembered until the worker next waits, so no enqueue is missed.
#[derive(Clone, Default)]
pub struct Wake(Arc<Notify>);

impl Wake {
    pub fn wake(&self) {
        self.0.notify_one();
    }

    /// Resolves at the next `wake()`, or at once when one came while nobody waited.
    pub async fn notified(&self) {
        self.0.notified().await
    }
}

/// The wake handles of the background workers. A use case that committed queued work wakes
/// the worker that does it: `notices()` after mail or webhooks, `seal()` once a document's last
/// recipient finished.
#[derive(Clone, Default)]
pub struct Workers {
    pub mail: Wake,
    pub webhooks: Wake,
    pub sealing: Wake,
    /// The bulk-send worker: a run started.
    pub bulk: Wake,
}

impl Workers {
    /// Wakes the mail and webhook workers: call after a transaction that queued either.
    pub fn notices(&self) {
        self.mail.wake();
        self.webhooks.wake();
    }

    /// Wakes the sealer: a document is ready to be sealed.
    pub fn seal(&self) {
        self.sealing.wake();
    }
}

/// Asks a queue's worker to stop after the item in hand (so that a normal stop does not cut a
/// send in two and send it again at the next start).
#[derive(Clone)]
pub struct Stop(tokio::sync::watch::Receiver<bool>);

impl Stop {
    /// The signal and the handle that raises it.
    pub fn new() -> (tokio::sync::watch::Sender<bool>, Stop) {
        let (tx, rx) = tokio::sync::watch::channel(false);
        (tx, Stop(rx))
    }

    pub fn requested(&self) -> bool {
        *self.0.borrow()
    }

    /// Resolves once a stop is requested.
    pub async fn wait(&mut self) {
        let _ = self.0.wait_for(|s| *s).await;
    }
}

/// The retry schedule of a queue: the first retry after `base`, doubling up to `max`, each
/// delay drawn in its upper half (jitter, so that failures in one burst do not retry in step),
/// and giving up once a message is older than `give_up_after`.
#[derive(Debug, Clone, Copy)]
pub struct Backoff {
    pub base: Duration,
    pub max: Duration,
    pub give_up_after: Duration,
}

impl Backoff {
    /// The delay before attempt number `attempts + 1`, after `attempts` failed ones (>= 1).
    /// `unit` in [0, 1) picks the point in the jitter range.
    pub fn delay(&self, attempts: u32, unit: f64) -> Duration {
        let doublings = attempts.saturating_sub(1).min(30);
        let full = self
            .base
            .saturating_mul(1u32 << doublings)
            .min(self.max)
            .max(Duration::from_millis(1));
        let unit = unit.clamp(0.0, 1.0);
        full.div_f64(2.0).mul_f64(1.0 + unit)
    }

    /// As `delay`, with a random jitter.
    pub fn delay_random(&self, attempts: u32) -> Duration {
        self.delay(attempts, rand::random::<f64>())
    }

    /// The unix second of the next attempt after `attempts` failures at `now`, or `None` when a
    /// message created at `created_at` should be given up.
    pub fn next_attempt(&self, attempts: u32, created_at: i64, now: i64) -> Option<i64> {
        let window = i64::try_from(self.give_up_after.as_secs()).unwrap_or(i64::MAX);
        if now.saturating_sub(created_at) >= window {
            return None;
        }
        Some(self.retry_at(attempts, now))
    }

    /// The unix second of the next attempt after `attempts` failures at `now`, whatever the
    /// window (for work that is never given up, like sealing).
    pub fn retry_at(&self, attempts: u32, now: i64) -> i64 {
        let d = self.delay_random(attempts);
        // Whole seconds, rounded up: the queues' clock is in seconds.
        now + d.as_millis().div_ceil(1000) as i64
    }
}

/// How often a queue worker looks for due items when nothing wakes it.
pub const POLL: Duration = Duration::from_secs(2);

/// How long a claimed queue item (a mail, a webhook delivery, a document to seal) is kept from
/// every other worker, of this node or another. A worker that dies holding an item leaves it
/// to the others once its lease runs out: nothing is lost. A live worker gives up an attempt
/// ([`Lease::attempt`]) before its lease runs out, so an item is never in two workers' hands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lease(Duration);

impl Lease {
    /// The shortest lease: the attempt it allows must leave room for recording the outcome.
    pub const MIN_SECS: u64 = 3;

    /// A lease of `secs` seconds, at least [`Lease::MIN_SECS`].
    pub const fn secs(secs: u64) -> Lease {
        let secs = if secs < Self::MIN_SECS {
            Self::MIN_SECS
        } else {
            secs
        };
        Lease(Duration::from_secs(secs))
    }

    /// The unix second until which an item claimed at unix second `now` is held.
    pub fn until(self, now: i64) -> i64 {
        now.saturating_add(i64::try_from(self.0.as_secs()).unwrap_or(i64::MAX))
    }

    /// How long one attempt may take: two seconds less than the lease, since the claim is
    /// written in whole seconds (so may end up to a second early) and the outcome must be
    /// recorded before another worker may take the item.
    pub fn attempt(self) -> Duration {
        self.0.saturating_sub(Duration::from_secs(2))
    }
}

/// The loop of a queue worker (mail, webhooks): keeps up to `width` items in hand at once.
/// Whenever there is room it asks `take(room)` for at most that many due items and runs
/// `handle` on each in a task of its own; when fewer came than there was room for, it sleeps
/// until woken, `POLL` passes, an item in hand finishes or `stop` is raised. A raised `stop`
/// takes nothing more and returns once the items in hand are finished. `what` names the queue
/// in logs.
///
/// `take` must not hand out an item that is still in hand: either it claims what it returns
/// (webhooks), or `width` is 1 and `handle` records the outcome before it returns (mail).
pub async fn drain<T, Take, TakeFut, H, HFut>(
    wake: &Wake,
    mut stop: Stop,
    what: &'static str,
    width: usize,
    mut take: Take,
    handle: H,
) where
    Take: FnMut(usize) -> TakeFut,
    TakeFut: std::future::Future<Output = Result<Vec<T>, crate::core::error::AppError>>,
    H: Fn(T) -> HFut,
    HFut: std::future::Future<Output = Result<(), crate::core::error::AppError>> + Send + 'static,
{
    let width = width.max(1);
    let mut in_hand = tokio::task::JoinSet::new();
    let report =
        |done: Result<Result<(), crate::core::error::AppError>, tokio::task::JoinError>| match done
        {
            Ok(Ok(())) => {}
            Ok(Err(e)) => tracing::error!(error = %e, queue = what, "queue update failed"),
            Err(e) => tracing::error!(error = %e, queue = what, "queue task failed"),
        };
    while !stop.requested() {
        while let Some(done) = in_hand.try_join_next() {
            report(done);
        }
        let room = width - in_hand.len();
        if room > 0 {
            match take(room).await {
                Ok(items) => {
                    let filled = items.len() == room;
                    for item in items {
                        in_hand.spawn(handle(item));
                    }
                    if filled {
                        // More may be due: ask again as soon as there is room.
                        if let Some(done) = in_hand.join_next().await {
                            report(done);
                        }
                        continue;
                    }
                }
                // The runtime is shutting down: every later read would fail the same way.
                Err(e) if e.is_stopping() => break,
                Err(e) => tracing::error!(error = %e, queue = what, "reading the queue failed"),
            }
        }
        tokio::select! {
            _ = wake.notified() => {}
            _ = tokio::time::sleep(POLL) => {}
            _ = stop.wait() => {}
            Some(done) = in_hand.join_next(), if !in_hand.is_empty() => report(done),
        }
    }
    while let Some(done) = in_hand.join_next().await {
        report(done);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A queue whose reads fail because the runtime is shutting down ends its loop at once,
    /// instead of asking again (each read would fail as fast, in a loop that logs each time).
    #[tokio::test]
    async fn a_worker_stops_when_the_runtime_does() {
        let (_keep, stop) = Stop::new();
        let asked = std::sync::atomic::AtomicUsize::new(0);
        let take = |_room: usize| {
            asked.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            async {
                Err::<Vec<()>, _>(crate::core::error::AppError::Unavailable(
                    crate::core::error::STOPPING.into(),
                ))
            }
        };
        let ran = tokio::time::timeout(
            Duration::from_secs(5),
            drain(&Wake::default(), stop, "test", 1, take, |()| async {
                Ok(())
            }),
        )
        .await;
        assert!(ran.is_ok(), "the worker kept going");
        assert_eq!(asked.load(std::sync::atomic::Ordering::SeqCst), 1);
    }

    fn b() -> Backoff {
        Backoff {
            base: Duration::from_secs(30),
            max: Duration::from_secs(3600),
            give_up_after: Duration::from_secs(48 * 3600),
        }
    }

    #[test]
    fn doubles_from_the_base_up_to_the_cap_with_jitter_in_the_upper_half() {
        let b = b();
        assert_eq!(b.delay(1, 1.0), Duration::from_secs(30));
        assert_eq!(b.delay(1, 0.0), Duration::from_secs(15));
        assert_eq!(b.delay(2, 1.0), Duration::from_secs(60));
        assert_eq!(b.delay(3, 1.0), Duration::from_secs(120));
        assert_eq!(b.delay(8, 1.0), Duration::from_secs(3600));
        assert_eq!(b.delay(1000, 1.0), Duration::from_secs(3600));
        for n in 1..40 {
            let d = b.delay_random(n);
            assert!(d >= b.delay(n, 0.0) && d <= b.delay(n, 1.0), "{n}: {d:?}");
        }
    }

    #[test]
    fn a_lease_holds_until_its_end_and_an_attempt_ends_two_seconds_before() {
        let lease = Lease::secs(60);
        assert_eq!(lease.until(1000), 1060);
        assert_eq!(lease.attempt(), Duration::from_secs(58));
        // Shorter leases are raised to the shortest that leaves an attempt a second.
        assert_eq!(Lease::secs(1), Lease::secs(Lease::MIN_SECS));
        assert_eq!(Lease::secs(0).attempt(), Duration::from_secs(1));
    }

    #[test]
    fn gives_up_after_the_window() {
        let b = b();
        let t = b.next_attempt(1, 1000, 1000).unwrap();
        assert!((1015..=1030).contains(&t), "{t}");
        assert!(b.next_attempt(5, 0, 48 * 3600 - 1).is_some());
        assert_eq!(b.next_attempt(5, 0, 48 * 3600), None);
        let forever = Backoff {
            give_up_after: Duration::MAX,
            ..b
        };
        assert!(forever.next_attempt(5, 0, 100 * 365 * 86400).is_some());
        let t = forever.retry_at(1000, 5000);
        assert!((5000 + 1800..=5000 + 3600).contains(&t), "{t}");
    }
}
