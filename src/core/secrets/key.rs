//! The node key: the 32 bytes that seal the shared secrets, read from `--secret-key-file` or
//! given in `DOCKET_SECRET_KEY`, written as 64 hexadecimal characters or as the base64 of the
//! bytes (e.g. `openssl rand -hex 32`). It never appears in logs or messages.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
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

    /// The key in the file at `path`, which no other user may read or change (see
    /// [`private_enough`]).
    pub fn from_file(path: &Path) -> Result<NodeKey, String> {
        let shown = path.display();
        let meta =
            std::fs::metadata(path).map_err(|e| format!("--secret-key-file {shown}: {e}"))?;
        // SAFETY: geteuid takes nothing and cannot fail.
        let me = unsafe { libc::geteuid() };
        private_enough(
            &shown.to_string(),
            meta.permissions().mode(),
            meta.uid(),
            me,
        )
        .map_err(|why| format!("--secret-key-file {shown} {why}"))?;
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

/// Whether a key file of `mode`, owned by `owner`, may be read by the user `me`, as ssh and
/// libpq decide for private keys: a file of one's own must grant nothing to its group or to
/// others (0600 or less); a file of root's may also be read by its group (0640, the
/// `root:docket` of a package), which root chooses; nothing else, since a file of another user
/// that `me` can read is open to a group or to everyone. The error says what to run.
fn private_enough(file: &str, mode: u32, owner: u32, me: u32) -> Result<(), String> {
    let mode = mode & 0o7777;
    let group_read_of_root = owner == 0 && me != 0 && mode & 0o070 == 0o040;
    let open = mode & 0o007 != 0 || (mode & 0o070 != 0 && !group_read_of_root);
    match (open, owner) {
        (false, _) => Ok(()),
        (true, o) if o == me => Err(format!(
            "can be read or changed by other users (mode {mode:04o}); \
             make it private first: chmod 600 {file}"
        )),
        (true, 0) => Err(format!(
            "can be read or changed by other users (mode {mode:04o}); \
             a file of root's may be shared with the service's group only: chmod 640 {file}"
        )),
        (true, o) => Err(format!(
            "belongs to another user (uid {o}) and is open to its group or others \
             (mode {mode:04o}); give it to the user docket runs as, then chmod 600 {file}"
        )),
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
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        let err = NodeKey::from_file(&path).unwrap_err();
        assert!(
            err.contains("(mode 0640)") && err.contains("chmod 600"),
            "{err}"
        );
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
    fn a_key_file_open_to_its_group_is_refused_unless_root_shares_it_with_the_group() {
        let (me, root) = (1000, 0);
        for ok in [0o600, 0o400, 0o700] {
            assert_eq!(private_enough("k", ok, me, me), Ok(()), "{ok:o}");
            assert_eq!(private_enough("k", ok, root, root), Ok(()), "{ok:o}");
        }
        for open in [0o640, 0o660, 0o604, 0o644, 0o610, 0o602] {
            let err = private_enough("/etc/k", open, me, me).unwrap_err();
            assert!(err.contains("chmod 600 /etc/k"), "{open:o}: {err}");
            // Root running docket on its own file: the same rule.
            assert!(private_enough("k", open, root, root).is_err(), "{open:o}");
        }
        // root:docket 0640, read by the docket user through its group.
        assert_eq!(private_enough("k", 0o640, root, me), Ok(()));
        for open in [0o660, 0o644, 0o650, 0o604] {
            let err = private_enough("k", open, root, me).unwrap_err();
            assert!(err.contains("chmod 640 k"), "{open:o}: {err}");
        }
        let err = private_enough("k", 0o640, 1001, me).unwrap_err();
        assert!(err.contains("another user (uid 1001)"), "{err}");
        assert!(
            private_enough("k", 0o100600, me, me).is_ok(),
            "file type bits"
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
