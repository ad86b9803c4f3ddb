//! The S3 backend against an S3 server: run with `DOCKET_TEST_BLOB_URL=s3://bucket` and the
//! `AWS_*` variables set (`eval "$(tests/s3/moto.sh start)"`, or `garage.sh`, gives both);
//! skipped otherwise.
//! Each test works under a prefix of its own, so they run side by side on one bucket.

use std::io::{self, Read};

use super::s3::{MULTIPART_ABOVE, S3Blobs};
use super::{BlobId, BlobStore, BlobUrl};

/// The test bucket's URL with a fresh prefix under it, or `None` (and a notice) when unset.
fn test_url(test: &str) -> Option<BlobUrl> {
    let Ok(raw) = std::env::var("DOCKET_TEST_BLOB_URL") else {
        eprintln!(
            "skipping {test}: set DOCKET_TEST_BLOB_URL=s3://bucket and AWS_* \
             (eval \"$(tests/s3/moto.sh start)\")"
        );
        return None;
    };
    match BlobUrl::parse(&raw).expect("DOCKET_TEST_BLOB_URL parses") {
        BlobUrl::S3 { bucket, prefix } => {
            let run = format!(
                "t-{}",
                crate::core::crypto::random_base62(10).to_lowercase()
            );
            let prefix = if prefix.is_empty() {
                run
            } else {
                format!("{prefix}/{run}")
            };
            Some(BlobUrl::S3 { bucket, prefix })
        }
        BlobUrl::File => panic!("DOCKET_TEST_BLOB_URL must be an s3:// URL"),
    }
}

fn open(url: &BlobUrl, dir: &std::path::Path) -> BlobStore {
    BlobStore::open_url(url, &dir.join("blobs"), &dir.join("cache")).unwrap()
}

