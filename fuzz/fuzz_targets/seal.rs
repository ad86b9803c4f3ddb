//! Sealing a completed document: a fixed set of fields burned in, audit pages, the signature.
#![no_main]

use std::sync::OnceLock;

use docket::{signing::pdf::seal::AuditRecipient, signing::pdf::seal::AuditSummary, signing::pdf::seal::FieldValue, signing::pdf::seal::FilledField, signing::pdf::seal::SealInput, signing::pdf::seal::SealSigner, signing::pdf::seal::seal};
use libfuzzer_sys::fuzz_target;

/// One seal certificate for the whole run (RSA key generation is slow).
fn signer() -> &'static SealSigner {
    static SIGNER: OnceLock<SealSigner> = OnceLock::new();
    SIGNER.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("docket-fuzz-seal-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        SealSigner::load_or_create(&dir).unwrap()
    })
}

fn field(page: u32, x: f64, y: f64, value: FieldValue) -> FilledField {
    FilledField {
        page,
        x,
        y,
        width: 20.0,
        height: 5.0,
        value,
    }
}

/// The code under test catches panics of the PDF libraries and answers an error; libFuzzer's
/// hook would abort on those too. A panic that escapes still aborts (libfuzzer-sys catches it).
fn quiet_panics() {
    std::panic::set_hook(Box::new(|_| {}));
}

fuzz_target!(init: quiet_panics(), |data: &[u8]| {
    let fields = vec![
        field(1, 10.0, 10.0, FieldValue::Text("Zoë Łukasiewicz".into())),
        field(1, 10.0, 30.0, FieldValue::Checkbox(vec!["Agreed".into()])),
        field(1, 50.0, 70.0, FieldValue::SignatureTyped("Z. Ł.".into())),
        field(2, 0.0, 0.0, FieldValue::Text("second page".into())),
    ];
    let input = SealInput {
        original: data.to_vec(),
        fields,
        audit: AuditSummary {
            title: "Fuzz".into(),
            document_id: docket::core::ids::DocumentId::new(1),
            original_sha256: "00".repeat(32),
            completed_at: "2026-01-01 00:00:00 UTC".into(),
            recipients: vec![AuditRecipient {
                name: "Ann".into(),
                email: "ann@example.com".into(),
                role: "SIGNER".into(),
                ip: Some("127.0.0.1".into()),
                user_agent: None,
                authentication: "Signing link only".into(),
                opened_at: None,
                signed_at: Some("2026-01-01 00:00:00 UTC".into()),
                status: "SIGNED".into(),
                signature_png: None,
            }],
            events: vec![("2026-01-01 00:00:00 UTC".into(), "Completed".into())],
            check_url: "https://docket.example/verify".into(),
        },
    };
    let _ = seal(&input, signer());
});
