//! Secrets at rest in the database (webhook signing secrets, TOTP seeds): encrypted with
//! ChaCha20-Poly1305 under a key kept in a file under `<data>/secrets/` (mode 0600, next to the
//! HMAC keys), or, with a secret key, in the database's shared secrets under that file's name
//! (`secrets`). A stolen database alone does not reveal them. Stored as nonce (12 bytes) ||
//! ciphertext. Each user of a box names its key file (`outbox::webhooks::SECRETS_FILE`,
//! `identity::factors::SECRETS_FILE`).

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chacha20poly1305::aead::{Aead, KeyInit};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce};

use crate::core::error::AppError;

#[derive(Clone)]
pub struct SecretBox {
    cipher: ChaCha20Poly1305,
}

impl std::fmt::Debug for SecretBox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretBox(***)")
    }
}

impl SecretBox {
    /// A new key, as stored: the base64 of 256 random bits.
    pub(crate) fn generate() -> Vec<u8> {
        STANDARD
            .encode(crate::core::crypto::random_bytes(32))
            .into_bytes()
    }

    /// A stored key: the base64 of 256 bits.
    pub(crate) fn parse(text: &[u8]) -> Result<SecretBox, String> {
        let text = std::str::from_utf8(text).map_err(|_| "not a base64 key: not UTF-8")?;
        let key = STANDARD
            .decode(text.trim())
            .map_err(|e| format!("not a base64 key: {e}"))?;
        if key.len() != 32 {
            return Err("the key must be 256 bits".into());
        }
        Ok(Self::from_key(&key))
    }

    fn from_key(key: &[u8]) -> SecretBox {
        SecretBox {
            cipher: ChaCha20Poly1305::new(Key::from_slice(key)),
        }
    }

    pub fn seal(&self, secret: &str) -> Result<Vec<u8>, AppError> {
        let nonce = crate::core::crypto::random_bytes(12);
        let mut out = nonce.clone();
        out.extend(
            self.cipher
                .encrypt(Nonce::from_slice(&nonce), secret.as_bytes())
                .map_err(|_| AppError::internal("encrypting a webhook secret failed"))?,
        );
        Ok(out)
    }

    pub fn open(&self, sealed: &[u8]) -> Result<String, AppError> {
        if sealed.len() < 12 + 16 {
            return Err(AppError::internal("a stored webhook secret is truncated"));
        }
        let (nonce, ct) = sealed.split_at(12);
        let plain = self
            .cipher
            .decrypt(Nonce::from_slice(nonce), ct)
            .map_err(|_| {
                AppError::internal("a stored webhook secret does not decrypt (key changed?)")
            })?;
        String::from_utf8(plain).map_err(|_| AppError::internal("a webhook secret is not UTF-8"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seals_opens_and_detects_tampering() {
        let dir = tempfile::tempdir().unwrap();
        let b = SecretBox::load_or_create_file(dir.path(), "test.key").unwrap();
        let sealed = b.seal("whsec_abc").unwrap();
        assert!(!sealed.windows(9).any(|w| w == b"whsec_abc"));
        // The same key comes back from the file.
        let again = SecretBox::load_or_create_file(dir.path(), "test.key").unwrap();
        assert_eq!(again.open(&sealed).unwrap(), "whsec_abc");
        let mut bad = sealed.clone();
        *bad.last_mut().unwrap() ^= 1;
        assert!(b.open(&bad).is_err());
        assert!(SecretBox::from_key(&[7; 32]).open(&sealed).is_err());
    }
}
