//! Burns the filled fields into their pages: text in the embedded font, shrunk to fit its box;
//! a typed signature in the script face (the text face when the script lacks one of its
//! characters); signature images fitted into the box keeping their aspect ratio.

use std::collections::BTreeMap;

use lopdf::{Document, ObjectId};

use super::canvas::{Canvas, Frame};
use super::font::Font;
use super::image;
use super::{FieldValue, FilledField, TextAlign};
use crate::signing::pdf::PdfError;

/// Text is at most this share of its box's height.
const TEXT_HEIGHT_SHARE: f64 = 0.7;
const MIN_TEXT_SIZE: f64 = 2.0;

pub(super) fn stamp_fields(
    doc: &mut Document,
    pages: &BTreeMap<u32, ObjectId>,
    fields: &[FilledField],
    (font, script): (&mut Font, &mut Font),
    images: &mut image::Images,
) -> Result<(), PdfError> {
    let mut by_page: BTreeMap<u32, Vec<&FilledField>> = BTreeMap::new();
    for field in fields {
        if !pages.contains_key(&field.page) {
            return Err(PdfError::Seal(format!(
                "a field is on page {}, but the document has {} pages",
                field.page,
                pages.len()
            )));
        }
        by_page.entry(field.page).or_default().push(field);
    }
    for (number, fields) in by_page {
        let page_id = pages[&number];
        let frame = Frame::of_page(doc, page_id)?;
        let mut canvas = Canvas::default();
        for field in fields {
            let (x, y, w, h) = field_box(field, frame);
            match &field.value {
                FieldValue::Text(text) => {
                    fit_text(&mut canvas, font, text, (x, y, w, h), field.align);
                }
                FieldValue::SignatureTyped(text) => {
                    let face = if script.covers(text) {
                        &mut *script
                    } else {
                        &mut *font
                    };
                    fit_text(&mut canvas, face, text, (x, y, w, h), field.align);
                }
                FieldValue::Checkbox(labels) if labels.is_empty() => {}
                FieldValue::Checkbox(labels) => {
                    let text = format!("\u{2713} {}", labels.join(", "));
                    fit_text(&mut canvas, font, &text, (x, y, w, h), field.align);
                }
                FieldValue::SignatureImage(png) => {
                    let (id, px_w, px_h) = images.add(doc, png)?;
                    let (ix, iy, iw, ih) = image::fit(px_w, px_h, x, y, w, h);
                    canvas.image(id, ix, iy, iw, ih);
                }
            }
        }
        if !canvas.is_empty() {
            canvas.attach(doc, page_id, frame)?;
        }
    }
    Ok(())
}

/// The field's box in viewer coordinates (origin bottom-left): `(x, y, w, h)`, clamped to
/// the page. The field gives percentages of the visible page from its top-left corner.
fn field_box(field: &FilledField, frame: Frame) -> (f64, f64, f64, f64) {
    let pct = |v: f64| {
        if v.is_finite() {
            v.clamp(0.0, 100.0) / 100.0
        } else {
            0.0
        }
    };
    let x = pct(field.x) * frame.width;
    let top = pct(field.y) * frame.height;
    let w = (pct(field.width) * frame.width).min(frame.width - x);
    let h = (pct(field.height) * frame.height).min(frame.height - top);
    (x, frame.height - top - h, w, h)
}

/// One line of text, vertically centred, placed across the box as `align` says, as large as
/// the box allows.
pub(super) fn fit_text(
    canvas: &mut Canvas,
    font: &mut Font,
    text: &str,
    rect: (f64, f64, f64, f64),
    align: TextAlign,
) {
    let (x, y, w, h) = rect;
    let text: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.is_empty() || w <= 0.0 || h <= 0.0 {
        return;
    }
    let pad = (h * 0.1).min(2.0);
    let width_at_1pt = font.width(&text, 1.0).max(f64::EPSILON);
    let size = (h * TEXT_HEIGHT_SHARE)
        .min((w - 2.0 * pad).max(0.0) / width_at_1pt)
        .max(MIN_TEXT_SIZE);
    let (ascent, descent) = font.ascent_descent();
    let baseline = y + h / 2.0 - (ascent + descent) / 2000.0 * size;
    let left = text_left(align, (x, w), pad, width_at_1pt * size);
    canvas.text(font, left, baseline, size, &text);
}

/// Where a line `text_width` wide starts in a box from `x`, `w` wide, `pad` in from its edges;
/// a line wider than the box starts at its left padding whatever the alignment.
fn text_left(align: TextAlign, (x, w): (f64, f64), pad: f64, text_width: f64) -> f64 {
    let start = match align {
        TextAlign::Left => x + pad,
        TextAlign::Center => x + (w - text_width) / 2.0,
        TextAlign::Right => x + w - pad - text_width,
    };
    start.max(x + pad)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(x: f64, y: f64, width: f64, height: f64) -> FilledField {
        FilledField {
            page: 1,
            x,
            y,
            width,
            height,
            value: FieldValue::Text("x".into()),
            align: TextAlign::Left,
        }
    }

    #[test]
    fn text_is_placed_across_its_box_as_aligned() {
        let b = (100.0, 50.0);
        assert_eq!(text_left(TextAlign::Left, b, 2.0, 20.0), 102.0);
        assert_eq!(text_left(TextAlign::Center, b, 2.0, 20.0), 115.0);
        assert_eq!(text_left(TextAlign::Right, b, 2.0, 20.0), 128.0);
        // Too wide to align: from the left padding.
        assert_eq!(text_left(TextAlign::Right, b, 2.0, 60.0), 102.0);
        assert_eq!(TextAlign::parse(Some("center")), TextAlign::Center);
        assert_eq!(TextAlign::parse(Some("justify")), TextAlign::Left);
        assert_eq!(TextAlign::parse(None), TextAlign::Left);
    }

    #[test]
    fn percent_boxes_count_from_the_top_left_of_the_page_shown() {
        let frame = Frame::new([0.0, 0.0, 600.0, 800.0], 0);
        assert_eq!(
            field_box(&field(10.0, 10.0, 50.0, 5.0), frame),
            (60.0, 680.0, 300.0, 40.0)
        );
        // Rotated: the box is measured on the landscape page a viewer shows.
        let frame = Frame::new([0.0, 0.0, 600.0, 800.0], 90);
        assert_eq!(
            field_box(&field(0.0, 0.0, 50.0, 50.0), frame),
            (0.0, 300.0, 400.0, 300.0)
        );
        // Out-of-range values stay on the page.
        let (x, y, w, h) = field_box(&field(95.0, 99.0, 50.0, 50.0), frame);
        assert!(x + w <= 800.0 && y >= 0.0 && h >= 0.0);
    }
}
