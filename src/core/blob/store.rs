//! The blob store. A blob is written to a local temp file (hashed, checked, mapped by its
//! caller), and only on commit does it become visible: with the file backend (the default) the
//! temp file is fsynced and renamed into `<data>/blobs/`; with the S3 backend (`s3.rs`) it is
//! put to the bucket and the temp file removed. Either way a reader never sees half a blob and
//! a failed write leaves nothing behind.
//!
//! The API is sync: call it from the blocking pool (`spawn_blocking`) or from the admin CLI,
//! never on an async worker thread (the S3 backend waits for the network); async callers have
//! `read_async` and `check`.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use sha2::{Digest, Sha256};

use super::s3::S3Blobs;
use super::url::BlobUrl;
use crate::core::datadir::sync_dir;

/// A blob's id: 32 lowercase hex characters (128 random bits).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BlobId(String);

impl BlobId {
    pub fn generate() -> BlobId {
        BlobId(hex::encode(crate::core::crypto::random_bytes(16)))
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

/// Committed blobs and the writes in progress. Clones share the backend.
#[derive(Debug, Clone)]
pub struct BlobStore {
    /// The file backend's blobs, and with either backend `tmp/`, the writes in progress.
    root: PathBuf,
    /// `Some`: committed blobs live in a bucket, not under `root`.
    remote: Option<Arc<S3Blobs>>,
}

impl BlobStore {
    /// A file store rooted at `root` (created if missing), with a `tmp/` for writes in progress.
    pub fn open(root: &Path) -> io::Result<BlobStore> {
        crate::core::datadir::create_private_dir(&root.join("tmp"))?;
        Ok(BlobStore {
            root: root.to_path_buf(),
            remote: None,
        })
    }

    /// The store `url` names: `file` is [`BlobStore::open`] on `root`; `s3://` keeps its temp
    /// files under `root/tmp` and its node-local copies under `cache`, and is checked to answer
    /// (bucket reachable, credentials accepted) before it is returned.
    pub fn open_url(url: &BlobUrl, root: &Path, cache: &Path) -> Result<BlobStore, String> {
        let store = BlobStore::open(root).map_err(|e| format!("{}: {e}", root.display()))?;
        let BlobUrl::S3 { bucket, prefix } = url else {
            return Ok(store);
        };
        let remote = S3Blobs::connect(bucket, prefix, cache)?;
        remote
            .check()
            .map_err(|e| format!("blob store {}: {e}", remote.describe()))?;
        Ok(BlobStore {
            remote: Some(Arc::new(remote)),
            ..store
        })
    }

    /// `file` or `s3://bucket/prefix at <endpoint>`, for messages.
    pub fn describe(&self) -> String {
        match &self.remote {
            None => "file".into(),
            Some(r) => r.describe().to_string(),
        }
    }

    pub fn is_remote(&self) -> bool {
        self.remote.is_some()
    }

    /// Whether committed blobs can be read and written now (`/healthz`): the bucket answers,
    /// or the blob directory is there.
    pub async fn check(&self) -> Result<(), String> {
        match &self.remote {
            Some(r) => r.check_async().await,
            None => match tokio::fs::metadata(self.root.join("tmp")).await {
                Ok(m) if m.is_dir() => Ok(()),
                Ok(_) => Err(format!("{}/tmp is not a directory", self.root.display())),
                Err(e) => Err(format!("{}: {e}", self.root.display())),
            },
        }
    }

    /// Removes temp files older than `age`, left by a crash; nothing refers to them. Younger
    /// ones may belong to a write in progress (another process can share the store). With S3,
    /// also the node-local copies fetched longer ago than `age` (they are fetched again).
    pub fn clean_stale_temp(&self, age: std::time::Duration) -> io::Result<usize> {
        let mut removed = match &self.remote {
            Some(r) => r.clean_cache(age)?,
            None => 0,
        };
        removed += remove_older_than(&self.root.join("tmp"), age)?;
        Ok(removed)
    }

    /// The committed blobs last written (with S3: last modified, by the bucket's clock) longer
    /// than `age` ago, for the sweep of blobs no row refers to (`sweep::remove_orphans`).
    pub fn committed_older_than(&self, age: std::time::Duration) -> io::Result<Vec<BlobId>> {
        match &self.remote {
            Some(r) => r.committed_older_than(age),
            None => super::sweep::committed_files_older_than(&self.root, age),
        }
    }

    /// `<root>/<first two hex>/<id>`: where the file backend keeps a blob (two-hex directories
    /// keep directories small). To read a blob use `read` or `local_path`, which work with
    /// either backend; this is for code that lays out a file store, such as backups.
    pub fn file_path(&self, id: &BlobId) -> PathBuf {
        self.root.join(&id.0[..2]).join(&id.0)
    }

    /// A file holding the blob, for callers that need a path (a page render) or a map: the
    /// blob itself with the file backend, this node's cached copy with S3 (fetched on a miss).
    /// A missing blob is `NotFound`.
    pub fn local_path(&self, id: &BlobId) -> io::Result<PathBuf> {
        match &self.remote {
            Some(r) => r.local_copy(id),
            None => {
                let path = self.file_path(id);
                fs::metadata(&path)?;
                Ok(path)
            }
        }
    }

    /// [`BlobStore::local_path`] for async code. With the file backend it is the blob's path,
    /// unchecked (a missing blob shows when the file is opened); with S3 the copy is fetched on
    /// the blocking pool.
    pub async fn local_path_async(&self, id: &BlobId) -> io::Result<PathBuf> {
        if self.remote.is_none() {
            return Ok(self.file_path(id));
        }
        let (store, id) = (self.clone(), id.clone());
        tokio::task::spawn_blocking(move || store.local_path(&id))
            .await
            .map_err(|e| io::Error::other(format!("fetching a blob failed: {e}")))?
    }

    /// The blob's bytes; a missing blob is `NotFound`.
    pub fn read(&self, id: &BlobId) -> io::Result<Vec<u8>> {
        match &self.remote {
            Some(r) => r.read(id),
            None => fs::read(self.file_path(id)),
        }
    }

    /// [`BlobStore::read`] for async code: it does not hold an async thread meanwhile.
    pub async fn read_async(&self, id: &BlobId) -> io::Result<Vec<u8>> {
        match &self.remote {
            Some(r) => r.read_async(id).await,
            None => tokio::fs::read(self.file_path(id)).await,
        }
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
            written_back: 0,
            synced: 0,
            last_flush: 0,
            sync_behind: true,
            store: self.clone(),
        })
    }

