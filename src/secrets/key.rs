//! The node key: the 32 bytes that seal the shared secrets, read from `--secret-key-file` or
//! given in `DOCKET_SECRET_KEY`, written as 64 hexadecimal characters or as the base64 of the
//! bytes (e.g. `openssl rand -hex 32`). It never appears in logs or messages.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD};

/// What a key must look like, for every message that refuses one.
const FORMAT: &str =
    "64 hexadecimal characters or the base64 of 32 bytes (make one with `openssl rand -hex 32`)";

/// The secret key every node of one database is given.
#[derive(Clone, PartialEq, Eq)]
pub struct NodeKey([u8; 32]);

impl std::fmt::Debug for NodeKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NodeKey(***)")
    }
}

impl NodeKey {
    /// The key written as text (surrounding whitespace ignored).
    pub fn parse(text: &str) -> Result<NodeKey, String> {
        let text = text.trim();
        let bytes = if text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
            hex::decode(text).ok()
        } else {
            STANDARD
                .decode(text)
                .or_else(|_| STANDARD_NO_PAD.decode(text))
                .ok()
        };
        match bytes.and_then(|b| <[u8; 32]>::try_from(b).ok()) {
            Some(key) => Ok(NodeKey(key)),
            None => Err(format!("the secret key must be {FORMAT}")),
        }
    }

    /// The key in the file at `path`, which other users must not be able to read.
    pub fn from_file(path: &Path) -> Result<NodeKey, String> {
        let shown = path.display();
        let meta =
            std::fs::metadata(path).map_err(|e| format!("--secret-key-file {shown}: {e}"))?;
        let mode = meta.permissions().mode() & 0o777;
        if mode & 0o007 != 0 {
            return Err(format!(
                "--secret-key-file {shown} can be read by other users (mode {mode:04o}); \
                 make it private first: chmod 600 {shown}"
            ));
        }
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("--secret-key-file {shown}: {e}"))?;
        NodeKey::parse(&text).map_err(|e| format!("--secret-key-file {shown}: {e}"))
    }

    /// From `--secret-key-file` or the text of `DOCKET_SECRET_KEY` (at most one of them);
    /// `None` when neither is given.
    pub fn from_flags(file: Option<&Path>, text: Option<&str>) -> Result<Option<NodeKey>, String> {
        match (file, text) {
            (Some(_), Some(_)) => {
                Err("give --secret-key-file or DOCKET_SECRET_KEY, not both".into())
            }
            (Some(path), None) => NodeKey::from_file(path).map(Some),
            (None, Some(text)) => NodeKey::parse(text)
                .map(Some)
                .map_err(|e| format!("DOCKET_SECRET_KEY: {e}")),
            (None, None) => Ok(None),
        }
    }

    pub(super) fn bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEX: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

    #[test]
    fn hex_and_base64_name_the_same_key_and_nothing_else_passes() {
        let from_hex = NodeKey::parse(&format!("  {HEX}\n")).unwrap();
        let b64 = STANDARD.encode(hex::decode(HEX).unwrap());
        assert_eq!(NodeKey::parse(&b64).unwrap(), from_hex);
        assert_eq!(NodeKey::parse(b64.trim_end_matches('=')).unwrap(), from_hex);
        assert_eq!(NodeKey::parse(&HEX.to_uppercase()).unwrap(), from_hex);
        for bad in [
            "",
            "short",
            &HEX[..62],
            &format!("{HEX}00"),
            &STANDARD.encode([1u8; 31]),
            &STANDARD.encode([1u8; 33]),
            "zz0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
        ] {
            let err = NodeKey::parse(bad).unwrap_err();
            assert!(err.contains("64 hexadecimal characters"), "{err}");
        }
        assert!(!format!("{from_hex:?}").contains("01"));
    }

    #[test]
    fn a_key_file_must_be_private() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("key");
        std::fs::write(&path, format!("{HEX}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let err = NodeKey::from_file(&path).unwrap_err();
        assert!(err.contains("chmod 600"), "{err}");
        assert!(!err.contains(HEX), "{err}");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert!(NodeKey::from_file(&path).is_ok());
        std::fs::write(&path, "not a key").unwrap();
        let err = NodeKey::from_file(&path).unwrap_err();
        assert!(
            err.contains("--secret-key-file") && err.contains("64 hex"),
            "{err}"
        );
    }

    #[test]
    fn one_source_at_most() {
        assert_eq!(NodeKey::from_flags(None, None), Ok(None));
        assert!(NodeKey::from_flags(Some(Path::new("/x")), Some(HEX)).is_err());
        assert!(NodeKey::from_flags(None, Some(HEX)).unwrap().is_some());
        let err = NodeKey::from_flags(None, Some("nope")).unwrap_err();
        assert!(err.starts_with("DOCKET_SECRET_KEY:"), "{err}");
    }
}
