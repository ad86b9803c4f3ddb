//! Upload-time inspection: is this a PDF we can work with, how many pages, what size, signed?
//!
//! Loading is lopdf's lenient mode, which rebuilds a damaged cross-reference table by scanning
//! the file for objects. When that load leaves the page tree incomplete (no tree, a page or
//! page content that does not load, or a page count other than the tree's /Count), the file is
//! loaded once more with `force_reconstruct`, which ignores the cross-reference data
//! altogether, and that result is used if it is whole. There is deliberately no further fallback (such as counting
//! every `/Type /Page` object in the file): stamping and signing walk the same page tree
//! with lopdf, so a file whose tree cannot be walked is refused here rather than failing
//! later. The whole parse runs under `catch_unwind`, so a parser panic becomes `Damaged`.

use std::panic;
use std::path::Path;

use lopdf::{Dictionary, Document, LoadOptions, Object, ObjectId};

use super::budget::{self, LoadBudget};
use super::bulk;
use super::{PdfError, PdfInfo};

/// Acrobat accepts a file whose `%PDF-` header starts within its first 1024 bytes, and one
/// whose `%%EOF` marker is within its last 1024 bytes. We follow both rules.
const MARKER_WINDOW: usize = 1024;

/// US Letter, the size readers (poppler, pdf.js) assume for a page without a MediaBox.
const LETTER: Rect = Rect {
    llx: 0.0,
    lly: 0.0,
    urx: 612.0,
    ury: 792.0,
};

/// Bound on what one object or cross-reference stream may inflate to while loading (lopdf's
/// default is 256 MiB). Real ones hold kilobytes to a few megabytes; this keeps a small
/// crafted upload from taking gigabytes of memory.
pub(super) const MAX_STREAM_BYTES: usize = 32 << 20;

/// Bound on /Parent chains when looking up inherited page attributes; lopdf bounds the page
/// tree walk itself (256 levels).
const MAX_TREE_DEPTH: usize = 256;

/// Reads the file at `path` and inspects it; see [`inspect_bytes`].
pub fn inspect_file(path: &Path) -> Result<PdfInfo, PdfError> {
    let bytes = std::fs::read(path)?;
    inspect_bytes(&bytes)
}

/// Inspects an uploaded file held in memory. Never panics.
pub fn inspect_bytes(bytes: &[u8]) -> Result<PdfInfo, PdfError> {
    markers(bytes)?;
    guarded(|| inspect_loaded(bytes))
}

/// Inspects an upload in a buffer the check may change while it runs (a private copy-on-write
/// map of the file): the verdict of [`inspect_bytes`], without lopdf copying the data of large
/// streams (see [`super::bulk`]). The buffer is as it was when this returns. Never panics.
pub fn inspect_private(bytes: &mut [u8]) -> Result<PdfInfo, PdfError> {
    markers(bytes)?;
    guarded(panic::AssertUnwindSafe(|| inspect_hiding(bytes)))
}

/// The `%PDF-` header and the `%%EOF` marker, where readers look for them.
fn markers(bytes: &[u8]) -> Result<(), PdfError> {
    let head = &bytes[..bytes.len().min(MARKER_WINDOW)];
    if find(head, b"%PDF-").is_none() {
        return Err(PdfError::NotPdf);
    }
    if !ends_with_eof_marker(bytes) {
        return Err(PdfError::Damaged(
            "the file ends early; it may have been cut off during upload or download".into(),
        ));
    }
    Ok(())
}

/// Runs `inspect` and turns a panic inside it (lopdf on hostile input) into `Damaged`.
fn guarded<F>(inspect: F) -> Result<PdfInfo, PdfError>
where
    F: FnOnce() -> Result<PdfInfo, PdfError> + panic::UnwindSafe,
{
    panic::catch_unwind(inspect).unwrap_or_else(|_| {
        tracing::warn!("the PDF parser panicked on an upload");
        Err(PdfError::Damaged(PANICKED.into()))
    })
}

const PANICKED: &str = "it is malformed in a way the reader cannot handle";

fn inspect_loaded(bytes: &[u8]) -> Result<PdfInfo, PdfError> {
    let doc = load_whole(bytes)?;
    let tree = PageTree::walk(&doc);
    describe(&doc, tree)
}

