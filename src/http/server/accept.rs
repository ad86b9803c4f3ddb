//! The accept loop around `warp::service(routes)`: plain TCP or TLS (tokio-rustls), HTTP/1.1 and
//! HTTP/2 (hyper-util auto), the peer address handed to the filters, and graceful shutdown that
//! lets in-flight requests finish for up to `DRAIN_LIMIT`. Every connection takes a place in
//! [`limits::Slots`] (refused connections are accepted and closed at once), is closed when idle
//! ([`activity`]), and reads request bodies under the body timeout ([`progress`]).

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::activity::{self, Activity, Busy, Timeouts, Tracked, Watched};
use super::limits::{Limits, Refused, Slot, Slots};
use super::progress::{Stalled, Timed};
use crate::{http::server::middleware, http::server::middleware::Options};

pub const DRAIN_LIMIT: Duration = Duration::from_secs(10);
const HANDSHAKE_LIMIT: Duration = Duration::from_secs(10);
/// How long a new connection may take to bring its first request (and a client to start
/// taking a response): slow-client defences that do not grow with the keep-alive idle timeout.
const HEADER_READ_LIMIT: Duration = Duration::from_secs(30);

/// Serves `routes` on `listener` until `shutdown` resolves, then drains open connections.
pub async fn serve(
    listener: TcpListener,
    tls: Option<TlsAcceptor>,
    routes: BoxedFilter<(Response,)>,
    opts: Options,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
) {
    let graceful = GracefulShutdown::new();
    let server = Server {
        builder: http_builder(&limits),
        routes,
        tls,
        opts,
        limits,
    };
    let slots = Slots::new(&limits);
    tokio::pin!(shutdown);

    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => break,
        };
        let (stream, peer) = match accepted {
            Ok(pair) => pair,
            Err(e) => {
                // Out of file descriptors and the like: wait a moment rather than spin.
                tracing::warn!(error = %e, "accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Some(slot) = take_slot(&slots, peer, &server.opts, &limits) else {
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let watcher = graceful.watcher();
        let server = server.clone();
        tokio::spawn(async move { server.connection(stream, peer, slot, watcher).await });
    }

    drop(listener);
    drain(graceful).await;
}

/// The most an HTTP/1 connection reads ahead: also the largest request head (hyper's default
/// is 408 KiB). Read buffers this size stay under glibc's fixed 256 KiB mmap threshold
/// (`main.rs`), so a body's next buffer reuses freed heap memory instead of a fresh mapping:
/// hyper allocates one whenever the chunks of the last are still held, and each fresh 408 KiB
/// mapping cost a hundred page faults. Within that, larger was faster in `bench/upload_probe.sh`:
/// a 20 MiB upload about 2 ms quicker with 248 KiB than with 136 KiB in the static build
/// (fewer reads, wake-ups and chunks), level in the glibc build and in the shared harness
/// (docs/develop/performance-history.md, "Upload: read buffers of 248 KiB").
const READ_BUFFER: usize = 248 * 1024;

/// The HTTP/1 and HTTP/2 connection builder.
fn http_builder(limits: &Limits) -> Builder<TokioExecutor> {
    let mut builder = Builder::new(TokioExecutor::new());
    // hyper starts this timer when it waits for a request head, also between keep-alive
    // requests. The idle close is `activity::watch`'s, which never closes a connection with a
    // request arriving; this timer comes later (the idle time, then the head's limit), so it
    // only ends a head trickled in after a wait (slow-client defence) and never races the idle
    // close. A new connection's first request is bounded by `watch` (`Timeouts::first`).
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.idle + HEADER_READ_LIMIT)
        .max_buf_size(READ_BUFFER);
    builder
}

/// A place for a connection from `peer`, or `None` (logged) when the limits refuse it.
fn take_slot(
    slots: &Arc<Slots>,
    peer: SocketAddr,
    opts: &Options,
    limits: &Limits,
) -> Option<Slot> {
    // A trusted proxy carries many clients: it counts only toward the total.
    match slots.take(peer.ip(), !opts.trusted.contains(peer.ip())) {
        Ok(slot) => Some(slot),
        Err(why) => {
            tracing::debug!(peer = %peer.ip(), ?why, open = slots.open(), "connection refused");
            if why == Refused::Full && slots.first_refusal_this_minute() {
                tracing::warn!(
                    max = limits.max_connections,
                    "connection limit reached (--max-connections); refusing new connections"
                );
            }
            None
        }
    }
}

