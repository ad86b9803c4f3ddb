use std::time::SystemTime;

use super::*;
use crate::core::blob::store::StoredBlob;

const DAY: Duration = Duration::from_secs(24 * 3600);

/// Sets the file's last write `ago` back.
fn age(path: &Path, ago: Duration) {
    fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(SystemTime::now() - ago)
        .unwrap();
}

fn record(db: &Db, blob: &StoredBlob) {
    let blob = blob.clone();
    db.write_blocking(move |c| {
        crate::core::blob::rows::insert_pdf(c, &blob, crate::core::db::now())
    })
    .unwrap();
}

#[tokio::test]
async fn removes_old_temp_files_on_its_round_and_stops_when_asked() {
    let tmp = tempfile::tempdir().unwrap();
    let store = BlobStore::open(&tmp.path().join("blobs")).unwrap();
    let old = tmp.path().join("blobs/tmp/upload-left-by-a-crash");
    std::fs::write(&old, b"partial").unwrap();
    age(&old, 2 * DAY);
    let young = tmp.path().join("blobs/tmp/upload-in-progress");
    std::fs::write(&young, b"partial").unwrap();

    let (stop_tx, stop) = Stop::new();
    let sweeper = tokio::spawn(run(
        store,
        Db::memory(),
        GRACE,
        Duration::from_millis(50),
        stop,
    ));
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

#[test]
fn only_old_blobs_without_a_row_go() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("blobs");
    let store = BlobStore::open(&root).unwrap();
    let db = Db::memory();
    let live = store.put(b"%PDF-1.7 live").unwrap();
    record(&db, &live);
    let orphan = store.put(b"%PDF-1.7 its row never committed").unwrap();
    let young = store.put(b"%PDF-1.7 its row is about to commit").unwrap();
    for blob in [&live, &orphan] {
        age(&store.file_path(&blob.id), 2 * DAY);
    }
    // Not blobs: left alone whatever their age.
    let strays = [
        root.join("README"),
        root.join(&live.id.as_str()[..2]).join("notes.txt"),
        root.join("zz").join(live.id.as_str()),
    ];
    for stray in &strays {
        fs::create_dir_all(stray.parent().unwrap()).unwrap();
        fs::write(stray, b"x").unwrap();
        age(stray, 2 * DAY);
    }
    let elsewhere = root.join("ff").join(orphan.id.as_str());
    fs::create_dir_all(elsewhere.parent().unwrap()).unwrap();
    if !orphan.id.as_str().starts_with("ff") {
        fs::write(&elsewhere, b"x").unwrap();
        age(&elsewhere, 2 * DAY);
    }

    assert_eq!(remove_orphans(&store, &db, GRACE), Ok(1));
    assert!(!store.exists(&orphan.id).unwrap(), "the orphan goes");
    assert_eq!(store.read(&live.id).unwrap(), b"%PDF-1.7 live");
    assert!(store.exists(&young.id).unwrap(), "within the grace period");
    for stray in &strays {
        assert!(stray.exists(), "{}", stray.display());
    }
    assert_eq!(remove_orphans(&store, &db, GRACE), Ok(0), "nothing more");
}

#[test]
fn a_row_committed_after_the_listing_keeps_its_blob() {
    let tmp = tempfile::tempdir().unwrap();
    let store = BlobStore::open(&tmp.path().join("blobs")).unwrap();
    let db = Db::memory();
    let late = store.put(b"%PDF-1.7 recorded late").unwrap();
    let listed = store.committed_older_than(Duration::ZERO).unwrap();
    assert_eq!(listed, vec![late.id.clone()]);
    // The transaction that refers to it commits while the sweep is between its two steps.
    record(&db, &late);
    assert_eq!(remove_unreferenced(&store, &db, &listed), Ok(0));
    assert!(store.exists(&late.id).unwrap());
}

#[test]
fn many_candidates_are_looked_up_in_batches() {
    let tmp = tempfile::tempdir().unwrap();
    let store = BlobStore::open(&tmp.path().join("blobs")).unwrap();
    let db = Db::memory();
    let mut kept = Vec::new();
    for i in 0..(BATCH + 20) {
        let blob = store.put(format!("%PDF-1.7 {i}").as_bytes()).unwrap();
        if i % 2 == 0 {
            record(&db, &blob);
            kept.push(blob.id);
        }
    }
    let removed = remove_orphans(&store, &db, Duration::ZERO).unwrap();
    assert_eq!(removed, (BATCH + 20) / 2);
    let mut left = store.committed_older_than(Duration::ZERO).unwrap();
    left.sort_by(|a, b| a.as_str().cmp(b.as_str()));
    kept.sort_by(|a, b| a.as_str().cmp(b.as_str()));
    assert_eq!(left, kept);
}
