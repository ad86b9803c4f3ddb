//! Sealing real fixtures and checking the output with poppler and qpdf (`pdfsig`, `pdftotext`,
//! `qpdf --check`; tests/run.sh installs them).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::*;

fn fixture(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/pdf")
        .join(name);
    std::fs::read(path).unwrap()
}

/// One seal certificate for all tests (RSA key generation is the slow part), held in memory:
/// its files go with their temp dir once loaded (a static is never dropped).
fn signer() -> &'static SealSigner {
    static SIGNER: OnceLock<SealSigner> = OnceLock::new();
    SIGNER.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        SealSigner::load_or_create(dir.path()).unwrap()
    })
}

fn audit(recipients: usize, events: usize) -> AuditSummary {
    AuditSummary {
        title: "Lease agreement Überlingen".into(),
        document_id: crate::core::ids::DocumentId::new(4711),
        original_sha256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08".into(),
        completed_at: "2026-11-21 16:00:00 UTC".into(),
        recipients: (0..recipients)
            .map(|i| AuditRecipient {
                name: if i == 0 {
                    "Zoë Łukasiewicz".into()
                } else {
                    format!("Signer Number{i}")
                },
                email: format!("signer{i}@example.org"),
                role: "SIGNER".into(),
                ip: Some("203.0.113.7".into()),
                user_agent: Some(
                    "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0".into(),
                ),
                authentication: "Account sign-in (signer@example.org) and passkey".into(),
                opened_at: Some("2026-11-21 15:50:00 UTC".into()),
                signed_at: Some("2026-11-21 15:55:00 UTC".into()),
                status: "COMPLETED".into(),
                signature_png: Some(image::test_png(300, 90)),
            })
            .collect(),
        events: (0..events)
            .map(|i| {
                (
                    format!("2026-11-21 15:{:02}:00 UTC", i % 60),
                    format!("event number {i} happened"),
                )
            })
            .collect(),
        check_url: "https://docket.example/verify".into(),
    }
}

fn fields(page: u32) -> Vec<FilledField> {
    let f = |x, y, value| FilledField {
        page,
        x,
        y,
        width: 30.0,
        height: 4.0,
        value,
        align: TextAlign::Left,
    };
    vec![
        f(10.0, 10.0, FieldValue::Text("Zoë Łukasiewicz".into())),
        f(10.0, 20.0, FieldValue::Text("ValueAlphaSeventeen".into())),
        f(
            10.0,
            30.0,
            FieldValue::Checkbox(vec!["CheckedOption".into()]),
        ),
        f(
            10.0,
            40.0,
            FieldValue::SignatureTyped("TypedSignatureText".into()),
        ),
        f(
            50.0,
            50.0,
            FieldValue::SignatureImage(image::test_png(400, 120)),
        ),
    ]
}

/// Runs poppler's or qpdf's `name`; only tests gated on `outside-tools` may (see
/// tests/it/support/tools.rs).
fn tool(name: &str, args: &[&str]) -> (bool, String) {
    if !cfg!(feature = "outside-tools") {
        panic!("this test runs {name}: gate it on the `outside-tools` feature");
    }
    let out = Command::new(name).args(args).output().unwrap_or_else(|e| {
        panic!("{name} is needed (apt-get install -y poppler-utils qpdf): {e}")
    });
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Seals `name` and checks the result with the tools; returns its text per page.
fn seal_and_check(name: &str, page: u32) -> Vec<String> {
    let input = SealInput {
        original: fixture(name),
        fields: fields(page),
        audit: audit(2, 5),
    };
    let sealed = seal(&input, signer()).unwrap_or_else(|e| panic!("{name}: {e}"));
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "sealed.pdf", &sealed);
    let p = path.to_str().unwrap();

    let (_, sig) = tool("pdfsig", &[p]);
    assert_eq!(
        sig.matches("Signature #").count(),
        1,
        "{name}: exactly one signature:\n{sig}"
    );
    assert!(
        sig.contains("Signature Validation: Signature is Valid."),
        "{name}:\n{sig}"
    );
    assert!(sig.contains("Total document signed"), "{name}:\n{sig}");
    assert!(sig.contains("ETSI.CAdES.detached"), "{name}:\n{sig}");

    let (ok, check) = tool("qpdf", &["--check", p]);
    assert!(
        ok && check.contains("No syntax or stream encoding errors"),
        "{name}:\n{check}"
    );
    assert!(
        !check.to_lowercase().contains("warning"),
        "{name}:\n{check}"
    );

    let (ok, text) = tool("pdftotext", &[p, "-"]);
    assert!(ok, "{name}: {text}");
    let pages: Vec<String> = text.split('\u{c}').map(String::from).collect();
    // Words joined by single spaces: poppler may break a stamped value onto its own line.
    let stamped = pages[page as usize - 1]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for value in [
        "Zoë Łukasiewicz",
        "ValueAlphaSeventeen",
        "✓ CheckedOption",
        "TypedSignatureText",
    ] {
        assert!(
            stamped.contains(value),
            "{name}: {value:?} on page {page}:\n{stamped}"
        );
    }
    assert!(text.contains("Audit certificate"), "{name}: audit page");
    assert!(
        text.contains("4711") && text.contains("9f86d081884c7d659a2feaa0c55ad015"),
        "{name}"
    );
    assert!(
        text.contains("signer1@example.org") && text.contains("203.0.113.7"),
        "{name}"
    );
    pages
}

