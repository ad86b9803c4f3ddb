//! What the document and template API's writes answer an OAuth app that may write but not
//! read documents (WRITE_DOCUMENT without READ_DOCUMENT): receipts (ids and the outcome),
//! never what signers typed, titles, addresses or signing progress; and such an app may not
//! hide a finished document, the owner's record. An app that may read gets full answers.

use serde_json::{Value, json};

use crate::scope_containment::ada;
use crate::support::TestApp;
use crate::support::api::{Api, fixture};

/// Keys a receipt may carry anywhere (`recipients`, `fields` and `template` hold receipts).
const RECEIPT_KEYS: &[&str] = &[
    "id",
    "documentId",
    "templateId",
    "recipientId",
    "externalId",
    "status",
    "uploadUrl",
    "deleted",
    "outcome",
    "message",
    "recipients",
    "fields",
    "template",
];

/// What the owner's documents hold that a write-only app must never be answered.
const SECRETS: &[&str] = &[
    "Salary review",
    "ann@example.com",
    "bob@example.com",
    "Ann typed this",
    "Secret template",
    "agency@example.com",
    "signedAt",
    "signingStatus",
    "customText",
];

/// Every key of `v`, at any depth.
fn all_keys(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                out.push(k.clone());
                all_keys(x, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| all_keys(x, out)),
        _ => {}
    }
}

/// Asserts that `answer` (to `what`) is a receipt: only receipt keys, none of `SECRETS`.
fn assert_receipt(what: &str, answer: &Value) {
    let mut keys = Vec::new();
    all_keys(answer, &mut keys);
    for k in &keys {
        assert!(
            RECEIPT_KEYS.contains(&k.as_str()),
            "{what}: {k} in {answer}"
        );
    }
    let text = answer.to_string();
    for s in SECRETS {
        assert!(!text.contains(s), "{what}: {s} leaked in {text}");
    }
}

