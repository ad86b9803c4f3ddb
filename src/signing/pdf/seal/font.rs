//! The fonts of sealed PDFs, both embedded assets (`assets/fonts/`, gzipped by `build.rs`,
//! inflated once on first use) that the signing page shows values in too, so that what a signer
//! sees is what gets sealed: DejaVu Sans for text ([`Face::Text`]; 760 KB of file for 382) and
//! Dancing Script, a script face under the SIL OFL 1.1 that allows embedding, for typed
//! signatures ([`Face::Signature`]). Each is
//! embedded as a subset in a Type0 font with Identity-H encoding and a ToUnicode map, so any
//! text the font has glyphs for is drawn and can be copied or searched: a CIDFontType2 for
//! TrueType outlines, a CIDFontType0 with an OpenType program (`FontFile3`) for CFF ones.
//!
//! Glyphs are collected while the pages are drawn ([`Font::encode`]); [`Font::finish`] then
//! writes the subset and the font dictionaries under the object id reserved up front. No
//! shaping or kerning: one glyph per character, which suits names, dates and short values.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use lopdf::{Dictionary, Document, Object, ObjectId, Stream, dictionary};
use subsetter::GlyphRemapper;

use crate::signing::pdf::PdfError;

/// Which of the embedded faces a [`Font`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Face {
    /// DejaVu Sans: every value, and the audit pages.
    Text,
    /// Dancing Script: typed signatures and initials.
    Signature,
}

impl Face {
    /// The file, the font's base name, and its name in the pages' resources.
    fn names(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Face::Text => ("DejaVuSans.ttf", "DejaVuSans", "DkF"),
            Face::Signature => ("DancingScript-Regular.otf", "DancingScript-Regular", "DkS"),
        }
    }

    /// The font program, from the embedded assets.
    fn data(self) -> Result<&'static [u8], PdfError> {
        let (file, _, _) = self.names();
        let asset: &'static crate::core::assets::Asset =
            crate::core::assets::get(&format!("fonts/{file}"))
                .ok_or_else(|| PdfError::Seal(format!("the font {file} is not embedded")))?;
        asset
            .plain()
            .map_err(|e| PdfError::Seal(format!("the font {file}: {e}")))
    }
}

pub(super) struct Font {
    face_kind: Face,
    data: &'static [u8],
    face: ttf_parser::Face<'static>,
    units_per_em: f64,
    remapper: GlyphRemapper,
    /// New glyph id (= CID) -> (old glyph id, the character it shows).
    used: BTreeMap<u16, (u16, char)>,
    /// The Type0 font dictionary's id, reserved so pages can point at it before it exists.
    pub id: ObjectId,
}

impl Font {
    pub fn new(doc: &mut Document, kind: Face) -> Result<Font, PdfError> {
        let (file, _, _) = kind.names();
        let data = kind.data()?;
        let face = ttf_parser::Face::parse(data, 0)
            .map_err(|e| PdfError::Seal(format!("the font {file}: {e}")))?;
        Ok(Font {
            face_kind: kind,
            data,
            units_per_em: f64::from(face.units_per_em()),
            face,
            remapper: GlyphRemapper::new(),
            used: BTreeMap::new(),
            id: doc.new_object_id(),
        })
    }

    fn glyph(&self, c: char) -> u16 {
        self.face.glyph_index(c).map(|g| g.0).unwrap_or(0)
    }

