//! Requests written for the other signing service's public API v1, sent unchanged but for the
//! base URL and the key: what they ask must work here with the same success status.

use serde_json::json;

use crate::support::TestApp;
use crate::support::api::fixture;

mod answers;
mod fields;
mod mail;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn its_date_formats_and_its_name_for_the_original_download_work() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("ada@example.com", "standard");
    // A format docket did not know before, as such a script sends it.
    let doc = api
        .create_document(json!({
            "title": "NDA", "recipients": [],
            "meta": {"dateFormat": "EEEE, MMMM dd, yyyy HH:mm", "timezone": "Europe/Paris"}
        }))
        .await;
    let id = doc.document_id();
    assert_eq!(
        api.document(id).await["meta"]["dateFormat"],
        "EEEE, MMMM dd, yyyy HH:mm"
    );
    let pdf = fixture("a4-1p.pdf");
    api.upload_ok(doc.upload_url(), pdf.clone()).await;
    for flag in ["true", "1"] {
        let (s, v) = api
            .get(&format!(
                "/api/v1/documents/{id}/download?downloadOriginalDocument={flag}"
            ))
            .await;
        assert_eq!(s, 200, "{flag}: {v}");
        let file = api
            .client()
            .get(v["downloadUrl"].as_str().unwrap())
            .send()
            .await
            .unwrap();
        assert_eq!(file.bytes().await.unwrap().to_vec(), pdf);
    }
    // Not asking for the original: the signed copy, which a draft does not have yet.
    let (s, _) = api
        .get(&format!(
            "/api/v1/documents/{id}/download?downloadOriginalDocument=false"
        ))
        .await;
    assert_ne!(s, 200);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_v1_script_tests_its_key_reads_fields_by_its_names_sends_and_reminds() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("ada@example.com", "standard");
    let (s, me) = api.get("/api/v1/me").await;
    assert_eq!(s, 200, "{me}");
    assert_eq!(me["email"], "ada@example.com");
    assert!(me["name"].is_string() && me["id"].is_i64(), "{me}");
    let (s, _) = app.api("api_not-a-key").get("/api/v1/me").await;
    assert_eq!(s, 401);

    let doc = api
        .create_document(crate::support::api::two_recipients())
        .await;
    let id = doc.document_id();
    api.upload_ok(doc.upload_url(), fixture("a4-1p.pdf")).await;
    let signer = doc.recipient_id(0);
    api.add_fields(
        id,
        json!([{"recipientId": signer, "type": "SIGNATURE", "pageNumber": 1,
                "pageX": 10.5, "pageY": 80, "pageWidth": 30, "pageHeight": 5}]),
    )
    .await;
    let field = &api.document(id).await["fields"][0];
    assert_eq!(
        (&field["page"], &field["positionX"], &field["positionY"]),
        (&json!(1), &json!("10.5"), &json!("80"))
    );
    assert_eq!(
        (&field["width"], &field["height"]),
        (&json!("30"), &json!("5"))
    );

    let (s, sent) = api.send(id).await;
    assert_eq!(s, 200, "{sent}");
    assert_eq!(sent["message"], "Document sent for signing successfully");
    assert_eq!(sent["status"], "PENDING");
    let (s, resent) = api
        .post(
            &format!("/api/v1/documents/{id}/resend"),
            json!({"recipients": [signer]}),
        )
        .await;
    assert_eq!(s, 200, "{resent}");
    assert_eq!(resent["message"], "Document resend successfully initiated");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_template_starts_without_recipients_and_the_answer_carries_it() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("ada@example.com", "standard");
    let (s, created) = api
        .post("/api/v1/templates", json!({"title": "Lease"}))
        .await;
    assert_eq!(s, 200, "{created}");
    let id = created["templateId"].as_i64().unwrap();
    assert_eq!(created["template"]["id"], id);
    assert_eq!(created["template"]["title"], "Lease");
    assert_eq!(created["recipients"], json!([]));
    let (s, r) = api
        .post(
            &format!("/api/v1/templates/{id}/recipients"),
            json!({"name": "Tenant", "email": "tenant@example.com", "role": "SIGNER"}),
        )
        .await;
    assert_eq!(s, 200, "{r}");
    let (_, t) = api.get(&format!("/api/v1/templates/{id}")).await;
    assert_eq!(t["Recipient"][0]["email"], "tenant@example.com");
    app.stop().await;
}

