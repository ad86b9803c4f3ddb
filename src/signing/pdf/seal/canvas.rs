//! Drawing onto a page: a content stream in the coordinates a viewer shows (origin bottom-left
//! of the visible box, after /Rotate), attached after the page's own content with the page's
//! graphics state saved and restored around it.

use std::fmt::Write as _;

use lopdf::{Dictionary, Document, Object, ObjectId, Stream};

use super::font::{Font, lopdf_error};
use crate::signing::pdf::PdfError;

/// The visible area of a page as a viewer shows it, and the map into the page's user space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Frame {
    /// Width and height as shown (swapped for /Rotate 90 and 270).
    pub width: f64,
    pub height: f64,
    /// `[a b c d e f]` for `cm`: viewer coordinates to user space.
    pub matrix: [f64; 6],
}

impl Frame {
    /// `visible` is `[llx, lly, urx, ury]` in user space; `rotate` is 0, 90, 180 or 270
    /// (clockwise, as /Rotate turns the page for display).
    pub fn new(visible: [f64; 4], rotate: i64) -> Frame {
        let [llx, lly, urx, ury] = visible;
        let (w, h) = (urx - llx, ury - lly);
        let (width, height, matrix) = match rotate {
            90 => (h, w, [0.0, 1.0, -1.0, 0.0, urx, lly]),
            180 => (w, h, [-1.0, 0.0, 0.0, -1.0, urx, ury]),
            270 => (h, w, [0.0, -1.0, 1.0, 0.0, llx, ury]),
            _ => (w, h, [1.0, 0.0, 0.0, 1.0, llx, lly]),
        };
        Frame {
            width,
            height,
            matrix,
        }
    }

    pub fn of_page(doc: &Document, page_id: ObjectId) -> Result<Frame, PdfError> {
        let page = doc
            .get_dictionary(page_id)
            .map_err(|_| PdfError::Damaged("a page could not be read".into()))?;
        let (visible, rotate) = crate::signing::pdf::inspect::page_frame(doc, page);
        Ok(Frame::new(visible, rotate))
    }

    /// Maps a point in viewer coordinates to user space (for tests and checks).
    #[cfg(test)]
    pub fn to_user(self, u: f64, v: f64) -> (f64, f64) {
        let [a, b, c, d, e, f] = self.matrix;
        (a * u + c * v + e, b * u + d * v + f)
    }
}

