//! Where a [`SecretBox`] finds its key: a file under `<data>/secrets/`, or the shared secrets
//! of the database under that file's name.

use std::path::Path;

use super::Source;
use crate::core::crypto::SecretBox;

impl SecretBox {
    /// The key in `secrets_dir/file` (each kind of secret has its own), made when there is none.
    pub fn load_or_create_file(secrets_dir: &Path, file: &str) -> std::io::Result<SecretBox> {
        let path = secrets_dir.join(file);
        let text = match std::fs::read(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let text = SecretBox::generate();
                crate::core::datadir::write_atomic(&path, &text, true)?;
                text
            }
            Err(e) => return Err(e),
        };
        SecretBox::parse(&text).map_err(|e| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("{}: {e}", path.display()),
            )
        })
    }

    /// The key that `source` keeps as `file` (in `<data>/secrets/`, or the database row of
    /// that name), made when there is none. Blocking.
    pub fn from_source(source: &Source, file: &str) -> Result<SecretBox, String> {
        let text = source.get_or_create(file, || Ok(SecretBox::generate()))?;
        SecretBox::parse(&text).map_err(|e| format!("the secret key {file}: {e}"))
    }
}
