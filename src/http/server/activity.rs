//! What a connection is doing, for the idle timeout: the socket wrapper notes every byte read or
//! written and a write the client is not taking; a guard counts the requests in flight (from the
//! call until the response body is sent or dropped); `watch` closes the connection once nothing
//! has happened for the idle timeout while no request is in flight, once a new connection has
//! brought no request for the first-request limit, or once the client has taken none of a
//! response for that long.
//!
//! hyper's own header read timeout starts only when hyper reads a request head; a new
//! connection that sends nothing (hyper-util waits for its first bytes to tell HTTP/1 from
//! HTTP/2) and an HTTP/2 connection without streams would otherwise stay open for ever.
//!
//! An idle close races a client that reuses the connection at that moment: its request may
//! already be in the socket, unread, and closing then would drop it without an answer (and
//! reset the connection). So bytes read count as activity, and before an idle close the
//! socket is looked at (`unread`): bytes waiting there are a request on its way, and the
//! connection stays for hyper to read and answer it. What remains is a request still on the
//! wire as the connection closes, which the advertised `Keep-Alive: timeout=` (shorter than
//! the idle timeout, `advertised`) keeps clients that read it from sending; for the others the
//! close is made in stages (RFC 9112 §9.6, `close_gently`), so that such a request meets an
//! orderly end of stream, which clients retry on, rather than a reset.

use std::future::Future;
use std::io;
use std::os::fd::RawFd;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Instant;

/// `NOT_BLOCKED` in `write_blocked_since`: no write is waiting.
const NOT_BLOCKED: u64 = u64::MAX;

/// How long a closing connection, its sending side shut, waits for the client to close too.
const LINGER: Duration = Duration::from_secs(1);
/// How often it looks in that time, and the most it reads and drops.
const LINGER_STEP: Duration = Duration::from_millis(20);
const LINGER_BYTES: usize = 64 * 1024;

#[derive(Debug)]
pub struct Activity {
    started: Instant,
    /// Milliseconds since `started` of the last byte moved or request finished.
    last: AtomicU64,
    /// Requests in flight.
    busy: AtomicUsize,
    /// Milliseconds since `started` at which a write began to wait for the client.
    write_blocked_since: AtomicU64,
    /// Whether a request has come on this connection.
    served: AtomicBool,
    /// The socket, to look for bytes not read yet before an idle close; valid as long as the
    /// connection that `watch` runs (which owns the socket).
    socket: Option<RawFd>,
}

/// How long a connection may go without doing anything, by what it is waiting for.
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    /// Between requests (keep-alive).
    pub idle: Duration,
    /// From the connection's opening to its first request, and for a client that takes none
    /// of a response.
    pub first: Duration,
}

/// The `Keep-Alive: timeout=` an HTTP/1 response advertises for an idle timeout of `idle`:
/// a little shorter, so that a client that honours it retires the connection before the
/// server closes it (a tenth of it, at least a second and at most five; at least 1).
pub fn advertised(idle: Duration) -> u64 {
    let margin = (idle.as_secs() / 10).clamp(1, 5);
    idle.as_secs().saturating_sub(margin).max(1)
}

impl Activity {
    /// For a connection on `socket` (`None`: nothing to look at before an idle close).
    pub fn new(socket: Option<RawFd>) -> Arc<Activity> {
        Arc::new(Activity {
            started: Instant::now(),
            last: AtomicU64::new(0),
            busy: AtomicUsize::new(0),
            write_blocked_since: AtomicU64::new(NOT_BLOCKED),
            served: AtomicBool::new(false),
            socket,
        })
    }

    fn now_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    fn touch(&self) {
        self.last.store(self.now_ms(), Ordering::Relaxed);
    }