    /// Writes `data` as a new blob in one call.
    pub fn put(&self, data: &[u8]) -> io::Result<StoredBlob> {
        let mut w = self.begin()?;
        w.write_all(data)?;
        w.commit()
    }

    /// The blob as an open file (see [`BlobStore::local_path`]).
    pub fn open_blob(&self, id: &BlobId) -> io::Result<File> {
        File::open(self.local_path(id)?)
    }

    pub fn exists(&self, id: &BlobId) -> io::Result<bool> {
        match &self.remote {
            Some(r) => r.exists(id),
            None => Ok(self.file_path(id).is_file()),
        }
    }

    /// Deletes a blob; deleting one that is gone is not an error.
    pub fn delete(&self, id: &BlobId) -> io::Result<()> {
        if let Some(r) = &self.remote {
            return r.delete(id);
        }
        match fs::remove_file(self.file_path(id)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    /// Keys in the bucket under the store's prefix (S3 only; tests and checks).
    pub fn remote_keys(&self) -> io::Result<Vec<String>> {
        match &self.remote {
            Some(r) => r.list_keys(),
            None => Err(io::Error::other("not an S3 blob store")),
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

/// Bytes written between two of [`BlobWriter::sync_due`]'s flushes.
pub const SYNC_STEP: u64 = 2 << 20;

/// A flush quicker than this for each MiB it covered shows that the disk keeps up with the
/// writeback by itself (it found little left to write): the fsync at the end will too, so no
/// more flushes are handed out for the blob. A disk whose host caches writes until a flush takes
/// 2 to 3 ms a MiB here; a loop device on tmpfs, which writes back as it goes, 0.1 to 1.3.
pub const QUICK_FLUSH_PER_MIB: Duration = Duration::from_millis(1);

/// A flush of a blob's temp file beside its writes; see [`BlobWriter::sync_due`].
pub struct Flush(File);

impl Flush {
    /// Makes what was written before [`BlobWriter::sync_due`] durable (`sync_data`); answers
    /// how long it took, for [`BlobWriter::flushed_in`].
    pub fn run(self) -> io::Result<Duration> {
        let started = std::time::Instant::now();
        self.0.sync_data()?;
        Ok(started.elapsed())
    }
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
    written_back: u64,
    /// Bytes written when `sync_due` last handed out a flush.
    synced: u64,
    /// Bytes the last flush from `sync_due` covered that the one before did not.
    last_flush: u64,
    /// Whether `sync_due` still hands out flushes (see [`QUICK_FLUSH_PER_MIB`]).
    sync_behind: bool,
    store: BlobStore,
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

    /// Maps what was written so far into memory, e.g. to parse it while it is being fsynced;
    /// no copy is made, the pages come from the page cache. The map is private and
    /// copy-on-write: what is written to it stays in this process and never reaches the file.
    pub fn map(&self) -> io::Result<memmap2::MmapMut> {
        let file = self
            .file
            .as_ref()
            .ok_or_else(|| io::Error::other("blob already committed"))?;
        // SAFETY: the temp file is private to this writer (created with create_new, mode 0600,
        // in the store's private tmp dir) and is neither written nor truncated while the map
        // lives: the writer is only read from until `commit` or drop, which callers do after
        // dropping the map.
        unsafe { memmap2::MmapOptions::new().map_copy(file) }
    }

    /// Asks the kernel to start writing to disk what was written since the last call, once
    /// that is at least 1 MiB, without waiting, so that the fsync in `commit` has less left to
    /// do (Linux `sync_file_range` on just that range; elsewhere a no-op).
    pub fn start_writeback(&mut self) {
        const STEP: u64 = 1 << 20;
        if self.size - self.written_back < STEP {
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
                    self.written_back as libc::off64_t,
                    (self.size - self.written_back) as libc::off64_t,
                    libc::SYNC_FILE_RANGE_WRITE,
                );
            }
        }
        self.written_back = self.size;
    }

    /// A flush that makes what was written so far durable, to run on another thread while
    /// writing goes on, once [`SYNC_STEP`] bytes were written since the last one; `None` before
    /// that, after a quick flush (see `flushed_in`), and always for a bucket-backed store, whose
    /// temp file is uploaded rather than kept.
    ///
    /// Writeback started by `start_writeback` reaches the device, but a virtual disk's host may
    /// keep it in its own cache until the guest asks for a flush: the fsync before `commit` then
    /// pays for writing the whole file at once. Flushing behind the writes spreads that over the
    /// upload (docs/develop/performance-history.md, "Upload: flushing as the body arrives").
    pub fn sync_due(&mut self) -> io::Result<Option<Flush>> {
        if self.store.remote.is_some() || !self.sync_behind || self.size - self.synced < SYNC_STEP {
            return Ok(None);
        }
        self.last_flush = self.size - self.synced;
        self.synced = self.size;
        self.file_handle().map(|file| Some(Flush(file)))
    }

    /// What the last flush from `sync_due` took: after one quicker than
    /// [`QUICK_FLUSH_PER_MIB`] for each MiB it covered, no more.
    pub fn flushed_in(&mut self, took: Duration) {
        let mib = self.last_flush as f64 / f64::from(1u32 << 20);
        if took.as_secs_f64() < QUICK_FLUSH_PER_MIB.as_secs_f64() * mib {
            self.sync_behind = false;
        }
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
        let mut file = self
            .file
            .take()
            .ok_or_else(|| io::Error::other("blob already committed"))?;
        if let Some(remote) = self.store.remote.clone() {
            // The temp file goes when the writer drops, uploaded or not; a failed upload left
            // no object (see `S3Blobs::upload`).
            io::Seek::seek(&mut file, io::SeekFrom::Start(0))?;
            remote.upload(&self.id, &mut file, self.size)?;
            return Ok(StoredBlob {
                id: self.id.clone(),
                size: self.size,
                sha256,
            });
        }
        file.sync_all()?;
        drop(file);
        let dest = self.store.file_path(&self.id);
        let dir = dest.parent().expect("blob path has a parent");
        crate::core::datadir::create_private_dir(dir)?;
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

/// Removes the files in `dir` last modified longer than `age` ago; answers how many went.
pub(super) fn remove_older_than(dir: &Path, age: std::time::Duration) -> io::Result<usize> {
    let mut removed = 0;
    for entry in fs::read_dir(dir)? {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn put_then_read_back() {
        let tmp = tempfile::tempdir().unwrap();
        let store = BlobStore::open(tmp.path()).unwrap();
        let b = store.put(b"%PDF-1.7 hello").unwrap();
        assert_eq!(b.size, 14);
        assert_eq!(b.sha256, crate::core::crypto::sha256_hex(b"%PDF-1.7 hello"));
        assert_eq!(store.read(&b.id).unwrap(), b"%PDF-1.7 hello");
        let path = store.local_path(&b.id).unwrap();
        assert_eq!(path, tmp.path().join(&b.id.0[..2]).join(&b.id.0));
        assert_eq!(fs::read(path).unwrap(), b"%PDF-1.7 hello");
        assert!(store.exists(&b.id).unwrap());
        store.delete(&b.id).unwrap();
        store.delete(&b.id).unwrap();
        assert!(!store.exists(&b.id).unwrap());
        let gone = store.read(&b.id).unwrap_err();
        assert_eq!(gone.kind(), io::ErrorKind::NotFound);
        let gone = store.local_path(&b.id).unwrap_err();
        assert_eq!(gone.kind(), io::ErrorKind::NotFound);
    }

    #[tokio::test]
    async fn async_callers_read_and_find_the_same_file() {
        let tmp = tempfile::tempdir().unwrap();
        let store = BlobStore::open(tmp.path()).unwrap();
        let b = store.put(b"%PDF-1.7 async").unwrap();
        assert_eq!(store.read_async(&b.id).await.unwrap(), b"%PDF-1.7 async");
        assert_eq!(
            store.local_path_async(&b.id).await.unwrap(),
            store.local_path(&b.id).unwrap()
        );
        assert!(store.check().await.is_ok());
        assert!(!store.is_remote());
        assert_eq!(store.describe(), "file");
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
        assert!(!store.exists(&id).unwrap());
        assert_eq!(fs::read_dir(tmp.path().join("tmp")).unwrap().count(), 0);
    }

    #[test]
    fn a_flush_is_due_every_sync_step_until_one_is_quick() {
        let tmp = tempfile::tempdir().unwrap();
        let store = BlobStore::open(tmp.path()).unwrap();
        let mut w = store.begin_unhashed().unwrap();
        let step = usize::try_from(SYNC_STEP).unwrap();
        w.write_all(&vec![7u8; step - 1]).unwrap();
        assert!(w.sync_due().unwrap().is_none(), "one byte short of a step");
        w.write_all(b"x").unwrap();
        let flush = w.sync_due().unwrap().expect("a step written");
        flush.run().unwrap();
        assert!(w.sync_due().unwrap().is_none(), "nothing written since");
        // 2 MiB in 2 ms: slow enough to go on flushing.
        w.flushed_in(2 * QUICK_FLUSH_PER_MIB);
        w.write_all(&vec![8u8; step + 5]).unwrap();
        assert!(w.sync_due().unwrap().is_some());
        assert!(w.sync_due().unwrap().is_none());
        w.flushed_in(2 * QUICK_FLUSH_PER_MIB - Duration::from_micros(10));
        w.write_all(&vec![9u8; step]).unwrap();
        assert!(
            w.sync_due().unwrap().is_none(),
            "no more after a quick flush"
        );
        let stored = w.commit_with_sha256("unused".into()).unwrap();
        assert_eq!(stored.size, 3 * SYNC_STEP + 5);
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