    /// The name the pages' resources give this font (`/DkF`, `/DkS`).
    pub fn resource_name(&self) -> &'static str {
        self.face_kind.names().2
    }

    /// Whether the font has a glyph for every character of `text` (control characters aside).
    pub fn covers(&self, text: &str) -> bool {
        text.chars()
            .filter(|c| !c.is_control() && !c.is_whitespace())
            .all(|c| self.glyph(c) != 0)
    }

    /// Whether any text was drawn with this font (an unused one is not written).
    pub fn is_used(&self) -> bool {
        !self.used.is_empty()
    }

    /// Advance of a glyph in 1/1000 of the font size.
    fn advance(&self, gid: u16) -> f64 {
        let units = self
            .face
            .glyph_hor_advance(ttf_parser::GlyphId(gid))
            .unwrap_or(0);
        f64::from(units) * 1000.0 / self.units_per_em
    }

    /// Width of `text` set at `size` points.
    pub fn width(&self, text: &str, size: f64) -> f64 {
        text.chars()
            .map(|c| self.advance(self.glyph(c)))
            .sum::<f64>()
            * size
            / 1000.0
    }

    /// Ascender and descender (negative) in 1/1000 of the font size.
    pub fn ascent_descent(&self) -> (f64, f64) {
        let scale = 1000.0 / self.units_per_em;
        (
            f64::from(self.face.ascender()) * scale,
            f64::from(self.face.descender()) * scale,
        )
    }

    /// `text` as a hex string operand for `Tj` (two bytes per glyph), recording its glyphs.
    /// Control characters are dropped; characters without a glyph show the .notdef box.
    pub fn encode(&mut self, text: &str) -> String {
        let mut out = String::from("<");
        for c in text.chars().filter(|c| !c.is_control()) {
            let old = self.glyph(c);
            let new = self.remapper.remap(old);
            if old != 0 {
                self.used.entry(new).or_insert((old, c));
            }
            let _ = write!(out, "{new:04X}");
        }
        out.push('>');
        out
    }

    /// Writes the subset font program and the font dictionaries into `doc`.
    pub fn finish(self, doc: &mut Document) -> Result<(), PdfError> {
        let subset = subsetter::subset(self.data, 0, &self.remapper)
            .map_err(|e| PdfError::Seal(format!("font subsetting failed: {e:?}")))?;
        let name = format!("{}+{}", self.subset_tag(), self.face_kind.names().1);
        // CFF outlines go in an OpenType program (FontFile3), TrueType ones as they are.
        let cff = self.face.tables().cff.is_some();
        let file_dict = if cff {
            dictionary! { "Subtype" => "OpenType" }
        } else {
            dictionary! { "Length1" => subset.len() as i64 }
        };
        let mut file = Stream::new(file_dict, subset);
        file.compress().map_err(lopdf_error)?;
        let file_id = doc.add_object(file);
        let (file_key, cid_subtype) = if cff {
            ("FontFile3", "CIDFontType0")
        } else {
            ("FontFile2", "CIDFontType2")
        };

        let scale = 1000.0 / self.units_per_em;
        let bbox = self.face.global_bounding_box();
        let (ascent, descent) = self.ascent_descent();
        let cap_height = self
            .face
            .capital_height()
            .map_or(ascent, |h| f64::from(h) * scale);
        let descriptor = doc.add_object(dictionary! {
            "Type" => "FontDescriptor",
            "FontName" => Object::Name(name.clone().into_bytes()),
            "Flags" => 32,
            "FontBBox" => vec![
                (f64::from(bbox.x_min) * scale).into(),
                (f64::from(bbox.y_min) * scale).into(),
                (f64::from(bbox.x_max) * scale).into(),
                (f64::from(bbox.y_max) * scale).into(),
            ],
            "ItalicAngle" => 0,
            "Ascent" => ascent,
            "Descent" => descent,
            "CapHeight" => cap_height,
            "StemV" => 80,
            file_key => file_id,
        });

        // /W: one entry `cid [width]` per glyph used; .notdef falls back to /DW.
        let mut widths = Vec::new();
        for (&cid, &(old, _)) in &self.used {
            widths.push(Object::Integer(i64::from(cid)));
            widths.push(Object::Array(vec![Object::Real(self.advance(old) as f32)]));
        }
        let mut cid_font = dictionary! {
            "Type" => "Font",
            "Subtype" => cid_subtype,
            "BaseFont" => Object::Name(name.clone().into_bytes()),
            "CIDSystemInfo" => dictionary! {
                "Registry" => Object::string_literal("Adobe"),
                "Ordering" => Object::string_literal("Identity"),
                "Supplement" => 0,
            },
            "FontDescriptor" => descriptor,
            "DW" => self.advance(0),
            "W" => widths,
        };
        if !cff {
            cid_font.set("CIDToGIDMap", "Identity");
        }
        let cid_font = doc.add_object(cid_font);
        let mut cmap = Stream::new(Dictionary::new(), self.to_unicode().into_bytes());
        cmap.compress().map_err(lopdf_error)?;
        let to_unicode = doc.add_object(cmap);
        doc.objects.insert(
            self.id,
            Object::Dictionary(dictionary! {
                "Type" => "Font",
                "Subtype" => "Type0",
                "BaseFont" => Object::Name(name.into_bytes()),
                "Encoding" => "Identity-H",
                "DescendantFonts" => vec![cid_font.into()],
                "ToUnicode" => to_unicode,
            }),
        );
        Ok(())
    }

    /// Six capital letters naming this subset (PDF 32000-1, 9.6.4), from its glyph set.
    fn subset_tag(&self) -> String {
        let mut seed = String::new();
        for cid in self.used.keys() {
            let _ = write!(seed, "{cid},");
        }
        crate::core::crypto::sha256_hex(seed.as_bytes())
            .bytes()
            .take(6)
            .map(|b| char::from(b'A' + b % 26))
            .collect()
    }

    fn to_unicode(&self) -> String {
        let mut out = String::from(
            "/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n\
             /CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n\
             /CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n\
             1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n",
        );
        let entries: Vec<_> = self.used.iter().collect();
        for chunk in entries.chunks(100) {
            let _ = writeln!(out, "{} beginbfchar", chunk.len());
            for (cid, (_, c)) in chunk {
                let mut units = [0u16; 2];
                let hex: String = c
                    .encode_utf16(&mut units)
                    .iter()
                    .map(|u| format!("{u:04X}"))
                    .collect();
                let _ = writeln!(out, "<{cid:04X}> <{hex}>");
            }
            out.push_str("endbfchar\n");
        }
        out.push_str("endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n");
        out
    }
}

