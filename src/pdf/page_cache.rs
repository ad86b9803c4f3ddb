//! The on-disk cache of rendered pages: `<root>/<blob id>/<width>/<page index>.png`.
//!
//! A blob's bytes never change, so a rendered page stays valid for as long as its blob exists;
//! [`PageCache::remove`] drops a blob's pages when the blob goes.
//!
//! Only the widths in [`PageWidth::ALLOWED`] (800, 1200 and 1600 px: a phone, a desktop, a
//! high-density screen) are rendered, and only pages that exist, so a blob has at most
//! 3 x pages files here and a client cannot fill the disk by asking for odd sizes.
//!
//! Writes go to a temp file in `<root>/tmp/` and are renamed into place, so a reader never sees
//! half a file. Two requests for the same page may both render it; each renames its own copy
//! over the other's, and both are the same image. Files are not fsynced (it is a cache): a
//! file that a crash left cut short fails the check in [`read_cached`] and is rendered again.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use super::PdfError;
use super::render::LoadedPdf;
use crate::blob::BlobId;
use crate::datadir::create_private_dir;

/// Temp files older than this when the cache opens were left by a crash.
const STALE_TEMP: Duration = Duration::from_secs(3600);

/// A width pages are rendered and cached at; one of [`PageWidth::ALLOWED`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PageWidth(u32);

impl PageWidth {
    pub const ALLOWED: [u32; 3] = [800, 1200, 1600];

    /// Accepts only the widths in [`PageWidth::ALLOWED`].
    pub fn parse(px: u32) -> Option<PageWidth> {
        PageWidth::ALLOWED.contains(&px).then_some(PageWidth(px))
    }

    pub fn px(self) -> u32 {
        self.0
    }
}

/// Rendered pages on disk; see the module documentation. Clones share the render count.
#[derive(Debug, Clone)]
pub struct PageCache {
    root: PathBuf,
    renders: Arc<AtomicU64>,
}

impl PageCache {
    /// A cache under `root` (created if missing, mode 0700, with `tmp/`); removes temp files a
    /// crash left behind.
    pub fn open(root: &Path) -> io::Result<PageCache> {
        let tmp = root.join("tmp");
        create_private_dir(&tmp)?;
        for entry in fs::read_dir(&tmp)? {
            let entry = entry?;
            let stale = entry
                .metadata()?
                .modified()?
                .elapsed()
                .is_ok_and(|age| age >= STALE_TEMP);
            if stale {
                let _ = fs::remove_file(entry.path());
            }
        }
        Ok(PageCache {
            root: root.to_path_buf(),
            renders: Arc::new(AtomicU64::new(0)),
        })
    }

    /// The PNG of page `page_index` (0-based) of the blob whose file is at `pdf_path`, from the
    /// cache, or rendered and stored. A failure to store is logged; the image is still returned.
    pub fn get_or_render(
        &self,
        blob: &BlobId,
        pdf_path: &Path,
        page_index: usize,
        width: PageWidth,
    ) -> Result<Vec<u8>, PdfError> {
        let path = self.page_path(blob, width, page_index);
        if let Some(png) = read_cached(&path)? {
            return Ok(png);
        }
        let pdf = LoadedPdf::open(pdf_path)?;
        let png = pdf.renderer().render(page_index, width.px())?;
        self.renders.fetch_add(1, Ordering::Relaxed);
        self.store(&path, &png);
        Ok(png)
    }

