//! The page cache with real renders (the binary's `render-page` in child processes): hits,
//! torn files, shared renders, warming, errors and placeholders, removal.

use std::path::{Path, PathBuf};
use std::time::Duration;

use docket::core::blob::BlobId;
use docket::{
    signing::pdf::PageCache, signing::pdf::PageWidth, signing::pdf::RenderError,
    signing::pdf::RenderLimits,
};

use crate::support::BIN;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/pdf")
        .join(name)
}

fn open(root: &Path, workers: usize) -> PageCache {
    PageCache::open(
        root,
        RenderLimits {
            exe: BIN.into(),
            workers,
            timeout: Duration::from_secs(30),
            memory_bytes: 512 << 20,
        },
    )
    .unwrap()
}

fn width(px: u32) -> PageWidth {
    PageWidth::parse(px).unwrap()
}

const A4: (f32, f32) = (595.0, 842.0);

/// Page `index` of `pdf` at 800 px, rendered in this process: what the cache must hand out.
fn rendered_here(pdf: &Path, index: usize) -> Vec<u8> {
    let loaded = docket::signing::pdf::LoadedPdf::open(pdf).unwrap();
    docket::signing::pdf::render_page(&loaded, index, 800).unwrap()
}

fn png_size(png_bytes: &[u8]) -> (u32, u32) {
    png::Decoder::new(std::io::Cursor::new(png_bytes))
        .read_info()
        .unwrap()
        .info()
        .size()
}

