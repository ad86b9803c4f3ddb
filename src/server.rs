//! The accept loop around `warp::service(routes)`: plain TCP or TLS (tokio-rustls), HTTP/1.1 and
//! HTTP/2 (hyper-util auto), the peer address handed to the filters, and graceful shutdown that
//! lets in-flight requests finish for up to `DRAIN_LIMIT`.

use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;

use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto::Builder;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;
use warp::filters::BoxedFilter;
use warp::reply::Response;

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
    shutdown: impl Future<Output = ()>,
) {
    let graceful = GracefulShutdown::new();
    let mut builder = Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_LIMIT);
    let service = warp::service(routes);
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
        let _ = stream.set_nodelay(true);
        let watcher = graceful.watcher();
        let builder = builder.clone();
        let service = service.clone();
        let tls = tls.clone();
        tokio::spawn(async move {
            let svc = hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
                let routes = service.clone();
                async move {
                    Ok::<_, std::convert::Infallible>(
                        middleware::handle(routes, req, peer, opts).await,
                    )
                }
            });
            match tls {
                None => {
                    let conn = builder.serve_connection_with_upgrades(TokioIo::new(stream), svc);
                    let _ = watcher.watch(conn.into_owned()).await;
                }
                Some(acceptor) => {
                    let Some(tls_stream) = handshake(&acceptor, stream, peer).await else {
                        return;
                    };
                    let conn =
                        builder.serve_connection_with_upgrades(TokioIo::new(tls_stream), svc);
                    let _ = watcher.watch(conn.into_owned()).await;
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
    stream: TcpStream,
    peer: SocketAddr,
) -> Option<tokio_rustls::server::TlsStream<TcpStream>> {
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
