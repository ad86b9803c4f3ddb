//! The HMAC key ring in `<data>/secrets/`: one 256-bit key a file (`hmac-<n>.key`, mode 0600).
//!
//! The newest key signs; every key still on disk verifies, so keys can rotate without breaking
//! URLs already handed out. Key ids travel in signed URLs, never the keys.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use crate::datadir::write_atomic;

#[derive(Clone)]
pub struct KeyRing {
    /// key number -> key bytes; the highest number is the active key.
    keys: BTreeMap<u32, Vec<u8>>,
}

impl std::fmt::Debug for KeyRing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyRing")
            .field("key_ids", &self.keys.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl KeyRing {
    /// Loads every key in `dir`, creating the first one when there is none.
    pub fn load_or_create(dir: &Path) -> std::io::Result<Self> {
        let mut keys = BTreeMap::new();
        for entry in fs::read_dir(dir)? {
            let path = entry?.path();
            if let Some(n) = key_number(&path) {
                let text = fs::read_to_string(&path)?;
                let key = STANDARD.decode(text.trim()).map_err(|e| {
                    std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        format!("{}: not a base64 key: {e}", path.display()),
                    )
                })?;
                if key.len() < 32 {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        format!("{}: key shorter than 256 bits", path.display()),
                    ));
                }
                keys.insert(n, key);
            }
        }
        let mut ring = KeyRing { keys };
        if ring.keys.is_empty() {
            ring.rotate(dir)?;
        }
        Ok(ring)
    }

    /// Adds a new active key and returns its id.
    pub fn rotate(&mut self, dir: &Path) -> std::io::Result<String> {
        let next = self.keys.keys().next_back().map_or(1, |n| n + 1);
        let key = crate::crypto::random_bytes(32);
        write_atomic(&key_path(dir, next), STANDARD.encode(&key).as_bytes(), true)?;
        self.keys.insert(next, key);
        Ok(key_id(next))
    }

    /// The id and bytes of the key that signs.
    pub fn active(&self) -> (String, &[u8]) {
        let (n, key) = self
            .keys
            .iter()
            .next_back()
            .expect("key ring is never empty");
        (key_id(*n), key)
    }

    /// The key with id `kid` (e.g. `k1`), if the ring still holds it.
    pub fn get(&self, kid: &str) -> Option<&[u8]> {
        let n: u32 = kid.strip_prefix('k')?.parse().ok()?;
        self.keys.get(&n).map(Vec::as_slice)
    }

    /// A ring with one given key, for tests.
    pub fn from_key(key: &[u8]) -> Self {
        KeyRing {
            keys: BTreeMap::from([(1, key.to_vec())]),
        }
    }
}

fn key_id(n: u32) -> String {
    format!("k{n}")
}

fn key_path(dir: &Path, n: u32) -> PathBuf {
    dir.join(format!("hmac-{n}.key"))
}

fn key_number(path: &Path) -> Option<u32> {
    let name = path.file_name()?.to_str()?;
    name.strip_prefix("hmac-")?
        .strip_suffix(".key")?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn creates_then_reloads_the_same_key() {
        let tmp = tempfile::tempdir().unwrap();
        let ring = KeyRing::load_or_create(tmp.path()).unwrap();
        let (kid, key) = ring.active();
        assert_eq!(kid, "k1");
        let again = KeyRing::load_or_create(tmp.path()).unwrap();
        assert_eq!(again.active().1, key);
        let mode = fs::metadata(tmp.path().join("hmac-1.key"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn rotation_keeps_old_keys_for_verification() {
        let tmp = tempfile::tempdir().unwrap();
        let mut ring = KeyRing::load_or_create(tmp.path()).unwrap();
        let old = ring.active().1.to_vec();
        let kid = ring.rotate(tmp.path()).unwrap();
        assert_eq!(kid, "k2");
        assert_eq!(ring.active().0, "k2");
        assert_eq!(ring.get("k1").unwrap(), old.as_slice());
        assert!(ring.get("k9").is_none());
        assert!(ring.get("bogus").is_none());
    }
}
