//! Page images for the signing page: the on-disk cache
//! (`<root>/<blob id>/<width>/<page index>.png`) in front of renders that are bounded, pooled,
//! shared and cancellable.
//!
//! A blob's bytes never change, so a rendered page stays valid for as long as its blob exists;
//! [`PageCache::remove`] drops a blob's pages when the blob goes.
//!
//! Only the widths in [`PageWidth::ALLOWED`] (800, 1200 and 1600 px: a phone, a desktop, a
//! high-density screen) are rendered, and only pages that exist, so a blob has at most
//! 3 x pages files here and a client cannot fill the disk by asking for odd sizes.
//!
//! A page not cached is rendered in a child process under [`RenderLimits`] (`isolated.rs`):
//! at most `workers` at once; a render waits at most [`QUEUE_WAIT`] for a slot and is then
//! [`RenderError::Busy`] (503 with Retry-After). Requests for the same page at the same width
//! share one render (`single_flight.rs`), which is killed when the last of them leaves. A page
//! that cannot be drawn within the limits (or at all) gets a placeholder image, stored as
//! `<page index>.placeholder.png`, so that it is not retried on every request and is still
//! known as a placeholder; emptying the cache directory retries every page.
//!
//! Writes go to a temp file in `<root>/tmp/` and are renamed into place, so a reader never sees
//! half a file. Files are not fsynced (it is a cache): a file that a crash left cut short
//! fails the check in [`read_cached`] and is rendered again.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::isolated::{self, Outcome, RenderLimits};
use super::placeholder;
use super::single_flight::SingleFlight;
use crate::core::blob::BlobId;
use crate::core::datadir::create_private_dir;

/// Temp files older than this when the cache opens were left by a crash.
const STALE_TEMP: Duration = Duration::from_secs(3600);

/// Longest a render waits for a free slot before it is [`RenderError::Busy`].
pub const QUEUE_WAIT: Duration = Duration::from_secs(2);

/// The Retry-After of a busy answer, in seconds.
pub const RETRY_AFTER_SECS: u64 = 5;

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

/// A page's image: the page itself, or the placeholder for a page that cannot be drawn.
#[derive(Debug, Clone, PartialEq)]
pub struct PageImage {
    pub png: Bytes,
    pub placeholder: bool,
}

/// Why no image could be given.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RenderError {
    /// Every render slot stayed taken for [`QUEUE_WAIT`]; try again later.
    #[error("every page renderer is busy; try again in a few seconds")]
    Busy,
    /// The renderer found no such page (0-based index) in the file.
    #[error("the PDF has no page {}", .0 + 1)]
    NoSuchPage(usize),
    /// The server's fault: the renderer could not run, or the file could not be read.
    #[error("{0}")]
    Failed(String),
}

/// What a render is for: the blob, the width in pixels, the page index.
type Key = (BlobId, u32, usize);

/// A page to render: the blob and its file, the page (0-based), the width, and the page's size
/// in points (for a placeholder).
#[derive(Debug, Clone)]
struct Job {
    blob: BlobId,
    path: PathBuf,
    page_index: usize,
    width: PageWidth,
    page_size: (f32, f32),
}

impl Job {
    fn key(&self) -> Key {
        (self.blob.clone(), self.width.px(), self.page_index)
    }

    /// The next page of the same file at the same width, whose size is `page_size`.
    fn next(&self, page_size: (f32, f32)) -> Job {
        Job {
            page_index: self.page_index + 1,
            page_size,
            ..self.clone()
        }
    }
}

type Rendered = Result<PageImage, RenderError>;

/// Rendered pages on disk and the renders that fill them; see the module documentation.
/// Clones share the files, the slots, the renders under way and the counts.
#[derive(Clone)]
pub struct PageCache {
    root: PathBuf,
    limits: Arc<RenderLimits>,
    slots: Arc<Semaphore>,
    flights: SingleFlight<Key, Rendered>,
    renders: Arc<AtomicU64>,
    placeholders: Arc<AtomicU64>,
}

