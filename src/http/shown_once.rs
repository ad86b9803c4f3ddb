//! A secret shown once across a redirect (post, redirect, get): the form that made an API token
//! or a webhook answers 303 to its page, and the secret travels in a short-lived cookie sealed
//! with ChaCha20-Poly1305 under a key derived from the HMAC key ring (`core::keyring`), which
//! every node shares, so the page may be served by another node. Nothing is stored in plain:
//! the cookie binds the session that made it and the page it is for, lives a few minutes, is
//! `HttpOnly`, `SameSite=Strict`, `Secure` whenever the browser reaches the server over HTTPS,
//! and its `Path` is the page's; the page that shows it clears it and answers `no-store`, so a
//! reload shows the secret no more.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce};
use hmac::{Hmac, Mac};
use http::HeaderValue;
use http::header::{CACHE_CONTROL, SET_COOKIE};
use sha2::Sha256;
use warp::reply::Response;

use crate::core::crypto::SecretToken;
use crate::core::keyring::KeyRing;
use crate::http::server::state::AppState;

/// How long a sealed secret waits for its page, in seconds.
pub const TTL: i64 = 300;

/// What binds a sealed secret: a version, the session's hash and the page.
const CONTEXT: &[u8] = b"docket-shown-once-v1";

/// The cookie's name: `__Secure-` prefixed when it is `Secure`.
fn name(secure: bool) -> &'static str {
    match secure {
        true => "__Secure-docket_once",
        false => "docket_once",
    }
}

/// Whether the browser reaches this server over HTTPS (the server's own TLS, or a proxy's in
/// front of a public `https://` URL).
fn secure(state: &AppState) -> bool {
    state.tls() || state.public_url.scheme() == "https"
}

/// The cipher of key `kid` of the ring (the active key when `None`) and that key's id.
fn cipher(ring: &KeyRing, kid: Option<&str>) -> Option<(String, ChaCha20Poly1305)> {
    let (kid, key) = match kid {
        Some(kid) => (kid.to_string(), ring.get(kid)?),
        None => {
            let (kid, key) = ring.active();
            (kid, key)
        }
    };
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes any key");
    mac.update(CONTEXT);
    let derived = mac.finalize().into_bytes();
    Some((kid, ChaCha20Poly1305::new(Key::from_slice(&derived))))
}

/// The associated data: the session (as its hash) and the page.
fn bound(session: &str, path: &str) -> Vec<u8> {
    let hash = SecretToken::presented(session).hash();
    [CONTEXT, b"\n", hash.as_bytes(), b"\n", path.as_bytes()].concat()
}

/// `secret` sealed for `session` on page `path` until `expires`: `kid.base64url(nonce || ct)`.
fn seal(ring: &KeyRing, session: &str, path: &str, secret: &str, expires: i64) -> String {
    let (kid, cipher) = cipher(ring, None).expect("the ring has an active key");
    let nonce = crate::core::crypto::random_bytes(12);
    let plain = format!("{expires}\n{secret}");
    let aad = bound(session, path);
    let payload = Payload {
        msg: plain.as_bytes(),
        aad: &aad,
    };
    let ct = cipher
        .encrypt(Nonce::from_slice(&nonce), payload)
        .expect("sealing a short text does not fail");
    format!("{kid}.{}", URL_SAFE_NO_PAD.encode([nonce, ct].concat()))
}

/// The secret in `value` when it was sealed for `session` on `path` and has not expired at `now`.
fn open(ring: &KeyRing, value: &str, session: &str, path: &str, now: i64) -> Option<String> {
    let (kid, sealed) = value.split_once('.')?;
    let sealed = URL_SAFE_NO_PAD.decode(sealed).ok()?;
    if sealed.len() < 12 + 16 {
        return None;
    }
    let (nonce, ct) = sealed.split_at(12);
    let (_, cipher) = cipher(ring, Some(kid))?;
    let aad = bound(session, path);
    let payload = Payload { msg: ct, aad: &aad };
    let plain = cipher.decrypt(Nonce::from_slice(nonce), payload).ok()?;
    let plain = String::from_utf8(plain).ok()?;
    let (expires, secret) = plain.split_once('\n')?;
    (expires.parse::<i64>().ok()? > now).then(|| secret.to_string())
}

