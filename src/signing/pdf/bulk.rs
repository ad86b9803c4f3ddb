//! The upload check without copying the data of large streams.
//!
//! lopdf copies every stream's data into the object it builds while loading. The check reads
//! none of it (only object and cross-reference streams, which lopdf decodes itself), so on a
//! 20 MiB scan that copy was most of the check, and the check runs after the last byte of the
//! upload. lopdf keeps a stream whose dictionary has no /Length as a position in the file and
//! copies nothing ([`hidden`]), so the check hides the /Length key of each large stream in its
//! private copy-on-write map of the file: the key's name is overwritten with another of the
//! same width, and nothing else moves.
//!
//! Only a stream lopdf would have loaded the same way is hidden: its dictionary holds one
//! /Length, a whole number written out, no `#` escape anywhere, no /Type of ObjStm or XRef; and
//! lopdf's own rules for where the data starts and ends find `endstream` right after that many
//! bytes. Every object then loads as it would have, except that such a stream's data is empty.
//! When the load still needed a repaired cross-reference table, or its page tree is not whole,
//! the keys are put back and the file is loaded as before, within the same budget.

use std::ops::Range;

use super::budget::{is_delimiter, is_space};

/// Streams with at least this much data are hidden: copying less costs about what the
/// copy-on-write fault of hiding it does. Unit tests hide streams from 1 KiB, so that the
/// streams of the small fixtures are hidden too.
pub(super) const BULK: usize = if cfg!(test) { 1 << 10 } else { 64 << 10 };

/// What the hidden keys are renamed to: as wide as `/Length`, and no key lopdf reads.
const HIDDEN_KEY: &[u8; 7] = b"/Bulked";
const LENGTH_KEY: &[u8; 7] = b"/Length";

/// Where the `/Length` key of the stream whose dictionary spans `dict` lies in `bytes`, if the
/// stream can be hidden (see the module documentation): `keyword_end` is the byte after the
/// `stream` keyword, `length` the dictionary's /Length (read once, as a direct integer).
pub(super) fn length_key(
    bytes: &[u8],
    dict: Range<usize>,
    keyword_end: usize,
    length: usize,
) -> Option<usize> {
    if length < BULK || !whole_at(bytes, keyword_end, length) {
        return None;
    }
    let text = bytes.get(dict.clone())?;
    if text.contains(&b'#') {
        return None;
    }
    let mut keys = text
        .windows(LENGTH_KEY.len() + 1)
        .enumerate()
        .filter(|(_, w)| w.starts_with(LENGTH_KEY) && ends_name(w[LENGTH_KEY.len()]))
        .map(|(at, _)| dict.start + at);
    let key = keys.next()?;
    keys.next().is_none().then_some(key)
}

/// lopdf's reading of a stream's data (`stream_keyword` and `stream` in its parser): spaces
/// or tabs, one end of line, `length` bytes, at most one end of line, `endstream`.
fn whole_at(bytes: &[u8], keyword_end: usize, length: usize) -> bool {
    let Some(rest) = bytes.get(keyword_end..) else {
        return false;
    };
    let blanks = rest
        .iter()
        .take_while(|&&b| b == b' ' || b == b'\t')
        .count();
    let Some(data) = eol(&rest[blanks..]).map(|n| keyword_end + blanks + n) else {
        return false;
    };
    let Some(after) = data.checked_add(length).and_then(|end| bytes.get(end..)) else {
        return false;
    };
    after[eol(after).unwrap_or(0)..].starts_with(b"endstream")
}

/// The width of the end of line `text` starts with: CR LF, LF or CR.
fn eol(text: &[u8]) -> Option<usize> {
    match text {
        [b'\r', b'\n', ..] => Some(2),
        [b'\n', ..] | [b'\r', ..] => Some(1),
        _ => None,
    }
}

/// Whether `b` ends a name (whitespace or a delimiter), so `/Length` is not `/LengthX`.
fn ends_name(b: u8) -> bool {
    is_space(b) || is_delimiter(b)
}

/// A private buffer with the given streams' `/Length` keys hidden; they are put back when it
/// is dropped.
pub(super) struct Hidden<'a> {
    bytes: &'a mut [u8],
    keys: Vec<usize>,
}

/// Hides the `/Length` keys at `keys` (found by [`length_key`] in these same bytes).
pub(super) fn hidden(bytes: &mut [u8], keys: Vec<usize>) -> Hidden<'_> {
    for &at in &keys {
        bytes[at..at + HIDDEN_KEY.len()].copy_from_slice(HIDDEN_KEY);
    }
    Hidden { bytes, keys }
}

impl Hidden<'_> {
    /// How many streams are hidden.
    pub(super) fn count(&self) -> usize {
        self.keys.len()
    }
}

impl std::ops::Deref for Hidden<'_> {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.bytes
    }
}

