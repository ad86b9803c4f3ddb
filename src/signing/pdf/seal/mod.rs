//! Sealing a completed document: every filled field burned into its page, audit certificate
//! pages appended, then one PAdES signature over the whole file with the seal certificate.
//! Plain blocking functions; callers run them off the async threads.
//!
//! The pipeline: load (encrypted files refused),
//! stamp and append pages, write the whole file anew (which also repairs damaged
//! cross-reference data), then sign the rewritten file with an incremental update. Signatures
//! the upload already carried would be broken by the stamping, so their fields are removed
//! first: the sealed file carries exactly one signature, the seal.

mod audit_page;
mod canvas;
mod check;
mod font;
mod image;
mod sign;
mod signer;
mod stamp;
#[cfg(test)]
mod tests;

use crate::core::ids::DocumentId;
use lopdf::{Document, Object};

pub use check::{Checked, SealTrust, Verdict, check};
pub use signer::{SEAL_DAYS, SEAL_RENEW_WITHIN_DAYS, SealSigner};

use super::PdfError;

/// What to seal: the original upload, the values to burn in and the audit summary.
#[derive(Debug, Clone)]
pub struct SealInput {
    pub original: Vec<u8>,
    pub fields: Vec<FilledField>,
    pub audit: AuditSummary,
}

/// One filled field. Position and size are percentages (0 to 100) of the page's visible area
/// as a viewer shows it (after /Rotate), from its top-left corner, as in the API.
#[derive(Debug, Clone)]
pub struct FilledField {
    /// 1-based page number.
    pub page: u32,
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    pub value: FieldValue,
    /// Where text sits across its box (`fieldMeta.textAlign`); images are centred.
    pub align: TextAlign,
}

/// A text value's place across its box.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TextAlign {
    #[default]
    Left,
    Center,
    Right,
}

impl TextAlign {
    /// From `fieldMeta.textAlign` (`left`, `center`, `right`); anything else is left.
    pub fn parse(s: Option<&str>) -> TextAlign {
        match s {
            Some("center") => TextAlign::Center,
            Some("right") => TextAlign::Right,
            _ => TextAlign::Left,
        }
    }
}

#[derive(Debug, Clone)]
pub enum FieldValue {
    /// TEXT, NAME, EMAIL, DATE, NUMBER, SELECT and RADIO values: the text drawn in the box.
    Text(String),
    /// The checked labels, drawn after a check mark; an empty list draws nothing.
    Checkbox(Vec<String>),
    /// A drawn signature as PNG (transparency kept).
    SignatureImage(Vec<u8>),
    /// A typed signature, drawn as text.
    SignatureTyped(String),
}

/// What the audit certificate pages say.
#[derive(Debug, Clone)]
pub struct AuditSummary {
    pub title: String,
    pub document_id: DocumentId,
    pub original_sha256: String,
    pub completed_at: String,
    pub recipients: Vec<AuditRecipient>,
    /// (time, what happened), in order.
    pub events: Vec<(String, String)>,
    /// The public check of sealed PDFs (`<app URL>/verify`), named on the last line.
    pub check_url: String,
}

#[derive(Debug, Clone)]
pub struct AuditRecipient {
    pub name: String,
    pub email: String,
    pub role: String,
    pub ip: Option<String>,
    pub user_agent: Option<String>,
    /// What the recipient proved besides holding the link (e.g. "Signing link only", "Account
    /// sign-in and passkey").
    pub authentication: String,
    pub opened_at: Option<String>,
    pub signed_at: Option<String>,
    pub status: String,
    pub signature_png: Option<Vec<u8>>,
}

/// Seals the document: stamps the fields, appends the audit pages and signs the whole file.
/// Never panics: a panic inside the PDF library becomes [`PdfError::Damaged`].
pub fn seal(input: &SealInput, signer: &SealSigner) -> Result<Vec<u8>, PdfError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        seal_unguarded(input, signer)
    }))
    .unwrap_or_else(|_| {
        tracing::warn!("the PDF library panicked while sealing");
        Err(PdfError::Damaged(
            "it is malformed in a way the reader cannot handle".into(),
        ))
    })
}