#[test]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs poppler and qpdf")]
fn sealed_a4_is_signed_whole_and_shows_values_and_audit() {
    let pages = seal_and_check("a4-1p.pdf", 1);
    assert!(
        pages[1].contains("Audit certificate"),
        "the audit page follows the document"
    );
}

#[test]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs poppler and qpdf")]
fn sealed_file_that_was_signed_before_has_only_the_seal() {
    seal_and_check("signed-2rev.pdf", 1);
}

#[test]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs poppler and qpdf")]
fn sealed_rotated_pages_show_values_the_right_way_up() {
    for page in 1..=4 {
        seal_and_check("rotated-4p.pdf", page);
    }
}

#[test]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs poppler and qpdf")]
fn sealed_long_and_odd_files() {
    let pages = seal_and_check("letter-120p.pdf", 120);
    assert!(pages[120].contains("Audit certificate"));
    seal_and_check("mixed-sizes-3p.pdf", 2);
    seal_and_check("scan-3p.pdf", 3);
    seal_and_check("objstm-3p.pdf", 2);
    seal_and_check("bad-xref-offsets.pdf", 1);
}

/// Where a stamped word lands, in percent of the page shown, from `pdftotext -bbox`.
/// poppler gives word boxes on the page as shown, but the page's size before /Rotate, so the
/// size shown comes from our own inspection.
fn word_position(pdf: &Path, page: u32, word: &str) -> (f64, f64) {
    let info = crate::signing::pdf::inspect_file(pdf).unwrap();
    let (w, h) = info.page_sizes[page as usize - 1];
    let (w, h) = (f64::from(w), f64::from(h));
    let (_, html) = tool(
        "pdftotext",
        &[
            "-bbox",
            "-f",
            &page.to_string(),
            "-l",
            &page.to_string(),
            pdf.to_str().unwrap(),
            "-",
        ],
    );
    let attr = |line: &str, key: &str| -> f64 {
        let start = line.find(&format!("{key}=\"")).unwrap() + key.len() + 2;
        line[start..].split('"').next().unwrap().parse().unwrap()
    };
    let line = html
        .lines()
        .find(|l| l.contains(&format!(">{word}<")))
        .unwrap_or_else(|| panic!("{word} on page {page}:\n{html}"));
    (
        attr(line, "xMin") / w * 100.0,
        attr(line, "yMin") / h * 100.0,
    )
}

#[test]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs poppler and qpdf")]
fn values_land_where_the_viewer_placed_them_on_every_rotation() {
    let mut fields = Vec::new();
    for page in 1..=4 {
        fields.push(FilledField {
            page,
            x: 60.0,
            y: 70.0,
            width: 20.0,
            height: 5.0,
            value: FieldValue::Text(format!("Marker{page}")),
            align: TextAlign::Left,
        });
    }
    let input = SealInput {
        original: fixture("rotated-4p.pdf"),
        fields,
        audit: audit(1, 1),
    };
    let sealed = seal(&input, signer()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "sealed.pdf", &sealed);
    for page in 1..=4 {
        let (x, y) = word_position(&path, page, &format!("Marker{page}"));
        assert!((60.0..62.5).contains(&x), "page {page}: x {x}%");
        assert!((70.0..73.0).contains(&y), "page {page}: y {y}%");
    }
}

