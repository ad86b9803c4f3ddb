//! CSRF tokens: HMAC-SHA256 under the key ring's active key over a purpose and what the token is
//! bound to (the session, and for consent the request parameters). Verified in constant time.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::core::keyring::KeyRing;

/// The token for `purpose` bound to `parts`.
pub fn token(ring: &KeyRing, purpose: &str, parts: &[&str]) -> String {
    let (_, key) = ring.active();
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes any key");
    mac.update(b"docket-csrf-v1\n");
    mac.update(purpose.as_bytes());
    for p in parts {
        mac.update(b"\n");
        mac.update(&(p.len() as u64).to_be_bytes());
        mac.update(p.as_bytes());
    }
    URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes())
}

pub fn verify(ring: &KeyRing, purpose: &str, parts: &[&str], presented: &str) -> bool {
    crate::core::crypto::ct_eq(token(ring, purpose, parts).as_bytes(), presented.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_bind_purpose_and_parts() {
        let ring = KeyRing::from_key(&[1u8; 32]);
        let t = token(&ring, "consent", &["session", "client", "state"]);
        assert!(verify(
            &ring,
            "consent",
            &["session", "client", "state"],
            &t
        ));
        assert!(!verify(&ring, "login", &["session", "client", "state"], &t));
        assert!(!verify(
            &ring,
            "consent",
            &["session", "client", "other"],
            &t
        ));
        assert!(!verify(
            &ring,
            "consent",
            &["sessionclient", "", "state"],
            &t
        ));
        assert!(!verify(
            &KeyRing::from_key(&[2u8; 32]),
            "consent",
            &["session", "client", "state"],
            &t
        ));
    }
}
