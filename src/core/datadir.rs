//! The data directory: where everything docket writes lives, and the permissions it gets.

use std::fs;
use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Paths inside one data directory.
#[derive(Debug, Clone)]
pub struct DataDir {
    root: PathBuf,
}

impl DataDir {
    /// The platform's default: `directories`' data dir for `docket` (e.g. `~/.local/share/docket`).
    pub fn default_path() -> Option<PathBuf> {
        directories::ProjectDirs::from("", "", "docket").map(|d| d.data_dir().to_path_buf())
    }

    /// Opens `root`, creating it (0700) and its subdirectories when missing.
    pub fn open(root: &Path) -> std::io::Result<Self> {
        create_private_dir(root)?;
        let dir = DataDir {
            root: root.to_path_buf(),
        };
        for sub in [dir.blobs(), dir.tls(), dir.secrets(), dir.backups()] {
            create_private_dir(&sub)?;
        }
        Ok(dir)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }
    pub fn database(&self) -> PathBuf {
        self.root.join("docket.db")
    }
    pub fn blobs(&self) -> PathBuf {
        self.root.join("blobs")
    }
    pub fn tls(&self) -> PathBuf {
        self.root.join("tls")
    }
    /// Rendered PDF pages: a cache, left out of backups, rebuilt on demand.
    pub fn page_cache(&self) -> PathBuf {
        self.root.join("cache").join("pages")
    }
    /// This node's copies of blobs kept in an S3 bucket (`--blob-url s3://...`): a cache.
    pub fn blob_cache(&self) -> PathBuf {
        self.root.join("cache").join("blobs")
    }
    pub fn secrets(&self) -> PathBuf {
        self.root.join("secrets")
    }
    /// Automatic database backups taken before migrations.
    pub fn backups(&self) -> PathBuf {
        self.root.join("backups")
    }
}

/// Creates `path` and its parents; a directory created here gets mode 0700.
pub fn create_private_dir(path: &Path) -> std::io::Result<()> {
    if path.is_dir() {
        return Ok(());
    }
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(path)?;
    fs::set_permissions(path, fs::Permissions::from_mode(0o700))
}

/// Writes `data` to `path` atomically (temp file, fsync, rename, fsync of the directory),
/// with mode 0600 when `private`.
pub fn write_atomic(path: &Path, data: &[u8], private: bool) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let tmp = dir.join(format!(
        ".{}.tmp-{}",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("file"),
        crate::core::crypto::random_base62(8)
    ));
    let result = (|| {
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(if private { 0o600 } else { 0o644 })
            .open(&tmp)?;
        f.write_all(data)?;
        f.sync_all()?;
        fs::rename(&tmp, path)?;
        sync_dir(dir)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Makes a rename or create in `dir` durable.
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    fs::File::open(dir)?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn creates_private_tree() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("data");
        let dir = DataDir::open(&root).unwrap();
        for p in [
            dir.root().to_path_buf(),
            dir.secrets(),
            dir.tls(),
            dir.blobs(),
        ] {
            let mode = fs::metadata(&p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o700, "{}", p.display());
        }
    }

    #[test]
    fn atomic_write_replaces_and_is_private() {
        let tmp = tempfile::tempdir().unwrap();
        let p = tmp.path().join("key");
        write_atomic(&p, b"one", true).unwrap();
        write_atomic(&p, b"two", true).unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"two");
        assert_eq!(
            fs::metadata(&p).unwrap().permissions().mode() & 0o777,
            0o600
        );
        assert_eq!(
            fs::read_dir(tmp.path()).unwrap().count(),
            1,
            "no temp file left"
        );
    }
}