/// A sent document for a SIGNER (Ann) and a CC, Ann with one signature field: (id, Ann's
/// recipient id, her token, her signature field).
async fn sent_for_ann(api: &crate::support::api::Api) -> (i64, i64, String, i64) {
    let doc = api
        .create_document(crate::support::api::two_recipients())
        .await;
    let id = doc.document_id();
    api.upload_ok(doc.upload_url(), fixture("a4-1p.pdf")).await;
    let ann = doc.recipient_id(0);
    let sig = api
        .add_fields(
            id,
            json!([{"recipientId": ann, "type": "SIGNATURE", "pageNumber": 1,
                    "pageX": 10, "pageY": 80, "pageWidth": 30, "pageHeight": 5}]),
        )
        .await[0];
    let (s, v) = api.send(id).await;
    assert_eq!(s, 200, "{v}");
    (id, ann, doc.token(0), sig)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fields_change_while_pending_for_recipients_who_have_not_finished() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("ada@example.com", "standard");
    let (id, ann, token, sig) = sent_for_ann(&api).await;
    let path = format!("/api/v1/documents/{id}/fields");
    let text = json!({"recipientId": ann, "type": "TEXT", "pageNumber": 1, "pageX": 10,
                      "pageY": 50, "pageWidth": 30, "pageHeight": 5,
                      "fieldMeta": {"type": "text", "required": true}});
    let (s, v) = api.post(&path, text).await;
    assert_eq!(s, 200, "{v}");
    let added = v["fields"][0]["id"].as_i64().unwrap();
    let (s, v) = api
        .patch(&format!("{path}/{added}"), json!({"pageY": 60}))
        .await;
    assert_eq!((s, &v["pageY"]), (200, &json!(60.0)), "{v}");
    // The signer's only signature field stays.
    let (s, _) = api.delete(&format!("{path}/{sig}")).await;
    assert_eq!(s, 409);
    let (s, _) = api
        .patch(
            &format!("{path}/{sig}"),
            json!({"type": "TEXT", "fieldMeta": {"type": "text"}}),
        )
        .await;
    assert_eq!(s, 409);
    // Ann sees the new field, must fill it, and signs.
    let ann_link = app.signer(&token);
    assert_eq!(ann_link.sign(sig).await.0, 200);
    let (s, _) = ann_link.complete(json!({})).await;
    assert_eq!(s, 400, "the added required field is still empty");
    let (s, _) = ann_link.fill(added, json!({"value": "ACME"})).await;
    assert_eq!(s, 200);
    // A filled field no longer changes.
    let (s, _) = api.delete(&format!("{path}/{added}")).await;
    assert_eq!(s, 409);
    assert_eq!(ann_link.complete(json!({})).await.0, 200);
    // Once she has finished, her fields are closed.
    let late = json!({"recipientId": ann, "type": "TEXT", "pageNumber": 1, "pageX": 10,
                      "pageY": 20, "pageWidth": 30, "pageHeight": 5,
                      "fieldMeta": {"type": "text"}});
    let (s, v) = api.post(&path, late).await;
    assert_eq!(s, 400, "{v}");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_document_names_template_recipients_by_position() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("ada@example.com", "standard");
    let t = api
        .create_template(json!({"title": "Lease", "recipients": [
            {"name": "Tenant", "email": "t@example.com", "role": "SIGNER"},
            {"name": "Agent", "email": "a@example.com", "role": "SIGNER"}]}))
        .await;
    let id = t.template_id();
    api.upload_ok(t.upload_url(), fixture("a4-1p.pdf")).await;
    let path = format!("/api/v1/templates/{id}/create-document");
    let body = json!({"title": "Lease for Bo", "recipients": [
        {"name": "Bo", "email": "bo@example.com", "role": "APPROVER"}]});
    let (s, v) = api.post(&path, body).await;
    assert_eq!(s, 200, "{v}");
    let doc = api.document(v["documentId"].as_i64().unwrap()).await;
    assert_eq!(doc["title"], "Lease for Bo");
    let r = &doc["recipients"];
    assert_eq!(
        (&r[0]["email"], &r[0]["role"]),
        (&json!("bo@example.com"), &json!("APPROVER"))
    );
    assert_eq!(
        r[1]["email"], "a@example.com",
        "the rest keep the template's"
    );
    // More recipients than the template has, or no title: 400.
    let three = json!({"title": "x", "recipients": [{"email": "1@example.com"},
        {"email": "2@example.com"}, {"email": "3@example.com"}]});
    assert_eq!(api.post(&path, three).await.0, 400);
    let untitled = json!({"recipients": [{"email": "1@example.com"}]});
    assert_eq!(api.post(&path, untitled).await.0, 400);
    app.stop().await;
}