/// Ada's PENDING "Salary review" for Ann (a signer, who has typed into her TEXT field) and
/// Bob (a CC): (document id, Ann's id, Bob's id, Ann's signing token, Ann's signature field).
async fn salary_review(api: &Api) -> (i64, i64, i64, String, i64) {
    let created = api
        .create_document(json!({"title": "Salary review", "recipients": [
            {"name": "Ann", "email": "ann@example.com", "role": "SIGNER"},
            {"name": "Bob", "email": "bob@example.com", "role": "CC"}]}))
        .await;
    let id = created.document_id();
    let (ann, bob) = (created.recipient_id(0), created.recipient_id(1));
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
    let token = created.token(0);
    (id, ann, bob, token, fields[0])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_only_apps_writes_answer_receipts() {
    let app = TestApp::spawn().await;
    let ada = ada(&app).await;
    let write = ada.app_token(&app, "WRITE_DOCUMENT").await;
    let both = ada.app_token(&app, "READ_DOCUMENT WRITE_DOCUMENT").await;
    let (id, ann, bob, token, _) = salary_review(&ada.api).await;
    let text_field = ada.api.document(id).await["fields"][1]["id"]
        .as_i64()
        .unwrap();
    let (s, v) = app
        .signer(&token)
        .fill(text_field, json!({"value": "Ann typed this"}))
        .await;
    assert_eq!(s, 200, "{v}");
    let doc = format!("/api/v1/documents/{id}");

    // Sending a PENDING document again changes nothing: the read through a write.
    let (s, v) = write.send(id).await;
    assert_eq!(s, 200, "{v}");
    assert_receipt("send", &v);
    assert_eq!(
        (v["id"].as_i64(), v["status"].as_str()),
        (Some(id), Some("PENDING"))
    );
    // An app that may read gets the document, as before.
    let (s, full) = both.send(id).await;
    assert_eq!(s, 200, "{full}");
    assert_eq!(full["title"], "Salary review");
    assert!(full.to_string().contains("Ann typed this"), "{full}");

    // Recipients: an empty change, an addition and a removal.
    let (s, v) = write
        .patch(&format!("{doc}/recipients/{bob}"), json!({}))
        .await;
    assert_eq!(s, 200, "{v}");
    assert_receipt("patch recipient", &v);
    assert_eq!(v["id"].as_i64(), Some(bob));
    let (s, v) = write
        .post(
            &format!("{doc}/recipients"),
            json!({"email": "dee@example.com", "name": "Dee", "role": "CC"}),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    assert_receipt("add recipient", &v);
    let dee = v["id"].as_i64().expect("the new recipient's id");
    let (s, v) = write.delete(&format!("{doc}/recipients/{dee}")).await;
    assert_eq!(s, 200, "{v}");
    assert_receipt("delete recipient", &v);
    assert_eq!(v["deleted"], true);

    // Fields: added for Ann (who has not finished), changed, removed.
    let (s, v) = write
        .post(
            &format!("{doc}/fields"),
            json!({"recipientId": ann, "type": "NAME", "pageNumber": 1, "pageX": 50, "pageY": 60, "pageWidth": 20, "pageHeight": 5}),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    assert_receipt("add field", &v);
    let field = v["id"].as_i64().expect("the new field's id at the top");
    assert_eq!(v["fields"][0]["id"].as_i64(), Some(field));
    let (s, v) = write
        .patch(&format!("{doc}/fields/{field}"), json!({}))
        .await;
    assert_eq!(s, 200, "{v}");
    assert_receipt("patch field", &v);
    let (s, v) = write.delete(&format!("{doc}/fields/{field}")).await;
    assert_eq!(s, 200, "{v}");
    assert_receipt("delete field", &v);

    // A reminder says it was asked, not who has yet to sign.
    let (s, v) = write
        .post(&format!("{doc}/resend"), json!({"recipients": [ann, bob]}))
        .await;
    assert_eq!(s, 200, "{v}");
    assert_receipt("resend", &v);
    assert!(v.get("recipients").is_none(), "{v}");

    // Cancelling a PENDING document is the app's to do; the answer is the outcome.
    let (s, v) = write.delete(&doc).await;
    assert_eq!(s, 200, "{v}");
    assert_receipt("delete document", &v);
    assert_eq!(
        (v["status"].as_str(), v["outcome"].as_str()),
        (Some("CANCELLED"), Some("CANCELLED"))
    );

    // The app's own new document: its ids and upload URL.
    let (s, v) = write
        .post(
            "/api/v1/documents",
            json!({"title": "Salary review", "recipients": [{"name": "Ann", "email": "ann@example.com", "role": "SIGNER"}]}),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    assert_receipt("create document", &v);
    assert!(
        v["uploadUrl"].is_string() && v["recipients"][0]["recipientId"].is_i64(),
        "{v}"
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_only_apps_template_writes_answer_receipts() {
    let app = TestApp::spawn().await;
    let ada = ada(&app).await;
    let write = ada.app_token(&app, "WRITE_DOCUMENT").await;
    let created = ada
        .api
        .create_template(json!({"title": "Secret template", "recipients": [
            {"role": "SIGNER", "signingOrder": 0},
            {"name": "Agency", "email": "agency@example.com", "role": "CC", "signingOrder": 1}]}))
        .await;
    let id = created.template_id();
    let signer = created.recipient_id(0);
    ada.api
        .upload_ok(created.upload_url(), fixture("a4-1p.pdf"))
        .await;
    let path = format!("/api/v1/templates/{id}");

    let (s, v) = write
        .post(
            &format!("{path}/fields"),
            json!([{"recipientId": signer, "type": "SIGNATURE", "pageNumber": 1, "pageX": 10, "pageY": 80, "pageWidth": 30, "pageHeight": 5}]),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    assert_receipt("template fields", &v);
    let (s, v) = write
        .post(
            &format!("{path}/recipients"),
            json!({"name": "Eve", "email": "eve@example.com", "role": "VIEWER"}),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    assert_receipt("template recipient", &v);
    for route in ["generate-document", "create-document"] {
        let body = match route {
            "generate-document" => {
                json!({"recipients": [{"id": signer, "email": "zed@example.com", "name": "Zed"}]})
            }
            _ => {
                json!({"title": "Copy", "recipients": [{"email": "zed@example.com", "name": "Zed"}]})
            }
        };
        let (s, v) = write.post(&format!("{path}/{route}"), body).await;
        assert_eq!(s, 200, "{route}: {v}");
        assert_receipt(route, &v);
        assert!(v["documentId"].is_i64(), "{v}");
    }
    let (s, v) = write
        .post("/api/v1/templates", json!({"title": "Secret template"}))
        .await;
    assert_eq!(s, 200, "{v}");
    assert_receipt("create template", &v);
    assert!(
        v["templateId"].is_i64() && v["uploadUrl"].is_string(),
        "{v}"
    );
    let (s, v) = write.delete(&path).await;
    assert_eq!(s, 200, "{v}");
    assert_receipt("delete template", &v);
    assert_eq!(v["deleted"], true);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_only_app_may_not_hide_a_finished_document() {
    let app = TestApp::spawn().await;
    let ada = ada(&app).await;
    let write = ada.app_token(&app, "WRITE_DOCUMENT").await;
    let both = ada.app_token(&app, "READ_DOCUMENT WRITE_DOCUMENT").await;
    let (id, _, _, token, sig) = salary_review(&ada.api).await;
    let ann = app.signer(&token);
    let text_field = ada.api.document(id).await["fields"][1]["id"]
        .as_i64()
        .unwrap();
    assert_eq!(
        ann.fill(text_field, json!({"value": "Ann typed this"}))
            .await
            .0,
        200
    );
    assert_eq!(ann.sign(sig).await.0, 200);
    let (s, v) = ann.complete(json!({})).await;
    assert_eq!(s, 200, "{v}");
    ada.api.wait_status(id, "COMPLETED").await;

    let doc = format!("/api/v1/documents/{id}");
    let (s, v) = write.delete(&doc).await;
    assert_eq!(
        (s, v["code"].as_str()),
        (403, Some("insufficient_scope")),
        "{v}"
    );
    assert!(
        v["message"].as_str().unwrap().contains("READ_DOCUMENT"),
        "{v}"
    );
    assert!(!v.to_string().contains("Ann typed this"), "{v}");
    let (_, listed) = ada.api.get("/api/v1/documents").await;
    assert!(
        listed["documents"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["id"].as_i64() == Some(id)),
        "still in the owner's list: {listed}"
    );
    // An app that may read the record may hide it, as the owner's key may.
    let (s, v) = both.delete(&doc).await;
    assert_eq!((s, v["outcome"].as_str()), (200, Some("HIDDEN")), "{v}");
    app.stop().await;
}
