//! What every request goes through, around the warp routes: a request id (header, log span),
//! the client address as a request extension (the peer's, or the one a trusted proxy
//! forwarded), an early size check on declared bodies, 408 for a body that stopped arriving,
//! rendering of pending errors as JSON or HTML, security and cache headers, and one log line
//! (its path with credentials redacted).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use http::{HeaderMap, HeaderValue, Request, header};
use tower_service::Service;
use tracing::Instrument;
use warp::reply::Response;

use crate::core::error::AppError;
use crate::http::reply::{PendingError, error_response, format_for};
use crate::http::server::progress::Stalled;
use crate::http::server::proxy::TrustedProxies;

/// The client's socket address, inserted by the middleware (warp has no server of its own
/// here): the peer's, or with `--trusted-proxies` the address a trusted proxy forwarded (port 0
/// when it forwarded none). Login throttling, the audit log and the request log use it.
#[derive(Debug, Clone, Copy)]
pub struct PeerAddr(pub SocketAddr);

/// The id of this request: from a sane incoming `x-request-id`, or freshly generated.
#[derive(Debug, Clone)]
pub struct RequestId(pub String);

pub const REQUEST_ID: &str = "x-request-id";

/// Policy for pages: only this origin's styles, scripts and forms; images also from https
/// (app logos) and data URLs (signatures); never framed.
pub const PAGE_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; font-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
/// Policy for everything else (JSON, files): nothing may run.
const OTHER_CSP: &str = "default-src 'none'; frame-ancestors 'none'; sandbox";

/// A page made to be framed (`/embed/...`), as a response extension its handler adds: the
/// `frame-ancestors` directive its workspace allows (`signing::workspaces::framing`). The page
/// keeps `PAGE_CSP` with that directive in place of `frame-ancestors 'none'`, and gets no
/// `X-Frame-Options` (which cannot name origins). Every other response stays unframeable.
#[derive(Debug, Clone)]
pub struct Framed(pub String);

/// `PAGE_CSP` with `frame_ancestors` (a whole `frame-ancestors ...` directive) in place of its
/// own.
fn framed_csp(frame_ancestors: &str) -> String {
    PAGE_CSP.replace("frame-ancestors 'none'", frame_ancestors)
}

/// Settings the middleware needs.
#[derive(Debug, Clone)]
pub struct Options {
    pub tls: bool,
    /// Largest body any route accepts; bigger declared bodies are refused before routing.
    pub max_body: u64,
    /// Peers whose forwarding headers name the client.
    pub trusted: Arc<TrustedProxies>,
}

fn request_id(headers: &HeaderMap) -> String {
    headers
        .get(REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .filter(|v| {
            !v.is_empty()
                && v.len() <= 64
                && v.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_.:".contains(&b))
        })
        .map(str::to_string)
        .unwrap_or_else(|| crate::core::crypto::random_base62(20))
}

/// `/api/v2-beta/...` as `/api/v2/...` (the signing service answers its API v2 under both).
fn v2_alias(uri: &http::Uri) -> Option<http::Uri> {
    let rest = uri.path().strip_prefix("/api/v2-beta")?;
    if !(rest.is_empty() || rest.starts_with('/')) {
        return None;
    }
    let query = uri.query().map(|q| format!("?{q}")).unwrap_or_default();
    format!("/api/v2{rest}{query}").parse().ok()
}

fn declared_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
}

/// Serves one request through `routes`.
pub async fn handle<S, B>(
    mut routes: S,
    mut req: Request<B>,
    peer: SocketAddr,
    opts: &Options,
) -> Response
where
    S: Service<Request<B>, Response = Response, Error = Infallible>,
{
    let started = Instant::now();
    let id = request_id(req.headers());
    let method = req.method().clone();
    let version = req.version();
    // The path only: query strings may carry credentials (`apiKey`, `sig`) and are never
    // logged; credentials inside the path (signing links) are redacted.
    let path = req.uri().path().to_string();
    let logged_path = crate::http::server::redact::path(&path);
    let client = crate::http::server::proxy::client_addr(peer, req.headers(), &opts.trusted);
    // The proxy the request came through, when it named another client.
    let via = (client != peer).then(|| peer.ip());
    // The signing service's clients may be pointed at its API v2 under either of its names.
    if let Some(uri) = v2_alias(req.uri()) {
        *req.uri_mut() = uri;
    }
    let stalled = req.extensions().get::<Stalled>().cloned();
    req.extensions_mut().insert(PeerAddr(client));
    req.extensions_mut().insert(RequestId(id.clone()));
    let span = tracing::info_span!("request", request_id = %id);
    let (tls, max_body) = (opts.tls, opts.max_body);

    async move {
        let mut resp = match declared_length(req.headers()) {
            Some(n) if n > max_body => error_response(
                &AppError::PayloadTooLarge(format!(
                    "the request body ({n} bytes) is larger than the {max_body} bytes allowed"
                )),
                format_for(&path),
            ),
            _ => match routes.call(req).await {
                Ok(r) => r,
                Err(never) => match never {},
            },
        };
        if let Some(PendingError(err)) = resp.extensions_mut().remove::<PendingError>() {
            resp = error_response(&err, format_for(&path));
        }
        if stalled.is_some_and(|s| s.is_set()) {
            // Whatever the handler made of the failed read, the client was too slow: say so,
            // and do not wait for the rest of its body on this connection.
            resp = error_response(
                &AppError::RequestTimeout(
                    "the request body stopped arriving (--body-timeout-secs)".into(),
                ),
                format_for(&path),
            );
            if version < http::Version::HTTP_2 {
                resp.headers_mut()
                    .insert(header::CONNECTION, HeaderValue::from_static("close"));
            }
        }
        let framed = resp.extensions_mut().remove::<Framed>();
        secure_headers(resp.headers_mut(), &id, tls, framed.as_ref());
        let via = via.map(|v| v.to_string());
        tracing::info!(
            %method,
            path = %logged_path,
            status = resp.status().as_u16(),
            ms = started.elapsed().as_secs_f64() * 1000.0,
            peer = %client.ip(),
            via = via.as_deref(),
            "request"
        );
        resp
    }
    .instrument(span)
    .await
}

