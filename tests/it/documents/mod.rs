//! The document API through the real server: shapes, uploads, access, validation, limits.

use serde_json::{Value, json};

use crate::support::api::{Api, fixture, keys, sorted, two_recipients};
use crate::support::{TestApp, stored_blob, stored_blob_ids};

mod uploads;
mod wire_bodies;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_get_and_upload_have_the_seed_shapes() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let created = api.create_document(two_recipients()).await;
    assert_created_document_shape(&app, &created);

    let id = created.document_id();
    let (status, doc) = api.get(&format!("/api/v1/documents/{id}")).await;
    assert_eq!(status, 200);
    assert_document_shape(&doc);

    // The upload URL takes the raw PDF with no other credentials.
    let url = created.upload_url();
    assert!(url.starts_with(&app.base));
    let pdf = fixture("letter-120p.pdf");
    let up = api.upload_ok(url, pdf.clone()).await;
    assert_eq!(
        keys(&up),
        sorted(&["documentId", "pages", "size", "sha256"])
    );
    assert_eq!(up["pages"], 120);
    assert_eq!(up["size"], pdf.len());
    assert_eq!(up["sha256"], docket::core::crypto::sha256_hex(&pdf));
    app.stop().await;
}

/// What creating a document answered: its keys and its first recipient's link.
fn assert_created_document_shape(app: &TestApp, created: &Value) {
    assert_eq!(
        keys(created),
        // `externalId` as the other signing service answers it.
        sorted(&["uploadUrl", "documentId", "externalId", "recipients"])
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
    assert_eq!(
        r0["signingUrl"],
        format!("{}/sign/{}", app.base, r0["token"].as_str().unwrap())
    );
    assert!(r0["token"].as_str().unwrap().len() >= 22);
}

/// A new draft of [`two_recipients`] as GET answers it.
fn assert_document_shape(doc: &Value) {
    assert_eq!(
        keys(doc),
        sorted(&[
            "id",
            "externalId",
            "userId",
            "teamId",
            "folderId",
            "title",
            "status",
            "documentDataId",
            "createdAt",
            "updatedAt",
            "completedAt",
            "recipients",
            "fields",
            "meta",
            "authOptions"
        ])
    );
    assert_eq!(
        doc["authOptions"],
        json!({"globalAccessAuth": [], "globalActionAuth": []})
    );
    assert_eq!(doc["status"], "DRAFT");
    assert_eq!(doc["externalId"], "ext-1");
    assert!(doc["teamId"].is_null() && doc["completedAt"].is_null());
    assert!(doc["createdAt"].as_str().unwrap().ends_with('Z'));
    assert_eq!(doc["meta"]["signingOrder"], "SEQUENTIAL");
    assert_eq!(doc["meta"]["timezone"], "Europe/Paris");
    let rec = &doc["recipients"][0];
    assert_eq!(
        keys(rec),
        sorted(&[
            "id",
            "documentId",
            "email",
            "name",
            "role",
            "signingOrder",
            "token",
            "signedAt",
            "readStatus",
            "signingStatus",
            "sendStatus",
            "signingUrl",
            "authOptions",
            "expiresAt",
            "expirationNotifiedAt",
            "expired"
        ])
    );
    assert_eq!(
        rec["expiresAt"],
        Value::Null,
        "a draft's recipients have no deadline yet"
    );
    assert_eq!(rec["expired"], false);
    assert_eq!(
        rec["authOptions"],
        json!({"accessAuth": [], "actionAuth": []})
    );
    assert_eq!(
        (
            rec["readStatus"].as_str(),
            rec["signingStatus"].as_str(),
            rec["sendStatus"].as_str()
        ),
        (Some("NOT_OPENED"), Some("NOT_SIGNED"), Some("NOT_SENT"))
    );
    assert_eq!(doc["recipients"][1]["role"], "CC");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_users_documents_are_404() {
    let app = TestApp::spawn().await;
    let owner = app.user_with_key("owner@example.com", "standard");
    let other = app.user_with_key("other@example.com", "standard");
    let id = owner.create_document(two_recipients()).await["documentId"]
        .as_i64()
        .unwrap();
    use reqwest::Method as M;
    for (method, path, body) in [
        (M::GET, format!("/api/v1/documents/{id}"), None),
        (M::DELETE, format!("/api/v1/documents/{id}"), None),
        (
            M::POST,
            format!("/api/v1/documents/{id}/recipients"),
            Some(json!({"email": "x@example.com"})),
        ),
        (
            M::POST,
            format!("/api/v1/documents/{id}/fields"),
            Some(
                json!({"recipientId": 1, "type": "SIGNATURE", "pageNumber": 1, "pageX": 1, "pageY": 1, "pageWidth": 1, "pageHeight": 1}),
            ),
        ),
        (
            M::PATCH,
            format!("/api/v1/documents/{id}/recipients/1"),
            Some(json!({"name": "x"})),
        ),
        (M::DELETE, format!("/api/v1/documents/{id}/fields/1"), None),
    ] {
        let (s, v) = other.call(method.clone(), &path, body).await;
        assert_eq!(s, 404, "{method} {path}: {v}");
        assert_eq!(v["code"], "not_found");
    }
    let (_, list) = other.get("/api/v1/documents").await;
    assert_eq!(list, json!({"documents": [], "totalPages": 0}));
    let (s, _) = owner.get(&format!("/api/v1/documents/{id}")).await;
    assert_eq!(s, 200, "the owner still sees it");
    // No credentials at all.
    let resp = app
        .client
        .get(app.url("/api/v1/documents"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 401);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fields_are_all_or_nothing_and_follow_the_pdf() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let created = api.create_document(two_recipients()).await;
    let id = created.document_id();
    let rid = created.recipient_id(0);
    let resp = app
        .client
        .put(created.upload_url())
        .body(fixture("mixed-sizes-3p.pdf"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let sig = |page: i64| json!({"recipientId": rid, "type": "SIGNATURE", "pageNumber": page, "pageX": 10, "pageY": 80, "pageWidth": 30, "pageHeight": 8});
    let path = format!("/api/v1/documents/{id}/fields");

    let (s, v) = api.post(&path, json!([sig(1), sig(4)])).await;
    assert_eq!(s, 400, "{v}");
    assert_eq!(v["details"][0]["path"], "[1].pageNumber");
    let (s, v) = api.post(&path, json!([sig(1), {"recipientId": rid, "type": "TEXT", "pageNumber": 1, "pageX": 1, "pageY": 1, "pageWidth": 5, "pageHeight": 5}])).await;
    assert_eq!(s, 400);
    assert_eq!(v["details"][0]["path"], "[1].fieldMeta.type");
    let (_, doc) = api.get(&format!("/api/v1/documents/{id}")).await;
    assert_eq!(doc["fields"], json!([]), "nothing was stored");

    let text = json!({"recipientId": rid, "type": "TEXT", "pageNumber": 3, "pageX": 50, "pageY": 50, "pageWidth": 20, "pageHeight": 5, "fieldMeta": {"type": "text", "label": "Company", "characterLimit": 40}});
    let (s, v) = api.post(&path, json!([sig(1), text])).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(keys(&v), sorted(&["documentId", "fields"]));
    let f = &v["fields"][1];
    assert_eq!(
        keys(f),
        sorted(&[
            "id",
            "documentId",
            "recipientId",
            "type",
            "pageNumber",
            "pageX",
            "pageY",
            "pageWidth",
            "pageHeight",
            "fieldMeta",
            "inserted",
            "customText",
            "page",
            "positionX",
            "positionY",
            "width",
            "height",
            "secondaryId"
        ])
    );
    assert_eq!(f["fieldMeta"]["characterLimit"], 40);
    assert_eq!(f["inserted"], false);
    // A single object works too.
    let (s, v) = api.post(&path, sig(2)).await;
    assert_eq!(s, 200);
    let fid = v["fields"][0]["id"].as_i64().unwrap();
    let (s, v) = api
        .patch(&format!("{path}/{fid}"), json!({"pageX": 95}))
        .await;
    assert_eq!(s, 400, "{v}");
    let (s, v) = api
        .patch(&format!("{path}/{fid}"), json!({"pageX": 5}))
        .await;
    assert_eq!((s, v["pageX"].as_f64()), (200, Some(5.0)));
    let (s, _) = api.delete(&format!("{path}/{fid}")).await;
    assert_eq!(s, 200);
    let (_, doc) = api.get(&format!("/api/v1/documents/{id}")).await;
    assert_eq!(doc["fields"].as_array().unwrap().len(), 2);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recipients_change_without_touching_the_others() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let created = api.create_document(two_recipients()).await;
    let id = created.document_id();
    let before: Vec<Value> = created["recipients"].as_array().unwrap().clone();
    let path = format!("/api/v1/documents/{id}/recipients");
    let (s, added) = api.post(&path, json!({"name": "Dee", "email": "dee@example.com", "role": "APPROVER", "signingOrder": 2})).await;
    assert_eq!(s, 200, "{added}");
    assert_eq!(added["role"], "APPROVER");
    assert!(
        added["signingUrl"]
            .as_str()
            .unwrap()
            .ends_with(added["token"].as_str().unwrap())
    );
    let (s, v) = api.post(&path, json!({"email": "DEE@example.com"})).await;
    assert_eq!(s, 400, "{v}");
    let rid = before[0]["recipientId"].as_i64().unwrap();
    let (s, v) = api
        .patch(&format!("{path}/{rid}"), json!({"name": "Ann B."}))
        .await;
    assert_eq!((s, v["name"].as_str()), (200, Some("Ann B.")));
    assert_eq!(v["token"], before[0]["token"], "a change keeps the token");
    let (_, doc) = api.get(&format!("/api/v1/documents/{id}")).await;
    assert_eq!(doc["recipients"][1]["token"], before[1]["token"]);
    assert_eq!(doc["recipients"][1]["name"], "Cid");
    let cid = before[1]["recipientId"].as_i64().unwrap();
    let (s, _) = api.delete(&format!("{path}/{cid}")).await;
    assert_eq!(s, 200);
    let (_, doc) = api.get(&format!("/api/v1/documents/{id}")).await;
    assert_eq!(doc["recipients"].as_array().unwrap().len(), 2);
    let (s, v) = api
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
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn validation_tiers_listing_and_deletion() {
    let app = TestApp::spawn().await;
    let standard = app.user_with_key("std@example.com", "standard");
    let enterprise = app.user_with_key("ent@example.com", "enterprise");
    let auth = json!({"title": "T", "recipients": [], "authOptions": {"globalActionAuth": "TWO_FACTOR_AUTH"}});
    let (s, v) = standard.post("/api/v1/documents", auth.clone()).await;
    assert_eq!((s, v["code"].as_str()), (403, Some("forbidden")));
    assert_eq!(enterprise.post("/api/v1/documents", auth).await.0, 200);
    let rec_auth = json!({"title": "T", "recipients": [{"email": "a@example.com", "authOptions": {"actionAuth": "ACCOUNT"}}]});
    assert_eq!(standard.post("/api/v1/documents", rec_auth).await.0, 403);

    bad_document_bodies_are_400(&standard).await;
    listing_pages_and_deletion(&standard).await;
    app.stop().await;
}

/// Every invalid value is named by its path; a body that is not JSON is 400 too.
async fn bad_document_bodies_are_400(standard: &Api) {
    use reqwest::Method as M;
    let (s, v) = standard.post("/api/v1/documents", json!({"title": "", "recipients": [{"email": "x"}], "meta": {"timezone": "Nowhere/City", "redirectUrl": "ftp://x"}})).await;
    assert_eq!(s, 400);
    let paths: Vec<&str> = v["details"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        [
            "title",
            "recipients[0].email",
            "meta.timezone",
            "meta.redirectUrl"
        ]
    );
    let resp = standard
        .request(M::POST, "/api/v1/documents")
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 400);
}

/// Twelve documents list newest first in pages; a deleted one is gone.
async fn listing_pages_and_deletion(standard: &Api) {
    let mut ids = Vec::new();
    for i in 0..12 {
        ids.push(
            standard
                .create_document(json!({"title": format!("D{i}"), "recipients": []}))
                .await["documentId"]
                .as_i64()
                .unwrap(),
        );
    }
    let (_, page1) = standard.get("/api/v1/documents?perPage=5").await;
    assert_eq!(page1["totalPages"], 3);
    assert_eq!(page1["documents"][0]["title"], "D11", "newest first");
    let (_, page3) = standard.get("/api/v1/documents?perPage=5&page=3").await;
    assert_eq!(page3["documents"].as_array().unwrap().len(), 2);
    // More than 100 a page is served as 100 (the other signing service sets no maximum).
    let (s, all) = standard.get("/api/v1/documents?perPage=500").await;
    assert_eq!((s, all["totalPages"].as_i64()), (200, Some(1)));
    assert_eq!(standard.get("/api/v1/documents?perPage=0").await.0, 400);
    assert_eq!(standard.get("/api/v1/documents?status=SIGNED").await.0, 400);
    let (_, pending) = standard.get("/api/v1/documents?status=PENDING").await;
    assert_eq!(pending["documents"], json!([]));

    let (s, v) = standard
        .delete(&format!("/api/v1/documents/{}", ids[0]))
        .await;
    assert_eq!((s, v["deleted"].as_bool()), (200, Some(true)));
    assert_eq!(
        standard
            .get(&format!("/api/v1/documents/{}", ids[0]))
            .await
            .0,
        404
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rate_limit_answers_429_with_its_headers() {
    let app = TestApp::spawn_with(&["--tls", "off", "--rate-limit", "5"]).await;
    let api = app.user_with_key("owner@example.com", "standard");
    crate::support::wait::clear_of_a_window_boundary().await;
    for _ in 0..5 {
        let r = api.get_response("/api/v1/documents").await;
        assert_eq!(r.status(), 200);
    }
    let r = api.get_response("/api/v1/documents").await;
    assert_eq!(r.status(), 429);
    assert!(r.headers().contains_key("retry-after"));
    assert_eq!(r.headers()["x-ratelimit-limit"], "5");
    assert_eq!(r.headers()["x-ratelimit-remaining"], "0");
    // Another credential has its own budget.
    let other = app.user_with_key("other@example.com", "standard");
    let r = other.get_response("/api/v1/documents").await;
    assert_eq!(r.status(), 200);
    app.stop().await;
}