/// Signing requests queued for recipient `id`.
fn invitations(app: &TestApp, id: i64) -> i64 {
    app.db()
        .query_row(
            "SELECT count(*) FROM mail_queue WHERE recipient_id = ?1 AND kind = 'SIGNING_REQUEST'",
            [id],
            |r| r.get(0),
        )
        .unwrap()
}

/// A field for `rid` at `y` percent down page 1, of `kind`, with `meta` (if not null).
fn placed(rid: i64, kind: &str, y: i64, meta: serde_json::Value) -> serde_json::Value {
    let mut f = json!({"recipientId": rid, "type": kind, "pageNumber": 1, "pageX": 10,
                       "pageY": y, "pageWidth": 30, "pageHeight": 5});
    if !meta.is_null() {
        f["fieldMeta"] = meta;
    }
    f
}

/// The field `id` among a document's (or template's) `fields`.
fn field_in(fields: &serde_json::Value, id: i64) -> &serde_json::Value {
    fields
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == id)
        .unwrap_or_else(|| panic!("no field {id} in {fields}"))
}

/// A queued message: (to, subject, text, html).
type Queued = (String, String, String, String);

/// Messages of `kind` queued about document `doc`, oldest first.
fn queued(app: &TestApp, doc: i64, kind: &str) -> Vec<Queued> {
    app.db()
        .query_map(
            "SELECT to_addr, subject, body_text, body_html FROM mail_queue
             WHERE document_id = ?1 AND kind = ?2 ORDER BY id",
            docket::params![doc, kind.to_string()],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap()
}

/// A document for Ann (SIGNER, with a signature field) and Cid (CC) with `meta`, its file
/// uploaded: (id, Ann's id, her token, her field).
async fn ready_with_meta(
    api: &crate::support::api::Api,
    meta: serde_json::Value,
) -> (i64, i64, String, i64) {
    let mut body = crate::support::api::two_recipients();
    body["meta"] = meta;
    let doc = api.create_document(body).await;
    let id = doc.document_id();
    api.upload_ok(doc.upload_url(), fixture("a4-1p.pdf")).await;
    let ann = doc.recipient_id(0);
    let sig = api
        .add_fields(
            id,
            json!([{"recipientId": ann, "type": "SIGNATURE", "pageNumber": 1,
                    "pageX": 10, "pageY": 80, "pageWidth": 30, "pageHeight": 5}]),
        )
        .await[0];
    (id, ann, doc.token(0), sig)
}

/// Ann signs and finishes; the document is sealed (COMPLETED).
async fn ann_finishes(
    app: &TestApp,
    api: &crate::support::api::Api,
    id: i64,
    token: &str,
    sig: i64,
) {
    let link = app.signer(token);
    assert_eq!(link.sign(sig).await.0, 200);
    assert_eq!(link.complete(json!({})).await.0, 200);
    api.wait_status(id, "COMPLETED").await;
}