fn secure_headers(h: &mut HeaderMap, request_id: &str, tls: bool, framed: Option<&Framed>) {
    if let Ok(v) = HeaderValue::from_str(request_id) {
        h.insert(REQUEST_ID, v);
    }
    let is_html = h
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"));
    let defaults: [(header::HeaderName, &'static str); 4] = [
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::CACHE_CONTROL, "no-store"),
    ];
    if let Some(csp) = framed.and_then(|f| HeaderValue::from_str(&framed_csp(&f.0)).ok()) {
        h.insert(header::CONTENT_SECURITY_POLICY, csp);
    }
    for (name, value) in defaults {
        if name == header::X_FRAME_OPTIONS && framed.is_some() {
            continue;
        }
        if !h.contains_key(&name) {
            h.insert(name, HeaderValue::from_static(value));
        }
    }
    if !h.contains_key(header::CONTENT_SECURITY_POLICY) {
        let csp = if is_html { PAGE_CSP } else { OTHER_CSP };
        h.insert(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(csp),
        );
    }
    if is_html {
        h.insert(
            "cross-origin-opener-policy",
            HeaderValue::from_static("same-origin"),
        );
        h.insert(
            "permissions-policy",
            HeaderValue::from_static("camera=(), microphone=(), geolocation=(), payment=()"),
        );
    }
    if tls {
        h.insert(
            header::STRICT_TRANSPORT_SECURITY,
            HeaderValue::from_static("max-age=31536000"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_ids_are_kept_only_when_sane() {
        let mut h = HeaderMap::new();
        h.insert(REQUEST_ID, HeaderValue::from_static("abc-123"));
        assert_eq!(request_id(&h), "abc-123");
        h.insert(REQUEST_ID, HeaderValue::from_static("bad id with spaces"));
        assert_ne!(request_id(&h), "bad id with spaces");
        assert_eq!(request_id(&HeaderMap::new()).len(), 20);
    }

    #[test]
    fn the_v2_beta_prefix_is_the_v2_one() {
        let alias = |s: &str| v2_alias(&s.parse().unwrap()).map(|u| u.to_string());
        assert_eq!(
            alias("/api/v2-beta/envelope?page=1.0").as_deref(),
            Some("/api/v2/envelope?page=1.0")
        );
        assert_eq!(alias("/api/v2-beta").as_deref(), Some("/api/v2"));
        assert_eq!(alias("/api/v2-betas/x"), None);
        assert_eq!(alias("/api/v2/envelope"), None);
    }

    #[test]
    fn html_gets_the_page_policy_and_hsts_only_with_tls() {
        let mut h = HeaderMap::new();
        h.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/html; charset=utf-8"),
        );
        secure_headers(&mut h, "r1", false, None);
        assert_eq!(h[header::CONTENT_SECURITY_POLICY], PAGE_CSP);
        assert_eq!(h[header::X_FRAME_OPTIONS], "DENY");
        assert!(!h.contains_key(header::STRICT_TRANSPORT_SECURITY));
        let mut h = HeaderMap::new();
        secure_headers(&mut h, "r1", true, None);
        assert_eq!(h[header::CONTENT_SECURITY_POLICY], OTHER_CSP);
        assert!(h.contains_key(header::STRICT_TRANSPORT_SECURITY));
    }

    #[test]
    fn a_framed_page_names_its_ancestors_and_has_no_frame_options() {
        let mut h = HeaderMap::new();
        h.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/html; charset=utf-8"),
        );
        let framed = Framed("frame-ancestors https://a.example".into());
        secure_headers(&mut h, "r1", false, Some(&framed));
        let csp = h[header::CONTENT_SECURITY_POLICY].to_str().unwrap();
        assert!(
            csp.contains("; frame-ancestors https://a.example;"),
            "{csp}"
        );
        assert!(!csp.contains("'none'; base-uri") && csp.contains("script-src 'self'"));
        assert!(!h.contains_key(header::X_FRAME_OPTIONS));
    }
}
