//! Signed, expiring URLs: HMAC-SHA256 over a versioned canonical string of the key id, method,
//! path, expiry and object id. The key id travels in the URL so keys can rotate.
//!
//! Query form: `?exp=<unix seconds>&kid=<key id>&sig=<base64url HMAC>`.

use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::core::keyring::KeyRing;

type HmacSha256 = Hmac<Sha256>;

const VERSION: &str = "docket-url-v1";

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SignedUrlError {
    #[error("this link has expired; ask for a new one")]
    Expired,
    #[error("this link is not valid (missing, altered or signed with a retired key)")]
    Invalid,
}

/// A signed URL's query as sent: `exp`, `kid` and `sig`, each checked by [`UrlSigner::verify`]
/// (one missing makes the URL invalid).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
pub struct Signature {
    pub exp: Option<String>,
    pub kid: Option<String>,
    pub sig: Option<String>,
}

#[derive(Clone, Debug)]
pub struct UrlSigner {
    ring: Arc<KeyRing>,
}

fn canonical(kid: &str, method: &str, path: &str, expires: i64, object: &str) -> String {
    format!(
        "{VERSION}\n{kid}\n{}\n{path}\n{expires}\n{object}",
        method.to_ascii_uppercase()
    )
}

fn mac(key: &[u8], message: &str) -> HmacSha256 {
    let mut m = HmacSha256::new_from_slice(key).expect("HMAC takes keys of any length");
    m.update(message.as_bytes());
    m
}

impl UrlSigner {
    pub fn new(ring: Arc<KeyRing>) -> Self {
        UrlSigner { ring }
    }

    /// The query string (without `?`) that authorises `method path` on `object` until `expires`.
    pub fn sign(&self, method: &str, path: &str, object: &str, expires: i64) -> String {
        let (kid, key) = self.ring.active();
        let tag = mac(key, &canonical(&kid, method, path, expires, object))
            .finalize()
            .into_bytes();
        format!(
            "exp={expires}&kid={kid}&sig={}",
            URL_SAFE_NO_PAD.encode(tag)
        )
    }

    /// Checks the `exp`, `kid` and `sig` query parameters of a request against what it asks for.
    /// Comparison is constant-time; expiry is checked after the signature so that an altered
    /// expiry reads as invalid, not expired.
    pub fn verify(
        &self,
        method: &str,
        path: &str,
        object: &str,
        query: &Signature,
        now: i64,
    ) -> Result<(), SignedUrlError> {
        let expires: i64 = query
            .exp
            .as_deref()
            .and_then(|v| v.parse().ok())
            .ok_or(SignedUrlError::Invalid)?;
        let kid = query.kid.as_deref().ok_or(SignedUrlError::Invalid)?;
        let sig = query
            .sig
            .as_deref()
            .and_then(|s| URL_SAFE_NO_PAD.decode(s).ok())
            .ok_or(SignedUrlError::Invalid)?;
        let key = self.ring.get(kid).ok_or(SignedUrlError::Invalid)?;
        mac(key, &canonical(kid, method, path, expires, object))
            .verify_slice(&sig)
            .map_err(|_| SignedUrlError::Invalid)?;
        if now >= expires {
            return Err(SignedUrlError::Expired);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The query as a request's is read: the last of a repeated parameter counts.
    fn parse(q: &str) -> Signature {
        let mut s = Signature::default();
        for (k, v) in url::form_urlencoded::parse(q.as_bytes()).into_owned() {
            match k.as_str() {
                "exp" => s.exp = Some(v),
                "kid" => s.kid = Some(v),
                "sig" => s.sig = Some(v),
                _ => {}
            }
        }
        s
    }

    fn signer() -> UrlSigner {
        UrlSigner::new(Arc::new(KeyRing::from_key(&[7u8; 32])))
    }

    #[test]
    fn a_signed_url_verifies_until_it_expires() {
        let s = signer();
        let q = parse(&s.sign("PUT", "/api/v1/uploads/12", "doc:12", 1000));
        assert_eq!(
            s.verify("PUT", "/api/v1/uploads/12", "doc:12", &q, 999),
            Ok(())
        );
        assert_eq!(
            s.verify("PUT", "/api/v1/uploads/12", "doc:12", &q, 1000),
            Err(SignedUrlError::Expired)
        );
    }

    #[test]
    fn any_change_invalidates_it() {
        let s = signer();
        let q = parse(&s.sign("PUT", "/u/12", "doc:12", 1000));
        let invalid = Err(SignedUrlError::Invalid);
        assert_eq!(s.verify("GET", "/u/12", "doc:12", &q, 1), invalid);
        assert_eq!(s.verify("PUT", "/u/13", "doc:12", &q, 1), invalid);
        assert_eq!(s.verify("PUT", "/u/12", "doc:13", &q, 1), invalid);
        let mut later = q.clone();
        later.exp = Some("999999".into());
        assert_eq!(s.verify("PUT", "/u/12", "doc:12", &later, 1), invalid);
        let mut other_key = q.clone();
        other_key.kid = Some("k2".into());
        assert_eq!(s.verify("PUT", "/u/12", "doc:12", &other_key, 1), invalid);
        assert_eq!(
            s.verify("PUT", "/u/12", "doc:12", &Signature::default(), 1),
            invalid
        );
        let other = UrlSigner::new(Arc::new(KeyRing::from_key(&[8u8; 32])));
        assert_eq!(other.verify("PUT", "/u/12", "doc:12", &q, 1), invalid);
    }

    #[test]
    fn old_keys_still_verify_after_rotation() {
        let tmp = tempfile::tempdir().unwrap();
        let mut ring = KeyRing::load_or_create(tmp.path()).unwrap();
        let q = parse(&UrlSigner::new(Arc::new(ring.clone())).sign("GET", "/d", "o", 50));
        ring.rotate(tmp.path()).unwrap();
        let s = UrlSigner::new(Arc::new(ring));
        assert_eq!(s.verify("GET", "/d", "o", &q, 1), Ok(()));
        assert!(s.sign("GET", "/d", "o", 50).contains("kid=k2"));
    }
}