fn cookie(state: &AppState, path: &str, value: &str, max_age: i64) -> String {
    let secure = secure(state);
    format!(
        "{}={value}; Path={path}; HttpOnly; SameSite=Strict; Max-Age={max_age}{}",
        name(secure),
        if secure { "; Secure" } else { "" }
    )
}

/// The answer to a form that made `secret`: 303 to `to` (a page, perhaps with a query),
/// carrying the secret sealed for `session` and that page.
pub fn redirect(state: &AppState, session: &str, to: &str, secret: &str) -> Response {
    let path = to.split('?').next().unwrap_or(to);
    let value = seal(
        &state.keys,
        session,
        path,
        secret,
        crate::core::db::now() + TTL,
    );
    let mut resp = crate::http::reply::redirect(to);
    if let Ok(v) = HeaderValue::from_str(&cookie(state, path, &value, TTL)) {
        resp.headers_mut().insert(SET_COOKIE, v);
    }
    resp
}

/// The secret the browser brought back to page `path` (`cookies`: its `Cookie` header), if it
/// was sealed for `session` and that page and is still fresh.
pub fn take(state: &AppState, cookies: Option<&str>, session: &str, path: &str) -> Taken {
    let brought = crate::http::session::cookie(cookies, name(secure(state)));
    Taken {
        secret: brought.and_then(|v| open(&state.keys, v, session, path, crate::core::db::now())),
        clear: brought.map(|_| cookie(state, path, "", 0)),
    }
}

/// What a page found of its secret, and what it must send to forget it.
pub struct Taken {
    pub secret: Option<String>,
    /// The `Set-Cookie` that clears the cookie, when the browser sent one.
    clear: Option<String>,
}

impl Taken {
    /// `resp`, the page, made to forget the cookie; a page that shows the secret is kept by no
    /// cache.
    pub fn finish(&self, mut resp: Response) -> Response {
        let headers = resp.headers_mut();
        if let Some(v) = self
            .clear
            .as_deref()
            .and_then(|c| HeaderValue::from_str(c).ok())
        {
            headers.append(SET_COOKIE, v);
        }
        if self.secret.is_some() {
            headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
        }
        resp
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_secret_opens_for_its_session_and_page_until_it_expires() {
        let ring = KeyRing::from_key(&[3u8; 32]);
        let sealed = seal(&ring, "sess", "/settings/tokens", "api_xyz", 1_000);
        assert!(!sealed.contains("api_xyz"));
        assert!(sealed.starts_with("k1."));
        let open_at = |v: &str, s: &str, p: &str, now: i64| open(&ring, v, s, p, now);
        assert_eq!(
            open_at(&sealed, "sess", "/settings/tokens", 999).as_deref(),
            Some("api_xyz")
        );
        assert_eq!(open_at(&sealed, "sess", "/settings/tokens", 1_000), None);
        assert_eq!(open_at(&sealed, "other", "/settings/tokens", 999), None);
        assert_eq!(open_at(&sealed, "sess", "/t/x/settings/tokens", 999), None);
        let mut bad = sealed.clone();
        let last = bad.pop().unwrap();
        bad.push(if last == 'A' { 'B' } else { 'A' });
        assert_eq!(open_at(&bad, "sess", "/settings/tokens", 999), None);
        assert_eq!(open_at("k9.AAAA", "sess", "/settings/tokens", 999), None);
        let other = KeyRing::from_key(&[4u8; 32]);
        assert_eq!(open(&other, &sealed, "sess", "/settings/tokens", 999), None);
    }
}
