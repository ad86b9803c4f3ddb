//! The image shown in place of a page that cannot be drawn: a light grey page of the page's
//! shape with a border and "This page cannot be displayed" across its middle.
//!
//! It is a one-page PDF written here and rendered in this process: its content is ours and
//! small, so it needs none of the limits an uploaded page gets.

use lopdf::{Document, Object, Stream, dictionary};

use super::PdfError;
use super::render::LoadedPdf;

/// The message on the placeholder.
pub const MESSAGE: &str = "This page cannot be displayed";

/// Page sides beyond this (in points) are treated as this; the image caps apply anyway.
const MAX_SIDE_PT: f32 = 14_400.0;

/// A PNG `width_px` wide in the shape of a `w_pt` x `h_pt` page (as shown, after rotation).
pub fn draw((w_pt, h_pt): (f32, f32), width_px: u32) -> Result<Vec<u8>, PdfError> {
    let side = |v: f32| {
        if v.is_finite() {
            v.clamp(1.0, MAX_SIDE_PT)
        } else {
            612.0
        }
    };
    let (w, h) = (side(w_pt), side(h_pt));
    let pdf = LoadedPdf::from_bytes(placeholder_pdf(w, h))?;
    pdf.renderer().render(0, width_px)
}

/// The placeholder page as a PDF: grey paper, a darker border, the message centred in
/// Helvetica sized to take at most 80 % of the width.
fn placeholder_pdf(w: f32, h: f32) -> Vec<u8> {
    let text_em = helvetica_width(MESSAGE);
    let size = (w * 0.8 / text_em).min(w / 20.0).min(h * 0.5);
    let (x, y) = ((w - text_em * size) / 2.0, (h - size * 0.7) / 2.0);
    let border = (w.min(h) / 100.0).max(0.5);
    let content = format!(
        "0.94 g 0 0 {w} {h} re f\n\
         0.75 G {border} w {b2} {b2} {iw} {ih} re S\n\
         0.35 g BT /F1 {size} Tf {x} {y} Td ({MESSAGE}) Tj ET\n",
        b2 = border / 2.0,
        iw = w - border,
        ih = h - border,
    );
    let mut doc = Document::with_version("1.4");
    let pages = doc.new_object_id();
    let font = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
    });
    let contents = doc.add_object(Stream::new(dictionary! {}, content.into_bytes()));
    let page = doc.add_object(dictionary! {
        "Type" => "Page",
        "Parent" => pages,
        "MediaBox" => vec![0.into(), 0.into(), Object::Real(w), Object::Real(h)],
        "Resources" => dictionary! { "Font" => dictionary! { "F1" => font } },
        "Contents" => contents,
    });
    doc.objects.insert(
        pages,
        Object::Dictionary(dictionary! {
            "Type" => "Pages", "Kids" => vec![page.into()], "Count" => 1,
        }),
    );
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages });
    doc.trailer.set("Root", catalog);
    let mut out = Vec::new();
    doc.save_to(&mut out)
        .expect("writing a PDF to memory cannot fail");
    out
}

/// Width of `text` in Helvetica, in em (the standard font metrics, per 1000 units).
fn helvetica_width(text: &str) -> f32 {
    let units: u32 = text
        .chars()
        .map(|c| match c {
            ' ' | 't' | 'f' => 278,
            'i' | 'l' | 'j' => 222,
            'r' => 333,
            's' | 'c' | 'k' | 'v' | 'x' | 'y' | 'z' => 500,
            'm' => 833,
            'w' => 722,
            'T' => 611,
            'A'..='Z' => 667,
            _ => 556,
        })
        .sum();
    units as f32 / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(png_bytes: &[u8]) -> (u32, u32, Vec<u8>) {
        let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        let channels = info.color_type.samples();
        let grey = buf[..info.buffer_size()]
            .chunks(channels)
            .map(|px| px[0])
            .collect();
        (info.width, info.height, grey)
    }

    #[test]
    fn it_has_the_pages_shape_light_paper_and_a_message() {
        for (size, width, height) in [
            ((595.0, 842.0), 800, 1132),
            ((842.0, 595.0), 1200, 848),
            ((30.0, 14_400.0), 800, 0),
            ((f32::NAN, -3.0), 800, 1),
        ] {
            let (w, h, grey) = decode(&draw(size, width).unwrap());
            if height > 0 {
                assert_eq!((w, h), (width, height), "{size:?}");
            }
            let light = grey.iter().filter(|&&v| v > 200).count();
            let dark = grey.iter().filter(|&&v| v < 128).count();
            // A page one pixel tall is all border.
            if h > 10 {
                assert!(light * 10 > grey.len() * 8, "{size:?}: mostly light paper");
            }
            if height > 100 {
                assert!(
                    dark > 100,
                    "{size:?}: the message shows ({dark} dark pixels)"
                );
            }
        }
    }

    #[test]
    fn the_message_fits_the_page() {
        let em = helvetica_width(MESSAGE);
        assert!((12.0..16.0).contains(&em), "{em}");
    }
}
