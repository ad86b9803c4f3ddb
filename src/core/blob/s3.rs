//! The S3 backend of the blob store: committed blobs are objects in one bucket that every node
//! shares, put from the writer's local temp file only when it commits (multipart above
//! [`MULTIPART_ABOVE`], aborted on failure), and node-local cached copies under
//! `<data>/cache/blobs/` for callers that need a file (page renders, template copies).
//!
//! object_store's client is async; the blob store's API is sync (its callers run on the
//! blocking pool or in the admin CLI, which has no runtime). Each S3 store owns a small tokio
//! runtime of its own: a sync call spawns its future there and waits on a channel, which is
//! legal on any thread that is not an async worker (never panics, unlike a nested `block_on`);
//! async callers await the spawned task instead.

use std::fs::{self, OpenOptions};
use std::future::Future;
use std::io::{self, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::core::error::StorageUnavailable;
use bytes::Bytes;
use futures_util::StreamExt;
use object_store::aws::{AmazonS3, AmazonS3Builder};
use object_store::path::Path as Key;
use object_store::{ClientOptions, ObjectStore, ObjectStoreExt, RetryConfig, WriteMultipart};

use super::store::BlobId;
use crate::{core::datadir::create_private_dir, core::datadir::sync_dir};

/// Blobs larger than this go up in parts of [`PART_SIZE`]; smaller ones in one PUT.
pub const MULTIPART_ABOVE: u64 = 8 << 20;
const PART_SIZE: usize = 8 << 20;
/// Parts in flight at once: memory stays near (1 + this) x [`PART_SIZE`].
const PARTS_IN_FLIGHT: usize = 2;
/// How long a reachability check (start, `/healthz`) may take.
const CHECK_TIMEOUT: Duration = Duration::from_secs(10);

/// One bucket (and key prefix), its client, its runtime and this node's cache of copies.
pub struct S3Blobs {
    /// `Some` until dropped; see `Drop`.
    runtime: Option<tokio::runtime::Runtime>,
    store: Arc<AmazonS3>,
    prefix: String,
    /// `<data>/cache/blobs`, with `tmp/` for copies being fetched.
    cache: PathBuf,
    /// `s3://bucket/prefix at <endpoint>`, for messages.
    described: String,
}

impl std::fmt::Debug for S3Blobs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("S3Blobs")
            .field("at", &self.described)
            .finish_non_exhaustive()
    }
}

/// A `NotFound` io error for a missing object; anything else is logged and [`StorageUnavailable`].
fn io_err(e: object_store::Error) -> io::Error {
    match e {
        object_store::Error::NotFound { .. } => io::Error::new(io::ErrorKind::NotFound, e),
        e => {
            let error = super::s3_error::one_line(&e.to_string());
            tracing::warn!(%error, "blob store request failed");
            io::Error::other(StorageUnavailable)
        }
    }
}

impl S3Blobs {
    /// A client for `bucket` with endpoint, region and credentials from the standard `AWS_*`
    /// variables (path-style requests; plain HTTP allowed when the endpoint is `http://`).
    /// Nothing is sent yet: see [`S3Blobs::check`].
    pub fn connect(bucket: &str, prefix: &str, cache: &Path) -> Result<S3Blobs, String> {
        // reqwest's rustls comes without a crypto provider here: use ring, like the rest of
        // the binary. Installing fails only when one is installed already, which is as good.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let endpoint = std::env::var("AWS_ENDPOINT_URL")
            .or_else(|_| std::env::var("AWS_ENDPOINT"))
            .ok();
        let allow_http = endpoint
            .as_deref()
            .is_some_and(|e| e.starts_with("http://"))
            || std::env::var("AWS_ALLOW_HTTP").is_ok_and(|v| v.eq_ignore_ascii_case("true"));
        let options = ClientOptions::new()
            .with_allow_http(allow_http)
            .with_connect_timeout(Duration::from_secs(5))
            .with_timeout(Duration::from_secs(300));
        let retry = RetryConfig {
            max_retries: 3,
            retry_timeout: Duration::from_secs(30),
            ..RetryConfig::default()
        };
        // Path-style requests (`<endpoint>/<bucket>/<key>`) for other S3 implementations, which
        // seldom have a DNS name per bucket; AWS itself gets the virtual-hosted style it prefers.
        let store = AmazonS3Builder::from_env()
            .with_bucket_name(bucket)
            .with_virtual_hosted_style_request(endpoint.is_none())
            .with_client_options(options)
            .with_retry(retry)
            .build()
            .map_err(|e| format!("S3 client for bucket {bucket}: {e}"))?;
        create_private_dir(&cache.join("tmp")).map_err(|e| format!("{}: {e}", cache.display()))?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("docket-s3")
            .enable_all()
            .build()
            .map_err(|e| format!("starting the S3 client's runtime: {e}"))?;
        let at = endpoint.unwrap_or_else(|| "AWS".into());
        let url = if prefix.is_empty() {
            format!("s3://{bucket}")
        } else {
            format!("s3://{bucket}/{prefix}")
        };
        Ok(S3Blobs {
            runtime: Some(runtime),
            store: Arc::new(store),
            prefix: prefix.to_string(),
            cache: cache.to_path_buf(),
            described: format!("{url} at {at}"),
        })
    }

