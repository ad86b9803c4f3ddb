//! The HMAC key ring in `<data>/secrets/`: one 256-bit key a file (`hmac-<n>.key`, mode 0600),
//! or, with a secret key, the database's shared secrets of the same names (`secrets`).
//!
//! The newest key signs; every key still on disk verifies, so keys can rotate without breaking
//! URLs already handed out. Key ids travel in signed URLs, never the keys.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use crate::core::datadir::write_atomic;
use crate::{core::secrets::Shared, core::secrets::Source};

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
                let text = fs::read(&path)?;
                let key = parse_key(&text).map_err(|e| {
                    std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        format!("{}: {e}", path.display()),
                    )
                })?;
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
        let next = self.next_number();
        let key = crate::core::crypto::random_bytes(32);
        write_atomic(&key_path(dir, next), &encode_key(&key), true)?;
        self.keys.insert(next, key);
        Ok(key_id(next))
    }

    /// The ring `source` keeps: the files of `<data>/secrets/` as `load_or_create` reads them,
    /// or the database's rows `hmac-<n>.key` (the same text as the files; when there are none
    /// yet, the node's own files are adopted, or a first key is made). Blocking.
    pub fn from_source(source: &Source) -> Result<KeyRing, String> {
        let shared = match source {
            Source::Files(dirs) => {
                return KeyRing::load_or_create(&dirs.secrets)
                    .map_err(|e| format!("{}: {e}", dirs.secrets.display()));
            }
            Source::Database(shared) => shared,
        };
        let mut ring = ring_in(shared)?;
        if ring.keys.is_empty() {
            let adopted = KeyRing::adoptable(&shared.dirs().secrets);
            let first = match adopted.keys.is_empty() {
                true => BTreeMap::from([(1, crate::core::crypto::random_bytes(32))]),
                false => adopted.keys,
            };
            for (n, key) in &first {
                shared.insert(&file_name(*n), &encode_key(key))?;
            }
            ring = ring_in(shared)?;
        }
        if ring.keys.is_empty() {
            return Err("the shared key ring is empty after a key was stored".into());
        }
        Ok(ring)
    }

    /// Adds a new active key to the ring `source` keeps and returns its id. In the database,
    /// a node that rotates at the same moment as another gets the other's key as the new one.
    pub fn rotate_in(&mut self, source: &Source) -> Result<String, String> {
        let shared = match source {
            Source::Files(dirs) => {
                return self
                    .rotate(&dirs.secrets)
                    .map_err(|e| format!("{}: {e}", dirs.secrets.display()));
            }
            Source::Database(shared) => shared,
        };
        let next = self.next_number();
        shared.insert(
            &file_name(next),
            &encode_key(&crate::core::crypto::random_bytes(32)),
        )?;
        *self = ring_in(shared)?;
        Ok(self.active().0)
    }

    /// The keys in the files of `dir`, when they read (none otherwise).
    fn adoptable(dir: &Path) -> KeyRing {
        let keys = fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|entry| {
                let path = entry.path();
                let n = key_number(&path)?;
                let key = parse_key(&fs::read(&path).ok()?).ok()?;
                Some((n, key))
            })
            .collect();
        KeyRing { keys }
    }

    fn next_number(&self) -> u32 {
        self.keys.keys().next_back().map_or(1, |n| n + 1)
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

fn file_name(n: u32) -> String {
    format!("hmac-{n}.key")
}

fn key_path(dir: &Path, n: u32) -> PathBuf {
    dir.join(file_name(n))
}

fn key_number(path: &Path) -> Option<u32> {
    number_of(path.file_name()?.to_str()?)
}

/// `n` of a key named `hmac-<n>.key` (a file, or a row of the database).
fn number_of(name: &str) -> Option<u32> {
    name.strip_prefix("hmac-")?
        .strip_suffix(".key")?
        .parse()
        .ok()
}

/// A key as stored: base64 text.
fn encode_key(key: &[u8]) -> Vec<u8> {
    STANDARD.encode(key).into_bytes()
}

/// A stored key: base64 of at least 256 bits.
fn parse_key(text: &[u8]) -> Result<Vec<u8>, String> {
    let text = std::str::from_utf8(text).map_err(|_| "not a base64 key: not UTF-8".to_string())?;
    let key = STANDARD
        .decode(text.trim())
        .map_err(|e| format!("not a base64 key: {e}"))?;
    if key.len() < 32 {
        return Err("key shorter than 256 bits".into());
    }
    Ok(key)
}

/// The ring of the database's `hmac-<n>.key` rows (empty when there are none).
fn ring_in(shared: &Shared) -> Result<KeyRing, String> {
    let mut keys = BTreeMap::new();
    for (name, text) in shared.list("hmac-")? {
        if let Some(n) = number_of(&name) {
            keys.insert(
                n,
                parse_key(&text).map_err(|e| format!("the shared {name}: {e}"))?,
            );
        }
    }
    Ok(KeyRing { keys })
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
