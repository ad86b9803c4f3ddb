//! The audit certificate: A4 pages appended after the document, listing the document, the hash
//! of the original file, each recipient with their activity and signature, the events and the
//! completion time. Lines wrap at the margin; a new page starts when one is full.

use lopdf::{Document, Object, ObjectId, dictionary};

use super::AuditSummary;
use super::canvas::{Canvas, Frame};
use super::font::{Font, lopdf_error};
use super::image;
use crate::signing::pdf::PdfError;

const A4: [f64; 4] = [0.0, 0.0, 595.0, 842.0];
const MARGIN: f64 = 50.0;
const BODY: f64 = 9.0;
const LEADING: f64 = 1.4;
const SIGNATURE_HEIGHT: f64 = 40.0;
const SIGNATURE_MAX_WIDTH: f64 = 180.0;

struct Writer<'a> {
    doc: &'a mut Document,
    font: &'a mut Font,
    images: &'a mut image::Images,
    pages: Vec<Canvas>,
    /// Baseline of the next line, from the bottom of the page.
    y: f64,
}

impl Writer<'_> {
    fn width(&self) -> f64 {
        A4[2] - 2.0 * MARGIN
    }

    fn new_page(&mut self) {
        self.pages.push(Canvas::default());
        self.y = A4[3] - MARGIN;
    }

    /// Makes room for `height` points, starting a new page when the current one is full.
    fn room(&mut self, height: f64) {
        if self.pages.is_empty() || self.y - height < MARGIN {
            self.new_page();
        }
    }

    fn canvas(&mut self) -> &mut Canvas {
        self.pages.last_mut().expect("room() creates a page first")
    }

    fn line(&mut self, size: f64, indent: f64, text: &str) {
        self.room(size * LEADING);
        self.y -= size;
        let y = self.y;
        let Writer { font, pages, .. } = self;
        if let Some(canvas) = pages.last_mut() {
            canvas.text(font, MARGIN + indent, y, size, text);
        }
        self.y -= size * (LEADING - 1.0);
    }

    /// A paragraph wrapped to the page width, `label` first.
    fn field(&mut self, label: &str, value: &str) {
        let text = format!("{label}: {value}");
        let indent = 12.0;
        let lines = wrap(self.font, &text, BODY, self.width() - indent);
        for (i, line) in lines.iter().enumerate() {
            self.line(BODY, if i == 0 { 0.0 } else { indent }, line);
        }
    }

    fn gap(&mut self, points: f64) {
        self.y -= points;
    }

    fn rule(&mut self) {
        self.room(6.0);
        self.y -= 3.0;
        let y = self.y;
        let right = A4[2] - MARGIN;
        self.canvas().line(MARGIN, y, right, y);
        self.y -= 3.0;
    }

    fn signature(&mut self, png: &[u8]) -> Result<(), PdfError> {
        let (id, px_w, px_h) = self.images.add(self.doc, png)?;
        self.room(SIGNATURE_HEIGHT + 4.0);
        self.y -= SIGNATURE_HEIGHT + 2.0;
        let (x, y, w, h) = image::fit(
            px_w,
            px_h,
            MARGIN,
            self.y,
            SIGNATURE_MAX_WIDTH,
            SIGNATURE_HEIGHT,
        );
        self.canvas().image(id, x, y, w, h);
        self.y -= 2.0;
        Ok(())
    }
}

