//! What a use case may use: the database gateways, the blob store, the background workers' wake
//! handles, the watch on free disk space and the base of signing links. Built from the composition root's parts; cheap to
//! clone; knows nothing of HTTP.

use crate::core::blob::BlobStore;
use crate::core::db::Db;
use crate::core::retry::Workers;

#[derive(Clone)]
pub struct Context {
    pub db: Db,
    pub blobs: BlobStore,
    pub workers: Workers,
    /// The base of signing links (`--app-url`), without a trailing slash.
    pub app: String,
    /// Free space where this node writes: new work asks it first (`admit_new_work`).
    pub disk: crate::core::disk_space::DiskSpace,
}

impl Context {
    /// Whether new work (a document, a template, an upload) may start: 507 while the disk is
    /// below `--min-free-mb`. Work already under way (signing a document already sent, its
    /// sealing, reads and downloads) does not ask, and goes on in the room left.
    pub fn admit_new_work(&self) -> Result<(), crate::core::error::AppError> {
        Ok(self.disk.admit_new_work()?)
    }

    /// Deletes a blob file off the async threads; a failure leaves an orphan that the next
    /// backup reports, never a broken row, so it is not an error for the caller.
    pub async fn discard_blob(&self, id: crate::core::blob::BlobId) {
        let blobs = self.blobs.clone();
        let _ = tokio::task::spawn_blocking(move || blobs.delete(&id)).await;
    }
}

#[cfg(test)]
impl Context {
    /// A context over `db` for unit tests: blobs under `dir`, workers that nobody runs.
    pub fn for_tests(db: Db, dir: &std::path::Path) -> Self {
        Context {
            db,
            blobs: BlobStore::open(&dir.join("blobs")).expect("a blob store"),
            workers: Default::default(),
            app: "https://sign.example".into(),
            disk: crate::core::disk_space::DiskSpace::unlimited(),
        }
    }
}
