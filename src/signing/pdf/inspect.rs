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
mod tests {
    use std::path::PathBuf;

    use lopdf::{Stream, dictionary};

    use super::*;

    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/pdf")
            .join(name)
    }

    fn read(name: &str) -> Vec<u8> {
        std::fs::read(fixture(name)).unwrap()
    }

    fn inspect(name: &str) -> PdfInfo {
        inspect_file(&fixture(name)).unwrap_or_else(|e| panic!("{name}: {e:?}"))
    }

    fn assert_sizes(name: &str, actual: &[(f32, f32)], expected: &[(f32, f32)]) {
        assert_eq!(actual.len(), expected.len(), "{name}: number of sizes");
        for (page, (a, e)) in actual.iter().zip(expected).enumerate() {
            let close = (a.0 - e.0).abs() <= 0.5 && (a.1 - e.1).abs() <= 0.5;
            assert!(close, "{name} page {}: {a:?}, expected {e:?}", page + 1);
        }
    }

    const A4: (f32, f32) = (595.0, 842.0);
    const A4_LANDSCAPE: (f32, f32) = (842.0, 595.0);
    const A5: (f32, f32) = (420.0, 595.0);
    const LETTER_SIZE: (f32, f32) = (612.0, 792.0);

    #[test]
    fn readable_fixtures_give_pages_sizes_signature_and_version() {
        // (file, pages, size of every page, signed, version)
        type Case = (&'static str, u32, (f32, f32), bool, &'static str);
        let cases: &[Case] = &[
            ("a4-1p.pdf", 1, A4, false, "1.4"),
            ("letter-120p.pdf", 120, LETTER_SIZE, false, "1.4"),
            ("ps2pdf-a5-2p.pdf", 2, A5, false, "1.3"),
            ("scan-3p.pdf", 3, (595.2, 842.4), false, "1.3"),
            ("objstm-3p.pdf", 3, A4, false, "1.5"),
            ("linearized-3p.pdf", 3, A4, false, "1.4"),
            ("signed-2rev.pdf", 1, A4, true, "1.7"),
            ("bad-xref-offsets.pdf", 1, A4, false, "1.4"),
            ("bad-startxref.pdf", 1, A4, false, "1.4"),
        ];
        for &(name, pages, size, signed, version) in cases {
            let info = inspect(name);
            assert_eq!(info.pages, pages, "{name}: pages");
            assert_sizes(name, &info.page_sizes, &vec![size; pages as usize]);
            assert_eq!(info.signed, signed, "{name}: signed");
            assert_eq!(info.version, version, "{name}: version");
            assert!(!info.encrypted, "{name}: encrypted");
        }
    }

    #[test]
    fn rotated_pages_report_the_size_a_viewer_shows() {
        // /Rotate 90, 180, 270 (written as -90) and none.
        let info = inspect("rotated-4p.pdf");
        assert_sizes(
            "rotated-4p.pdf",
            &info.page_sizes,
            &[A4_LANDSCAPE, A4, A4_LANDSCAPE, A4],
        );
    }

    #[test]
    fn each_page_has_its_own_size() {
        let info = inspect("mixed-sizes-3p.pdf");
        assert_sizes(
            "mixed-sizes-3p.pdf",
            &info.page_sizes,
            &[A4, A5, LETTER_SIZE],
        );
    }

    #[test]
    fn encrypted_files_are_refused_even_without_a_user_password() {
        for name in [
            "encrypted-aes256.pdf",
            "encrypted-rc4.pdf",
            "encrypted-owner-only.pdf",
        ] {
            let err = inspect_file(&fixture(name)).unwrap_err();
            assert!(matches!(err, PdfError::Encrypted), "{name}: {err:?}");
        }
    }

    #[test]
    fn other_files_are_not_pdfs() {
        for name in ["not-a-pdf-png.pdf", "not-a-pdf-text.pdf", "empty.pdf"] {
            let err = inspect_file(&fixture(name)).unwrap_err();
            assert!(matches!(err, PdfError::NotPdf), "{name}: {err:?}");
        }
    }

    #[test]
    fn a_file_cut_off_before_its_xref_is_damaged() {
        let err = inspect_file(&fixture("no-xref.pdf")).unwrap_err();
        assert!(matches!(err, PdfError::Damaged(_)), "{err:?}");
    }

    #[test]
    fn a_missing_file_is_an_io_error_and_the_servers_fault() {
        let err = inspect_file(&fixture("does-not-exist.pdf")).unwrap_err();
        assert!(matches!(err, PdfError::Io(_)), "{err:?}");
        assert!(!err.is_upload_fault());
        assert!(PdfError::NotPdf.is_upload_fault());
    }

    #[test]
    fn messages_speak_to_the_uploader() {
        assert_eq!(PdfError::NotPdf.to_string(), "the file is not a PDF");
        assert_eq!(
            PdfError::Encrypted.to_string(),
            "the PDF is password-protected; remove the password and upload it again"
        );
        let err = inspect_file(&fixture("no-xref.pdf")).unwrap_err();
        assert!(
            err.to_string().starts_with("the PDF could not be read: "),
            "{err}"
        );
    }

    #[test]
    fn the_header_must_start_within_the_first_1024_bytes() {
        let pdf = read("a4-1p.pdf");
        let shifted = |junk: usize| [vec![b' '; junk], pdf.clone()].concat();
        assert_eq!(inspect_bytes(&shifted(100)).unwrap().pages, 1);
        assert!(matches!(
            inspect_bytes(&shifted(1100)),
            Err(PdfError::NotPdf)
        ));
    }

    #[test]
    fn garbage_after_a_valid_header_is_damaged() {
        let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
        for len in [0, 1, 10, 100, 1_000, 10_000, 100_000] {
            let mut bytes = b"%PDF-1.7\n".to_vec();
            bytes.extend((0..len).map(|_| rng.byte()));
            let cut_off = inspect_bytes(&bytes);
            assert!(
                matches!(cut_off, Err(PdfError::Damaged(_))),
                "{len}: {cut_off:?}"
            );
            // With an end marker the parser itself has to give up on the garbage.
            bytes.extend_from_slice(b"\n%%EOF\n");
            let parsed = inspect_bytes(&bytes);
            assert!(
                matches!(parsed, Err(PdfError::Damaged(_))),
                "{len}: {parsed:?}"
            );
        }
    }

    #[test]
    fn truncated_files_are_damaged_or_not_pdfs() {
        for name in [
            "a4-1p.pdf",
            "letter-120p.pdf",
            "scan-3p.pdf",
            "objstm-3p.pdf",
            "linearized-3p.pdf",
        ] {
            let pdf = read(name);
            let end = rfind(&pdf, b"%%EOF").unwrap();
            let cuts = (1..20)
                .map(|i| end * i / 20)
                .chain([0, 3, end - 1, end + 2]);
            for cut in cuts {
                let result = inspect_bytes(&pdf[..cut]);
                let refused = matches!(result, Err(PdfError::Damaged(_) | PdfError::NotPdf));
                assert!(refused, "{name} cut at {cut}: {result:?}");
            }
        }
    }

    #[test]
    fn a_cut_file_given_an_end_marker_is_still_refused() {
        // Whatever survives, lopdf finds no page tree or a page without its content.
        for name in [
            "letter-120p.pdf",
            "scan-3p.pdf",
            "objstm-3p.pdf",
            "linearized-3p.pdf",
        ] {
            let pdf = read(name);
            for percent in (5..=90).step_by(5) {
                let mut cut = pdf[..pdf.len() * percent / 100].to_vec();
                cut.extend_from_slice(b"\n%%EOF\n");
                let result = inspect_bytes(&cut);
                assert!(
                    matches!(result, Err(PdfError::Damaged(_))),
                    "{name} {percent}%: {result:?}"
                );
            }
        }
    }

    #[test]
    fn garbled_bytes_never_escape_as_a_panic() {
        // Overwrite a few random bytes of real files: any answer but a panic will do; the
        // count of parser panics caught is printed for information.
        let mut rng = XorShift(42);
        let mut caught = 0;
        for name in ["a4-1p.pdf", "objstm-3p.pdf", "signed-2rev.pdf"] {
            let pdf = read(name);
            for _ in 0..150 {
                let mut bytes = pdf.clone();
                for _ in 0..1 + rng.below(8) {
                    let at = rng.below(bytes.len());
                    bytes[at] = rng.byte();
                }
                if let Err(PdfError::Damaged(reason)) = inspect_bytes(&bytes) {
                    caught += usize::from(reason == PANICKED);
                }
            }
        }
        println!("parser panics caught: {caught}");
    }

    #[test]
    fn a_panic_while_parsing_becomes_damaged() {
        let result = guarded(|| panic!("lopdf bug"));
        assert!(
            matches!(result, Err(PdfError::Damaged(ref r)) if r == PANICKED),
            "{result:?}"
        );
    }

    /// A small deterministic generator, so failures reproduce.
    struct XorShift(u64);

    impl XorShift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn byte(&mut self) -> u8 {
            self.next().to_le_bytes()[0]
        }

        fn below(&mut self, n: usize) -> usize {
            usize::try_from(self.next() % n as u64).unwrap()
        }
    }

    /// A PDF with one page tree node holding `node` entries and the given pages, and
    /// `catalog` entries in the catalog. Built with lopdf's writer.
    fn build(node: Dictionary, pages: Vec<Dictionary>, catalog: Dictionary) -> Vec<u8> {
        let mut doc = Document::with_version("1.4");
        let pages_id = doc.new_object_id();
        let mut kids = Vec::new();
        for mut page in pages {
            page.set("Type", "Page");
            page.set("Parent", pages_id);
            let content = doc.add_object(Stream::new(dictionary! {}, b"0 0 m 10 10 l S".to_vec()));
            page.set("Contents", content);
            kids.push(Object::Reference(doc.add_object(page)));
        }
        let mut root = dictionary! { "Type" => "Pages", "Count" => kids.len() as i64 };
        root.set("Kids", kids);
        for (key, value) in node {
            root.set(key, value);
        }
        doc.objects.insert(pages_id, Object::Dictionary(root));
        let mut cat = dictionary! { "Type" => "Catalog", "Pages" => pages_id };
        for (key, value) in catalog {
            cat.set(key, value);
        }
        let catalog_id = doc.add_object(cat);
        doc.trailer.set("Root", catalog_id);
        let mut bytes = Vec::new();
        doc.save_to(&mut bytes).unwrap();
        bytes
    }

    fn rect(values: [f32; 4]) -> Object {
        Object::Array(values.into_iter().map(Object::Real).collect())
    }

    #[test]
    fn boxes_and_rotation_are_inherited_and_normalised() {
        let node = dictionary! { "MediaBox" => rect([0.0, 0.0, 600.0, 800.0]), "Rotate" => 90 };
        let pages = vec![
            // Inherits both: 600x800 turned.
            dictionary! {},
            // Own rotation, negative: -90 is 270.
            dictionary! { "Rotate" => -90 },
            // Invalid rotation is ignored; CropBox clipped to the inherited MediaBox.
            dictionary! { "Rotate" => 45, "CropBox" => rect([100.0, 100.0, 700.0, 500.0]) },
            // Corners in any order; a MediaBox not at the origin.
            dictionary! { "Rotate" => 0, "MediaBox" => rect([300.0, 400.0, 100.0, 50.0]) },
            // A CropBox outside the MediaBox is ignored.
            dictionary! { "Rotate" => 180, "CropBox" => rect([700.0, 900.0, 800.0, 1000.0]) },
        ];
        let info = inspect_bytes(&build(node, pages, dictionary! {})).unwrap();
        let expected = [
            (800.0, 600.0),
            (800.0, 600.0),
            (500.0, 400.0),
            (200.0, 350.0),
            (600.0, 800.0),
        ];
        assert_sizes("synthetic", &info.page_sizes, &expected);
    }

    #[test]
    fn a_page_without_any_media_box_is_letter_sized() {
        let info =
            inspect_bytes(&build(dictionary! {}, vec![dictionary! {}], dictionary! {})).unwrap();
        assert_sizes("no MediaBox", &info.page_sizes, &[LETTER_SIZE]);
    }

    #[test]
    fn an_empty_page_tree_has_no_pages() {
        let err = inspect_bytes(&build(dictionary! {}, vec![], dictionary! {})).unwrap_err();
        assert!(matches!(err, PdfError::NoPages), "{err:?}");
    }

    #[test]
    fn a_page_reference_to_nothing_is_damaged() {
        let pages = vec![dictionary! {}, dictionary! {}];
        let mut doc = Document::load_mem(&build(dictionary! {}, pages, dictionary! {})).unwrap();
        let root = doc
            .catalog()
            .unwrap()
            .get(b"Pages")
            .unwrap()
            .as_reference()
            .unwrap();
        let root = doc.get_dictionary_mut(root).unwrap();
        root.get_mut(b"Kids")
            .unwrap()
            .as_array_mut()
            .unwrap()
            .push(Object::Reference((999, 0)));
        root.set("Count", 3);
        let mut bytes = Vec::new();
        doc.save_to(&mut bytes).unwrap();
        let err = inspect_bytes(&bytes).unwrap_err();
        assert!(
            matches!(err, PdfError::Damaged(ref r) if r.contains("page 3")),
            "{err:?}"
        );
    }

    #[test]
    fn a_page_whose_content_stream_is_gone_is_damaged() {
        // What a cut file keeps when its page dictionaries come before their content, as
        // qpdf writes them. (Fonts and images it references may be gone too; those are not
        // checked, since a reference to nothing is legal PDF and means null.)
        let pages = vec![dictionary! {}, dictionary! {}];
        let mut doc = Document::load_mem(&build(dictionary! {}, pages, dictionary! {})).unwrap();
        let second = doc.get_pages()[&2];
        let contents = doc.get_page_contents(second);
        doc.objects.remove(&contents[0]);
        let mut bytes = Vec::new();
        doc.save_to(&mut bytes).unwrap();
        let err = inspect_bytes(&bytes).unwrap_err();
        assert!(
            matches!(err, PdfError::Damaged(ref r) if r.contains("page 2")),
            "{err:?}"
        );
    }

    #[test]
    fn only_filled_signatures_count_as_signed() {
        let page = || vec![dictionary! { "MediaBox" => rect([0.0, 0.0, 100.0, 100.0]) }];
        let with_form = |form: Dictionary| {
            let bytes = build(dictionary! {}, page(), dictionary! { "AcroForm" => form });
            inspect_bytes(&bytes).unwrap().signed
        };
        let empty_field = dictionary! { "FT" => "Sig", "T" => Object::string_literal("Sign here") };
        assert!(!with_form(
            dictionary! { "Fields" => vec![Object::Dictionary(empty_field)] }
        ));
        assert!(!with_form(dictionary! { "SigFlags" => 0 }));
        assert!(with_form(dictionary! { "SigFlags" => 3 }));

        // A filled field whose form lost its /SigFlags is still found.
        let mut doc = Document::load_mem(&build(dictionary! {}, page(), dictionary! {})).unwrap();
        let value = doc.add_object(dictionary! {
            "Type" => "Sig",
            "ByteRange" => vec![0.into(), 10.into(), 20.into(), 30.into()],
            "Contents" => Object::string_literal(vec![0; 16]),
        });
        doc.add_object(dictionary! { "FT" => "Sig", "V" => value });
        let mut bytes = Vec::new();
        doc.save_to(&mut bytes).unwrap();
        assert!(inspect_bytes(&bytes).unwrap().signed);
    }

    #[test]
    fn the_catalog_version_wins_when_it_is_later() {
        let page = || vec![dictionary! {}];
        let later = build(dictionary! {}, page(), dictionary! { "Version" => "1.7" });
        assert_eq!(inspect_bytes(&later).unwrap().version, "1.7");
        let earlier = build(dictionary! {}, page(), dictionary! { "Version" => "1.2" });
        let header = std::str::from_utf8(&earlier[5..8]).unwrap();
        assert_eq!(inspect_bytes(&earlier).unwrap().version, header);
    }
}