/// Bytes that do not compress or repeat, so a part mixed up would show.
fn noise(len: usize) -> Vec<u8> {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

#[test]
fn small_blob_put_read_exists_delete() {
    let Some(url) = test_url("small_blob_put_read_exists_delete") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let store = open(&url, tmp.path());
    let b = store.put(b"%PDF-1.7 in a bucket").unwrap();
    assert_eq!(
        b.sha256,
        crate::core::crypto::sha256_hex(b"%PDF-1.7 in a bucket")
    );
    assert!(store.exists(&b.id).unwrap());
    assert_eq!(store.read(&b.id).unwrap(), b"%PDF-1.7 in a bucket");
    let keys = store.remote_keys().unwrap();
    let BlobUrl::S3 { prefix, .. } = &url else {
        unreachable!()
    };
    assert_eq!(keys, [format!("{prefix}/{}/{}", &b.id.as_str()[..2], b.id)]);
    // Nothing of it stays on this node: the temp file went, no copy was needed.
    assert_eq!(
        std::fs::read_dir(tmp.path().join("blobs/tmp"))
            .unwrap()
            .count(),
        0
    );
    assert!(!tmp.path().join("blobs").join(&b.id.as_str()[..2]).exists());

    store.delete(&b.id).unwrap();
    store.delete(&b.id).unwrap();
    assert!(!store.exists(&b.id).unwrap());
    assert_eq!(
        store.read(&b.id).unwrap_err().kind(),
        io::ErrorKind::NotFound
    );
    assert!(store.remote_keys().unwrap().is_empty());
}

#[test]
fn large_blob_goes_up_in_parts_and_comes_back_whole() {
    let Some(url) = test_url("large_blob_goes_up_in_parts_and_comes_back_whole") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let store = open(&url, tmp.path());
    let data = noise(2 * MULTIPART_ABOVE as usize + 12345);
    let mut w = store.begin().unwrap();
    for piece in data.chunks(256 * 1024) {
        w.write_all(piece).unwrap();
    }
    let b = w.commit().unwrap();
    assert_eq!(b.size, data.len() as u64);
    assert_eq!(b.sha256, crate::core::crypto::sha256_hex(&data));
    assert!(store.read(&b.id).unwrap() == data);
    assert_eq!(store.remote_keys().unwrap().len(), 1);
    let BlobUrl::S3 { bucket, prefix } = &url else {
        unreachable!()
    };
    assert_eq!(unfinished_uploads(bucket, prefix), Vec::<String>::new());
    store.delete(&b.id).unwrap();
    assert!(store.remote_keys().unwrap().is_empty());
}

#[test]
fn a_copy_is_fetched_on_a_miss_and_kept() {
    let Some(url) = test_url("a_copy_is_fetched_on_a_miss_and_kept") else {
        return;
    };
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    // Two nodes: one writes, the other has never seen the blob.
    let writer = open(&url, a.path());
    let reader = open(&url, b.path());
    let data = noise(MULTIPART_ABOVE as usize + 1);
    let blob = writer.put(&data).unwrap();
    let path = reader.local_path(&blob.id).unwrap();
    assert!(path.starts_with(b.path().join("cache")));
    assert!(std::fs::read(&path).unwrap() == data);
    assert_eq!(
        reader
            .open_blob(&blob.id)
            .unwrap()
            .metadata()
            .unwrap()
            .len(),
        data.len() as u64
    );
    // A hit does not fetch again: the copy stays even once the object is gone.
    writer.delete(&blob.id).unwrap();
    assert_eq!(reader.local_path(&blob.id).unwrap(), path);
    assert_eq!(
        std::fs::read_dir(b.path().join("cache/tmp"))
            .unwrap()
            .count(),
        0
    );
    // Copies are a cache: the start-up sweep removes old ones (here: all of them).
    assert_eq!(
        reader.clean_stale_temp(std::time::Duration::ZERO).unwrap(),
        1
    );
    assert!(!path.exists());
    assert_eq!(
        reader.local_path(&blob.id).unwrap_err().kind(),
        io::ErrorKind::NotFound
    );
    // The node that deletes drops its own copy too; a missing object is NotFound.
    let again = writer.put(&data).unwrap();
    let path = reader.local_path(&again.id).unwrap();
    reader.delete(&again.id).unwrap();
    assert!(!path.exists());
    assert_eq!(
        reader.local_path(&blob.id).unwrap_err().kind(),
        io::ErrorKind::NotFound
    );
    assert_eq!(
        std::fs::read_dir(b.path().join("cache/tmp"))
            .unwrap()
            .count(),
        0
    );
}

#[test]
fn an_abandoned_writer_leaves_no_object() {
    let Some(url) = test_url("an_abandoned_writer_leaves_no_object") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let store = open(&url, tmp.path());
    let id;
    {
        let mut w = store.begin().unwrap();
        w.write_all(&noise(MULTIPART_ABOVE as usize * 2)).unwrap();
        id = w.id().clone();
    }
    assert!(!store.exists(&id).unwrap());
    assert!(store.remote_keys().unwrap().is_empty());
    assert_eq!(
        std::fs::read_dir(tmp.path().join("blobs/tmp"))
            .unwrap()
            .count(),
        0
    );
}

/// A source that fails after `ok` bytes, like a temp file on a failing disk.
struct FailsAfter {
    ok: usize,
}

impl Read for FailsAfter {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.ok == 0 {
            return Err(io::Error::other("disk on fire"));
        }
        let n = buf.len().min(self.ok);
        buf[..n].fill(7);
        self.ok -= n;
        Ok(n)
    }
}

/// The keys of multipart uploads begun under `prefix` and neither completed nor aborted: S3's
/// ListMultipartUploads, which object_store does not offer, signed with its SigV4 code.
fn unfinished_uploads(bucket: &str, prefix: &str) -> Vec<String> {
    use object_store::aws::{AwsAuthorizer, AwsCredential};
    let var = |k: &str| std::env::var(k).unwrap_or_else(|_| panic!("{k} is set"));
    let credential = AwsCredential {
        key_id: var("AWS_ACCESS_KEY_ID"),
        secret_key: var("AWS_SECRET_ACCESS_KEY"),
        token: None,
    };
    let region = var("AWS_REGION");
    let url = format!(
        "{}/{bucket}?prefix={prefix}%2F&uploads=",
        var("AWS_ENDPOINT_URL").trim_end_matches('/')
    );
    let mut request = http::Request::builder()
        .method("GET")
        .uri(&url)
        .body(object_store::client::HttpRequestBody::from(Vec::new()))
        .unwrap();
    AwsAuthorizer::new(&credential, "s3", &region)
        .try_authorize(&mut request, None)
        .unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let body = rt.block_on(async {
        let resp = http_client::Client::new()
            .get(&url)
            .headers(request.headers().clone())
            .send()
            .await
            .unwrap();
        assert!(resp.status().is_success(), "{}", resp.status());
        resp.text().await.unwrap()
    });
    body.split("<Key>")
        .skip(1)
        .filter_map(|k| k.split("</Key>").next())
        .map(str::to_string)
        .collect()
}

