//! The audit trail stays bounded however often a signing link fills its fields: repeated
//! fills of a field are one row with a count and the last time, one line of the sealed PDF's
//! certificate, and the audit API answers in pages.

use serde_json::{Value, json};

use crate::support::api::{Api, Signer, fixture};
use crate::support::{TestApp, tools};

/// How often the test fills the same field.
const FILLS: usize = 400;

/// A PENDING document for Ann with a signature and a text field: (id, Ann's link, signature
/// field, text field).
async fn sent_to_ann(app: &TestApp, api: &Api) -> (i64, Signer, i64, i64) {
    let created = api
        .create_document(json!({"title": "Busy", "recipients": [{"name": "Ann", "email": "ann@example.com", "role": "SIGNER"}]}))
        .await;
    let id = created.document_id();
    let ann = created.recipient_id(0);
    api.upload_ok(created.upload_url(), fixture("a4-1p.pdf"))
        .await;
    let fields = api
        .add_fields(
            id,
            json!([
                {"recipientId": ann, "type": "SIGNATURE", "pageNumber": 1, "pageX": 10, "pageY": 80, "pageWidth": 30, "pageHeight": 5},
                {"recipientId": ann, "type": "TEXT", "pageNumber": 1, "pageX": 10, "pageY": 60, "pageWidth": 30, "pageHeight": 5, "fieldMeta": {"type": "text"}}
            ]),
        )
        .await;
    let (s, v) = api.send(id).await;
    assert_eq!(s, 200, "{v}");
    (id, app.signer(&created.token(0)), fields[0], fields[1])
}

/// The text of the sealed PDF of document `id`, its whitespace collapsed.
async fn sealed_text(app: &TestApp, api: &Api, id: i64) -> String {
    let (s, v) = api.get(&format!("/api/v1/documents/{id}/download")).await;
    assert_eq!(s, 200, "{v}");
    let url = v["downloadUrl"].as_str().unwrap();
    let bytes = app.client.get(url).send().await.unwrap().bytes().await;
    let dir = tempfile::tempdir().unwrap();
    let pdf = dir.path().join("sealed.pdf");
    std::fs::write(&pdf, bytes.unwrap()).unwrap();
    tools::pdf_words(&pdf)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs poppler's pdftotext")]
async fn many_fills_on_one_link_stay_bounded() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let (id, ann, sig, text) = sent_to_ann(&app, &api).await;
    for i in 0..FILLS {
        let (s, v) = ann.fill(text, json!({"value": format!("v{i}")})).await;
        assert_eq!(s, 200, "fill {i}: {v}");
    }
    for _ in 0..3 {
        assert_eq!(ann.sign(sig).await.0, 200);
    }

    // Two rows for two fields, each with its count, first and last fill.
    let stored: i64 = app
        .db()
        .query_row(
            "SELECT COUNT(*) FROM audit_events WHERE type = 'FIELD_FILLED'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(stored, 2);
    let (s, log) = api.get(&format!("/api/v1/documents/{id}/audit-log")).await;
    assert_eq!(s, 200, "{log}");
    assert!(
        log.to_string().len() < 4096,
        "{} bytes",
        log.to_string().len()
    );
    let fills: Vec<&Value> = log["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "FIELD_FILLED")
        .collect();
    let of = |field: i64| {
        *fills
            .iter()
            .find(|e| e["data"]["fieldId"] == field)
            .expect("a row per field")
    };
    assert_eq!(of(text)["data"]["fills"], FILLS);
    assert_eq!(of(text)["actor"], "ann@example.com");
    assert_eq!(of(text)["data"]["lastIpAddress"], "127.0.0.1");
    assert!(of(text)["data"]["lastFilledAt"].is_string(), "{log}");
    assert_eq!(of(sig)["data"]["fills"], 3);

    // The certificate: one line per field, saying how often and when last.
    let (s, v) = ann.complete(json!({})).await;
    assert_eq!(s, 200, "{v}");
    api.wait_status(id, "COMPLETED").await;
    let certificate = sealed_text(&app, &api, id).await;
    assert_eq!(
        certificate.matches("FIELD_FILLED").count(),
        2,
        "{certificate}"
    );
    let last = of(text)["data"]["lastFilledAt"].as_str().unwrap();
    assert!(
        certificate.contains(&format!("(TEXT field {text})"))
            && certificate.contains(&format!("filled {FILLS} times, last at {last}")),
        "{certificate}"
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_audit_log_answers_in_pages() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let (id, ann, _, text) = sent_to_ann(&app, &api).await;
    assert_eq!(ann.page().await.status(), 200);
    assert_eq!(ann.fill(text, json!({"value": "x"})).await.0, 200);
    let path = format!("/api/v1/documents/{id}/audit-log");
    let (s, all) = api.get(&path).await;
    assert_eq!(s, 200, "{all}");
    let all = all["events"].as_array().unwrap().clone();
    let n = all.len() as i64;
    assert!(n >= 4, "{all:?}");

    let (s, first) = api.get(&format!("{path}?perPage=2")).await;
    assert_eq!(s, 200, "{first}");
    assert_eq!(first["events"].as_array().unwrap()[..], all[..2]);
    assert_eq!(first["totalPages"], (n + 1) / 2);
    let (_, second) = api.get(&format!("{path}?page=2&perPage=2")).await;
    assert_eq!(second["events"].as_array().unwrap()[..], all[2..4]);
    for bad in ["perPage=0", "page=0", "perPage=x"] {
        let (s, v) = api.get(&format!("{path}?{bad}")).await;
        assert_eq!(
            (s, v["code"].as_str()),
            (400, Some("invalid_request")),
            "{bad}: {v}"
        );
    }
    app.stop().await;
}
