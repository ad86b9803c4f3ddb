//! Random secrets, their SHA-256 storage form, and constant-time comparison.
//!
//! Every bearer secret (API key, client secret, token, code) is made by [`SecretToken::generate`],
//! shown to its owner once, and stored only as [`SecretToken::hash`]. Secrets that must be
//! read back (webhook secrets, TOTP seeds) are sealed in a [`SecretBox`].

pub mod secret_box;

pub use secret_box::SecretBox;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

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

/// Hex digits of an ordered secret's order part: microseconds since 1970 fit in 13 until 2112.
const ORDER_DIGITS: usize = 13;

/// The order part of an ordered secret: the 13 lowercase hex digits before its first `.`
/// (base62, the random part's alphabet, has no `.`).
fn order_part(secret: &str) -> Option<&str> {
    let (head, _) = secret.split_once('.')?;
    let order = head.get(head.len().checked_sub(ORDER_DIGITS)?..)?;
    let hex = order
        .bytes()
        .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    hex.then_some(order)
}

/// Microseconds since 1970, strictly increasing within this process (so that two secrets
/// made in the same microsecond still go in order; the random part keeps them unique anyway).
fn next_order() -> u64 {
    static LAST: AtomicU64 = AtomicU64::new(0);
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX));
    let mut last = LAST.load(Ordering::Relaxed);
    loop {
        let next = now.max(last.saturating_add(1));
        match LAST.compare_exchange_weak(last, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return next,
            Err(seen) => last = seen,
        }
    }
}

/// A freshly issued bearer secret. Its `Debug` never shows the value.
#[derive(Clone, PartialEq, Eq)]
pub struct SecretToken(String);

impl SecretToken {
    /// `prefix` followed by `chars` base62 characters (5.95 bits each).
    pub fn generate(prefix: &str, chars: usize) -> Self {
        SecretToken(format!("{prefix}{}", random_base62(chars)))
    }

    /// As `generate`, with an order part between `prefix` and the random characters: the time
    /// it was made in microseconds, as 13 lowercase hex digits, then `.`. Its stored form
    /// (`hash`) begins with that order, so the index of stored forms takes each new secret at
    /// its end, as table rows are, instead of at a random leaf: for secrets issued by the
    /// thousand a second (access tokens), one page written a batch instead of one a secret.
    pub fn generate_ordered(prefix: &str, chars: usize) -> Self {
        SecretToken(format!(
            "{prefix}{:0width$x}.{}",
            next_order(),
            random_base62(chars),
            width = ORDER_DIGITS
        ))
    }

    /// Wraps a value presented by a client, to hash and compare it.
    pub fn presented(value: &str) -> Self {
        SecretToken(value.to_string())
    }

    /// The form stored in the database: the SHA-256 in hex, after `t` and the order part for
    /// an ordered secret (`generate_ordered`). Plain forms are hex, so every ordered one sorts
    /// after them, bytewise and in the usual text collations.
    pub fn hash(&self) -> String {
        let digest = sha256_hex(self.0.as_bytes());
        match order_part(&self.0) {
            Some(order) => format!("t{order}{digest}"),
            None => digest,
        }
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
    fn ordered_secrets_store_in_the_order_they_were_made_and_after_every_plain_one() {
        let made: Vec<SecretToken> = (0..200)
            .map(|_| SecretToken::generate_ordered("dka_", 43))
            .collect();
        let stored: Vec<String> = made.iter().map(SecretToken::hash).collect();
        let mut sorted = stored.clone();
        sorted.sort();
        assert_eq!(
            stored, sorted,
            "stored forms sort in the order the secrets were made"
        );
        let (first, last) = (&made[0], &made[199]);
        assert_eq!(first.expose().len(), 4 + 13 + 1 + 43);
        assert_eq!(&first.expose()[17..18], ".");
        assert!(
            first.expose()[18..]
                .chars()
                .all(|c| c.is_ascii_alphanumeric())
        );
        let digest = sha256_hex(last.expose());
        assert_eq!(last.hash(), format!("t{}{digest}", &last.expose()[4..17]));
        // A plain SHA-256 form is hex: every ordered form sorts after the greatest one.
        assert!(stored.iter().all(|s| s.as_str() > "f".repeat(64).as_str()));
        // The stored form follows the presented text alone.
        assert_eq!(SecretToken::presented(last.expose()).hash(), last.hash());
    }

    #[test]
    fn only_a_well_formed_order_part_changes_the_stored_form() {
        for plain in [
            "dka_abc",
            "dka_.x",
            "dka_0123456789ab.x",
            "dka_0123456789ABC.x",
            "dka_0123456789abg.x",
            "é0123456789ab.x",
            ".",
            "",
        ] {
            assert_eq!(
                SecretToken::presented(plain).hash(),
                sha256_hex(plain),
                "{plain}"
            );
        }
        let ordered = "dkr_0123456789abc.x";
        assert_eq!(
            SecretToken::presented(ordered).hash(),
            format!("t0123456789abc{}", sha256_hex(ordered))
        );
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
