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
    let info = inspect_bytes(&build(dictionary! {}, vec![dictionary! {}], dictionary! {})).unwrap();
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