    /// When to look again, or `None` when the connection has been idle (or stalled) too long.
    fn next_check(&self, limits: Timeouts) -> Option<Instant> {
        let (idle_ms, first_ms) = (
            limits.idle.as_millis() as u64,
            limits.first.as_millis() as u64,
        );
        let now = self.now_ms();
        let (since, limit) = if self.busy.load(Ordering::Relaxed) > 0 {
            match self.write_blocked_since.load(Ordering::Relaxed) {
                // Busy handling a request: the body timeout and the handler's own limits apply.
                NOT_BLOCKED => return Some(self.at(now + idle_ms)),
                blocked => (blocked, first_ms),
            }
        } else if !self.served.load(Ordering::Relaxed) {
            // A new connection: its first request is due soon, however it trickles in.
            (0, first_ms)
        } else {
            (self.last.load(Ordering::Relaxed), idle_ms)
        };
        let due = since.saturating_add(limit);
        (due > now).then(|| self.at(due))
    }

    /// Whether bytes have come that were not read yet (a request on its way).
    fn unread(&self) -> bool {
        let Some(fd) = self.socket else {
            return false;
        };
        let mut byte = 0u8;
        // SAFETY: `fd` is the connection's socket, open while `watch` runs the connection; a
        // peek of one byte that does not wait changes nothing in it.
        let n = unsafe {
            libc::recv(
                fd,
                (&raw mut byte).cast(),
                1,
                libc::MSG_PEEK | libc::MSG_DONTWAIT,
            )
        };
        n > 0
    }

    /// Closes the connection in stages (RFC 9112 §9.6): the sending side first, so that the
    /// client reads an orderly end of stream; then whatever the client still sends (a request
    /// that crossed the close) is read and dropped until the client closes too, `LINGER` has
    /// passed or `LINGER_BYTES` came. Closing the socket at once with such bytes unread would
    /// reset the connection instead, which a client cannot tell from a failure.
    async fn close_gently(&self) {
        let Some(fd) = self.socket else {
            return;
        };
        // SAFETY: `fd` is the connection's socket, open while `watch` runs the connection;
        // shutting its sending side leaves the descriptor to its owner.
        unsafe { libc::shutdown(fd, libc::SHUT_WR) };
        let until = Instant::now() + LINGER;
        let (mut dropped, mut scratch) = (0, [0u8; 4096]);
        while dropped < LINGER_BYTES && Instant::now() < until {
            // SAFETY: as above; a read that does not wait into a buffer of this length.
            let n = unsafe {
                libc::recv(
                    fd,
                    scratch.as_mut_ptr().cast(),
                    scratch.len(),
                    libc::MSG_DONTWAIT,
                )
            };
            match n {
                0 => return,
                1.. => dropped += n as usize,
                _ if io::Error::last_os_error().kind() == io::ErrorKind::WouldBlock => {
                    tokio::time::sleep(LINGER_STEP).await;
                }
                _ => return,
            }
        }
    }

    fn at(&self, ms: u64) -> Instant {
        self.started + Duration::from_millis(ms)
    }
}