pub(super) fn lopdf_error(e: lopdf::Error) -> PdfError {
    PdfError::Seal(format!("PDF writing failed: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text face comes out of the binary as the file, byte for byte, and is inflated once;
    /// it is served (the signing page writes values in it) with its licence.
    #[test]
    fn the_embedded_text_font_inflates_to_the_file() {
        let file = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/assets/fonts/DejaVuSans.ttf"
        ));
        let first = Face::Text.data().unwrap();
        assert_eq!(first, file.unwrap().as_slice());
        assert!(std::ptr::eq(first, Face::Text.data().unwrap()));
        let licence = crate::core::assets::get("fonts/DejaVuSans-LICENSE.txt");
        assert!(licence.is_some(), "its licence travels with the binary");
    }

    #[test]
    fn encodes_glyphs_and_maps_them_back_to_unicode() {
        let mut doc = Document::with_version("1.7");
        let mut font = Font::new(&mut doc, Face::Text).unwrap();
        let hex = font.encode("Zoë Ł");
        assert_eq!(hex.len(), 2 + 4 * 5);
        assert!(font.width("Zoë", 10.0) > 10.0);
        let cmap = font.to_unicode();
        assert!(cmap.contains("<00EB>"), "ë in ToUnicode: {cmap}");
        assert!(cmap.contains("<0141>"), "Ł in ToUnicode");
        let id = font.id;
        font.finish(&mut doc).unwrap();
        let dict = doc.get_dictionary(id).unwrap();
        assert_eq!(dict.get(b"Subtype").unwrap().as_name().unwrap(), b"Type0");
    }

    #[test]
    fn typed_signatures_have_a_script_face_embedded_as_an_opentype_cid_font() {
        let mut doc = Document::with_version("1.7");
        let mut font = Font::new(&mut doc, Face::Signature).unwrap();
        assert!(font.covers("Zoë Ann-Marie O'Neil"));
        assert!(!font.covers("Ζωή"), "no Greek: the text face stands in");
        assert!(!font.is_used());
        font.encode("Ann Signer");
        assert!(font.is_used());
        assert_eq!(font.resource_name(), "DkS");
        let id = font.id;
        font.finish(&mut doc).unwrap();
        let dict = doc.get_dictionary(id).unwrap();
        let base = dict.get(b"BaseFont").unwrap().as_name().unwrap();
        assert!(base.ends_with(b"+DancingScript-Regular"));
        let descendant = match dict.get(b"DescendantFonts").unwrap() {
            Object::Array(a) => doc.get_dictionary(a[0].as_reference().unwrap()).unwrap(),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            descendant.get(b"Subtype").unwrap().as_name().unwrap(),
            b"CIDFontType0"
        );
        let descriptor = descendant
            .get(b"FontDescriptor")
            .unwrap()
            .as_reference()
            .unwrap();
        let descriptor = doc.get_dictionary(descriptor).unwrap();
        let file = descriptor
            .get(b"FontFile3")
            .unwrap()
            .as_reference()
            .unwrap();
        let file = doc.get_object(file).unwrap().as_stream().unwrap();
        assert_eq!(
            file.dict.get(b"Subtype").unwrap().as_name().unwrap(),
            b"OpenType"
        );
    }
}
