//! The mark docket adds to an authorization request on its way to a login it asked for
//! (`prompt=login`, `max_age`): `login_since=<unix time>.<HMAC>`, the HMAC under the key ring
//! over the time and every other parameter of the request. It travels in the URL a client can
//! edit, so it is trusted only when docket made it for this very request, recently: an app or
//! a user can neither add one, nor move its time back, nor carry it to another request
//! (another `state`, `nonce`, client or redirect URI). Anything else counts as no mark, and the
//! login is asked again.

use super::authorize::{LOGIN_SINCE, Params};
use crate::core::keyring::KeyRing;
use crate::identity::sessions::csrf;

/// How long a mark counts: enough to sign in (second factor included) and read the consent
/// page; after that the login is asked again.
pub const LIFETIME: i64 = 30 * 60;

const PURPOSE: &str = "login-since";

/// The mark for `params` (its own `login_since` left out), saying "asked to sign in at `since`".
pub fn mark(ring: &KeyRing, params: &Params, since: i64) -> String {
    format!("{since}.{}", tag(ring, params, since))
}

/// The time of `params`' mark when docket made it for these parameters no longer than
/// `LIFETIME` before `now`; `None` for no mark, a forged, altered or moved one, or an old one.
pub fn read(ring: &KeyRing, params: &Params, now: i64) -> Option<i64> {
    let (time, presented) = params.login_since.as_deref()?.split_once('.')?;
    let since: i64 = time.parse().ok()?;
    if since.to_string() != time || now.saturating_sub(since) > LIFETIME {
        return None;
    }
    let expected = tag(ring, params, since);
    crate::core::crypto::ct_eq(expected.as_bytes(), presented.as_bytes()).then_some(since)
}

fn tag(ring: &KeyRing, params: &Params, since: i64) -> String {
    let since = since.to_string();
    let mut parts = vec![since.as_str()];
    for (k, v) in params.pairs() {
        if k != LOGIN_SINCE {
            parts.push(k);
            parts.push(v);
        }
    }
    csrf::token(ring, PURPOSE, &parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> Params {
        Params {
            client_id: Some("c1".into()),
            redirect_uri: Some("https://cal.example/cb".into()),
            state: Some("xyz".into()),
            prompt: Some("login".into()),
            ..Params::default()
        }
    }

    fn with_mark(mut p: Params, mark: &str) -> Params {
        p.login_since = Some(mark.into());
        p
    }

    #[test]
    fn only_the_mark_made_for_the_request_counts_while_fresh() {
        let ring = KeyRing::from_key(&[7u8; 32]);
        let m = mark(&ring, &params(), 1000);
        assert_eq!(read(&ring, &with_mark(params(), &m), 1000), Some(1000));
        assert_eq!(
            read(&ring, &with_mark(params(), &m), 1000 + LIFETIME),
            Some(1000)
        );
        // Too old.
        assert_eq!(read(&ring, &with_mark(params(), &m), 1001 + LIFETIME), None);
        // Added by hand, or its time moved back, with or without the tag.
        let tag = m.split_once('.').unwrap().1;
        for forged in [
            "0",
            "900",
            &format!("900.{tag}"),
            &format!("01000.{tag}"),
            "1000.",
        ] {
            assert_eq!(
                read(&ring, &with_mark(params(), forged), 1000),
                None,
                "{forged}"
            );
        }
        // Carried to another request.
        let mut other = with_mark(params(), &m);
        other.state = Some("abc".into());
        assert_eq!(read(&ring, &other, 1000), None);
        let mut other = with_mark(params(), &m);
        other.prompt = None;
        other.max_age = Some("0".into());
        assert_eq!(read(&ring, &other, 1000), None);
        // Made under another key.
        let foreign = mark(&KeyRing::from_key(&[8u8; 32]), &params(), 1000);
        assert_eq!(read(&ring, &with_mark(params(), &foreign), 1000), None);
        // No mark.
        assert_eq!(read(&ring, &params(), 1000), None);
    }
}