impl std::fmt::Debug for PageCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PageCache")
            .field("root", &self.root)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl PageCache {
    /// A cache under `root` (created if missing, mode 0700, with `tmp/`) whose renders run
    /// under `limits`; removes temp files a crash left behind.
    pub fn open(root: &Path, limits: RenderLimits) -> io::Result<PageCache> {
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
            slots: Arc::new(Semaphore::new(limits.workers.max(1))),
            limits: Arc::new(limits),
            flights: SingleFlight::default(),
            renders: Arc::new(AtomicU64::new(0)),
            placeholders: Arc::new(AtomicU64::new(0)),
        })
    }

    /// The image of page `page_index` (0-based) of the blob whose file is at `pdf_path`, from
    /// the cache, or rendered and stored. `page_size` (points, as shown) shapes a placeholder.
    /// Dropping the future leaves the render; the last caller to leave cancels it.
    ///
    /// `next_size` is the next page's size (`None` on the last page): that page is read ahead
    /// (rendered into the cache) when a renderer is free, since whoever shows this page is
    /// likely to ask for it next. A read-ahead never waits for a slot, never takes the one this
    /// page's render needs, and is not cancelled when the client leaves (its time limit still
    /// bounds it).
    pub async fn get_or_render(
        &self,
        blob: &BlobId,
        pdf_path: &Path,
        page_index: usize,
        width: PageWidth,
        page_size: (f32, f32),
        next_size: Option<(f32, f32)>,
    ) -> Rendered {
        let job = Job {
            blob: blob.clone(),
            path: pdf_path.to_path_buf(),
            page_index,
            width,
            page_size,
        };
        let ahead = next_size.map(|size| job.next(size));
        if let Some(image) = self.cached(blob, width, page_index).await? {
            if let Some(ahead) = ahead {
                self.read_ahead(ahead);
            }
            return Ok(image);
        }
        let (this, key) = (self.clone(), job.key());
        // A new render reads ahead once it holds its slot; joining one under way, now.
        let mut started = false;
        let run = self.flights.run(key, || {
            started = true;
            let ahead = ahead.clone();
            async move { this.render(&job, None, ahead).await }
        });
        if !started && let Some(ahead) = ahead {
            self.read_ahead(ahead);
        }
        run.await
    }

    /// Renders `job` into the cache in the background if a slot is free now and it is not
    /// stored yet; joins a render of it under way (see [`PageCache::get_or_render`]).
    fn read_ahead(&self, job: Job) {
        let Ok(slot) = self.slots.clone().try_acquire_owned() else {
            return;
        };
        let this = self.clone();
        tokio::spawn(async move {
            let paths = [
                this.page_path(&job.blob, job.width, job.page_index, false),
                this.page_path(&job.blob, job.width, job.page_index, true),
            ];
            let stored = tokio::task::spawn_blocking(move || paths.iter().any(|p| p.exists()));
            if stored.await.unwrap_or(true) {
                return;
            }
            let key = job.key();
            let run = this.flights.run(key, || {
                let this = this.clone();
                async move { this.render(&job, Some(slot), None).await }
            });
            let _ = run.await;
        });
    }

    /// Renders and stores every page of the blob not cached yet at `width` (e.g. to warm the
    /// cache when a document is sent), one at a time, through the same slots, limits and
    /// shared renders as [`PageCache::get_or_render`]. `page_sizes` lists every page. Returns
    /// how many images it made (placeholders included); stops at the first error.
    pub async fn render_missing(
        &self,
        blob: &BlobId,
        pdf_path: &Path,
        width: PageWidth,
        page_sizes: &[(f32, f32)],
    ) -> Result<usize, RenderError> {
        let mut made = 0;
        for (index, size) in page_sizes.iter().enumerate() {
            if self.cached(blob, width, index).await?.is_some() {
                continue;
            }
            self.get_or_render(blob, pdf_path, index, width, *size, None)
                .await?;
            made += 1;
        }
        Ok(made)
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

    /// How many renders this cache (and its clones) started since it was opened; cache hits
    /// and callers that joined a render under way do not count.
    pub fn renders(&self) -> u64 {
        self.renders.load(Ordering::Relaxed)
    }

    /// How many of those renders ended in a placeholder.
    pub fn placeholders(&self) -> u64 {
        self.placeholders.load(Ordering::Relaxed)
    }

    /// The stored image, the page's own or its placeholder.
    async fn cached(
        &self,
        blob: &BlobId,
        width: PageWidth,
        page_index: usize,
    ) -> Result<Option<PageImage>, RenderError> {
        let (page, stand_in) = (
            self.page_path(blob, width, page_index, false),
            self.page_path(blob, width, page_index, true),
        );
        tokio::task::spawn_blocking(move || -> io::Result<Option<PageImage>> {
            for (path, placeholder) in [(page, false), (stand_in, true)] {
                if let Some(png) = read_cached(&path)? {
                    return Ok(Some(PageImage {
                        png: png.into(),
                        placeholder,
                    }));
                }
            }
            Ok(None)
        })
        .await
        .map_err(|e| RenderError::Failed(format!("page cache task: {e}")))?
        .map_err(|e| RenderError::Failed(format!("reading the page cache: {e}")))
    }

    /// One render: a slot (`slot`, or one waited for), then the child process, then the file
    /// (or the placeholder). Once it holds its slot, `ahead` is read ahead.
    async fn render(
        &self,
        job: &Job,
        slot: Option<OwnedSemaphorePermit>,
        ahead: Option<Job>,
    ) -> Rendered {
        let Job {
            blob,
            path: pdf_path,
            page_index,
            width,
            page_size,
        } = job;
        let (page_index, width, page_size) = (*page_index, *width, *page_size);
        let _slot = match slot {
            Some(slot) => slot,
            None => {
                let Ok(Ok(slot)) =
                    tokio::time::timeout(QUEUE_WAIT, self.slots.clone().acquire_owned()).await
                else {
                    tracing::warn!(
                        blob = blob.as_str(),
                        page_index,
                        "every page renderer is busy"
                    );
                    return Err(RenderError::Busy);
                };
                slot
            }
        };
        if let Some(ahead) = ahead {
            self.read_ahead(ahead);
        }
        // A render that finished while this one waited may have stored the page.
        if let Some(image) = self.cached(blob, width, page_index).await? {
            return Ok(image);
        }
        self.renders.fetch_add(1, Ordering::Relaxed);
        let started = Instant::now();
        let outcome = isolated::render(&self.limits, pdf_path, page_index, width.px())
            .await
            .map_err(|e| RenderError::Failed(format!("rendering a page: {e}")))?;
        let ms = started.elapsed().as_millis() as u64;
        let (png, placeholder) = match outcome {
            Outcome::Png(png) => {
                tracing::info!(
                    blob = blob.as_str(),
                    page_index,
                    width = width.px(),
                    ms,
                    outcome = "rendered",
                    "page render"
                );
                (png, false)
            }
            Outcome::NoSuchPage => return Err(RenderError::NoSuchPage(page_index)),
            Outcome::Undrawable(reason) => {
                self.placeholders.fetch_add(1, Ordering::Relaxed);
                tracing::warn!(
                    blob = blob.as_str(),
                    page_index,
                    width = width.px(),
                    ms,
                    outcome = "placeholder",
                    %reason,
                    "page render"
                );
                let png =
                    tokio::task::spawn_blocking(move || placeholder::draw(page_size, width.px()))
                        .await
                        .map_err(|e| RenderError::Failed(format!("placeholder task: {e}")))?
                        .map_err(|e| RenderError::Failed(format!("drawing a placeholder: {e}")))?;
                (png, true)
            }
        };
        let path = self.page_path(blob, width, page_index, placeholder);
        let root = self.root.clone();
        let png = Bytes::from(png);
        let stored = png.clone();
        // Stored before answering, so that the next request finds it; should every caller
        // leave meanwhile, the blocking task still finishes storing.
        let _ = tokio::task::spawn_blocking(move || store(&root, &path, &stored)).await;
        Ok(PageImage { png, placeholder })
    }

    fn page_path(
        &self,
        blob: &BlobId,
        width: PageWidth,
        page_index: usize,
        placeholder: bool,
    ) -> PathBuf {
        let name = if placeholder {
            format!("{page_index}.placeholder.png")
        } else {
            format!("{page_index}.png")
        };
        self.root
            .join(blob.as_str())
            .join(width.px().to_string())
            .join(name)
    }
}

