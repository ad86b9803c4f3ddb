//! PDF files as documents: what an upload holds (pages, page sizes, signatures) and why one is
//! refused; its pages as PNG images, rendered and cached on disk. Plain blocking functions on
//! bytes or paths, which callers run off the async threads, except the page cache, whose
//! renders run in child processes under limits and are awaited.

pub(crate) mod budget;
mod bulk;
pub mod forms;
mod inspect;
mod isolated;
mod page_cache;
mod placeholder;
mod render;
pub mod seal;
mod single_flight;

pub use budget::{Exceeded, MAX_DECODED_BYTES, MAX_DEPTH, MAX_VALUES};
pub use inspect::{inspect_bytes, inspect_file, inspect_private};
pub use isolated::{RenderLimits, child_main as render_page_child};
pub use page_cache::{PageCache, PageImage, PageWidth, QUEUE_WAIT, RETRY_AFTER_SECS, RenderError};
pub use render::{LoadedPdf, MAX_PIXELS, MAX_WIDTH_PX, PageRenderer, render_all, render_page};

/// What an accepted upload holds.
#[derive(Debug, Clone, PartialEq)]
pub struct PdfInfo {
    /// Number of pages reached through the page tree; at least 1.
    pub pages: u32,
    /// Width and height of each page in PDF points (1/72 inch), as a viewer shows it: the
    /// CropBox (clipped to the MediaBox) or else the MediaBox, both inherited through the page
    /// tree, with width and height swapped when /Rotate is 90 or 270. A page without any
    /// MediaBox counts as US Letter, as readers assume. (/UserUnit, rare, is not applied.)
    pub page_sizes: Vec<(f32, f32)>,
    /// Always false: an encrypted file, even one that opens without a password, is refused
    /// with [`PdfError::Encrypted`]. Kept so stored and reported info states it plainly.
    pub encrypted: bool,
    /// The file already carries a signature (/SigFlags set in the AcroForm, a signature field
    /// with a value, or a signature dictionary). Such a file must only be changed by
    /// incremental updates, or the earlier signatures break.
    pub signed: bool,
    /// The PDF version in effect: the header's, or the catalog's /Version when that is later
    /// (an incremental update may raise it), e.g. "1.7".
    pub version: String,
}

/// Why an upload is not accepted as a PDF. The messages are written for the person uploading.
#[derive(Debug, thiserror::Error)]
pub enum PdfError {
    #[error("the file is not a PDF")]
    NotPdf,
    #[error("the PDF is password-protected; remove the password and upload it again")]
    Encrypted,
    #[error("the PDF has no pages")]
    NoPages,
    #[error("the PDF could not be read: {0}")]
    Damaged(String),
    /// Over one of the complexity budgets (see `budget`): refused before it can take the
    /// server's memory or time.
    #[error("the PDF is too complex: {0}")]
    TooComplex(Exceeded),
    /// A page index (0-based) past the last page, when rendering.
    #[error("the PDF has no page {} (it has {pages})", .index + 1)]
    NoSuchPage { index: usize, pages: usize },
    /// A render width of 0 or over [`MAX_WIDTH_PX`].
    #[error("{0} pixels is not a width pages can be rendered at")]
    BadWidth(u32),
    /// Sealing failed for a reason that is not the upload's (a field off the page, an
    /// unreadable signature image, an internal writing error).
    #[error("the document could not be sealed: {0}")]
    Seal(String),
    /// Reading the stored file failed: a fault of the server, not of the upload.
    #[error("the uploaded file could not be read from storage")]
    Io(#[from] std::io::Error),
}

impl PdfError {
    /// True when the upload itself is at fault (answer 4xx with the message); false for
    /// [`PdfError::Io`] and [`PdfError::Seal`], which are the server's (answer 5xx and log the cause).
    pub fn is_upload_fault(&self) -> bool {
        !matches!(self, PdfError::Io(_) | PdfError::Seal(_))
    }
}
