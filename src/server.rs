//! The accept loop around `warp::service(routes)`: plain TCP or TLS (tokio-rustls), HTTP/1.1 and
//! HTTP/2 (hyper-util auto), the peer address handed to the filters, and graceful shutdown that
//! lets in-flight requests finish for up to `DRAIN_LIMIT`. Every connection takes a place in
//! [`limits::Slots`] (refused connections are accepted and closed at once), is closed when idle
//! ([`activity`]), and reads request bodies under the body timeout ([`progress`]).

pub mod activity;
pub mod limits;
pub mod progress;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use self::activity::{Activity, Busy, Tracked, Watched};
use self::limits::{Limits, Refused, Slots};
use self::progress::{Stalled, Timed};
use crate::http::middleware::{self, Options};

pub const DRAIN_LIMIT: Duration = Duration::from_secs(10);
const HANDSHAKE_LIMIT: Duration = Duration::from_secs(10);
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
    let mut builder = Builder::new(TokioExecutor::new());
    // hyper starts this timer when it waits for a request head, also between keep-alive
    // requests: it is the HTTP/1 idle timeout too, so it is never longer than `limits.idle`.
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_LIMIT.min(limits.idle));
    let service = warp::service(routes);
    let slots = Slots::new(&limits);
    tokio::pin!(shutdown);

    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                Err(e) => {
                    // Out of file descriptors and the like: wait a moment rather than spin.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // A trusted proxy carries many clients: it counts only toward the total.
        let slot = match slots.take(peer.ip(), !opts.trusted.contains(peer.ip())) {
            Ok(slot) => slot,
            Err(why) => {
                tracing::debug!(peer = %peer.ip(), ?why, open = slots.open(), "connection refused");
                if why == Refused::Full && slots.first_refusal_this_minute() {
                    tracing::warn!(
                        max = limits.max_connections,
                        "connection limit reached (--max-connections); refusing new connections"
                    );
                }
                drop(stream);
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let watcher = graceful.watcher();
        let builder = builder.clone();
        let service = service.clone();
        let tls = tls.clone();
        let opts = opts.clone();
        tokio::spawn(async move {
            let _slot = slot;
            let activity = Activity::new();
            let stream = Watched::new(stream, Arc::clone(&activity));
            let act = Arc::clone(&activity);
            let svc = hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
                let routes = service.clone();
                let opts = opts.clone();
                let busy = Busy::new(&act);
                let stalled = Stalled::default();
                let mut req = req.map(|b| Timed::new(b, limits.body, stalled.clone()));
                req.extensions_mut().insert(stalled);
                async move {
                    let resp = middleware::handle(routes, req, peer, &opts).await;
                    Ok::<_, std::convert::Infallible>(resp.map(|b| Tracked::new(b, busy)))
                }
            });
            match tls {
                None => {
                    let conn = builder.serve_connection_with_upgrades(TokioIo::new(stream), svc);
                    let conn = watcher.watch(conn.into_owned());
                    if activity::watch(conn, &activity, limits.idle)
                        .await
                        .is_none()
                    {
                        tracing::debug!(peer = %peer.ip(), "idle connection closed");
                    }
                }
                Some(acceptor) => {
                    let Some(tls_stream) = handshake(&acceptor, stream, peer).await else {
                        return;
                    };
                    let conn =
                        builder.serve_connection_with_upgrades(TokioIo::new(tls_stream), svc);
                    let conn = watcher.watch(conn.into_owned());
                    if activity::watch(conn, &activity, limits.idle)
                        .await
                        .is_none()
                    {
                        tracing::debug!(peer = %peer.ip(), "idle connection closed");
                    }
                }
            }
        });
    }

    drop(listener);
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
