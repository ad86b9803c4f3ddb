use super::hostile::*;
use super::*;
use crate::{signing::pdf::PdfError, signing::pdf::inspect_bytes};

#[test]
fn too_many_values_in_an_object_stream_are_refused_before_loading() {
    let pdf = pdf_with(&[object_stream(5, &empty_arrays(1_100_000))], 1, None);
    assert_eq!(prescan(&pdf), Err(Exceeded::Values));
    let err = inspect_bytes(&pdf).unwrap_err();
    assert!(
        matches!(err, PdfError::TooComplex(Exceeded::Values)),
        "{err:?}"
    );
    assert!(
        err.to_string()
            .starts_with("the PDF is too complex: it holds more than 1000000 values"),
        "{err}"
    );
}

#[test]
fn deep_nesting_is_refused_with_its_reason() {
    for depth in [65, 90, 100_000] {
        let pdf = pdf_with(&[nested(depth)], 1, None);
        let err = inspect_bytes(&pdf).unwrap_err();
        assert!(
            matches!(err, PdfError::TooComplex(Exceeded::Depth)),
            "{depth}: {err:?}"
        );
    }
    let pdf = pdf_with(&[nested(64)], 1, None);
    assert_eq!(inspect_bytes(&pdf).unwrap().pages, 1);
}

#[test]
fn an_object_stream_named_by_many_entries_is_counted_each_time_lopdf_parses_it() {
    // 400,000 values pass the pre-scan, but five cross-reference entries point at the
    // one object stream and lopdf parses it once for each.
    let stream = object_stream(9, &empty_arrays(400_000));
    let pdf = pdf_with(&[stream], 1, Some(&[0, 0, 0, 0, 0]));
    assert!(prescan(&pdf).unwrap().values < MAX_VALUES);
    let err = inspect_bytes(&pdf).unwrap_err();
    assert!(
        matches!(err, PdfError::TooComplex(Exceeded::Values)),
        "{err:?}"
    );
}

#[test]
fn the_budget_holds_only_during_a_check() {
    let pdf = pdf_with(&[object_stream(5, &empty_arrays(10))], 1, None);
    {
        let budget = LoadBudget::start();
        assert_eq!(inspect_bytes(&pdf).unwrap().pages, 1);
        assert!(!budget.spent());
    }
    assert_eq!(LEFT.with(Cell::get), None);
}

#[test]
fn inflated_bytes_are_bounded_without_inflating_whole_streams() {
    // A stream that is not parsed (a content stream) still counts its inflated bytes.
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut z, &vec![0u8; 8 << 20]).unwrap();
    let data = z.finish().unwrap();
    let mut stream = format!(
        "<< /Filter /FlateDecode /Length {} >>\nstream\n",
        data.len()
    )
    .into_bytes();
    stream.extend_from_slice(&data);
    stream.extend_from_slice(b"\nendstream");
    let pdf = pdf_with(&[stream], 1, None);
    let m = prescan(&pdf).unwrap();
    assert_eq!(m.decoded_bytes, 8 << 20);
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/fixtures/pdf/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

#[test]
fn every_fixture_is_well_within_budget() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pdf");
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "pdf") {
            continue;
        }
        let m = prescan(&std::fs::read(&path).unwrap()).unwrap();
        println!("{}: {m:?}", path.display());
        assert!(m.values < MAX_VALUES / 20, "{}: {m:?}", path.display());
        assert!(m.depth <= MAX_DEPTH / 4, "{}: {m:?}", path.display());
        assert!(m.decoded_bytes < MAX_DECODED_BYTES / 20);
    }
}

#[test]
fn encryption_is_seen_in_the_trailer() {
    for name in [
        "encrypted-aes256.pdf",
        "encrypted-rc4.pdf",
        "encrypted-owner-only.pdf",
    ] {
        assert!(prescan(&fixture(name)).unwrap().encrypted, "{name}");
    }
    assert!(!prescan(&fixture("a4-1p.pdf")).unwrap().encrypted);
}

#[test]
fn object_streams_are_inflated_and_counted() {
    let m = prescan(&fixture("objstm-3p.pdf")).unwrap();
    assert!(m.decoded_bytes > 0, "{m:?}");
}

#[test]
fn the_lexer_counts_values_and_depth() {
    let mut scan = Scan {
        measure: Measure::default(),
        buf: Vec::new(),
        bulk: None,
    };
    let text = b"1 0 obj << /A [1 2.5 (a(b)c\\)) <0A>] /B <<>> % [[[[\n/C/D>> endobj";
    scan.lex(&mut Lexer::default(), text).unwrap();
    // 1 0 obj << /A [ 1 2.5 (..) <..> /B << /C /D endobj
    assert_eq!(scan.measure.values, 15);
    assert_eq!(scan.measure.depth, 2);
}

#[test]
fn stream_dictionaries_are_read() {
    let info = DictInfo::read(
        b"<< /Type /ObjStm /N 3 /Length 42 /Filter [/FlateDecode] /X << /Length 7 >> >>",
    );
    assert!(info.is_object_stream);
    assert_eq!(info.length, Some(42));
    assert_eq!(info.filters, vec![b"FlateDecode".to_vec()]);
    let info = DictInfo::read(b"<</Length 5 0 R/Filter/FlateDecode/Type/XRef/Encrypt 9 0 R>>");
    assert_eq!(info.length, None);
    assert!(info.is_xref && info.encrypt);
    assert_eq!(info.filters, vec![b"FlateDecode".to_vec()]);
}