    pub fn describe(&self) -> &str {
        &self.described
    }

    /// `<prefix>/<first two hex>/<id>`: the file store's layout.
    fn key(&self, id: &BlobId) -> Key {
        let id = id.as_str();
        if self.prefix.is_empty() {
            Key::from(format!("{}/{id}", &id[..2]))
        } else {
            Key::from(format!("{}/{}/{id}", self.prefix, &id[..2]))
        }
    }

    /// Where this node keeps its copy of `id`.
    fn cached_path(&self, id: &BlobId) -> PathBuf {
        let id = id.as_str();
        self.cache.join(&id[..2]).join(id)
    }

    fn handle(&self) -> io::Result<&tokio::runtime::Handle> {
        self.runtime
            .as_ref()
            .map(|r| r.handle())
            .ok_or_else(|| io::Error::other("the S3 client has stopped"))
    }

    /// Runs `fut` on the store's runtime and waits for it, from a blocking thread.
    fn run<T: Send + 'static>(
        &self,
        fut: impl Future<Output = T> + Send + 'static,
    ) -> io::Result<T> {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        self.handle()?.spawn(async move {
            let _ = tx.send(fut.await);
        });
        rx.recv().map_err(|_| io::Error::other(StorageUnavailable))
    }

    /// Runs `fut` on the store's runtime, from async code.
    async fn run_async<T: Send + 'static>(
        &self,
        fut: impl Future<Output = T> + Send + 'static,
    ) -> io::Result<T> {
        self.handle()?
            .spawn(fut)
            .await
            .map_err(|e| io::Error::other(format!("the S3 request failed: {e}")))
    }

    /// Lists at most one key under the prefix: proves the endpoint answers, the credentials are
    /// accepted and the bucket exists.
    async fn probe(store: Arc<AmazonS3>, prefix: String) -> Result<(), String> {
        let prefix = (!prefix.is_empty()).then(|| Key::from(prefix));
        let first = async move { store.list(prefix.as_ref()).next().await };
        match tokio::time::timeout(CHECK_TIMEOUT, first).await {
            Err(_) => Err(format!("no answer within {}s", CHECK_TIMEOUT.as_secs())),
            Ok(Some(Err(e))) => Err(super::s3_error::one_line(&e.to_string())),
            Ok(_) => Ok(()),
        }
    }

    /// [`S3Blobs::probe`] from a blocking thread (startup).
    pub fn check(&self) -> Result<(), String> {
        let probe = Self::probe(self.store.clone(), self.prefix.clone());
        self.run(probe).map_err(|e| e.to_string())?
    }

    /// [`S3Blobs::probe`] from async code (`/healthz`).
    pub async fn check_async(&self) -> Result<(), String> {
        let probe = Self::probe(self.store.clone(), self.prefix.clone());
        self.run_async(probe).await.map_err(|e| e.to_string())?
    }

    /// Puts `size` bytes read from `source` as blob `id`: one PUT up to [`MULTIPART_ABOVE`],
    /// else a multipart upload that is aborted when reading or sending fails, so that no object
    /// and no parts are left. The bytes are read on the calling (blocking) thread.
    pub fn upload(&self, id: &BlobId, source: &mut dyn Read, size: u64) -> io::Result<()> {
        let key = self.key(id);
        let store = self.store.clone();
        if size <= MULTIPART_ABOVE {
            let mut all = Vec::with_capacity(size as usize);
            source.read_to_end(&mut all)?;
            return self
                .run(async move { store.put(&key, Bytes::from(all).into()).await })?
                .map(drop)
                .map_err(io_err);
        }
        let upload = self
            .run(async move { store.put_multipart(&key).await })?
            .map_err(io_err)?;
        let mut writer = WriteMultipart::new_with_chunk_size(upload, PART_SIZE);
        let mut sent = 0u64;
        let failure = loop {
            let mut part = Vec::with_capacity(PART_SIZE);
            match source.take(PART_SIZE as u64).read_to_end(&mut part) {
                Err(e) => break Some(e),
                Ok(0) => break (sent != size).then(|| io::Error::other("the blob got shorter")),
                Ok(n) => sent += n as u64,
            }
            // `put` starts the part's upload on the runtime; waiting for capacity first keeps
            // at most PARTS_IN_FLIGHT parts in memory.
            let step = self.run(async move {
                let waited = writer.wait_for_capacity(PARTS_IN_FLIGHT).await;
                if waited.is_ok() {
                    writer.put(Bytes::from(part));
                }
                (writer, waited)
            })?;
            writer = step.0;
            if let Err(e) = step.1 {
                break Some(io_err(e));
            }
        };
        match failure {
            None => self
                .run(async move { writer.finish().await })?
                .map(drop)
                .map_err(io_err),
            Some(e) => {
                if let Ok(Err(abort)) = self.run(async move { writer.abort().await }) {
                    let error = super::s3_error::one_line(&abort.to_string());
                    tracing::warn!(blob = %id, %error, "aborting a multipart upload failed; the bucket's lifecycle rule for incomplete uploads removes its parts");
                }
                Err(e)
            }
        }
    }

    /// The blob's bytes: this node's copy when it has one, else the object.
    pub fn read(&self, id: &BlobId) -> io::Result<Vec<u8>> {
        match fs::read(self.cached_path(id)) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            other => return other,
        }
        let (store, key) = (self.store.clone(), self.key(id));
        self.run(async move {
            let got = store.get(&key).await?;
            got.bytes().await
        })?
        .map(|b| b.to_vec())
        .map_err(io_err)
    }

    /// [`S3Blobs::read`] from async code.
    pub async fn read_async(&self, id: &BlobId) -> io::Result<Vec<u8>> {
        match tokio::fs::read(self.cached_path(id)).await {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            other => return other,
        }
        let (store, key) = (self.store.clone(), self.key(id));
        self.run_async(async move {
            let got = store.get(&key).await?;
            got.bytes().await
        })
        .await?
        .map(|b| b.to_vec())
        .map_err(io_err)
    }

    /// This node's copy of the blob, fetched from the bucket when missing: streamed into a temp
    /// file, fsynced and renamed into place, so a reader never sees half a copy.
    pub fn local_copy(&self, id: &BlobId) -> io::Result<PathBuf> {
        let dest = self.cached_path(id);
        if dest.is_file() {
            return Ok(dest);
        }
        let tmp = self
            .cache
            .join("tmp")
            .join(format!("{id}.{}", crate::core::crypto::random_base62(8)));
        let fetched = self.fetch_into(id, &tmp);
        if let Err(e) = fetched {
            let _ = fs::remove_file(&tmp);
            return Err(e);
        }
        let dir = dest.parent().expect("cache paths have a parent");
        create_private_dir(dir)?;
        fs::rename(&tmp, &dest)?;
        sync_dir(dir)?;
        Ok(dest)
    }

    fn fetch_into(&self, id: &BlobId, tmp: &Path) -> io::Result<()> {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(tmp)?;
        let (store, key) = (self.store.clone(), self.key(id));
        let got = self
            .run(async move { store.get(&key).await })?
            .map_err(io_err)?;
        let expected = got.meta.size;
        let mut stream = got.into_stream();
        let mut written = 0u64;
        loop {
            let (next, rest) = self.run(async move { (stream.next().await, stream) })?;
            stream = rest;
            match next {
                None => break,
                Some(chunk) => {
                    let chunk = chunk.map_err(io_err)?;
                    file.write_all(&chunk)?;
                    written += chunk.len() as u64;
                }
            }
        }
        if written != expected {
            return Err(io::Error::other(format!(
                "blob {id}: got {written} of {expected} bytes from the bucket"
            )));
        }
        file.sync_all()
    }

    pub fn exists(&self, id: &BlobId) -> io::Result<bool> {
        let (store, key) = (self.store.clone(), self.key(id));
        match self.run(async move { store.head(&key).await })? {
            Ok(_) => Ok(true),
            Err(object_store::Error::NotFound { .. }) => Ok(false),
            Err(e) => Err(io_err(e)),
        }
    }

    /// Deletes the object and this node's copy; deleting one that is gone is not an error.
    /// (Other nodes' copies of a deleted blob are never served: nothing refers to it any more,
    /// and they go when their node restarts, see [`S3Blobs::clean_cache`].)
    pub fn delete(&self, id: &BlobId) -> io::Result<()> {
        match fs::remove_file(self.cached_path(id)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        let (store, key) = (self.store.clone(), self.key(id));
        match self.run(async move { store.delete(&key).await })? {
            Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
            Err(e) => Err(io_err(e)),
        }
    }

    /// Removes cached copies (and unfinished fetches) last written more than `age` ago: they are
    /// fetched again when needed. Answers how many files went.
    pub fn clean_cache(&self, age: Duration) -> io::Result<usize> {
        let mut removed = 0;
        for dir in fs::read_dir(&self.cache)? {
            let dir = dir?;
            if !dir.file_type()?.is_dir() {
                continue;
            }
            removed += super::store::remove_older_than(&dir.path(), age)?;
        }
        Ok(removed)
    }

    /// The blobs under the prefix whose objects were last modified longer than `age` ago
    /// (by the bucket's clock; a multipart upload counts from its start). Keys not shaped as
    /// this store's blobs (another store's deeper prefix, stray objects) are left out.
    pub fn committed_older_than(&self, age: Duration) -> io::Result<Vec<BlobId>> {
        let store = self.store.clone();
        let prefix = self.prefix.clone();
        self.run(async move {
            let under = (!prefix.is_empty()).then(|| Key::from(prefix.clone()));
            let mut listing = store.list(under.as_ref());
            let mut old = Vec::new();
            while let Some(meta) = listing.next().await {
                let meta = meta?;
                let modified = std::time::SystemTime::from(meta.last_modified);
                if let Some(id) = blob_of_key(&prefix, meta.location.as_ref())
                    && modified.elapsed().is_ok_and(|e| e >= age)
                {
                    old.push(id);
                }
            }
            Ok(old)
        })?
        .map_err(io_err)
    }

    /// Keys under the prefix, for tests and checks.
    pub fn list_keys(&self) -> io::Result<Vec<String>> {
        let store = self.store.clone();
        let prefix = (!self.prefix.is_empty()).then(|| Key::from(self.prefix.clone()));
        self.run(async move {
            let found: Vec<_> = store.list(prefix.as_ref()).collect().await;
            found
                .into_iter()
                .map(|m| m.map(|m| m.location.to_string()))
                .collect::<Result<Vec<_>, _>>()
        })?
        .map_err(io_err)
    }
}