/// Waits up to `DRAIN_LIMIT` for the open connections to finish.
async fn drain(graceful: GracefulShutdown) {
    tracing::info!(
        connections = graceful.count(),
        "shutting down; draining connections"
    );
    if tokio::time::timeout(DRAIN_LIMIT, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("some connections were still open after {DRAIN_LIMIT:?}; closing them");
    }
}

/// What every accepted connection is served with; each connection's task has its own copy.
#[derive(Clone)]
struct Server {
    builder: Builder<TokioExecutor>,
    routes: BoxedFilter<(Response,)>,
    tls: Option<TlsAcceptor>,
    opts: Options,
    limits: Limits,
}

impl Server {
    /// Serves one connection (after the TLS handshake, when on) while it holds its `slot`.
    async fn connection(self, stream: TcpStream, peer: SocketAddr, _slot: Slot, watcher: Watcher) {
        let activity = Activity::new(Some(std::os::fd::AsRawFd::as_raw_fd(&stream)));
        let stream = Watched::new(stream, Arc::clone(&activity));
        match &self.tls {
            None => self.http(stream, peer, activity, watcher).await,
            Some(acceptor) => {
                let Some(tls_stream) = handshake(acceptor, stream, peer).await else {
                    return;
                };
                self.http(tls_stream, peer, activity, watcher).await;
            }
        }
    }

    /// HTTP on `io` until the client or the server closes it, or it has been idle too long.
    async fn http<I>(&self, io: I, peer: SocketAddr, activity: Arc<Activity>, watcher: Watcher)
    where
        I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let service = warp::service(self.routes.clone());
        let (opts, limits) = (self.opts.clone(), self.limits);
        let keep_alive = keep_alive_value(limits.idle);
        let act = Arc::clone(&activity);
        let svc = hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
            let routes = service.clone();
            let opts = opts.clone();
            let busy = Busy::new(&act);
            let stalled = Stalled::default();
            let http1 = req.version() < hyper::Version::HTTP_2;
            let mut req = req.map(|b| Timed::new(b, limits.body, stalled.clone()));
            req.extensions_mut().insert(stalled);
            let keep_alive = keep_alive.clone();
            async move {
                let mut resp = middleware::handle(routes, req, peer, &opts).await;
                if http1 {
                    advertise_idle(&mut resp, keep_alive);
                }
                Ok::<_, std::convert::Infallible>(resp.map(|b| Tracked::new(b, busy)))
            }
        });
        let conn = self
            .builder
            .serve_connection_with_upgrades(TokioIo::new(io), svc);
        let conn = watcher.watch(conn.into_owned());
        let timeouts = Timeouts {
            idle: limits.idle,
            first: HEADER_READ_LIMIT.min(limits.idle),
        };
        if activity::watch(conn, &activity, timeouts).await.is_none() {
            tracing::debug!(peer = %peer.ip(), "idle connection closed");
        }
    }
}

/// `timeout=N` for the `Keep-Alive` header: the idle timeout a client may count on
/// (`activity::advertised`).
fn keep_alive_value(idle: Duration) -> hyper::header::HeaderValue {
    let value = format!("timeout={}", activity::advertised(idle));
    hyper::header::HeaderValue::from_str(&value).expect("digits are a header value")
}

/// Tells an HTTP/1 client how long the connection may stay idle (`Keep-Alive: timeout=`, which
/// browsers, Node's agents and others use to retire it first), unless it is being closed.
fn advertise_idle(resp: &mut Response, value: hyper::header::HeaderValue) {
    let headers = resp.headers_mut();
    let closing = headers
        .get_all(hyper::header::CONNECTION)
        .iter()
        .any(|v| v.to_str().is_ok_and(|v| v.eq_ignore_ascii_case("close")));
    if !closing {
        headers.insert(hyper::header::HeaderName::from_static("keep-alive"), value);
    }
}

async fn handshake(
    acceptor: &TlsAcceptor,
    stream: Watched<TcpStream>,
    peer: SocketAddr,
) -> Option<tokio_rustls::server::TlsStream<Watched<TcpStream>>> {
    match tokio::time::timeout(HANDSHAKE_LIMIT, acceptor.accept(stream)).await {
        Ok(Ok(s)) => Some(s),
        Ok(Err(e)) => {
            tracing::debug!(peer = %peer.ip(), error = %e, "TLS handshake failed");
            None
        }
        Err(_) => {
            tracing::debug!(peer = %peer.ip(), "TLS handshake timed out");
            None
        }
    }
}