    /// Renders and stores every page of the blob not cached yet at `width`, loading the file
    /// once and sharing fonts and glyphs across pages (e.g. to warm the cache when a document
    /// is sent). Returns how many pages it rendered. A page that fails does not stop the
    /// others; the first such failure is returned at the end.
    pub fn render_missing(
        &self,
        blob: &BlobId,
        pdf_path: &Path,
        width: PageWidth,
    ) -> Result<usize, PdfError> {
        let pdf = LoadedPdf::open(pdf_path)?;
        let renderer = pdf.renderer();
        let mut rendered = 0;
        let mut first_error = None;
        for index in 0..pdf.page_count() {
            let path = self.page_path(blob, width, index);
            if read_cached(&path)?.is_some() {
                continue;
            }
            match renderer.render(index, width.px()) {
                Ok(png) => {
                    self.renders.fetch_add(1, Ordering::Relaxed);
                    self.store(&path, &png);
                    rendered += 1;
                }
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        first_error.map_or(Ok(rendered), Err)
    }

    /// Drops every cached page of `blob`; nothing cached is not an error. A render of that blob
    /// still in progress may store its page afterwards; remove after the blob is gone from
    /// the database, so that no new request renders it, and such a straggler is the only one.
    pub fn remove(&self, blob: &BlobId) -> io::Result<()> {
        match fs::remove_dir_all(self.root.join(blob.as_str())) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }

    /// How many pages this cache (and its clones) rendered since it was opened; cache hits do
    /// not count.
    pub fn renders(&self) -> u64 {
        self.renders.load(Ordering::Relaxed)
    }

    fn page_path(&self, blob: &BlobId, width: PageWidth, page_index: usize) -> PathBuf {
        self.root
            .join(blob.as_str())
            .join(width.px().to_string())
            .join(format!("{page_index}.png"))
    }

    fn store(&self, path: &Path, png: &[u8]) {
        if let Err(e) = self.try_store(path, png) {
            tracing::warn!(path = %path.display(), error = %e, "could not cache a rendered page");
        }
    }

    fn try_store(&self, path: &Path, png: &[u8]) -> io::Result<()> {
        let dir = path.parent().expect("a page path has a parent");
        create_private_dir(dir)?;
        let tmp = self
            .root
            .join("tmp")
            .join(hex::encode(crate::crypto::random_bytes(16)));
        let written = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)
            .and_then(|mut file| file.write_all(png))
            .and_then(|()| fs::rename(&tmp, path));
        if written.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        written
    }
}

/// The cached file at `path`, if there is one and it is a whole PNG (starts with the PNG
/// signature and ends with the IEND chunk); a file cut short by a crash counts as missing.
fn read_cached(path: &Path) -> io::Result<Option<Vec<u8>>> {
    const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
    const IEND: &[u8] = b"\0\0\0\0IEND\xae\x42\x60\x82";
    match fs::read(path) {
        Ok(bytes) if bytes.starts_with(SIGNATURE) && bytes.ends_with(IEND) => Ok(Some(bytes)),
        Ok(_) => Ok(None),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Barrier;

    use super::*;

    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/pdf")
            .join(name)
    }

    fn blob() -> BlobId {
        BlobId::generate()
    }

    fn width(px: u32) -> PageWidth {
        PageWidth::parse(px).unwrap()
    }

    fn png_size(png_bytes: &[u8]) -> (u32, u32) {
        png::Decoder::new(io::Cursor::new(png_bytes))
            .read_info()
            .unwrap()
            .info()
            .size()
    }

    fn temp_files(root: &Path) -> usize {
        fs::read_dir(root.join("tmp")).unwrap().count()
    }

    #[test]
    fn only_the_allowed_widths_parse() {
        for px in PageWidth::ALLOWED {
            assert_eq!(PageWidth::parse(px).map(PageWidth::px), Some(px));
        }
        for px in [0, 1, 799, 1000, 1601, 4096, u32::MAX] {
            assert_eq!(PageWidth::parse(px), None, "{px}");
        }
    }

    #[test]
    fn a_second_request_is_served_from_disk_without_rendering() {
        let dir = tempfile::tempdir().unwrap();
        let cache = PageCache::open(dir.path()).unwrap();
        let id = blob();
        let pdf = fixture("a4-1p.pdf");

        let first = cache.get_or_render(&id, &pdf, 0, width(800)).unwrap();
        assert_eq!(png_size(&first), (800, 1132));
        assert_eq!(cache.renders(), 1);
        let file = dir.path().join(id.as_str()).join("800").join("0.png");
        assert_eq!(fs::read(&file).unwrap(), first);
        let written = fs::metadata(&file).unwrap().modified().unwrap();

        let second = cache.get_or_render(&id, &pdf, 0, width(800)).unwrap();
        assert_eq!(second, first);
        assert_eq!(cache.renders(), 1, "the hit rendered again");
        assert_eq!(fs::metadata(&file).unwrap().modified().unwrap(), written);

        // What is served is the file: replace it with another whole PNG and that comes back.
        let other = cache.get_or_render(&id, &pdf, 0, width(1200)).unwrap();
        fs::write(&file, &other).unwrap();
        assert_eq!(
            cache.get_or_render(&id, &pdf, 0, width(800)).unwrap(),
            other
        );
        assert_eq!(cache.renders(), 2);
        assert_eq!(temp_files(dir.path()), 0);
    }

    #[test]
    fn a_file_cut_short_is_rendered_again() {
        let dir = tempfile::tempdir().unwrap();
        let cache = PageCache::open(dir.path()).unwrap();
        let id = blob();
        let pdf = fixture("a4-1p.pdf");
        let good = cache.get_or_render(&id, &pdf, 0, width(800)).unwrap();
        let file = dir.path().join(id.as_str()).join("800").join("0.png");
        fs::write(&file, &good[..good.len() / 2]).unwrap();

        assert_eq!(cache.get_or_render(&id, &pdf, 0, width(800)).unwrap(), good);
        assert_eq!(cache.renders(), 2);
        assert_eq!(fs::read(&file).unwrap(), good);
    }

    #[test]
    fn concurrent_requests_for_one_page_all_get_the_whole_image() {
        let dir = tempfile::tempdir().unwrap();
        let cache = PageCache::open(dir.path()).unwrap();
        let id = blob();
        let pdf = fixture("rotated-4p.pdf");
        let expected =
            crate::pdf::render_page(&crate::pdf::LoadedPdf::open(&pdf).unwrap(), 1, 800).unwrap();
        let threads = 6;
        let start = Barrier::new(threads);
        let results: Vec<Vec<u8>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|_| {
                    s.spawn(|| {
                        start.wait();
                        cache.get_or_render(&id, &pdf, 1, width(800)).unwrap()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for png in &results {
            assert_eq!(png, &expected);
        }
        assert!((1..=threads as u64).contains(&cache.renders()));
        let file = dir.path().join(id.as_str()).join("800").join("1.png");
        assert_eq!(fs::read(file).unwrap(), expected);
        assert_eq!(temp_files(dir.path()), 0);
    }

    #[test]
    fn render_missing_fills_every_page_once() {
        let dir = tempfile::tempdir().unwrap();
        let cache = PageCache::open(dir.path()).unwrap();
        let id = blob();
        let pdf = fixture("rotated-4p.pdf");
        cache.get_or_render(&id, &pdf, 2, width(800)).unwrap();

        assert_eq!(cache.render_missing(&id, &pdf, width(800)).unwrap(), 3);
        assert_eq!(cache.render_missing(&id, &pdf, width(800)).unwrap(), 0);
        assert_eq!(cache.renders(), 4);
        let sizes: Vec<(u32, u32)> = (0..4)
            .map(|i| png_size(&cache.get_or_render(&id, &pdf, i, width(800)).unwrap()))
            .collect();
        assert_eq!(sizes, [(800, 565), (800, 1132), (800, 565), (800, 1132)]);
        assert_eq!(cache.renders(), 4);
    }

    #[test]
    fn errors_store_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let cache = PageCache::open(dir.path()).unwrap();
        let id = blob();
        let err = cache
            .get_or_render(&id, &fixture("a4-1p.pdf"), 1, width(800))
            .unwrap_err();
        assert!(
            matches!(err, PdfError::NoSuchPage { index: 1, pages: 1 }),
            "{err:?}"
        );
        let err = cache
            .get_or_render(&id, &fixture("encrypted-aes256.pdf"), 0, width(800))
            .unwrap_err();
        assert!(matches!(err, PdfError::Encrypted), "{err:?}");
        assert!(!dir.path().join(id.as_str()).exists());
        assert_eq!(cache.renders(), 0);
    }

    #[test]
    fn remove_drops_only_that_blobs_pages() {
        let dir = tempfile::tempdir().unwrap();
        let cache = PageCache::open(dir.path()).unwrap();
        let (gone, kept) = (blob(), blob());
        let pdf = fixture("a4-1p.pdf");
        cache.get_or_render(&gone, &pdf, 0, width(800)).unwrap();
        cache.get_or_render(&gone, &pdf, 0, width(1200)).unwrap();
        cache.get_or_render(&kept, &pdf, 0, width(800)).unwrap();

        cache.remove(&gone).unwrap();
        assert!(!dir.path().join(gone.as_str()).exists());
        assert!(dir.path().join(kept.as_str()).join("800/0.png").is_file());
        cache.remove(&gone).unwrap();
        cache.remove(&blob()).unwrap();

        cache.get_or_render(&gone, &pdf, 0, width(800)).unwrap();
        assert_eq!(cache.renders(), 4);
    }

    #[test]
    fn open_clears_only_stale_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        PageCache::open(dir.path()).unwrap();
        let stale = dir.path().join("tmp/stale");
        let fresh = dir.path().join("tmp/fresh");
        fs::write(&stale, b"x").unwrap();
        fs::write(&fresh, b"x").unwrap();
        let old = std::time::SystemTime::now() - STALE_TEMP - Duration::from_secs(60);
        fs::File::options()
            .write(true)
            .open(&stale)
            .unwrap()
            .set_modified(old)
            .unwrap();
        PageCache::open(dir.path()).unwrap();
        assert!(!stale.exists() && fresh.exists());
    }
}