/// The blob whose key under `prefix` is `key` (`<prefix>/<2 hex>/<id>`, as [`S3Blobs::key`]
/// makes it), or `None` for any other key.
fn blob_of_key(prefix: &str, key: &str) -> Option<BlobId> {
    let rest = match prefix {
        "" => key,
        p => key.strip_prefix(p)?.strip_prefix('/')?,
    };
    let (shard, id) = rest.split_once('/')?;
    let id = BlobId::parse(id)?;
    (super::sweep::is_shard(shard) && id.as_str().starts_with(shard)).then_some(id)
}

impl Drop for S3Blobs {
    /// Dropping a runtime waits for its threads, which panics on an async thread (the last
    /// clone of the store may go there): let them finish in the background instead.
    fn drop(&mut self) {
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::error::AppError;

    #[test]
    fn only_keys_shaped_as_this_stores_blobs_are_its_blobs() {
        let id = "ab0123456789abcdef0123456789abcd";
        assert_eq!(
            blob_of_key("", &format!("ab/{id}")).map(|b| b.to_string()),
            Some(id.to_string())
        );
        assert!(blob_of_key("n1", &format!("n1/ab/{id}")).is_some());
        assert!(blob_of_key("n1/deep", &format!("n1/deep/ab/{id}")).is_some());
        for other in [
            format!("n2/ab/{id}"),
            format!("n1/ab/{id}/x"),
            format!("n1/cd/{id}"),
            format!("n1/x/ab/{id}"),
            format!("n1ab/{id}"),
            format!("n1/ab/{}", id.to_uppercase()),
            "n1/ab/short".to_string(),
            "n1/README".to_string(),
        ] {
            assert_eq!(blob_of_key("n1", &other), None, "{other}");
        }
        // Another store's deeper prefix in the same bucket is not this one's.
        assert_eq!(blob_of_key("", &format!("n1/ab/{id}")), None);
    }

    #[test]
    fn a_failing_bucket_is_a_503_and_a_missing_object_not_found() {
        let failed = io_err(object_store::Error::Generic {
            store: "S3",
            source: "connection refused".into(),
        });
        let e = AppError::from(failed);
        assert_eq!(e.status(), http::StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(
            e.public_message(),
            "the file storage is unavailable; try again later"
        );
        let missing = io_err(object_store::Error::NotFound {
            path: "ab/ab01".into(),
            source: "404".into(),
        });
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
        let plain = AppError::from(io::Error::other("disk full"));
        assert_eq!(plain.status(), http::StatusCode::INTERNAL_SERVER_ERROR);
    }
}