/// [`inspect_loaded`], first with the large streams hidden: that load is used when it read
/// the cross-reference data as written and found the page tree whole; otherwise the keys are
/// put back and the file is loaded as [`load_whole`] does, within the same budget.
fn inspect_hiding(bytes: &mut [u8]) -> Result<PdfInfo, PdfError> {
    let keys = within_budget(budget::prescan_bulk(bytes))?;
    let budget = LoadBudget::start();
    if !keys.is_empty() {
        let hidden = bulk::hidden(bytes, keys);
        if let Ok(doc) = load(&hidden, false)
            && doc.xref_recovery.is_none()
            && !budget.spent()
        {
            let tree = PageTree::walk(&doc);
            if tree.is_whole() {
                tracing::debug!(
                    streams = hidden.count(),
                    "checked with large streams hidden"
                );
                return describe(&doc, tree);
            }
        }
    }
    let doc = load_within(bytes, &budget)?;
    describe(&doc, PageTree::walk(&doc))
}

/// One lenient lopdf load; refuses encrypted files, including those that open without a
/// password (an owner password only): stamping would have to drop or re-create their
/// protection.
pub(super) fn load(bytes: &[u8], force_reconstruct: bool) -> Result<Document, PdfError> {
    let options = LoadOptions {
        force_reconstruct,
        max_decompressed_size: Some(MAX_STREAM_BYTES),
        filter: Some(LoadBudget::filter),
        ..LoadOptions::default()
    };
    match Document::load_mem_with_options(bytes, options) {
        Ok(doc) if doc.is_encrypted() || doc.was_encrypted() || doc.trailer.has(b"Encrypt") => {
            Err(PdfError::Encrypted)
        }
        Ok(doc) => Ok(doc),
        // A security handler lopdf does not know (e.g. certificate-based) fails the load.
        Err(_) if find(bytes, b"/Encrypt").is_some() => Err(PdfError::Encrypted),
        Err(err) => {
            tracing::debug!(error = %err, force_reconstruct, "lopdf could not load an upload");
            Err(PdfError::Damaged(reason(&err).into()))
        }
    }
}

fn reason(err: &lopdf::Error) -> &'static str {
    match err {
        lopdf::Error::Decompress(_) => "a compressed part of it is damaged or too large",
        lopdf::Error::Unimplemented(_) => "it uses a PDF feature that is not supported",
        _ => "its structure is damaged beyond repair",
    }
}

fn describe(doc: &Document, tree: PageTree) -> Result<PdfInfo, PdfError> {
    if !tree.found {
        return Err(PdfError::Damaged(
            "its list of pages is missing or damaged".into(),
        ));
    }
    if tree.pages.is_empty() {
        return Err(PdfError::NoPages);
    }
    let mut page_sizes = Vec::with_capacity(tree.pages.len());
    for (index, &id) in tree.pages.iter().enumerate() {
        let page = whole_page(doc, id).ok_or_else(|| {
            PdfError::Damaged(format!("page {} is missing or damaged", index + 1))
        })?;
        page_sizes.push(page_size(doc, page));
    }
    Ok(PdfInfo {
        pages: u32::try_from(page_sizes.len())
            .map_err(|_| PdfError::Damaged("it has too many pages".into()))?,
        page_sizes,
        encrypted: false,
        signed: is_signed(doc),
        version: version(doc),
    })
}

/// The pages lopdf reaches from the catalog, and what the tree says about itself.
struct PageTree {
    /// The catalog leads to a /Pages node.
    found: bool,
    pages: Vec<ObjectId>,
    /// The root's /Count.
    declared: Option<i64>,
    /// Some page is not whole (see [`whole_page`]).
    unreadable: bool,
}

impl PageTree {
    fn walk(doc: &Document) -> Self {
        let root = doc
            .catalog()
            .ok()
            .and_then(|catalog| catalog.get_deref(b"Pages", doc).ok())
            .and_then(|pages| pages.as_dict().ok());
        let declared = root.and_then(|r| r.get_deref(b"Count", doc).ok()?.as_i64().ok());
        let pages: Vec<ObjectId> = doc.page_iter().collect();
        let unreadable = pages.iter().any(|&id| whole_page(doc, id).is_none());
        PageTree {
            found: root.is_some(),
            pages,
            declared,
            unreadable,
        }
    }

    /// Found, with every page loadable and as many pages as the root declares.
    fn is_whole(&self) -> bool {
        self.found
            && !self.unreadable
            && self
                .declared
                .is_none_or(|count| usize::try_from(count) == Ok(self.pages.len()))
    }
}

/// The page's dictionary, if it loads and its /Contents, when it has any, are all streams
/// that load. A page reference to nothing is kept by lopdf as a page; a file cut off and
/// patched up often keeps its page dictionaries but loses their content streams.
fn whole_page(doc: &Document, id: ObjectId) -> Option<&Dictionary> {
    let page = doc.get_dictionary(id).ok()?;
    let is_stream = |o: &Object| matches!(doc.dereference(o), Ok((_, Object::Stream(_))));
    let contents_whole = match page.get(b"Contents").map(|c| doc.dereference(c)) {
        Err(_) | Ok(Ok((_, Object::Null | Object::Stream(_)))) => true,
        Ok(Ok((_, Object::Array(items)))) => items.iter().all(is_stream),
        Ok(_) => false,
    };
    contents_whole.then_some(page)
}