/// Content for one page in viewer coordinates, and the images it uses.
#[derive(Default)]
pub(super) struct Canvas {
    ops: String,
    images: Vec<(String, ObjectId)>,
    /// The fonts used: resource name and font dictionary.
    fonts: Vec<(&'static str, ObjectId)>,
}

pub(super) fn num(v: f64) -> String {
    let v = if v.is_finite() { v } else { 0.0 };
    let s = format!("{v:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.into() }
}

impl Canvas {
    /// Text with its baseline starting at (x, y).
    pub fn text(&mut self, font: &mut Font, x: f64, y: f64, size: f64, text: &str) {
        if text.is_empty() {
            return;
        }
        let name = font.resource_name();
        if !self.fonts.iter().any(|(n, _)| *n == name) {
            self.fonts.push((name, font.id));
        }
        let hex = font.encode(text);
        let _ = writeln!(
            self.ops,
            "BT /{name} {} Tf {} {} Td {hex} Tj ET",
            num(size),
            num(x),
            num(y)
        );
    }

    /// An image XObject drawn into the rectangle with lower-left (x, y).
    pub fn image(&mut self, id: ObjectId, x: f64, y: f64, w: f64, h: f64) {
        let name = format!("DkIm{}", self.images.len() + 1);
        let _ = writeln!(
            self.ops,
            "q {} 0 0 {} {} {} cm /{name} Do Q",
            num(w),
            num(h),
            num(x),
            num(y)
        );
        self.images.push((name, id));
    }

    /// A straight line, 0.5 pt grey.
    pub fn line(&mut self, x1: f64, y1: f64, x2: f64, y2: f64) {
        let _ = writeln!(
            self.ops,
            "q 0.6 G 0.5 w {} {} m {} {} l S Q",
            num(x1),
            num(y1),
            num(x2),
            num(y2)
        );
    }

    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// Appends this drawing to the page: a `q` before the page's content (which may leave the
    /// graphics state changed), then `Q`, the map to viewer coordinates and the drawing.
    pub fn attach(
        self,
        doc: &mut Document,
        page_id: ObjectId,
        frame: Frame,
    ) -> Result<(), PdfError> {
        let [a, b, c, d, e, f] = frame.matrix.map(num);
        let body = format!("Q\nq {a} {b} {c} {d} {e} {f} cm 0 g\n{}Q\n", self.ops);
        let before = doc.add_object(Stream::new(Dictionary::new(), b"q\n".to_vec()));
        let mut stream = Stream::new(Dictionary::new(), body.into_bytes());
        stream.compress().map_err(lopdf_error)?;
        let after = doc.add_object(stream);

        let resources = self.resources(doc, page_id)?;
        let page = doc
            .get_dictionary(page_id)
            .map_err(|_| PdfError::Damaged("a page could not be read".into()))?;
        let mut contents = vec![Object::Reference(before)];
        match page.get(b"Contents") {
            Ok(Object::Reference(id)) => match doc.get_object(*id) {
                Ok(Object::Array(items)) => contents.extend(items.iter().cloned()),
                _ => contents.push(Object::Reference(*id)),
            },
            Ok(Object::Array(items)) => contents.extend(items.iter().cloned()),
            _ => {}
        }
        contents.push(Object::Reference(after));
        let page = doc.get_dictionary_mut(page_id).map_err(lopdf_error)?;
        page.set("Contents", contents);
        page.set("Resources", resources);
        Ok(())
    }

    /// The page's resources (its own or inherited), copied inline with our font and images
    /// added, so shared resource dictionaries of other pages stay as they were.
    fn resources(&self, doc: &Document, page_id: ObjectId) -> Result<Dictionary, PdfError> {
        let page = doc
            .get_dictionary(page_id)
            .map_err(|_| PdfError::Damaged("a page could not be read".into()))?;
        let mut resources =
            crate::signing::pdf::inspect::inherited_attribute(doc, page, b"Resources")
                .and_then(|o| doc.dereference(o).ok())
                .and_then(|(_, o)| o.as_dict().ok().cloned())
                .unwrap_or_default();
        let sub = |resources: &Dictionary, key: &[u8]| -> Dictionary {
            resources
                .get(key)
                .ok()
                .and_then(|o| doc.dereference(o).ok())
                .and_then(|(_, o)| o.as_dict().ok().cloned())
                .unwrap_or_default()
        };
        if !self.fonts.is_empty() {
            let mut fonts = sub(&resources, b"Font");
            for (name, id) in &self.fonts {
                fonts.set(*name, Object::Reference(*id));
            }
            resources.set("Font", fonts);
        }
        if !self.images.is_empty() {
            let mut xobjects = sub(&resources, b"XObject");
            for (name, id) in &self.images {
                xobjects.set(name.as_bytes().to_vec(), Object::Reference(*id));
            }
            resources.set("XObject", xobjects);
        }
        Ok(resources)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_viewers_corners_map_to_the_right_user_space_corners() {
        let visible = [10.0, 20.0, 610.0, 820.0]; // 600 wide, 800 high
        let top_left_shown = |r| {
            let f = Frame::new(visible, r);
            (f.width, f.height, f.to_user(0.0, f.height))
        };
        // Unrotated: the top-left is (llx, ury).
        assert_eq!(top_left_shown(0), (600.0, 800.0, (10.0, 820.0)));
        // Turned clockwise: the page's bottom-left corner shows at the top-left.
        assert_eq!(top_left_shown(90), (800.0, 600.0, (10.0, 20.0)));
        assert_eq!(top_left_shown(180), (600.0, 800.0, (610.0, 20.0)));
        assert_eq!(top_left_shown(270), (800.0, 600.0, (610.0, 820.0)));
        // And the bottom-right shown is the opposite corner.
        let f = Frame::new(visible, 90);
        assert_eq!(f.to_user(f.width, 0.0), (610.0, 820.0));
    }

    #[test]
    fn numbers_are_short_and_finite() {
        assert_eq!(num(12.0), "12");
        assert_eq!(num(0.1234), "0.123");
        assert_eq!(num(-0.0001), "0");
        assert_eq!(num(f64::NAN), "0");
    }
}