#[test]
fn a_multipart_upload_that_fails_midway_is_aborted() {
    let Some(BlobUrl::S3 { bucket, prefix }) =
        test_url("a_multipart_upload_that_fails_midway_is_aborted")
    else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let s3 = S3Blobs::connect(&bucket, &prefix, tmp.path()).unwrap();
    let id = BlobId::generate();
    let size = 3 * MULTIPART_ABOVE;
    // Two parts go up before the source fails.
    let mut source = FailsAfter {
        ok: 2 * MULTIPART_ABOVE as usize + 10,
    };
    let err = s3.upload(&id, &mut source, size).unwrap_err();
    assert!(err.to_string().contains("disk on fire"), "{err}");
    assert!(!s3.exists(&id).unwrap());
    assert!(s3.list_keys().unwrap().is_empty());
    // Its parts went too: the upload was aborted, not just left unfinished.
    assert_eq!(unfinished_uploads(&bucket, &prefix), Vec::<String>::new());
}

#[test]
fn a_bucket_that_does_not_exist_is_refused_at_open() {
    let Some(BlobUrl::S3 { bucket, .. }) =
        test_url("a_bucket_that_does_not_exist_is_refused_at_open")
    else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let missing = BlobUrl::S3 {
        bucket: format!("{bucket}-missing"),
        prefix: String::new(),
    };
    let err =
        BlobStore::open_url(&missing, &tmp.path().join("b"), &tmp.path().join("c")).unwrap_err();
    assert!(
        err.starts_with(&format!("blob store s3://{bucket}-missing at ")),
        "{err}"
    );
}

#[test]
fn sync_calls_work_inside_spawn_blocking_and_the_store_drops_on_an_async_thread() {
    let Some(url) = test_url("sync_calls_work_inside_spawn_blocking") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let dir = tmp.path().to_path_buf();
    rt.block_on(async move {
        let store = tokio::task::spawn_blocking(move || open(&url, &dir))
            .await
            .unwrap();
        let s = store.clone();
        let id = tokio::task::spawn_blocking(move || s.put(b"%PDF-1.7 x").unwrap().id)
            .await
            .unwrap();
        assert_eq!(store.read_async(&id).await.unwrap(), b"%PDF-1.7 x");
        assert!(store.check().await.is_ok());
        let s = store.clone();
        tokio::task::spawn_blocking(move || s.delete(&id).unwrap())
            .await
            .unwrap();
        // The last clone goes here, on an async thread: its runtime must not block or panic.
        drop(store);
    });
}

#[test]
fn the_orphan_sweep_removes_objects_without_a_row_and_keeps_the_rest() {
    let Some(url) = test_url("the_orphan_sweep_removes_objects_without_a_row") else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let store = open(&url, tmp.path());
    let db = crate::core::db::Db::memory();
    let live = store.put(b"%PDF-1.7 recorded").unwrap();
    let recorded = live.clone();
    db.write_blocking(move |c| super::rows::insert_pdf(c, &recorded, crate::core::db::now()))
        .unwrap();
    let orphan = store.put(b"%PDF-1.7 never recorded").unwrap();
    // Young objects are left alone: an upload's row may be about to commit.
    let grace = std::time::Duration::from_secs(3600);
    assert_eq!(super::sweep::remove_orphans(&store, &db, grace), Ok(0));
    assert!(store.exists(&orphan.id).unwrap());
    let mut listed = store
        .committed_older_than(std::time::Duration::ZERO)
        .unwrap();
    listed.sort_by(|a, b| a.as_str().cmp(b.as_str()));
    let mut both = vec![live.id.clone(), orphan.id.clone()];
    both.sort_by(|a, b| a.as_str().cmp(b.as_str()));
    assert_eq!(listed, both);
    let none = std::time::Duration::ZERO;
    assert_eq!(super::sweep::remove_orphans(&store, &db, none), Ok(1));
    assert!(!store.exists(&orphan.id).unwrap(), "the orphan object goes");
    assert_eq!(store.read(&live.id).unwrap(), b"%PDF-1.7 recorded");
}