#[test]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs poppler and qpdf")]
fn text_align_places_the_value_across_its_box() {
    let at = |y: f64, align: TextAlign, word: &str| FilledField {
        page: 1,
        x: 10.0,
        y,
        width: 80.0,
        height: 4.0,
        value: FieldValue::Text(word.into()),
        align,
    };
    let input = SealInput {
        original: fixture("a4-1p.pdf"),
        fields: vec![
            at(10.0, TextAlign::Left, "Leftword"),
            at(20.0, TextAlign::Center, "Middleword"),
            at(30.0, TextAlign::Right, "Rightword"),
        ],
        audit: audit(1, 1),
    };
    let sealed = seal(&input, signer()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "sealed.pdf", &sealed);
    let (left, _) = word_position(&path, 1, "Leftword");
    let (middle, _) = word_position(&path, 1, "Middleword");
    let (right, _) = word_position(&path, 1, "Rightword");
    // The box spans 10% to 90% of the page; each word (about a fifth of the page wide at
    // this height) is narrower than that.
    assert!((10.0..12.0).contains(&left), "left starts at {left}%");
    assert!((30.0..48.0).contains(&middle), "centre starts at {middle}%");
    assert!((55.0..89.0).contains(&right), "right starts at {right}%");
}

#[test]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs poppler and qpdf")]
fn long_audits_continue_on_more_pages() {
    let input = SealInput {
        original: fixture("a4-1p.pdf"),
        fields: vec![],
        audit: audit(6, 120),
    };
    let sealed = seal(&input, signer()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "sealed.pdf", &sealed);
    let (_, text) = tool("pdftotext", &[path.to_str().unwrap(), "-"]);
    let pages = text.split('\u{c}').filter(|p| !p.trim().is_empty()).count();
    assert!(
        pages >= 4,
        "1 document page and at least 3 audit pages, got {pages}"
    );
    assert!(text.contains("event number 119 happened"));
    assert!(text.contains("signer5@example.org"));
}

#[test]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs poppler and qpdf")]
fn a_changed_byte_breaks_the_seal() {
    let input = SealInput {
        original: fixture("a4-1p.pdf"),
        fields: fields(1),
        audit: audit(1, 1),
    };
    let mut sealed = seal(&input, signer()).unwrap();
    let at = sealed.windows(7).position(|w| w == b"/Type/P").unwrap();
    sealed[at + 1] = b't'; // still parses, but the bytes differ
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "tampered.pdf", &sealed);
    let (_, sig) = tool("pdfsig", &[path.to_str().unwrap()]);
    assert!(!sig.contains("Signature is Valid"), "{sig}");
}

#[test]
fn encrypted_damaged_and_out_of_range_inputs_are_refused() {
    let refuse = |original: Vec<u8>, fields: Vec<FilledField>| {
        seal(
            &SealInput {
                original,
                fields,
                audit: audit(1, 1),
            },
            signer(),
        )
        .unwrap_err()
    };
    for name in [
        "encrypted-aes256.pdf",
        "encrypted-rc4.pdf",
        "encrypted-owner-only.pdf",
    ] {
        assert!(
            matches!(refuse(fixture(name), vec![]), PdfError::Encrypted),
            "{name}"
        );
    }
    assert!(matches!(
        refuse(fixture("not-a-pdf-text.pdf"), vec![]),
        PdfError::Damaged(_) | PdfError::NotPdf
    ));
    // The budgeted loader of the upload check.
    let deep = crate::signing::pdf::budget::hostile::pdf_with(
        &[crate::signing::pdf::budget::hostile::nested(90)],
        1,
        None,
    );
    assert!(matches!(
        refuse(deep, vec![]),
        PdfError::TooComplex(crate::signing::pdf::Exceeded::Depth)
    ));
    assert!(matches!(
        refuse(fixture("a4-1p.pdf"), fields(2)),
        PdfError::Seal(_)
    ));
    let mut bad_png = fields(1);
    bad_png.push(FilledField {
        page: 1,
        x: 0.0,
        y: 0.0,
        width: 10.0,
        height: 10.0,
        value: FieldValue::SignatureImage(b"nope".to_vec()),
        align: TextAlign::Left,
    });
    assert!(matches!(
        refuse(fixture("a4-1p.pdf"), bad_png),
        PdfError::Seal(_)
    ));
}