#[derive(Debug, Clone, Copy)]
struct Rect {
    llx: f32,
    lly: f32,
    urx: f32,
    ury: f32,
}

impl Rect {
    /// A PDF rectangle: four numbers, any two opposite corners, with a positive area.
    fn parse(doc: &Document, object: &Object) -> Option<Rect> {
        let items = object.as_array().ok()?;
        let [a, b, c, d] = items.as_slice() else {
            return None;
        };
        let num = |o: &Object| {
            doc.dereference(o)
                .ok()?
                .1
                .as_float()
                .ok()
                .filter(|v| v.is_finite())
        };
        let (x1, y1, x2, y2) = (num(a)?, num(b)?, num(c)?, num(d)?);
        Rect {
            llx: x1.min(x2),
            lly: y1.min(y2),
            urx: x1.max(x2),
            ury: y1.max(y2),
        }
        .non_empty()
    }

    fn intersect(self, other: Rect) -> Option<Rect> {
        Rect {
            llx: self.llx.max(other.llx),
            lly: self.lly.max(other.lly),
            urx: self.urx.min(other.urx),
            ury: self.ury.min(other.ury),
        }
        .non_empty()
    }

    fn non_empty(self) -> Option<Rect> {
        (self.urx > self.llx && self.ury > self.lly).then_some(self)
    }

    fn size(self) -> (f32, f32) {
        (self.urx - self.llx, self.ury - self.lly)
    }
}

/// The page's visible size after rotation (see [`PdfInfo::page_sizes`]).
fn page_size(doc: &Document, page: &Dictionary) -> (f32, f32) {
    let media = inherited(doc, page, b"MediaBox")
        .and_then(|o| Rect::parse(doc, o))
        .unwrap_or(LETTER);
    let visible = inherited(doc, page, b"CropBox")
        .and_then(|o| Rect::parse(doc, o))
        .and_then(|crop| crop.intersect(media))
        .unwrap_or(media);
    let (width, height) = visible.size();
    if rotation(doc, page) % 180 == 90 {
        (height, width)
    } else {
        (width, height)
    }
}

/// The page's visible box in user space (the CropBox clipped to the MediaBox, or the
/// MediaBox) as `[llx, lly, urx, ury]`, and its /Rotate normalised to 0, 90, 180 or 270:
/// what stamping needs to place a box given in the viewer's coordinates.
pub(super) fn page_frame(doc: &Document, page: &Dictionary) -> ([f64; 4], i64) {
    let media = inherited(doc, page, b"MediaBox")
        .and_then(|o| Rect::parse(doc, o))
        .unwrap_or(LETTER);
    let visible = inherited(doc, page, b"CropBox")
        .and_then(|o| Rect::parse(doc, o))
        .and_then(|crop| crop.intersect(media))
        .unwrap_or(media);
    let r = visible;
    (
        [r.llx as f64, r.lly as f64, r.urx as f64, r.ury as f64],
        rotation(doc, page),
    )
}

/// An inheritable page attribute, for stamping (see [`inherited`]).
pub(super) fn inherited_attribute<'a>(
    doc: &'a Document,
    page: &'a Dictionary,
    key: &[u8],
) -> Option<&'a Object> {
    inherited(doc, page, key)
}

/// Loads a file within the complexity budget (see [`super::budget`]): first measured
/// without building anything, then loaded lenient, and loaded once more rebuilt when the page
/// tree is not whole (the rebuilt document is used if its tree is whole). Both loads share one
/// budget of values, so a second load cannot double what a hostile file costs. Refuses
/// encrypted files. This is the one loader of inspection, form filling and sealing. Not
/// guarded against panics: callers are.
pub(super) fn load_whole(bytes: &[u8]) -> Result<Document, PdfError> {
    within_budget(budget::prescan(bytes).map(|measure| (measure, ())))?;
    load_within(bytes, &LoadBudget::start())
}

/// The prescan's verdict: refused when over budget or encrypted.
fn within_budget<T>(
    prescan: Result<(budget::Measure, T), budget::Exceeded>,
) -> Result<T, PdfError> {
    let (measure, found) = prescan.map_err(|exceeded| {
        tracing::info!(%exceeded, "refused a PDF over its complexity budget");
        PdfError::TooComplex(exceeded)
    })?;
    if measure.encrypted {
        return Err(PdfError::Encrypted);
    }
    Ok(found)
}

