//! The hourly sweep of what a node keeps on the side of the blob store: temp files an upload
//! left by a crash, and (with S3) the node-local copies of blobs fetched for page renders. At
//! start the same sweep runs once (`app::open_stores`); a node that runs for months sweeps on.

use std::time::Duration;

use super::BlobStore;
use crate::retry::Stop;

/// How often the sweep runs.
pub const EVERY: Duration = Duration::from_secs(3600);
/// What the sweep removes: files older than this.
pub const OLDER_THAN: Duration = Duration::from_secs(24 * 3600);

/// Sweeps every `every` until a stop is requested.
pub async fn run(blobs: BlobStore, every: Duration, mut stop: Stop) {
    loop {
        tokio::select! {
            _ = stop.wait() => return,
            _ = tokio::time::sleep(every) => {}
        }
        let store = blobs.clone();
        match tokio::task::spawn_blocking(move || store.clean_stale_temp(OLDER_THAN)).await {
            Ok(Ok(0)) => {}
            Ok(Ok(n)) => tracing::info!(
                files = n,
                "removed stale upload temp files and cached copies"
            ),
            Ok(Err(e)) => tracing::warn!(error = %e, "the blob sweep failed; it runs again later"),
            Err(e) => tracing::warn!(error = %e, "the blob sweep task failed"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn removes_old_temp_files_on_its_round_and_stops_when_asked() {
        let tmp = tempfile::tempdir().unwrap();
        let store = BlobStore::open(&tmp.path().join("blobs")).unwrap();
        let old = tmp.path().join("blobs/tmp/upload-left-by-a-crash");
        std::fs::write(&old, b"partial").unwrap();
        let two_days_ago = std::time::SystemTime::now() - Duration::from_secs(48 * 3600);
        std::fs::File::options()
            .write(true)
            .open(&old)
            .unwrap()
            .set_modified(two_days_ago)
            .unwrap();
        let young = tmp.path().join("blobs/tmp/upload-in-progress");
        std::fs::write(&young, b"partial").unwrap();

        let (stop_tx, stop) = Stop::new();
        let sweeper = tokio::spawn(run(store, Duration::from_millis(50), stop));
        for _ in 0..100 {
            if !old.exists() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(!old.exists(), "the old temp file is swept");
        assert!(young.exists(), "a young one may be an upload in progress");
        stop_tx.send_replace(true);
        tokio::time::timeout(Duration::from_secs(5), sweeper)
            .await
            .expect("the sweeper stops")
            .unwrap();
    }
}
