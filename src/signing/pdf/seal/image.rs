//! Signature images: a PNG becomes an image XObject (8-bit RGB or grey) with its alpha channel,
//! if any, as a soft mask, so a drawn signature keeps its transparent background.

use std::collections::HashMap;
use std::io::Cursor;

use lopdf::{Document, Object, ObjectId, Stream, dictionary};
use sha2::{Digest, Sha256};

use super::font::lopdf_error;
use crate::signing::pdf::PdfError;

/// Largest signature image accepted, in pixels per side (a drawn signature is a few hundred).
const MAX_SIDE: u32 = 4096;

/// The images added so far, by the SHA-256 of their PNG: a signature drawn into many fields
/// (or shown again on the audit page) is stored once.
#[derive(Default)]
pub(super) struct Images(HashMap<[u8; 32], (ObjectId, u32, u32)>);

impl Images {
    /// The image for `png`: added to `doc` the first time, reused afterwards.
    pub fn add(
        &mut self,
        doc: &mut Document,
        png: &[u8],
    ) -> Result<(ObjectId, u32, u32), PdfError> {
        let key: [u8; 32] = Sha256::digest(png).into();
        if let Some(&known) = self.0.get(&key) {
            return Ok(known);
        }
        let added = add_png(doc, png)?;
        self.0.insert(key, added);
        Ok(added)
    }
}

/// Adds the PNG to `doc`; returns the image's id and its pixel width and height.
pub(super) fn add_png(doc: &mut Document, png: &[u8]) -> Result<(ObjectId, u32, u32), PdfError> {
    let bad = |e: &dyn std::fmt::Display| PdfError::Seal(format!("a signature image: {e}"));
    let mut decoder = png::Decoder::new(Cursor::new(png));
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().map_err(|e| bad(&e))?;
    let (width, height) = {
        let info = reader.info();
        (info.width, info.height)
    };
    if width == 0 || height == 0 || width > MAX_SIDE || height > MAX_SIDE {
        return Err(bad(&format!(
            "{width}x{height} pixels is not a usable size"
        )));
    }
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| bad(&"too large"))?;
    let mut buf = vec![0; size];
    let frame = reader.next_frame(&mut buf).map_err(|e| bad(&e))?;
    buf.truncate(frame.buffer_size());

    let (colour, alpha, space): (Vec<u8>, Option<Vec<u8>>, &str) = match frame.color_type {
        png::ColorType::Rgba => {
            let (mut rgb, mut a) = (Vec::with_capacity(buf.len()), Vec::new());
            for px in buf.chunks_exact(4) {
                rgb.extend_from_slice(&px[..3]);
                a.push(px[3]);
            }
            (rgb, Some(a), "DeviceRGB")
        }
        png::ColorType::GrayscaleAlpha => {
            let (mut g, mut a) = (Vec::new(), Vec::new());
            for px in buf.chunks_exact(2) {
                g.push(px[0]);
                a.push(px[1]);
            }
            (g, Some(a), "DeviceGray")
        }
        png::ColorType::Rgb => (buf, None, "DeviceRGB"),
        png::ColorType::Grayscale => (buf, None, "DeviceGray"),
        png::ColorType::Indexed => return Err(bad(&"an indexed PNG was not expanded")),
    };
    let image_dict = |space: &str| {
        dictionary! {
            "Type" => "XObject",
            "Subtype" => "Image",
            "Width" => i64::from(width),
            "Height" => i64::from(height),
            "ColorSpace" => Object::Name(space.as_bytes().to_vec()),
            "BitsPerComponent" => 8,
        }
    };
    let mut image = Stream::new(image_dict(space), colour);
    if let Some(alpha) = alpha {
        let mut mask = Stream::new(image_dict("DeviceGray"), alpha);
        mask.dict.remove(b"Type");
        mask.compress().map_err(lopdf_error)?;
        let mask_id = doc.add_object(mask);
        image.dict.set("SMask", mask_id);
    }
    image.compress().map_err(lopdf_error)?;
    Ok((doc.add_object(image), width, height))
}

/// The largest rectangle with the image's aspect ratio inside the box, centred:
/// `(x, y, w, h)`.
pub(super) fn fit(px_w: u32, px_h: u32, x: f64, y: f64, w: f64, h: f64) -> (f64, f64, f64, f64) {
    let scale = (w / f64::from(px_w)).min(h / f64::from(px_h));
    let (iw, ih) = (f64::from(px_w) * scale, f64::from(px_h) * scale);
    (x + (w - iw) / 2.0, y + (h - ih) / 2.0, iw, ih)
}

#[cfg(test)]
pub(super) fn test_png(width: u32, height: u32) -> Vec<u8> {
    // A transparent image with an opaque dark-blue diagonal stroke.
    let mut data = vec![0u8; (width * height * 4) as usize];
    for y in 0..height {
        for x in 0..width {
            if (x * height / width).abs_diff(y) < 3 {
                let i = ((y * width + x) * 4) as usize;
                data[i..i + 4].copy_from_slice(&[10, 20, 120, 255]);
            }
        }
    }
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().unwrap();
    writer.write_image_data(&data).unwrap();
    writer.finish().unwrap();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_rgba_png_becomes_an_image_with_a_soft_mask() {
        let mut doc = Document::with_version("1.7");
        let (id, w, h) = add_png(&mut doc, &test_png(120, 40)).unwrap();
        assert_eq!((w, h), (120, 40));
        let image = doc.get_object(id).unwrap().as_stream().unwrap();
        let mask = image.dict.get(b"SMask").unwrap().as_reference().unwrap();
        let mask = doc.get_object(mask).unwrap().as_stream().unwrap();
        assert_eq!(
            mask.dict.get(b"ColorSpace").unwrap().as_name().unwrap(),
            b"DeviceGray"
        );
        assert_eq!(mask.decompressed_content().unwrap().len(), 120 * 40);

        let mut images = Images::default();
        let png = test_png(50, 20);
        let first = images.add(&mut doc, &png).unwrap();
        assert_eq!(images.add(&mut doc, &png).unwrap(), first, "stored once");
        assert_ne!(images.add(&mut doc, &test_png(51, 20)).unwrap().0, first.0);
    }

    #[test]
    fn garbage_is_refused_and_images_keep_their_aspect_ratio() {
        let mut doc = Document::with_version("1.7");
        assert!(matches!(
            add_png(&mut doc, b"not a png"),
            Err(PdfError::Seal(_))
        ));
        assert_eq!(
            fit(200, 100, 0.0, 0.0, 100.0, 100.0),
            (0.0, 25.0, 100.0, 50.0)
        );
        assert_eq!(
            fit(100, 200, 10.0, 0.0, 100.0, 100.0),
            (35.0, 0.0, 50.0, 100.0)
        );
    }
}
