//! Random secrets, their SHA-256 storage form, and constant-time comparison.
//!
//! Every bearer secret (API key, client secret, token, code) is made by [`SecretToken::generate`],
//! shown to its owner once, and stored only as [`SecretToken::hash`]. Secrets that must be
//! read back (webhook secrets, TOTP seeds) are sealed in a [`SecretBox`].

pub mod secret_box;

pub use secret_box::SecretBox;

use rand::TryRngCore;
use rand::rngs::OsRng;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

const BASE62: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// `len` characters drawn uniformly from `[0-9A-Za-z]` by the OS random generator: random
/// bytes are fetched in blocks (one system call each) and those at or above 248 (= 4 * 62)
/// are dropped, so that `byte % 62` has no bias.
pub fn random_base62(len: usize) -> String {
    let mut out = String::with_capacity(len);
    while out.len() < len {
        for b in random_bytes(len + len / 8 + 8) {
            if out.len() == len {
                break;
            }
            if b < 248 {
                out.push(BASE62[usize::from(b % 62)] as char);
            }
        }
    }
    out
}

/// `n` random bytes from the OS.
pub fn random_bytes(n: usize) -> Vec<u8> {
    let mut buf = vec![0u8; n];
    OsRng
        .try_fill_bytes(&mut buf)
        .expect("the operating system's random generator failed");
    buf
}

/// Lowercase hex SHA-256 of `data`.
pub fn sha256_hex(data: impl AsRef<[u8]>) -> String {
    hex::encode(Sha256::digest(data.as_ref()))
}

/// Compares two byte strings in time that depends only on their lengths.
pub fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && bool::from(a.ct_eq(b))
}

/// A freshly issued bearer secret. Its `Debug` never shows the value.
#[derive(Clone, PartialEq, Eq)]
pub struct SecretToken(String);

impl SecretToken {
    /// `prefix` followed by `chars` base62 characters (5.95 bits each).
    pub fn generate(prefix: &str, chars: usize) -> Self {
        SecretToken(format!("{prefix}{}", random_base62(chars)))
    }

    /// Wraps a value presented by a client, to hash and compare it.
    pub fn presented(value: &str) -> Self {
        SecretToken(value.to_string())
    }

    /// The form stored in the database.
    pub fn hash(&self) -> String {
        sha256_hex(self.0.as_bytes())
    }

    /// The clear value: only for showing once to its owner.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for SecretToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretToken(***)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_prefixed_and_hidden_in_debug() {
        let a = SecretToken::generate("api_", 40);
        let b = SecretToken::generate("api_", 40);
        assert_ne!(a, b);
        assert!(a.expose().starts_with("api_"));
        assert_eq!(a.expose().len(), 44);
        assert!(a.expose()[4..].chars().all(|c| c.is_ascii_alphanumeric()));
        assert_eq!(format!("{a:?}"), "SecretToken(***)");
    }

    #[test]
    fn hash_is_sha256_hex_and_stable() {
        let t = SecretToken::presented("abc");
        assert_eq!(
            t.hash(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn base62_is_uniform_enough() {
        let s = random_base62(62 * 400);
        let mut counts = std::collections::HashMap::new();
        for c in s.chars() {
            *counts.entry(c).or_insert(0) += 1;
        }
        assert_eq!(counts.len(), 62, "every character appears");
        assert!(
            counts.values().all(|&n| (250..=550).contains(&n)),
            "{counts:?}"
        );
    }

    #[test]
    fn constant_time_equality() {
        assert!(ct_eq(b"same", b"same"));
        assert!(!ct_eq(b"same", b"diff"));
        assert!(!ct_eq(b"short", b"longer"));
    }
}
