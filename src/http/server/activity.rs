//! What a connection is doing, for the idle timeout: the socket wrapper notes every byte read or
//! written and a write the client is not taking; a guard counts the requests in flight (from the
//! call until the response body is sent or dropped); `watch` closes the connection once nothing
//! has happened for the idle timeout while no request is in flight, or once the client has taken
//! none of a response for that long.
//!
//! hyper's own header read timeout starts only when hyper reads a request head; a new
//! connection that sends nothing (hyper-util waits for its first bytes to tell HTTP/1 from
//! HTTP/2) and an HTTP/2 connection without streams would otherwise stay open for ever.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Instant;

/// `NOT_BLOCKED` in `write_blocked_since`: no write is waiting.
const NOT_BLOCKED: u64 = u64::MAX;

#[derive(Debug)]
pub struct Activity {
    started: Instant,
    /// Milliseconds since `started` of the last byte moved or request finished.
    last: AtomicU64,
    /// Requests in flight.
    busy: AtomicUsize,
    /// Milliseconds since `started` at which a write began to wait for the client.
    write_blocked_since: AtomicU64,
}

impl Activity {
    pub fn new() -> Arc<Activity> {
        Arc::new(Activity {
            started: Instant::now(),
            last: AtomicU64::new(0),
            busy: AtomicUsize::new(0),
            write_blocked_since: AtomicU64::new(NOT_BLOCKED),
        })
    }

    fn now_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    fn touch(&self) {
        self.last.store(self.now_ms(), Ordering::Relaxed);
    }

    /// When to look again, or `None` when the connection has been idle (or stalled) for `idle`.
    fn next_check(&self, idle: Duration) -> Option<Instant> {
        let idle_ms = idle.as_millis() as u64;
        let now = self.now_ms();
        let since = if self.busy.load(Ordering::Relaxed) > 0 {
            match self.write_blocked_since.load(Ordering::Relaxed) {
                // Busy handling a request: the body timeout and the handler's own limits apply.
                NOT_BLOCKED => return Some(self.at(now + idle_ms)),
                blocked => blocked,
            }
        } else {
            self.last.load(Ordering::Relaxed)
        };
        let due = since.saturating_add(idle_ms);
        (due > now).then(|| self.at(due))
    }

    fn at(&self, ms: u64) -> Instant {
        self.started + Duration::from_millis(ms)
    }
}

/// Runs `conn` until it ends, or drops it (closing the socket) once the connection has been
/// idle for `idle`; `None` then.
pub async fn watch<F: Future>(conn: F, activity: &Activity, idle: Duration) -> Option<F::Output> {
    tokio::pin!(conn);
    loop {
        let next = activity.next_check(idle)?;
        tokio::select! {
            out = &mut conn => return Some(out),
            () = tokio::time::sleep_until(next) => {}
        }
    }
}

/// A request in flight, from the service call until its response body is done.
#[derive(Debug)]
pub struct Busy(Arc<Activity>);

impl Busy {
    pub fn new(activity: &Arc<Activity>) -> Busy {
        activity.busy.fetch_add(1, Ordering::Relaxed);
        Busy(Arc::clone(activity))
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.touch();
        self.0.busy.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A response body that keeps its request counted as in flight until it is sent or dropped.
pub struct Tracked<B> {
    inner: B,
    _busy: Busy,
}

impl<B> Tracked<B> {
    pub fn new(inner: B, busy: Busy) -> Tracked<B> {
        Tracked { inner, _busy: busy }
    }
}

impl<B: Body<Data = Bytes> + Unpin> Body for Tracked<B> {
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// The socket, noting what moves through it.
pub struct Watched<T> {
    inner: T,
    activity: Arc<Activity>,
}

impl<T> Watched<T> {
    pub fn new(inner: T, activity: Arc<Activity>) -> Watched<T> {
        Watched { inner, activity }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Watched<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(r, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.activity.touch();
        }
        r
    }
}

impl<T: AsyncWrite + Unpin> Watched<T> {
    fn note_write<R>(&self, r: &Poll<io::Result<R>>) {
        let a = &self.activity;
        match r {
            Poll::Pending => {
                let _ = a.write_blocked_since.compare_exchange(
                    NOT_BLOCKED,
                    a.now_ms(),
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                );
            }
            Poll::Ready(_) => {
                a.write_blocked_since.store(NOT_BLOCKED, Ordering::Relaxed);
                a.touch();
            }
        }
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Watched<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.note_write(&r);
        r
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.note_write(&r);
        r
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let r = Pin::new(&mut self.inner).poll_flush(cx);
        self.note_write(&r);
        r
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn idle_closes_only_without_a_request_in_flight() {
        let a = Activity::new();
        let idle = Duration::from_millis(200);
        // A request in flight keeps the connection, however long it takes.
        let busy = Busy::new(&a);
        let r = watch(tokio::time::sleep(Duration::from_millis(600)), &a, idle).await;
        assert!(r.is_some());
        // Its end counts as activity; the quiet time starts there.
        drop(busy);
        let started = Instant::now();
        let r = watch(std::future::pending::<()>(), &a, idle).await;
        assert!(r.is_none());
        assert!(started.elapsed() >= idle);
    }

    #[tokio::test]
    async fn a_response_the_client_does_not_take_ends_the_connection() {
        let a = Activity::new();
        let _busy = Busy::new(&a);
        a.write_blocked_since.store(a.now_ms(), Ordering::Relaxed);
        let r = watch(std::future::pending::<()>(), &a, Duration::from_millis(200)).await;
        assert!(r.is_none());
    }
}
