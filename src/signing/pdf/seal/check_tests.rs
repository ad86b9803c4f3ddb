//! The check of sealed PDFs against real seals: this instance's current and earlier seal
//! certificates, another instance's, and files changed after sealing.

use std::path::Path;

use sha2::{Digest, Sha256};

use super::super::{AuditSummary, SealInput, SealSigner, seal};
use super::*;
use crate::core::ids::DocumentId;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/pdf")
            .join(name),
    )
    .unwrap()
}

fn sealed_by(signer: &SealSigner, document: i64) -> Vec<u8> {
    let input = SealInput {
        original: fixture("a4-1p.pdf"),
        fields: Vec::new(),
        audit: AuditSummary {
            title: "Checked".into(),
            document_id: DocumentId::new(document),
            original_sha256: "00".repeat(32),
            completed_at: "1 Jan 2026, 10:00 UTC".into(),
            recipients: Vec::new(),
            events: Vec::new(),
            check_url: "https://docket.example/verify".into(),
        },
    };
    seal(&input, signer).unwrap()
}

fn sha256(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

#[test]
fn a_file_sealed_here_verifies_and_every_change_is_seen() {
    let dir = tempfile::tempdir().unwrap();
    let signer = SealSigner::load_or_create(dir.path()).unwrap();
    let trust = SealTrust::of(&signer, true);
    let pdf = sealed_by(&signer, 4711);

    let checked = check(&pdf, &trust);
    assert_eq!(checked.verdict, Verdict::Sealed);
    assert_eq!(checked.document, Some(4711));
    assert_eq!(checked.sealed_sha256, Some(sha256(&pdf)));

    // An incremental update: what was sealed is intact, and names its document.
    let mut appended = pdf.clone();
    appended.extend_from_slice(b"\n1 0 obj\n<< /Type /Catalog >>\nendobj\n%%EOF\n");
    let checked = check(&appended, &trust);
    assert_eq!(checked.verdict, Verdict::Appended);
    assert_eq!(checked.sealed_sha256, Some(sha256(&pdf)));

    // One byte inside the signed bytes.
    let mut flipped = pdf.clone();
    flipped[200] ^= 0x01;
    assert_eq!(check(&flipped, &trust).verdict, Verdict::Modified);

    // The signature's padding is not what was sealed: the file as sealed is found all the same.
    let at = memchr::memmem::rfind(&pdf, b"0000>").unwrap();
    let mut padded = pdf.clone();
    padded[at] = b'a';
    let checked = check(&padded, &trust);
    assert_eq!(checked.verdict, Verdict::Sealed);
    assert_eq!(checked.sealed_sha256, Some(sha256(&pdf)));

    // A signature value that is not a CMS any more.
    let hole = memchr::memmem::rfind(&pdf, b"/Contents").unwrap();
    let start = hole + pdf[hole..].iter().position(|b| *b == b'<').unwrap() + 1;
    let mut broken = pdf.clone();
    broken[start..start + 8].copy_from_slice(b"FFFFFFFF");
    assert_eq!(check(&broken, &trust).verdict, Verdict::InvalidSignature);
}

#[test]
fn earlier_seal_certificates_of_the_local_ca_count_and_others_do_not() {
    let dir = tempfile::tempdir().unwrap();
    let before = SealSigner::load_or_create(dir.path()).unwrap();
    let old = sealed_by(&before, 7);
    // Renewal: a new seal certificate from the same local CA.
    std::fs::remove_file(dir.path().join("seal.pem")).unwrap();
    let now = SealSigner::load_or_create(dir.path()).unwrap();
    assert_ne!(before.chain[0], now.chain[0]);
    assert_eq!(
        check(&old, &SealTrust::of(&now, true)).verdict,
        Verdict::Sealed
    );
    // A given certificate (`--seal-cert`) vouches for itself alone.
    assert_eq!(
        check(&old, &SealTrust::of(&now, false)).verdict,
        Verdict::OtherSigner
    );
    assert_eq!(
        check(&old, &SealTrust::of(&before, false)).verdict,
        Verdict::Sealed
    );

    // Another instance, with a local CA of its own.
    let elsewhere = tempfile::tempdir().unwrap();
    let other = SealSigner::load_or_create(elsewhere.path()).unwrap();
    let foreign = sealed_by(&other, 7);
    let checked = check(&foreign, &SealTrust::of(&now, true));
    assert_eq!(checked.verdict, Verdict::OtherSigner);
    assert_eq!(checked.document, None);
}

#[test]
fn files_without_a_seal_get_their_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let signer = SealSigner::load_or_create(dir.path()).unwrap();
    let trust = SealTrust::of(&signer, true);
    assert_eq!(
        check(&fixture("a4-1p.pdf"), &trust).verdict,
        Verdict::NotSigned
    );
    assert_eq!(check(b"not a pdf at all", &trust).verdict, Verdict::NotPdf);
    assert_eq!(check(b"", &trust).verdict, Verdict::NotPdf);
    for hostile in [
        &b"%PDF-1.7\n/ByteRange [0 10 20 30]"[..],
        b"%PDF-1.7\n/ByteRange [0 18446744073709551615 1 1]",
        b"%PDF-1.7\n/ByteRange",
        b"%PDF-1.7\n/ByteRange [0 9 11 0]<>",
    ] {
        assert_eq!(
            check(hostile, &trust).verdict,
            Verdict::InvalidSignature,
            "{}",
            String::from_utf8_lossy(hostile)
        );
    }
}
