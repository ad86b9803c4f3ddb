//! The file store: a blob is written to a temp file, fsynced, then renamed into place, so a
//! reader never sees half a file and a failed write leaves nothing behind.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::datadir::sync_dir;

/// A blob's id: 32 lowercase hex characters (128 random bits).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BlobId(String);

impl BlobId {
    pub fn generate() -> BlobId {
        BlobId(hex::encode(crate::crypto::random_bytes(16)))
    }

    /// Accepts only the form `generate` makes, so an id can never walk the file system.
    pub fn parse(s: &str) -> Option<BlobId> {
        (s.len() == 32 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
            .then(|| BlobId(s.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for BlobId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Debug, Clone)]
pub struct BlobStore {
    root: PathBuf,
}

impl BlobStore {
    /// A store rooted at `root` (created if missing), with a `tmp/` for writes in progress.
    pub fn open(root: &Path) -> io::Result<BlobStore> {
        crate::datadir::create_private_dir(&root.join("tmp"))?;
        Ok(BlobStore {
            root: root.to_path_buf(),
        })
    }

    /// Removes temp files older than `age`, left by a crash; nothing refers to them. Younger
    /// ones may belong to a write in progress (another process can share the store).
    pub fn clean_stale_temp(&self, age: std::time::Duration) -> io::Result<usize> {
        let mut removed = 0;
        for entry in fs::read_dir(self.root.join("tmp"))? {
            let entry = entry?;
            let old = entry
                .metadata()?
                .modified()?
                .elapsed()
                .is_ok_and(|e| e >= age);
            if old && fs::remove_file(entry.path()).is_ok() {
                removed += 1;
            }
        }
        Ok(removed)
    }

    /// `<root>/<first two hex>/<id>`: keeps directories small.
    pub fn path(&self, id: &BlobId) -> PathBuf {
        self.root.join(&id.0[..2]).join(&id.0)
    }

    /// Starts a new blob. Write with `write_all`, then `commit`; dropping it uncommitted deletes
    /// the temp file.
    pub fn begin(&self) -> io::Result<BlobWriter> {
        let mut w = self.begin_unhashed()?;
        w.hasher = Some(Sha256::new());
        Ok(w)
    }

    /// Starts a new blob whose SHA-256 the caller computes (e.g. on another thread, as the
    /// bytes arrive) and hands to `commit_with_sha256`.
    pub fn begin_unhashed(&self) -> io::Result<BlobWriter> {
        let id = BlobId::generate();
        let tmp = self.root.join("tmp").join(id.as_str());
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)?;
        Ok(BlobWriter {
            id,
            tmp,
            final_path: None,
            file: Some(file),
            hasher: None,
            size: 0,
            flushed: 0,
            store_root: self.root.clone(),
        })
    }

    /// Writes `data` as a new blob in one call.
    pub fn put(&self, data: &[u8]) -> io::Result<StoredBlob> {
        let mut w = self.begin()?;
        w.write_all(data)?;
        w.commit()
    }

    pub fn open_blob(&self, id: &BlobId) -> io::Result<File> {
        File::open(self.path(id))
    }

    pub fn exists(&self, id: &BlobId) -> bool {
        self.path(id).is_file()
    }

    /// Deletes a blob; deleting one that is gone is not an error.
    pub fn delete(&self, id: &BlobId) -> io::Result<()> {
        match fs::remove_file(self.path(id)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }
}

/// What a committed blob is.
#[derive(Debug, Clone)]
pub struct StoredBlob {
    pub id: BlobId,
    pub size: u64,
    pub sha256: String,
}

/// A blob being written; see [`BlobStore::begin`].
pub struct BlobWriter {
    id: BlobId,
    tmp: PathBuf,
    final_path: Option<PathBuf>,
    file: Option<File>,
    /// `None` when the caller hashes (see `begin_unhashed`).
    hasher: Option<Sha256>,
    size: u64,
    /// Bytes already handed to `start_writeback`.
    flushed: u64,
    store_root: PathBuf,
}

impl BlobWriter {
    pub fn id(&self) -> &BlobId {
        &self.id
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    /// The temp file being written, e.g. to parse it before committing.
    pub fn temp_path(&self) -> &Path {
        &self.tmp
    }

    /// A second handle on the temp file, e.g. to fsync it on another thread.
    pub fn file_handle(&self) -> io::Result<File> {
        self.file
            .as_ref()
            .ok_or_else(|| io::Error::other("blob already committed"))?
            .try_clone()
    }

    /// Maps what was written so far into memory, read-only, e.g. to parse it while it is
    /// being fsynced; no copy is made, the pages come from the page cache.
    pub fn map(&self) -> io::Result<memmap2::Mmap> {
        let file = self
            .file
            .as_ref()
            .ok_or_else(|| io::Error::other("blob already committed"))?;
        // SAFETY: the temp file is private to this writer (created with create_new, mode 0600,
        // in the store's private tmp dir) and is neither written nor truncated while the map
        // lives: the writer is only read from until `commit` or drop, which callers do after
        // dropping the map.
        unsafe { memmap2::Mmap::map(file) }
    }

    /// Asks the kernel to start writing to disk what was written since the last call, once
    /// that is at least 1 MiB, without waiting, so that the fsync in `commit` has less left to
    /// do (Linux `sync_file_range` on just that range; elsewhere a no-op).
    pub fn start_writeback(&mut self) {
        const STEP: u64 = 1 << 20;
        if self.size - self.flushed < STEP {
            return;
        }
        #[cfg(target_os = "linux")]
        if let Some(file) = &self.file {
            use std::os::fd::AsRawFd;
            // SAFETY: the descriptor is open for as long as `file` lives; the range lies within
            // what was written; the call only schedules I/O and touches no memory of ours.
            unsafe {
                libc::sync_file_range(
                    file.as_raw_fd(),
                    self.flushed as libc::off64_t,
                    (self.size - self.flushed) as libc::off64_t,
                    libc::SYNC_FILE_RANGE_WRITE,
                );
            }
        }
        self.flushed = self.size;
    }

    pub fn write_all(&mut self, data: &[u8]) -> io::Result<()> {
        let file = self
            .file
            .as_mut()
            .ok_or_else(|| io::Error::other("blob already committed"))?;
        file.write_all(data)?;
        if let Some(h) = &mut self.hasher {
            h.update(data);
        }
        self.size += data.len() as u64;
        Ok(())
    }

    /// Makes the blob durable and visible under its id.
    pub fn commit(self) -> io::Result<StoredBlob> {
        let digest = self
            .hasher
            .clone()
            .ok_or_else(|| io::Error::other("this blob is hashed by its caller"))?
            .finalize();
        self.finish(hex::encode(digest))
    }

    /// `commit` for a writer from `begin_unhashed`: `sha256` is the hex digest of what was
    /// written.
    pub fn commit_with_sha256(self, sha256: String) -> io::Result<StoredBlob> {
        if self.hasher.is_some() {
            return Err(io::Error::other("this blob hashes what it writes"));
        }
        self.finish(sha256)
    }

    fn finish(mut self, sha256: String) -> io::Result<StoredBlob> {
        let file = self
            .file
            .take()
            .ok_or_else(|| io::Error::other("blob already committed"))?;
        file.sync_all()?;
        drop(file);
        let dest = self.store_root.join(&self.id.0[..2]).join(&self.id.0);
        let dir = dest.parent().expect("blob path has a parent");
        crate::datadir::create_private_dir(dir)?;
        fs::rename(&self.tmp, &dest)?;
        sync_dir(dir)?;
        self.final_path = Some(dest);
        Ok(StoredBlob {
            id: self.id.clone(),
            size: self.size,
            sha256,
        })
    }
}

impl Drop for BlobWriter {
    fn drop(&mut self) {
        if self.final_path.is_none() {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn put_then_read_back() {
        let tmp = tempfile::tempdir().unwrap();
        let store = BlobStore::open(tmp.path()).unwrap();
        let b = store.put(b"%PDF-1.7 hello").unwrap();
        assert_eq!(b.size, 14);
        assert_eq!(b.sha256, crate::crypto::sha256_hex(b"%PDF-1.7 hello"));
        assert_eq!(fs::read(store.path(&b.id)).unwrap(), b"%PDF-1.7 hello");
        assert!(store.exists(&b.id));
        store.delete(&b.id).unwrap();
        store.delete(&b.id).unwrap();
        assert!(!store.exists(&b.id));
    }

    #[test]
    fn abandoned_write_leaves_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let store = BlobStore::open(tmp.path()).unwrap();
        let id;
        {
            let mut w = store.begin().unwrap();
            w.write_all(b"partial").unwrap();
            id = w.id().clone();
            assert!(w.temp_path().exists());
        }
        assert!(!store.exists(&id));
        assert_eq!(fs::read_dir(tmp.path().join("tmp")).unwrap().count(), 0);
    }

    #[test]
    fn ids_cannot_escape_the_store() {
        assert!(BlobId::parse("../../etc/passwd").is_none());
        assert!(BlobId::parse("ABCDEF0123456789abcdef0123456789").is_none());
        let id = BlobId::generate();
        assert_eq!(BlobId::parse(id.as_str()), Some(id));
    }

    #[test]
    fn stale_temp_files_are_cleaned_young_ones_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let store = BlobStore::open(tmp.path()).unwrap();
        let w = store.begin().unwrap();
        std::mem::forget(w);
        let hour = std::time::Duration::from_secs(3600);
        assert_eq!(store.clean_stale_temp(hour).unwrap(), 0);
        assert_eq!(
            store.clean_stale_temp(std::time::Duration::ZERO).unwrap(),
            1
        );
        assert_eq!(fs::read_dir(tmp.path().join("tmp")).unwrap().count(), 0);
    }
}