/// Greedy word wrap; a word longer than a line is broken between characters.
fn wrap(font: &Font, text: &str, size: f64, width: f64) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let candidate = if line.is_empty() {
            word.to_string()
        } else {
            format!("{line} {word}")
        };
        if font.width(&candidate, size) <= width {
            line = candidate;
            continue;
        }
        if !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        for c in word.chars() {
            line.push(c);
            if font.width(&line, size) > width && line.chars().count() > 1 {
                line.pop();
                lines.push(std::mem::take(&mut line));
                line.push(c);
            }
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

fn or_dash(v: &Option<String>) -> &str {
    v.as_deref().filter(|s| !s.is_empty()).unwrap_or("-")
}

/// Appends the audit certificate pages to the end of the page tree.
pub(super) fn append(
    doc: &mut Document,
    audit: &AuditSummary,
    font: &mut Font,
    images: &mut image::Images,
) -> Result<(), PdfError> {
    let mut w = Writer {
        doc,
        font,
        images,
        pages: Vec::new(),
        y: 0.0,
    };
    w.line(16.0, 0.0, "Audit certificate");
    w.gap(4.0);
    w.field("Document", &audit.title);
    w.field("Document ID", &audit.document_id.to_string());
    w.field("SHA-256 of the original file", &audit.original_sha256);
    w.field("Completed", &audit.completed_at);
    w.rule();
    w.line(12.0, 0.0, "Recipients");
    for r in &audit.recipients {
        w.gap(4.0);
        w.line(10.0, 0.0, &format!("{} <{}>", r.name, r.email));
        w.field("Role", &r.role);
        w.field("Status", &r.status);
        w.field("IP address", or_dash(&r.ip));
        w.field("User agent", or_dash(&r.user_agent));
        w.field("Authentication", &r.authentication);
        w.field("Opened", or_dash(&r.opened_at));
        w.field("Signed", or_dash(&r.signed_at));
        if let Some(png) = &r.signature_png {
            w.signature(png)?;
        }
    }
    w.rule();
    w.line(12.0, 0.0, "Events");
    for (time, what) in &audit.events {
        w.field(time, what);
    }
    w.rule();
    w.field(
        "Sealed",
        "this file carries the digital signature of this service; any change after sealing invalidates it",
    );
    w.field(
        "Check",
        &format!(
            "anyone can check this file, without an account, at {}",
            audit.check_url
        ),
    );

    let pages = std::mem::take(&mut w.pages);
    for canvas in pages {
        add_page(w.doc, canvas)?;
    }
    Ok(())
}

fn add_page(doc: &mut Document, canvas: Canvas) -> Result<(), PdfError> {
    let root = doc
        .catalog()
        .and_then(|c| c.get(b"Pages"))
        .and_then(Object::as_reference)
        .map_err(|_| PdfError::Damaged("the page tree could not be read".into()))?;
    let media: Vec<Object> = A4.iter().map(|&v| Object::Real(v as f32)).collect();
    let page_id: ObjectId = doc.add_object(dictionary! {
        "Type" => "Page",
        "Parent" => root,
        "MediaBox" => media.clone(),
        "CropBox" => media,
        "Rotate" => 0,
        "Resources" => lopdf::Dictionary::new(),
    });
    let pages = doc.get_dictionary_mut(root).map_err(lopdf_error)?;
    let count = pages.get(b"Count").and_then(Object::as_i64).unwrap_or(0);
    pages.set("Count", count + 1);
    let kids_id = match pages.get_mut(b"Kids") {
        Ok(Object::Array(kids)) => {
            kids.push(Object::Reference(page_id));
            None
        }
        Ok(Object::Reference(id)) => Some(*id),
        _ => {
            pages.set("Kids", vec![Object::Reference(page_id)]);
            None
        }
    };
    if let Some(id) = kids_id {
        match doc.get_object_mut(id) {
            Ok(Object::Array(kids)) => kids.push(Object::Reference(page_id)),
            _ => return Err(PdfError::Damaged("the page tree could not be read".into())),
        }
    }
    canvas.attach(doc, page_id, Frame::new(A4, 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_wraps_within_the_width_and_long_words_break() {
        let mut doc = Document::with_version("1.7");
        let font = Font::new(&mut doc, super::super::font::Face::Text).unwrap();
        let text = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
            .repeat(4)
            + &"x".repeat(300);
        let lines = wrap(&font, &text, BODY, 300.0);
        assert!(lines.len() > 4);
        assert!(lines.iter().all(|l| font.width(l, BODY) <= 300.0));
        assert_eq!(lines.concat().replace(' ', ""), text.replace(' ', ""));
    }
}