/// [`load_whole`] after the prescan, within `budget`.
fn load_within(bytes: &[u8], budget: &LoadBudget) -> Result<Document, PdfError> {
    let within = |budget: &LoadBudget| {
        if budget.spent() {
            tracing::info!("refused a PDF whose loading went over its budget of values");
            return Err(PdfError::TooComplex(budget::Exceeded::Values));
        }
        Ok(())
    };
    let loaded = match load(bytes, false) {
        Ok(doc) => Ok(doc),
        Err(first) => {
            within(budget)?;
            load(bytes, true).map_err(|_| first)
        }
    };
    within(budget)?;
    let doc = loaded?;
    if PageTree::walk(&doc).is_whole() {
        return Ok(doc);
    }
    let rebuilt = load(bytes, true);
    within(budget)?;
    match rebuilt {
        Ok(rebuilt) if PageTree::walk(&rebuilt).is_whole() => Ok(rebuilt),
        _ => Ok(doc),
    }
}

/// /Rotate normalised to 0, 90, 180 or 270. A value that is not a multiple of 90 is invalid
/// and, as in pdf.js, taken as 0.
fn rotation(doc: &Document, page: &Dictionary) -> i64 {
    let degrees = inherited(doc, page, b"Rotate")
        .and_then(|o| {
            o.as_i64()
                .ok()
                .or_else(|| o.as_float().ok().map(|f| f as i64))
        })
        .unwrap_or(0);
    if degrees % 90 == 0 {
        degrees.rem_euclid(360)
    } else {
        0
    }
}

/// An inheritable page attribute: on the page or the nearest /Pages ancestor that has it.
fn inherited<'a>(doc: &'a Document, page: &'a Dictionary, key: &[u8]) -> Option<&'a Object> {
    let mut node = page;
    for _ in 0..MAX_TREE_DEPTH {
        match node.get_deref(key, doc) {
            Ok(Object::Null) | Err(_) => {}
            Ok(value) => return Some(value),
        }
        node = node.get_deref(b"Parent", doc).ok()?.as_dict().ok()?;
    }
    None
}

/// /SigFlags set in the AcroForm, a signature field that has a value, or a signature
/// dictionary (/ByteRange and /Contents) anywhere in the file. An empty signature field,
/// waiting to be signed, does not count.
fn is_signed(doc: &Document) -> bool {
    let sig_flags = doc
        .catalog()
        .ok()
        .and_then(|catalog| catalog.get_deref(b"AcroForm", doc).ok()?.as_dict().ok())
        .and_then(|form| form.get_deref(b"SigFlags", doc).ok()?.as_i64().ok())
        .unwrap_or(0);
    sig_flags != 0 || doc.objects.values().any(|object| is_signature(doc, object))
}

fn is_signature(doc: &Document, object: &Object) -> bool {
    let dict = match object {
        Object::Dictionary(dict) => dict,
        Object::Stream(stream) => &stream.dict,
        _ => return false,
    };
    let filled_field = matches!(dict.get(b"FT").and_then(Object::as_name), Ok(b"Sig"))
        && matches!(dict.get_deref(b"V", doc), Ok(value) if !value.is_null());
    let signature_value = dict.get(b"ByteRange").and_then(Object::as_array).is_ok()
        && dict.has(b"Contents")
        && matches!(dict.get_type(), Err(_) | Ok(b"Sig" | b"DocTimeStamp"));
    filled_field || signature_value
}

/// The header's version, or the catalog's /Version when that is later.
fn version(doc: &Document) -> String {
    let parse = |v: &str| {
        let (major, minor) = v.split_once('.')?;
        Some((major.parse::<u32>().ok()?, minor.parse::<u32>().ok()?))
    };
    let catalog = doc
        .catalog()
        .ok()
        .and_then(|catalog| catalog.get_deref(b"Version", doc).ok()?.as_name().ok())
        .and_then(|name| std::str::from_utf8(name).ok())
        .filter(|v| parse(v).is_some());
    match (parse(&doc.version), catalog) {
        (Some(header), Some(catalog)) if parse(catalog) > Some(header) => catalog.to_owned(),
        (None, Some(catalog)) => catalog.to_owned(),
        _ => doc.version.clone(),
    }
}

/// The last `%%EOF` is in the last 1024 bytes, or followed only by whitespace and NULs
/// (padding some transports add). A file cut off in transit usually fails this.
fn ends_with_eof_marker(bytes: &[u8]) -> bool {
    let Some(at) = rfind(bytes, b"%%EOF") else {
        return false;
    };
    let rest = &bytes[at + 5..];
    rest.len() <= MARKER_WINDOW || rest.iter().all(|b| b.is_ascii_whitespace() || *b == 0)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(haystack, needle)
}

fn rfind(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::rfind(haystack, needle)
}

#[cfg(test)]
#[path = "inspect_tests.rs"]
mod tests;