fn store(root: &Path, path: &Path, png: &[u8]) {
    if let Err(e) = try_store(root, path, png) {
        tracing::warn!(path = %path.display(), error = %e, "could not cache a rendered page");
    }
}

fn try_store(root: &Path, path: &Path, png: &[u8]) -> io::Result<()> {
    let dir = path.parent().expect("a page path has a parent");
    create_private_dir(dir)?;
    let tmp = root
        .join("tmp")
        .join(hex::encode(crate::core::crypto::random_bytes(16)));
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
    use super::*;

    fn limits() -> RenderLimits {
        RenderLimits {
            exe: PathBuf::from("/nonexistent/docket"),
            workers: 1,
            timeout: Duration::from_secs(5),
            memory_bytes: 256 << 20,
        }
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
    fn open_clears_only_stale_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        PageCache::open(dir.path(), limits()).unwrap();
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
        PageCache::open(dir.path(), limits()).unwrap();
        assert!(!stale.exists() && fresh.exists());
    }

    #[tokio::test]
    async fn a_renderer_that_cannot_start_is_the_servers_fault_and_stores_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let cache = PageCache::open(dir.path(), limits()).unwrap();
        let blob = BlobId::generate();
        let pdf = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pdf/a4-1p.pdf");
        let got = cache
            .get_or_render(&blob, &pdf, 0, PageWidth(800), (595.0, 842.0), None)
            .await;
        assert!(matches!(got, Err(RenderError::Failed(_))), "{got:?}");
        assert!(!dir.path().join(blob.as_str()).exists());
    }
}