impl Drop for Hidden<'_> {
    fn drop(&mut self) {
        for &at in &self.keys {
            self.bytes[at..at + LENGTH_KEY.len()].copy_from_slice(LENGTH_KEY);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream(dict: &str, between: &str, data_len: usize, after: &str) -> (Vec<u8>, Range<usize>) {
        let mut pdf = b"1 0 obj\n".to_vec();
        let start = pdf.len();
        pdf.extend_from_slice(dict.as_bytes());
        let end = pdf.len();
        pdf.extend_from_slice(b"\nstream");
        pdf.extend_from_slice(between.as_bytes());
        pdf.extend(std::iter::repeat_n(b'x', data_len));
        pdf.extend_from_slice(after.as_bytes());
        (pdf, start..end)
    }

    fn key(dict: &str, between: &str, len: usize, after: &str) -> Option<usize> {
        let (pdf, span) = stream(dict, between, len, after);
        let keyword_end = span.end + b"\nstream".len();
        length_key(&pdf, span, keyword_end, len)
    }

    #[test]
    fn a_large_stream_lopdf_would_read_whole_is_hidden() {
        let dict = format!("<< /Subtype /Image /Length {BULK} >>");
        let at = key(&dict, "\n", BULK, "\nendstream").unwrap();
        assert_eq!(at, 8 + dict.find("/Length").unwrap());
        for (between, after) in [
            ("\r\n", "\r\nendstream"),
            (" \t\r", "endstream"),
            ("\n", "\rendstream"),
        ] {
            assert!(
                key(&dict, between, BULK, after).is_some(),
                "{between:?} {after:?}"
            );
        }
    }

    #[test]
    fn any_stream_lopdf_might_read_otherwise_is_left_alone() {
        let ok = format!("<< /Length {BULK} >>");
        let small = format!("<< /Length {} >>", BULK - 1);
        // (dictionary, after the keyword, bytes of data, after the data, the /Length read)
        let cases = [
            // Too small to be worth it.
            (small, "\n", BULK - 1, "\nendstream", BULK - 1),
            // The length is wrong: lopdf would look for the end itself.
            (ok.clone(), "\n", BULK + 1, "endstream", BULK),
            (ok.clone(), "\n", BULK, "\n\nendstream", BULK),
            (ok.clone(), "\n", BULK, " endstream", BULK),
            (ok.clone(), "\n", BULK, "\nendstream", usize::MAX),
            // No end of line after the keyword.
            (ok.clone(), " ", BULK, "\nendstream", BULK),
            // Two /Length keys, an escaped name, a longer name alone.
            (
                format!("<< /Length {BULK} /Length {BULK} >>"),
                "\n",
                BULK,
                "\nendstream",
                BULK,
            ),
            (
                format!("<< /Length {BULK} /F#31 1 >>"),
                "\n",
                BULK,
                "\nendstream",
                BULK,
            ),
            (
                format!("<< /LengthX 1 /Size {BULK} >>"),
                "\n",
                BULK,
                "\nendstream",
                BULK,
            ),
        ];
        for (dict, between, data, after, length) in cases {
            let (pdf, span) = stream(&dict, between, data, after);
            let keyword_end = span.end + b"\nstream".len();
            let found = length_key(&pdf, span, keyword_end, length);
            assert_eq!(found, None, "{dict} {between:?} {data} {after:?}");
        }
    }

    #[test]
    fn hidden_keys_are_put_back_when_dropped() {
        let dict = format!("<< /Length {BULK} >>");
        let (mut pdf, span) = stream(&dict, "\n", BULK, "\nendstream");
        let original = pdf.clone();
        let at = length_key(&pdf, span.clone(), span.end + 7, BULK).unwrap();
        {
            let hidden = hidden(&mut pdf, vec![at]);
            assert_eq!(hidden.count(), 1);
            assert_eq!(&hidden[at..at + 7], b"/Bulked");
        }
        assert_eq!(pdf, original);
    }

    /// A one-page PDF from lopdf's writer whose page draws an image of `image` bytes, the
    /// last object in the file; its data starts with `inside`.
    fn with_image(image: usize, inside: &[u8]) -> Vec<u8> {
        use lopdf::{Document, Object, Stream, dictionary};
        let mut doc = Document::with_version("1.7");
        let mut pixels = inside.to_vec();
        pixels.extend((pixels.len()..image).map(|i| (i * 7 % 251) as u8));
        let side = (image / 3).isqrt() as i64;
        let picture = (5, 0);
        let content = doc.add_object(Stream::new(
            dictionary! {},
            b"q 100 0 0 100 0 0 cm /Im Do Q".to_vec(),
        ));
        let pages = doc.new_object_id();
        let page = doc.add_object(dictionary! {
            "Type" => "Page", "Parent" => pages, "Contents" => content,
            "MediaBox" => vec![0.into(), 0.into(), 300.into(), 200.into()],
            "Resources" => dictionary! { "XObject" => dictionary! { "Im" => picture } },
        });
        doc.objects.insert(
            pages,
            Object::Dictionary(
                dictionary! { "Type" => "Pages", "Kids" => vec![page.into()], "Count" => 1 },
            ),
        );
        let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages });
        doc.trailer.set("Root", catalog);
        let image = dictionary! { "Type" => "XObject", "Subtype" => "Image", "Width" => side,
        "Height" => side, "ColorSpace" => "DeviceRGB", "BitsPerComponent" => 8 };
        assert_eq!(doc.add_object(Stream::new(image, pixels)), picture);
        let mut bytes = Vec::new();
        doc.save_to(&mut bytes).unwrap();
        bytes
    }

    /// `inspect_private`'s answer on a copy of `pdf`, which must be what `inspect_bytes` says
    /// and leave the copy as it was.
    fn same_verdict(what: &str, pdf: &[u8]) -> String {
        let expected = format!("{:?}", super::super::inspect_bytes(pdf));
        let mut copy = pdf.to_vec();
        let got = format!("{:?}", super::super::inspect_private(&mut copy));
        assert_eq!(got, expected, "{what}");
        assert!(copy == pdf, "{what}: the buffer was left changed");
        got
    }

    #[test]
    fn a_large_image_is_checked_without_its_data() {
        let pdf = with_image(1 << 20, b"");
        let (_, keys) = super::super::budget::prescan_bulk(&pdf).unwrap();
        assert_eq!(keys.len(), 1, "the image, not the small content stream");
        let mut copy = pdf.clone();
        let hidden = hidden(&mut copy, keys);
        let doc = super::super::inspect::load(&hidden, false).unwrap();
        assert!(doc.xref_recovery.is_none());
        let streams: Vec<_> = doc
            .objects
            .values()
            .filter_map(|o| o.as_stream().ok())
            .collect();
        let image = streams
            .iter()
            .find(|s| s.dict.has(b"Bulked"))
            .expect("the image, hidden");
        assert!(image.content.is_empty(), "its data was not copied");
        assert!(
            streams.iter().any(|s| s.content.starts_with(b"q 100")),
            "the page's content was"
        );
        drop(hidden);
        let verdict = same_verdict("whole", &pdf);
        assert!(
            verdict.contains("pages: 1") && verdict.contains("300.0, 200.0"),
            "{verdict}"
        );
    }

    /// Damaged files with a large stream: each is either refused as before, or, where the
    /// hidden load needs a repaired cross-reference table, loaded again as before.
    #[test]
    fn damaged_files_with_large_streams_get_the_same_verdict() {
        // Image data that reads like an empty page tree, as any binary data may.
        let fake = b"\n2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n";
        let pdf = with_image(300 << 10, fake);
        let text = |needle: &[u8]| {
            pdf.windows(needle.len())
                .rposition(|w| w == needle)
                .unwrap()
        };
        let mut variants = Vec::new();
        // The cross-reference offset off by a few bytes, or pointing nowhere.
        let startxref = text(b"startxref") + b"startxref\n".len();
        for junk in [b"9".as_slice(), b"0", b"12345678901"] {
            let mut v = pdf[..startxref].to_vec();
            v.extend_from_slice(junk);
            v.extend_from_slice(b"\n%%EOF\n");
            variants.push((format!("startxref {}", String::from_utf8_lossy(junk)), v));
        }
        // Everything shifted after the catalog: every offset in the table is wrong.
        let mut shifted = pdf.clone();
        shifted.splice(
            text(b"endobj") + 6..text(b"endobj") + 6,
            b"\n% padding\n".iter().copied(),
        );
        variants.push(("shifted".into(), shifted));
        // Without its cross-reference table and trailer: the objects are found by a scan.
        let table: usize = String::from_utf8_lossy(&pdf[startxref..])
            .split_whitespace()
            .next()
            .and_then(|offset| offset.parse().ok())
            .unwrap();
        let mut no_table = pdf[..table].to_vec();
        no_table.extend_from_slice(b"\n%%EOF\n");
        variants.push(("no table".into(), no_table));
        // Cut inside the image, with an end marker added.
        for percent in [10, 50, 90, 99] {
            let mut cut = pdf[..pdf.len() * percent / 100].to_vec();
            cut.extend_from_slice(b"\n%%EOF\n");
            variants.push((format!("cut at {percent}%"), cut));
        }
        for (what, bytes) in &variants {
            same_verdict(what, bytes);
        }
    }

    #[test]
    fn every_fixture_gets_the_same_verdict() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pdf");
        let mut hidden = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "pdf") {
                continue;
            }
            let pdf = std::fs::read(&path).unwrap();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            hidden += super::super::budget::prescan_bulk(&pdf).map_or(0, |(_, keys)| keys.len());
            same_verdict(&name, &pdf);
            for percent in [30, 60, 95] {
                let mut cut = pdf[..pdf.len() * percent / 100].to_vec();
                cut.extend_from_slice(b"\n%%EOF\n");
                same_verdict(&format!("{name} cut at {percent}%"), &cut);
            }
        }
        assert!(hidden > 0, "some fixture has a large stream");
    }
}
