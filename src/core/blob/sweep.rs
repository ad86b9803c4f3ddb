//! The sweep of what the blob store holds that nothing refers to: temp files an upload left
//! when its node died, blob files (or objects) whose row never committed (the node died between
//! storing the file and committing the transaction that records it), and with S3 the
//! node-local copies of blobs fetched for page renders. Runs shortly after start and then every
//! [`EVERY`]; blob files with no row are looked for every [`ORPHAN_ROUNDS`] rounds, as that
//! lists the whole store.
//!
//! What keeps a live blob safe: a blob is stored (renamed into place, or put to the bucket)
//! just before the transaction that inserts its row, and both happen within one request or
//! one sealing; only files last written longer than the grace period ago ([`GRACE`], a day)
//! are candidates, and their rows are looked up after the store was listed, so a row
//! committed while the sweep lists is seen. Deleting a live blob would take an upload whose
//! row commits more than the grace period after its file was last written.

use std::collections::HashSet;
use std::fs;
use std::io;
use std::path::Path;
use std::time::Duration;

use super::{BlobId, BlobStore};
use crate::core::db::Db;
use crate::core::retry::Stop;

/// How often the sweep runs.
pub const EVERY: Duration = Duration::from_secs(3600);
/// How long a temp file or a blob with no row is left alone (`--orphan-grace-secs`, hidden,
/// for tests, changes it): far longer than any upload or sealing takes from its last write
/// to its commit.
pub const GRACE: Duration = Duration::from_secs(24 * 3600);
/// The rounds between two looks for blobs with no row (the first round looks): daily.
pub const ORPHAN_ROUNDS: u64 = 24;
/// Ids looked up in one query.
const BATCH: usize = 500;

/// Sweeps at once, then every `every` until a stop is requested.
pub async fn run(blobs: BlobStore, db: Db, grace: Duration, every: Duration, mut stop: Stop) {
    for round in 0u64.. {
        if round > 0 {
            tokio::select! {
                _ = stop.wait() => return,
                _ = tokio::time::sleep(every) => {}
            }
        }
        let (store, db) = (blobs.clone(), db.clone());
        let orphans = round % ORPHAN_ROUNDS == 0;
        let swept = tokio::task::spawn_blocking(move || -> Result<_, String> {
            let temp = store
                .clean_stale_temp(grace)
                .map_err(|e| format!("temp files: {e}"))?;
            let unreferenced = match orphans {
                true => remove_orphans(&store, &db, grace)?,
                false => 0,
            };
            Ok((temp, unreferenced))
        });
        match swept.await {
            Ok(Ok((0, 0))) => {}
            Ok(Ok((temp, unreferenced))) => tracing::info!(
                temp_files = temp,
                blobs_without_row = unreferenced,
                "removed what unfinished uploads left and stale cached copies"
            ),
            Ok(Err(e)) => tracing::warn!(error = %e, "the blob sweep failed; it runs again later"),
            Err(e) => tracing::warn!(error = %e, "the blob sweep task failed"),
        }
    }
}

/// Removes the committed blobs last written longer than `grace` ago that no row refers to;
/// answers how many went. Blocking.
pub fn remove_orphans(blobs: &BlobStore, db: &Db, grace: Duration) -> Result<usize, String> {
    // Listed first, looked up after: a row committed in between is seen.
    let old = blobs
        .committed_older_than(grace)
        .map_err(|e| format!("listing the blobs: {e}"))?;
    remove_unreferenced(blobs, db, &old)
}

/// Of `candidates`, removes those with no row in `blobs`, looking the rows up now.
fn remove_unreferenced(blobs: &BlobStore, db: &Db, candidates: &[BlobId]) -> Result<usize, String> {
    let mut removed = 0;
    for chunk in candidates.chunks(BATCH) {
        let ids: Vec<String> = chunk.iter().map(|id| id.as_str().to_string()).collect();
        let present: HashSet<String> = db
            .read_blocking(move |c| Ok(super::rows::present(c, &ids)?))
            .map_err(|e| format!("looking up blob rows: {e}"))?;
        for id in chunk.iter().filter(|id| !present.contains(id.as_str())) {
            blobs
                .delete(id)
                .map_err(|e| format!("removing blob {id}: {e}"))?;
            tracing::info!(blob = %id, "removed a blob no row refers to");
            removed += 1;
        }
    }
    Ok(removed)
}

/// The file backend's committed blobs under `root` (`<2 hex>/<id>`) last written longer than
/// `age` ago; anything else there (`tmp/`, stray files) is not a blob and is left alone.
pub(super) fn committed_files_older_than(root: &Path, age: Duration) -> io::Result<Vec<BlobId>> {
    let mut old = Vec::new();
    for dir in fs::read_dir(root)? {
        let dir = dir?;
        let name = dir.file_name();
        let Some(shard) = name.to_str().filter(|n| is_shard(n)) else {
            continue;
        };
        if !dir.file_type()?.is_dir() {
            continue;
        }
        for file in fs::read_dir(dir.path())? {
            let file = file?;
            let Some(id) = file.file_name().to_str().and_then(BlobId::parse) else {
                continue;
            };
            if !id.as_str().starts_with(shard) {
                continue;
            }
            // A blob deleted while the sweep lists is simply not a candidate.
            let modified = match file.metadata().and_then(|m| m.modified()) {
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                other => other?,
            };
            if modified.elapsed().is_ok_and(|e| e >= age) {
                old.push(id);
            }
        }
    }
    Ok(old)
}

/// A directory of blobs: two lowercase hex characters.
pub(super) fn is_shard(name: &str) -> bool {
    name.len() == 2 && name.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

#[cfg(test)]
mod tests;