/// Runs `conn` until it ends, or drops it (closing the socket) once the connection has been
/// idle too long (`Timeouts`) with nothing waiting to be read; `None` then.
pub async fn watch<F: Future>(conn: F, activity: &Activity, limits: Timeouts) -> Option<F::Output> {
    tokio::pin!(conn);
    loop {
        let next = match activity.next_check(limits) {
            Some(next) => next,
            // A request came as the time ran out: it is activity, and hyper reads it next.
            None if activity.unread() => {
                activity.touch();
                continue;
            }
            None => {
                activity.close_gently().await;
                return None;
            }
        };
        tokio::select! {
            // The connection first: what it has read by now counts before the time does.
            biased;
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
        activity.served.store(true, Ordering::Relaxed);
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
    /// Notes a write's outcome: waiting for the client, or done. Only bytes written are
    /// activity: hyper flushes at every turn of the connection, so a flush that had nothing to
    /// send would otherwise keep an idle connection for ever.
    fn note_write<R>(&self, r: &Poll<io::Result<R>>, wrote: impl Fn(&R) -> bool) {
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
            Poll::Ready(done) => {
                a.write_blocked_since.store(NOT_BLOCKED, Ordering::Relaxed);
                if done.as_ref().is_ok_and(wrote) {
                    a.touch();
                }
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
        self.note_write(&r, |n| *n > 0);
        r
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.note_write(&r, |n| *n > 0);
        r
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let r = Pin::new(&mut self.inner).poll_flush(cx);
        self.note_write(&r, |()| false);
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
        let a = Activity::new(None);
        let idle = Duration::from_millis(200);
        let limits = Timeouts { idle, first: idle };
        // A request in flight keeps the connection, however long it takes.
        let busy = Busy::new(&a);
        let r = watch(tokio::time::sleep(Duration::from_millis(600)), &a, limits).await;
        assert!(r.is_some());
        // Its end counts as activity; the quiet time starts there.
        drop(busy);
        let started = Instant::now();
        let r = watch(std::future::pending::<()>(), &a, limits).await;
        assert!(r.is_none());
        assert!(started.elapsed() >= idle);
    }

    #[tokio::test]
    async fn a_response_the_client_does_not_take_ends_the_connection() {
        let a = Activity::new(None);
        let _busy = Busy::new(&a);
        a.write_blocked_since.store(a.now_ms(), Ordering::Relaxed);
        let short = Duration::from_millis(200);
        let limits = Timeouts {
            idle: Duration::from_secs(3600),
            first: short,
        };
        let r = watch(std::future::pending::<()>(), &a, limits).await;
        assert!(r.is_none());
    }

    /// A request that came as the idle time ran out, not read yet, keeps the connection open;
    /// once read (and answered), the idle time starts again.
    #[tokio::test]
    async fn bytes_waiting_in_the_socket_keep_an_idle_connection() {
        use std::os::fd::AsRawFd;
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let mut client = tokio::net::TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (mut server, _) = listener.accept().await.unwrap();
        let a = Activity::new(Some(server.as_raw_fd()));
        drop(Busy::new(&a));
        let idle = Duration::from_millis(100);
        let limits = Timeouts { idle, first: idle };
        client.write_all(b"GET / HTTP/1.1\r\n\r\n").await.unwrap();
        tokio::time::sleep(idle * 2).await;
        let waited =
            tokio::time::timeout(idle * 4, watch(std::future::pending::<()>(), &a, limits));
        assert!(waited.await.is_err(), "closed with a request unread");
        let mut buf = [0u8; 64];
        assert!(server.read(&mut buf).await.unwrap() > 0);
        let r = watch(std::future::pending::<()>(), &a, limits).await;
        assert!(r.is_none(), "idle once nothing waits");
    }

    /// A request that reaches a connection just closed for idleness meets an orderly end of
    /// stream, and is read and dropped rather than answered by a reset: a second write after it
    /// still goes through.
    #[tokio::test]
    async fn an_idle_close_ends_the_stream_in_order_for_a_request_that_crossed_it() {
        use std::os::fd::AsRawFd;
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let mut client = tokio::net::TcpStream::connect(listener.local_addr().unwrap())
            .await
            .unwrap();
        let (server, _) = listener.accept().await.unwrap();
        let a = Activity::new(Some(server.as_raw_fd()));
        drop(Busy::new(&a));
        let idle = Duration::from_millis(100);
        let limits = Timeouts { idle, first: idle };
        let closing = async {
            assert!(
                watch(std::future::pending::<()>(), &a, limits)
                    .await
                    .is_none()
            );
            drop(server);
        };
        let crossing = async {
            tokio::time::sleep(idle + Duration::from_millis(60)).await;
            client.write_all(b"GET / HTTP/1.1\r\n").await.unwrap();
            tokio::time::sleep(Duration::from_millis(100)).await;
            let again = client.write_all(b"Host: x\r\n\r\n").await;
            let mut buf = [0u8; 64];
            (again, client.read(&mut buf).await)
        };
        let ((), (again, read)) = tokio::join!(closing, crossing);
        again.expect("no reset for the bytes that crossed the close");
        assert_eq!(read.unwrap(), 0, "an orderly end of stream");
    }

    #[test]
    fn the_advertised_timeout_is_a_little_shorter_than_the_real_one() {
        assert_eq!(advertised(Duration::from_secs(120)), 115);
        assert_eq!(advertised(Duration::from_secs(30)), 27);
        assert_eq!(advertised(Duration::from_secs(2)), 1);
        assert_eq!(advertised(Duration::from_secs(1)), 1);
    }
}
