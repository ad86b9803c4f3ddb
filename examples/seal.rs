//! Seals a PDF the way a completed document is sealed, for `bench/seal.sh`: a name and a drawn
//! signature on each of the first `--fields-pages` pages, three recipients in the audit.
//!
//! `cargo run --release --example seal -- IN.pdf OUT.pdf TLS_DIR [RUNS]` prints the time of
//! each run of `seal()` (the seal certificate is loaded, or created, once before).

use std::time::Instant;

use docket::{
    signing::pdf::seal::AuditRecipient, signing::pdf::seal::AuditSummary,
    signing::pdf::seal::FieldValue, signing::pdf::seal::FilledField, signing::pdf::seal::SealInput,
    signing::pdf::seal::SealSigner, signing::pdf::seal::TextAlign, signing::pdf::seal::seal,
};

fn signature_png() -> Vec<u8> {
    let (width, height) = (400u32, 120u32);
    let mut data = vec![0u8; (width * height * 4) as usize];
    for x in 0..width {
        let y = (f64::from(height) / 2.0 + (f64::from(x) / 25.0).sin() * 40.0) as u32;
        for dy in 0..3 {
            let i = (((y + dy).min(height - 1) * width + x) * 4) as usize;
            data[i..i + 4].copy_from_slice(&[20, 30, 120, 255]);
        }
    }
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().expect("PNG header");
    writer.write_image_data(&data).expect("PNG data");
    writer.finish().expect("PNG end");
    out
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, input, output, tls_dir, rest @ ..] = args.as_slice() else {
        eprintln!("usage: seal IN.pdf OUT.pdf TLS_DIR [RUNS]");
        std::process::exit(2);
    };
    let runs: usize = rest
        .first()
        .map_or(1, |r| r.parse().expect("RUNS is a number"));
    let original = std::fs::read(input).expect("read the input");
    let pages = docket::signing::pdf::inspect_bytes(&original)
        .expect("a usable PDF")
        .pages;
    let signer = SealSigner::load_or_create(tls_dir.as_ref()).expect("seal certificate");
    let png = signature_png();
    let mut fields = Vec::new();
    for page in 1..=pages {
        fields.push(FilledField {
            page,
            x: 10.0,
            y: 85.0,
            width: 35.0,
            height: 4.0,
            value: FieldValue::Text("Zoë Łukasiewicz".into()),
            align: TextAlign::Left,
        });
        fields.push(FilledField {
            page,
            x: 55.0,
            y: 82.0,
            width: 35.0,
            height: 8.0,
            value: FieldValue::SignatureImage(png.clone()),
            align: TextAlign::Left,
        });
    }
    let recipient = |i: usize| AuditRecipient {
        name: format!("Recipient {i}"),
        email: format!("recipient{i}@example.org"),
        role: "SIGNER".into(),
        ip: Some("203.0.113.7".into()),
        user_agent: Some("Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Firefox/128.0".into()),
        authentication: "Signing link only".into(),
        opened_at: Some("2026-11-21 15:50:00 UTC".into()),
        signed_at: Some("2026-11-21 15:55:00 UTC".into()),
        status: "COMPLETED".into(),
        signature_png: Some(png.clone()),
    };
    let input = SealInput {
        original,
        fields,
        audit: AuditSummary {
            title: "Benchmark document".into(),
            document_id: docket::core::ids::DocumentId::new(1),
            original_sha256: docket::core::crypto::sha256_hex(b"benchmark"),
            completed_at: "2026-11-21 16:00:00 UTC".into(),
            recipients: (1..=3).map(recipient).collect(),
            events: (0..20)
                .map(|i| (format!("2026-11-21 15:{i:02}:00 UTC"), format!("event {i}")))
                .collect(),
            check_url: "https://docket.example/verify".into(),
        },
    };
    let mut sealed = Vec::new();
    for run in 1..=runs {
        let start = Instant::now();
        sealed = seal(&input, &signer).expect("sealed");
        let ms = start.elapsed().as_secs_f64() * 1000.0;
        println!(
            "run {run}: {ms:.0} ms, {pages} pages, {} fields, {} bytes out",
            input.fields.len(),
            sealed.len()
        );
    }
    std::fs::write(output, &sealed).expect("write the output");
}
