//! The document API through the real server: shapes, uploads, access, validation, limits.

use serde_json::{Value, json};

use crate::support::api::{Api, fixture, keys, sorted, two_recipients};
use crate::support::{TestApp, stored_blob, stored_blob_ids};

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
            "authOptions"
        ])
    );
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
async fn uploads_accept_multipart_and_real_world_files() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    for (name, pages) in [
        ("a4-1p.pdf", 1),
        ("scan-3p.pdf", 3),
        ("bad-xref-offsets.pdf", 1),
        ("bad-startxref.pdf", 1),
        ("linearized-3p.pdf", 3),
        ("signed-2rev.pdf", 1),
        ("objstm-3p.pdf", 3),
        ("rotated-4p.pdf", 4),
        ("ps2pdf-a5-2p.pdf", 2),
    ] {
        let created = api
            .create_document(json!({"title": name, "recipients": []}))
            .await;
        let part = reqwest::multipart::Part::bytes(fixture(name))
            .file_name(name.to_string())
            .mime_str("application/pdf")
            .unwrap();
        let form = reqwest::multipart::Form::new()
            .text("note", "ignored")
            .part("file", part);
        let resp = app
            .client
            .put(created.upload_url())
            .multipart(form)
            .send()
            .await
            .unwrap();
        let status = resp.status();
        let up: Value = resp.json().await.unwrap();
        assert_eq!(status, 200, "{name}: {up}");
        assert_eq!(up["pages"], pages, "{name}");
    }
    app.stop().await;
}

fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(files_under(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_uploads_are_refused_and_leave_nothing_behind() {
    let app = TestApp::spawn_with(&["--tls", "off", "--max-upload-mb", "1"]).await;
    let api = app.user_with_key("owner@example.com", "standard");
    let a = api
        .create_document(json!({"title": "A", "recipients": []}))
        .await;
    let b = api
        .create_document(json!({"title": "B", "recipients": []}))
        .await;
    let url_a = a.upload_url().to_string();
    let url_b = b.upload_url().to_string();
    let pdf = fixture("a4-1p.pdf");

    what_is_not_a_plain_pdf_is_refused(&app, &url_a, &pdf).await;
    tampered_swapped_and_unsigned_urls_are_refused(&app, &url_a, &url_b, &pdf).await;
    too_large_bodies_are_refused(&app, &url_a);

    // Nothing was kept: no blob files, no temp files, the document has no file.
    let blobs = stored_blob_ids(&app.data_dir());
    assert!(blobs.is_empty(), "{blobs:?}");
    let temp = files_under(&app.data_dir().join("blobs/tmp"));
    assert!(temp.is_empty(), "{temp:?}");
    let c = app.db_rw();
    let (n, blob): (i64, Option<String>) = c
        .query_row(
            "SELECT (SELECT count(*) FROM blobs), blob_id FROM documents WHERE id = ?1",
            [a.document_id()],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((n, blob), (0, None));

    a_good_upload_replaces_the_last_until_the_draft_is_sent(
        &app,
        &c,
        &url_a,
        a.document_id(),
        &pdf,
    )
    .await;
    app.stop().await;
}

/// PUTs `body` as `ct` to `url` (no credential): the status and the JSON answer (`Null` when
/// it is not JSON).
async fn put(app: &TestApp, url: String, ct: &'static str, body: Vec<u8>) -> (u16, Value) {
    let req = app.client.put(url).header("content-type", ct).body(body);
    let r = req.send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json::<Value>().await.unwrap_or(Value::Null))
}

/// Not a PDF, encrypted, empty, wrong content type.
async fn what_is_not_a_plain_pdf_is_refused(app: &TestApp, url_a: &str, pdf: &[u8]) {
    let (s, v) = put(
        app,
        url_a.to_string(),
        "application/pdf",
        fixture("not-a-pdf-png.pdf"),
    )
    .await;
    assert_eq!(s, 415, "{v}");
    assert!(v["message"].as_str().unwrap().contains("not a PDF"));
    let (s, v) = put(
        app,
        url_a.to_string(),
        "application/pdf",
        fixture("encrypted-aes256.pdf"),
    )
    .await;
    assert_eq!(s, 400);
    assert!(v["message"].as_str().unwrap().contains("password"), "{v}");
    let (s, _) = put(app, url_a.to_string(), "application/pdf", Vec::new()).await;
    assert_eq!(s, 400);
    let (s, _) = put(app, url_a.to_string(), "text/plain", pdf.to_vec()).await;
    assert_eq!(s, 415);
}

/// Tampered, swapped and unsigned URLs.
async fn tampered_swapped_and_unsigned_urls_are_refused(
    app: &TestApp,
    url_a: &str,
    url_b: &str,
    pdf: &[u8],
) {
    let tampered = url_a.replace("sig=", "sig=A");
    assert_eq!(
        put(app, tampered, "application/pdf", pdf.to_vec()).await.0,
        403
    );
    let sig_b = url_b.split('?').nth(1).unwrap();
    let swapped = format!("{}?{sig_b}", url_a.split('?').next().unwrap());
    assert_eq!(
        put(app, swapped, "application/pdf", pdf.to_vec()).await.0,
        403
    );
    let later = url_a.replace("exp=", "exp=9");
    assert_eq!(
        put(app, later, "application/pdf", pdf.to_vec()).await.0,
        403
    );
    assert_eq!(
        put(
            app,
            url_a.split('?').next().unwrap().to_string(),
            "application/pdf",
            pdf.to_vec()
        )
        .await
        .0,
        403
    );
}

/// Too large, declared or streamed: 413.
fn too_large_bodies_are_refused(app: &TestApp, url_a: &str) {
    // Declared: the answer comes before any of the body is sent.
    let path = url_a.strip_prefix(&app.base).unwrap().to_string();
    let head = format!(
        "PUT {path} HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/pdf\r\ncontent-length: {}\r\n\r\n",
        3 * 1024 * 1024
    );
    let (status, text) = crate::support::raw_status(app.addr, head.as_bytes());
    assert_eq!(status, 413, "{text}");
    // Streamed without a length: refused once it passes the limit (1 MiB + 1 byte sent, all of
    // which the server reads).
    let mut chunked = format!(
        "PUT {path} HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/pdf\r\ntransfer-encoding: chunked\r\n\r\n"
    )
    .into_bytes();
    for size in [512 * 1024, 512 * 1024, 1] {
        chunked.extend_from_slice(format!("{size:x}\r\n").as_bytes());
        chunked.extend(std::iter::repeat_n(b'%', size));
        chunked.extend_from_slice(b"\r\n");
    }
    let (status, text) = crate::support::raw_status(app.addr, &chunked);
    assert_eq!(status, 413, "{text}");
    assert!(text.contains("payload_too_large"), "{text}");
}

/// A good upload works, a second one replaces it (whose file is removed just after the
/// answer), and after the draft stage it is 409.
async fn a_good_upload_replaces_the_last_until_the_draft_is_sent(
    app: &TestApp,
    c: &crate::support::TestDb,
    url_a: &str,
    id: i64,
    pdf: &[u8],
) {
    assert_eq!(
        put(app, url_a.to_string(), "application/pdf", pdf.to_vec())
            .await
            .0,
        200
    );
    assert_eq!(
        put(
            app,
            url_a.to_string(),
            "application/octet-stream",
            fixture("scan-3p.pdf")
        )
        .await
        .0,
        200
    );
    // The replaced file is removed just after the answer.
    let mut left = stored_blob_ids(&app.data_dir()).len();
    for _ in 0..40 {
        if left == 1 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        left = stored_blob_ids(&app.data_dir()).len();
    }
    assert_eq!(left, 1, "the replaced file is gone");
    c.execute(
        "UPDATE documents SET status = 'PENDING' WHERE id = ?1",
        [id],
    )
    .unwrap();
    assert_eq!(
        put(app, url_a.to_string(), "application/pdf", pdf.to_vec())
            .await
            .0,
        409
    );
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_upload_url_is_403() {
    let app = TestApp::spawn_with(&["--tls", "off", "--upload-url-ttl", "1"]).await;
    let api = app.user_with_key("owner@example.com", "standard");
    let created = api
        .create_document(json!({"title": "T", "recipients": []}))
        .await;
    tokio::time::sleep(std::time::Duration::from_millis(2100)).await;
    let resp = app
        .client
        .put(created.upload_url())
        .body(fixture("a4-1p.pdf"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 403);
    let v: Value = resp.json().await.unwrap();
    assert!(v["message"].as_str().unwrap().contains("expired"), "{v}");
    app.stop().await;
}

/// A 1-page PDF of about `mib` MiB: the page draws an image XObject whose stream is
/// incompressible bytes, so the upload spans many writer pieces.
fn big_pdf(mib: usize) -> Vec<u8> {
    use lopdf::{Document, Object, Stream, dictionary};
    let mut doc = Document::with_version("1.7");
    let mut noise = vec![0u8; mib << 20];
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for b in noise.iter_mut() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = x as u8;
    }
    let side = ((noise.len() / 3) as f64).sqrt() as i64;
    noise.truncate((side * side * 3) as usize);
    let image = doc.add_object(Stream::new(
        dictionary! {"Type" => "XObject", "Subtype" => "Image", "Width" => side, "Height" => side,
        "ColorSpace" => "DeviceRGB", "BitsPerComponent" => 8},
        noise,
    ));
    let content = doc.add_object(Stream::new(
        dictionary! {},
        b"q 500 0 0 500 50 150 cm /Im Do Q".to_vec(),
    ));
    let pages = doc.new_object_id();
    let page = doc.add_object(dictionary! {"Type" => "Page", "Parent" => pages,
    "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()], "Contents" => content,
    "Resources" => dictionary! {"XObject" => dictionary! {"Im" => image}}});
    doc.objects.insert(
        pages,
        Object::Dictionary(
            dictionary! {"Type" => "Pages", "Kids" => vec![page.into()], "Count" => 1},
        ),
    );
    let catalog = doc.add_object(dictionary! {"Type" => "Catalog", "Pages" => pages});
    doc.trailer.set("Root", catalog);
    let mut out = Vec::new();
    doc.save_to(&mut out).unwrap();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_upload_streamed_in_small_chunks_is_stored_whole() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let pdf = big_pdf(3);
    let created = api
        .create_document(json!({"title": "Big", "recipients": []}))
        .await;
    // 10,000-byte chunks: many pieces of the body, none aligned with the server's own.
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
        pdf.chunks(10_000).map(|c| Ok(c.to_vec())).collect();
    let resp = app
        .client
        .put(created.upload_url())
        .header("content-type", "application/pdf")
        .body(reqwest::Body::wrap_stream(futures_util::stream::iter(
            chunks,
        )))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let up: Value = resp.json().await.unwrap();
    assert_eq!(up["pages"], 1);
    assert_eq!(up["size"], pdf.len());
    assert_eq!(up["sha256"], docket::core::crypto::sha256_hex(&pdf));
    // Exactly one stored file, byte for byte the upload; no temp file left.
    let data = app.data_dir();
    let stored = stored_blob_ids(&data);
    assert_eq!(stored.len(), 1, "{stored:?}");
    assert!(stored_blob(&data, &stored[0]) == pdf);
    assert!(files_under(&data.join("blobs/tmp")).is_empty());
    app.stop().await;
}