fn temp_files(root: &Path) -> usize {
    std::fs::read_dir(root.join("tmp")).unwrap().count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_request_is_served_from_disk_without_rendering() {
    let dir = tempfile::tempdir().unwrap();
    let cache = open(dir.path(), 2);
    let id = BlobId::generate();
    let pdf = fixture("a4-1p.pdf");

    let first = cache
        .get_or_render(&id, &pdf, 0, width(800), A4, None)
        .await
        .unwrap();
    assert!(!first.placeholder);
    assert_eq!(png_size(&first.png), (800, 1132));
    assert_eq!(cache.renders(), 1);
    let file = dir.path().join(id.as_str()).join("800").join("0.png");
    assert_eq!(std::fs::read(&file).unwrap(), first.png);
    let written = std::fs::metadata(&file).unwrap().modified().unwrap();

    let second = cache
        .get_or_render(&id, &pdf, 0, width(800), A4, None)
        .await
        .unwrap();
    assert_eq!(second, first);
    assert_eq!(cache.renders(), 1, "the hit rendered again");
    assert_eq!(
        std::fs::metadata(&file).unwrap().modified().unwrap(),
        written
    );

    // What is served is the file: replace it with another whole PNG and that comes back.
    let other = cache
        .get_or_render(&id, &pdf, 0, width(1200), A4, None)
        .await
        .unwrap();
    std::fs::write(&file, &other.png).unwrap();
    let again = cache
        .get_or_render(&id, &pdf, 0, width(800), A4, None)
        .await
        .unwrap();
    assert_eq!(again.png, other.png);
    assert_eq!(cache.renders(), 2);
    assert_eq!(temp_files(dir.path()), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_cut_short_is_rendered_again() {
    let dir = tempfile::tempdir().unwrap();
    let cache = open(dir.path(), 2);
    let id = BlobId::generate();
    let pdf = fixture("a4-1p.pdf");
    let good = cache
        .get_or_render(&id, &pdf, 0, width(800), A4, None)
        .await
        .unwrap();
    let file = dir.path().join(id.as_str()).join("800").join("0.png");
    std::fs::write(&file, &good.png[..good.png.len() / 2]).unwrap();

    let again = cache
        .get_or_render(&id, &pdf, 0, width(800), A4, None)
        .await
        .unwrap();
    assert_eq!(again, good);
    assert_eq!(cache.renders(), 2);
    assert_eq!(std::fs::read(&file).unwrap(), good.png);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_requests_for_one_page_share_one_render_and_get_the_whole_image() {
    let dir = tempfile::tempdir().unwrap();
    let cache = open(dir.path(), 2);
    let id = BlobId::generate();
    let pdf = fixture("rotated-4p.pdf");
    let expected = rendered_here(&pdf, 1);
    let requests: Vec<_> = (0..6)
        .map(|_| {
            let (cache, id, pdf) = (cache.clone(), id.clone(), pdf.clone());
            tokio::spawn(async move {
                cache
                    .get_or_render(&id, &pdf, 1, width(800), A4, None)
                    .await
            })
        })
        .collect();
    for r in requests {
        let image = r.await.unwrap().unwrap();
        assert_eq!(image.png, expected);
    }
    assert_eq!(cache.renders(), 1);
    let file = dir.path().join(id.as_str()).join("800").join("1.png");
    assert_eq!(std::fs::read(file).unwrap(), expected);
    assert_eq!(temp_files(dir.path()), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn render_missing_fills_every_page_once() {
    let dir = tempfile::tempdir().unwrap();
    let cache = open(dir.path(), 1);
    let id = BlobId::generate();
    let pdf = fixture("rotated-4p.pdf");
    let sizes = [(842.0, 595.0), A4, (842.0, 595.0), A4];
    cache
        .get_or_render(&id, &pdf, 2, width(800), sizes[2], None)
        .await
        .unwrap();

    assert_eq!(
        cache
            .render_missing(&id, &pdf, width(800), &sizes)
            .await
            .unwrap(),
        3
    );
    assert_eq!(
        cache
            .render_missing(&id, &pdf, width(800), &sizes)
            .await
            .unwrap(),
        0
    );
    assert_eq!(cache.renders(), 4);
    let mut got = Vec::new();
    for (i, size) in sizes.iter().enumerate() {
        let image = cache
            .get_or_render(&id, &pdf, i, width(800), *size, None)
            .await
            .unwrap();
        got.push(png_size(&image.png));
    }
    assert_eq!(got, [(800, 565), (800, 1132), (800, 565), (800, 1132)]);
    assert_eq!(cache.renders(), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_page_stores_nothing_and_an_unreadable_file_gets_a_kept_placeholder() {
    let dir = tempfile::tempdir().unwrap();
    let cache = open(dir.path(), 2);
    let id = BlobId::generate();
    let err = cache
        .get_or_render(&id, &fixture("a4-1p.pdf"), 1, width(800), A4, None)
        .await
        .unwrap_err();
    assert!(matches!(err, RenderError::NoSuchPage(1)), "{err:?}");
    assert!(!dir.path().join(id.as_str()).exists());

    let encrypted = fixture("encrypted-aes256.pdf");
    let image = cache
        .get_or_render(&id, &encrypted, 0, width(800), A4, None)
        .await
        .unwrap();
    assert!(image.placeholder);
    assert_eq!(png_size(&image.png), (800, 1132));
    assert_eq!((cache.renders(), cache.placeholders()), (2, 1));
    let stored = dir.path().join(id.as_str()).join("800/0.placeholder.png");
    assert_eq!(std::fs::read(&stored).unwrap(), image.png);
    assert!(!dir.path().join(id.as_str()).join("800/0.png").exists());
    // Kept: not tried again.
    let again = cache
        .get_or_render(&id, &encrypted, 0, width(800), A4, None)
        .await
        .unwrap();
    assert_eq!(again, image);
    assert_eq!(cache.renders(), 2);

    // A file the server cannot read is its own fault: an error, nothing stored.
    let other = BlobId::generate();
    let err = cache
        .get_or_render(
            &other,
            &fixture("does-not-exist.pdf"),
            0,
            width(800),
            A4,
            None,
        )
        .await
        .unwrap_err();
    assert!(matches!(err, RenderError::Failed(_)), "{err:?}");
    assert!(!dir.path().join(other.as_str()).exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remove_drops_only_that_blobs_pages() {
    let dir = tempfile::tempdir().unwrap();
    let cache = open(dir.path(), 2);
    let (gone, kept) = (BlobId::generate(), BlobId::generate());
    let pdf = fixture("a4-1p.pdf");
    cache
        .get_or_render(&gone, &pdf, 0, width(800), A4, None)
        .await
        .unwrap();
    cache
        .get_or_render(&gone, &pdf, 0, width(1200), A4, None)
        .await
        .unwrap();
    cache
        .get_or_render(&kept, &pdf, 0, width(800), A4, None)
        .await
        .unwrap();

    cache.remove(&gone).unwrap();
    assert!(!dir.path().join(gone.as_str()).exists());
    assert!(dir.path().join(kept.as_str()).join("800/0.png").is_file());
    cache.remove(&gone).unwrap();
    cache.remove(&BlobId::generate()).unwrap();

    cache
        .get_or_render(&gone, &pdf, 0, width(800), A4, None)
        .await
        .unwrap();
    assert_eq!(cache.renders(), 4);
}

/// Waits (at most 20 s) until `path` exists.
async fn exists_soon(path: &Path) {
    for _ in 0..200 {
        if path.exists() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{} never appeared", path.display());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_next_page_is_read_ahead_while_a_renderer_is_free() {
    let dir = tempfile::tempdir().unwrap();
    let cache = open(dir.path(), 2);
    let id = BlobId::generate();
    let pdf = fixture("rotated-4p.pdf");
    let sizes = [(842.0, 595.0), A4, (842.0, 595.0), A4];
    let page = |i: usize| {
        dir.path()
            .join(id.as_str())
            .join("800")
            .join(format!("{i}.png"))
    };
    cache
        .get_or_render(&id, &pdf, 0, width(800), sizes[0], Some(sizes[1]))
        .await
        .unwrap();
    exists_soon(&page(1)).await;
    assert_eq!(cache.renders(), 2, "the first page and the one read ahead");
    let expected = rendered_here(&pdf, 1);
    // Asked for next, it is on disk already; asking reads the one after it ahead.
    let second = cache
        .get_or_render(&id, &pdf, 1, width(800), sizes[1], Some(sizes[2]))
        .await
        .unwrap();
    assert_eq!(second.png, expected);
    exists_soon(&page(2)).await;
    assert_eq!(cache.renders(), 3);
    // The last page has no next one.
    cache
        .get_or_render(&id, &pdf, 3, width(800), sizes[3], None)
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(cache.renders(), 4);
    assert_eq!(temp_files(dir.path()), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nothing_is_read_ahead_when_the_only_renderer_is_taken() {
    let dir = tempfile::tempdir().unwrap();
    let cache = open(dir.path(), 1);
    let id = BlobId::generate();
    let pdf = fixture("rotated-4p.pdf");
    cache
        .get_or_render(&id, &pdf, 0, width(800), (842.0, 595.0), Some(A4))
        .await
        .unwrap();
    // The read-ahead is tried once, when the page's own render holds the one slot.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(cache.renders(), 1);
    assert!(!dir.path().join(id.as_str()).join("800/1.png").exists());
}
