//! The template API through the real server: the seed 2.4 shape, uploads, fields, generating
//! documents, access and deletion.

use reqwest::Method as M;
use serde_json::{Value, json};

use crate::support::TestApp;
use crate::support::api::{Api, fixture, keys, sorted};

mod create_document;
mod generate;

/// A template with a placeholder signer and a fixed CC recipient.
fn lease() -> Value {
    json!({
        "title": "Lease",
        "externalId": "tpl-1",
        "recipients": [
            {"role": "SIGNER", "signingOrder": 0},
            {"name": "Agency", "email": "agency@example.com", "role": "CC", "signingOrder": 1}
        ],
        "meta": {"subject": "Your lease", "message": "Please sign", "timezone": "Europe/Paris", "dateFormat": "yyyy-MM-dd"}
    })
}

fn sig(rid: i64, page: i64) -> Value {
    json!({"recipientId": rid, "type": "SIGNATURE", "pageNumber": page, "pageX": 10, "pageY": 80, "pageWidth": 30.5, "pageHeight": 8})
}

/// A lease template with its PDF (3 pages) and one field per recipient; answers (template id,
/// its recipient ids, the PDF).
async fn ready_template(api: &Api) -> (i64, Vec<i64>, Vec<u8>) {
    let created = api.create_template(lease()).await;
    let id = created.template_id();
    let rids: Vec<i64> = created["recipients"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["recipientId"].as_i64().unwrap())
        .collect();
    let pdf = fixture("mixed-sizes-3p.pdf");
    api.upload_ok(created.upload_url(), pdf.clone()).await;
    let text = json!({"recipientId": rids[1], "type": "TEXT", "pageNumber": 3, "pageX": 50, "pageY": 50, "pageWidth": 20, "pageHeight": 5, "fieldMeta": {"type": "text", "label": "Agency ref"}});
    let (s, v) = api
        .post(
            &format!("/api/v1/templates/{id}/fields"),
            json!([sig(rids[0], 1), text]),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    (id, rids, pdf)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn get_template_has_exactly_the_seed_shape() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let created = api.create_template(lease()).await;
    assert_created_template_shape(&created);

    // The template's PDF goes through the same signed PUT as a document's.
    let id = created.template_id();
    let pdf = fixture("mixed-sizes-3p.pdf");
    let up = api.upload_ok(created.upload_url(), pdf.clone()).await;
    assert_eq!(
        keys(&up),
        sorted(&["templateId", "pages", "size", "sha256"])
    );
    assert_eq!(
        (up["templateId"].as_i64(), up["pages"].as_i64()),
        (Some(id), Some(3))
    );
    let rid = created["recipients"][0]["recipientId"].as_i64().unwrap();
    let (s, v) = api
        .post(
            &format!("/api/v1/templates/{id}/fields"),
            json!([sig(rid, 2)]),
        )
        .await;
    assert_eq!(s, 200, "{v}");

    let (s, t) = api.get(&format!("/api/v1/templates/{id}")).await;
    assert_eq!(s, 200, "{t}");
    assert_template_top_level(&t, id);
    assert_template_meta_and_file(&t, id, &pdf);
    assert_template_field_and_recipients(&t, rid);
    app.stop().await;
}

/// What creating the lease template answered: its keys, a placeholder signer and the CC.
fn assert_created_template_shape(created: &Value) {
    assert_eq!(
        keys(created),
        sorted(&["templateId", "uploadUrl", "recipients", "template"])
    );
    let r0 = &created["recipients"][0];
    assert_eq!(
        keys(r0),
        sorted(&[
            "recipientId",
            "name",
            "email",
            "token",
            "role",
            "signingOrder",
            "signingUrl"
        ])
    );
    assert_eq!(r0["email"], "recipient.1@placeholder.docket.invalid");
    assert_eq!(r0["name"], "");
    assert_eq!(created["recipients"][1]["email"], "agency@example.com");
}

/// The template `t`'s keys and plain values.
fn assert_template_top_level(t: &Value, id: i64) {
    assert_eq!(
        keys(t),
        sorted(&[
            "id",
            "externalId",
            "type",
            "title",
            "userId",
            "teamId",
            "templateDocumentDataId",
            "createdAt",
            "updatedAt",
            "templateMeta",
            "directLink",
            "templateDocumentData",
            "Field",
            "Recipient"
        ])
    );
    assert_eq!(t["id"], id);
    assert_eq!(t["externalId"], "tpl-1");
    assert_eq!(t["type"], "PRIVATE");
    assert_eq!(t["title"], "Lease");
    assert!(t["userId"].is_i64());
    assert!(t["createdAt"].as_str().unwrap().ends_with('Z'));
}

/// The template `t`'s `templateMeta`, `directLink` and `templateDocumentData` (of `pdf`).
fn assert_template_meta_and_file(t: &Value, id: i64, pdf: &[u8]) {
    let meta = &t["templateMeta"];
    assert_eq!(
        keys(meta),
        sorted(&[
            "id",
            "subject",
            "message",
            "timezone",
            "dateFormat",
            "templateId",
            "redirectUrl",
            "signingOrder",
            "language",
            "envelopeExpirationPeriod",
            "reminders"
        ])
    );
    assert!(meta["id"].is_string());
    assert_eq!(meta["envelopeExpirationPeriod"], Value::Null);
    assert_eq!(meta["language"], "en", "the signing service's default");
    assert_eq!(meta["templateId"], json!(id), "an integer");
    assert_eq!(meta["subject"], "Your lease");
    assert_eq!(meta["timezone"], "Europe/Paris");
    assert_eq!(meta["signingOrder"], "PARALLEL");
    assert_eq!(keys(&t["directLink"]), sorted(&["token", "enabled"]));
    assert!(t["directLink"]["token"].as_str().unwrap().len() >= 22);
    assert_eq!(t["directLink"]["enabled"], false);
    let data = &t["templateDocumentData"];
    assert_eq!(keys(data), sorted(&["id", "type", "data"]));
    assert_eq!(data["id"], t["templateDocumentDataId"]);
    assert!(data["id"].is_string());
    assert_eq!(data["type"], "SHA256");
    assert_eq!(data["data"], docket::core::crypto::sha256_hex(pdf));
}

/// The template `t`'s one field (for recipient `rid`, on page 2) and its two recipients.
fn assert_template_field_and_recipients(t: &Value, rid: i64) {
    let f = &t["Field"][0];
    assert_eq!(
        keys(f),
        sorted(&[
            "id",
            "recipientId",
            "type",
            "page",
            "positionX",
            "positionY",
            "width",
            "height",
            "fieldMeta"
        ])
    );
    assert_eq!(
        (&f["recipientId"], &f["type"], &f["page"]),
        (&json!(rid), &json!("SIGNATURE"), &json!(2))
    );
    assert_eq!(
        [&f["positionX"], &f["positionY"], &f["width"], &f["height"]],
        [&json!("10"), &json!("80"), &json!("30.5"), &json!("8")],
        "strings, as the seed shows them"
    );
    let recipients = t["Recipient"].as_array().unwrap();
    assert_eq!(recipients.len(), 2);
    assert_eq!(
        keys(&recipients[0]),
        sorted(&["id", "email", "name", "signingOrder", "authOptions", "role"])
    );
    assert_eq!(recipients[0]["id"], json!(rid));
    assert_eq!(recipients[0]["authOptions"], "", "a string even when empty");
    assert_eq!(recipients[1]["role"], "CC");
    assert_eq!(recipients[1]["signingOrder"], 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recipients_tiers_and_auth_options_text() {
    let app = TestApp::spawn().await;
    let standard = app.user_with_key("std@example.com", "standard");
    let enterprise = app.user_with_key("ent@example.com", "enterprise");
    let with_auth = json!({"title": "T", "recipients": [{"role": "SIGNER", "authOptions": {"actionAuth": "ACCOUNT"}}]});
    let global =
        json!({"title": "T", "recipients": [], "authOptions": {"globalActionAuth": "PASSKEY"}});
    for body in [&with_auth, &global] {
        let (s, v) = standard.post("/api/v1/templates", body.clone()).await;
        assert_eq!((s, v["code"].as_str()), (403, Some("forbidden")), "{body}");
    }
    assert_eq!(enterprise.post("/api/v1/templates", global).await.0, 200);
    let id = enterprise.create_template(with_auth).await["templateId"]
        .as_i64()
        .unwrap();
    let (_, t) = enterprise.get(&format!("/api/v1/templates/{id}")).await;
    let text = t["Recipient"][0]["authOptions"].as_str().unwrap();
    let parsed: Value = serde_json::from_str(text).unwrap();
    // The other signing service's shape: lists, one method or several.
    assert_eq!(parsed, json!({"accessAuth": [], "actionAuth": ["ACCOUNT"]}));

    // Adding recipients: placeholders continue, duplicates and bad input are refused.
    let path = format!("/api/v1/templates/{id}/recipients");
    let (s, r) = enterprise.post(&path, json!({"role": "VIEWER"})).await;
    assert_eq!(s, 200, "{r}");
    assert_eq!(r["email"], "recipient.2@placeholder.docket.invalid");
    assert_eq!(r["templateId"], id);
    assert_eq!(r["role"], "VIEWER");
    let (s, _) = enterprise
        .post(&path, json!({"email": "b@example.com"}))
        .await;
    assert_eq!(s, 200);
    let (s, v) = enterprise
        .post(&path, json!({"email": "B@example.com"}))
        .await;
    assert_eq!(s, 409, "{v}");
    let (s, v) = enterprise
        .post(&path, json!({"email": "bad", "role": "KING"}))
        .await;
    assert_eq!(s, 400);
    let paths: Vec<&str> = v["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["email", "role"]);
    let (s, _) = standard.post("/api/v1/templates", json!({"title": "T", "recipients": [{"email": "x@example.com"}, {"email": "X@example.com"}]})).await;
    assert_eq!(s, 400, "the same address twice");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fields_follow_the_templates_recipients_and_pdf() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let created = api.create_template(lease()).await;
    let id = created.template_id();
    let rid = created.recipient_id(0);
    api.upload_ok(created.upload_url(), fixture("mixed-sizes-3p.pdf"))
        .await;
    let path = format!("/api/v1/templates/{id}/fields");
    let (s, v) = api.post(&path, json!([sig(rid, 1), sig(rid, 4)])).await;
    assert_eq!(s, 400, "{v}");
    assert_eq!(v["details"][0]["path"], "[1].pageNumber");
    let (s, v) = api
        .post(&path, json!([sig(rid, 1), sig(rid + 100, 1)]))
        .await;
    assert_eq!(s, 400, "{v}");
    assert_eq!(v["details"][0]["path"], "[1].recipientId");
    let text = json!({"recipientId": rid, "type": "TEXT", "pageNumber": 1, "pageX": 1, "pageY": 1, "pageWidth": 5, "pageHeight": 5});
    let (s, v) = api.post(&path, text).await;
    assert_eq!(s, 400);
    assert_eq!(v["details"][0]["path"], "fieldMeta.type");
    let (_, t) = api.get(&format!("/api/v1/templates/{id}")).await;
    assert_eq!(t["Field"], json!([]), "nothing was stored");

    // A recipient of another template is not one of this template's.
    let other = api.create_template(lease()).await;
    let foreign = other["recipients"][0]["recipientId"].as_i64().unwrap();
    let (s, _) = api.post(&path, sig(foreign, 1)).await;
    assert_eq!(s, 400);

    let (s, v) = api.post(&path, sig(rid, 3)).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(keys(&v), sorted(&["templateId", "fields"]));
    assert_eq!(v["fields"][0]["page"], 3);
    assert_eq!(v["fields"][0]["width"], "30.5");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_users_templates_are_404() {
    let app = TestApp::spawn().await;
    let owner = app.user_with_key("owner@example.com", "standard");
    let other = app.user_with_key("other@example.com", "standard");
    let (id, rids, _) = ready_template(&owner).await;
    for (method, path, body) in [
        (M::GET, format!("/api/v1/templates/{id}"), None),
        (M::DELETE, format!("/api/v1/templates/{id}"), None),
        (
            M::POST,
            format!("/api/v1/templates/{id}/recipients"),
            Some(json!({"email": "x@example.com"})),
        ),
        (
            M::POST,
            format!("/api/v1/templates/{id}/fields"),
            Some(sig(rids[0], 1)),
        ),
        (
            M::POST,
            format!("/api/v1/templates/{id}/generate-document"),
            Some(json!({"recipients": [{"id": rids[0], "email": "x@example.com"}]})),
        ),
    ] {
        let (s, v) = other.call(method.clone(), &path, body).await;
        assert_eq!(s, 404, "{method} {path}: {v}");
        assert_eq!(v["code"], "not_found");
    }
    let (_, list) = other.get("/api/v1/templates").await;
    assert_eq!(list, json!({"templates": [], "totalPages": 0}));
    let (s, _) = owner.get(&format!("/api/v1/templates/{id}")).await;
    assert_eq!(s, 200, "the owner still sees it");
    let resp = app
        .client
        .get(app.url("/api/v1/templates"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 401);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listing_uploads_and_deletion() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let mut created = Vec::new();
    for i in 0..3 {
        created.push(
            api.create_template(
                json!({"title": format!("T{i}"), "recipients": [], "type": "PUBLIC"}),
            )
            .await,
        );
    }
    let (s, page1) = api.get("/api/v1/templates?perPage=2").await;
    assert_eq!(s, 200);
    assert_eq!(page1["totalPages"], 2);
    assert_eq!(page1["templates"][0]["title"], "T2", "newest first");
    assert_eq!(page1["templates"][0]["type"], "PUBLIC");
    assert_eq!(page1["templates"][0]["templateDocumentData"]["data"], "");
    let (_, page2) = api.get("/api/v1/templates?perPage=2&page=2").await;
    assert_eq!(page2["templates"].as_array().unwrap().len(), 1);
    assert_eq!(api.get("/api/v1/templates?perPage=0").await.0, 400);

    // A second upload replaces the file; deleting the template removes it.
    let url = created[0]["uploadUrl"].as_str().unwrap();
    api.upload_ok(url, fixture("a4-1p.pdf")).await;
    let up = api.upload_ok(url, fixture("scan-3p.pdf")).await;
    assert_eq!(up["pages"], 3);
    let blob_files = || crate::support::stored_blob_ids(&app.data_dir()).len();
    // The replaced file is removed right after the answer, off the request's path.
    for _ in 0..100 {
        if blob_files() == 1 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(blob_files(), 1);
    let id = created[0]["templateId"].as_i64().unwrap();
    let (s, _) = api.delete(&format!("/api/v1/templates/{id}")).await;
    assert_eq!(s, 200);
    assert_eq!(blob_files(), 0);
    assert_eq!(api.delete(&format!("/api/v1/templates/{id}")).await.0, 404);
    let (_, list) = api.get("/api/v1/templates").await;
    assert_eq!(list["templates"].as_array().unwrap().len(), 2);

    // Documents' uploads are untouched by the template route.
    let doc = api
        .create_document(json!({"title": "D", "recipients": []}))
        .await;
    let up = api
        .upload_ok(doc["uploadUrl"].as_str().unwrap(), fixture("a4-1p.pdf"))
        .await;
    assert_eq!(up["documentId"], doc["documentId"]);
    app.stop().await;
}