fn seal_unguarded(input: &SealInput, signer: &SealSigner) -> Result<Vec<u8>, PdfError> {
    let mut doc = super::inspect::load_whole(&input.original)?;
    let pages = doc.get_pages();
    if pages.is_empty() {
        return Err(PdfError::NoPages);
    }
    remove_signatures(&mut doc);
    let mut font = font::Font::new(&mut doc, font::Face::Text)?;
    let mut script = font::Font::new(&mut doc, font::Face::Signature)?;
    let mut images = image::Images::default();
    let fonts = (&mut font, &mut script);
    stamp::stamp_fields(&mut doc, &pages, &input.fields, fonts, &mut images)?;
    audit_page::append(&mut doc, &input.audit, &mut font, &mut images)?;
    font.finish(&mut doc)?;
    if script.is_used() {
        script.finish(&mut doc)?;
    }
    doc.trailer.remove(b"Prev");
    doc.compress();
    let mut rewritten = Vec::new();
    doc.save_to(&mut rewritten)?;
    let now = time::OffsetDateTime::now_utc();
    let when = format!(
        "D:{:04}{:02}{:02}{:02}{:02}{:02}Z",
        now.year(),
        u8::from(now.month()),
        now.day(),
        now.hour(),
        now.minute(),
        now.second()
    );
    sign::sign(rewritten, signer, &when, input.audit.document_id)
}

/// Drops signature fields and their widgets, /SigFlags and /Perms: stamping breaks earlier
/// signatures, and the seal replaces them (the original stays on file, named by its hash).
fn remove_signatures(doc: &mut Document) {
    let is_sig = |doc: &Document, o: &Object| {
        doc.dereference(o)
            .ok()
            .and_then(|(_, o)| o.as_dict().ok())
            .and_then(|d| d.get(b"FT").ok())
            .and_then(|ft| ft.as_name().ok())
            == Some(b"Sig".as_slice())
    };
    let pages: Vec<_> = doc.get_pages().into_values().collect();
    for page_id in pages {
        let Ok(page) = doc.get_dictionary(page_id) else {
            continue;
        };
        let (annots_id, annots) = match page.get(b"Annots").map(|a| doc.dereference(a)) {
            Ok(Ok((id, Object::Array(items)))) => (id, items.clone()),
            _ => continue,
        };
        let kept: Vec<Object> = annots.iter().filter(|a| !is_sig(doc, a)).cloned().collect();
        if kept.len() == annots.len() {
            continue;
        }
        match annots_id {
            Some(id) => {
                if let Ok(o) = doc.get_object_mut(id) {
                    *o = Object::Array(kept);
                }
            }
            None => {
                if let Ok(page) = doc.get_dictionary_mut(page_id) {
                    page.set("Annots", kept);
                }
            }
        }
    }
    let Ok(catalog_id) = doc.trailer.get(b"Root").and_then(Object::as_reference) else {
        return;
    };
    let form_ref = doc
        .get_dictionary(catalog_id)
        .and_then(|c| c.get(b"AcroForm"))
        .and_then(Object::as_reference)
        .ok();
    let fields = doc
        .get_dictionary(catalog_id)
        .ok()
        .and_then(|c| c.get_deref(b"AcroForm", doc).ok())
        .and_then(|f| f.as_dict().ok())
        .and_then(|f| f.get_deref(b"Fields", doc).ok())
        .and_then(|f| f.as_array().ok())
        .map(|items| {
            items
                .iter()
                .filter(|f| !is_sig(doc, f))
                .cloned()
                .collect::<Vec<_>>()
        });
    if let Ok(catalog) = doc.get_dictionary_mut(catalog_id) {
        catalog.remove(b"Perms");
    }
    let form = match form_ref {
        Some(id) => doc.get_dictionary_mut(id).ok(),
        None => doc
            .get_dictionary_mut(catalog_id)
            .ok()
            .and_then(|c| c.get_mut(b"AcroForm").ok())
            .and_then(|f| f.as_dict_mut().ok()),
    };
    if let Some(form) = form {
        form.remove(b"SigFlags");
        if let Some(fields) = fields {
            form.set("Fields", fields);
        }
    }
}
