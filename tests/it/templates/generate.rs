//! Generating documents from a template: what is copied, placeholders, what a deleted template
//! leaves working, and bad requests.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generate_document_copies_the_template() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let (id, rids, pdf) = ready_template(&api).await;
    let doc_id = generate_flat_3_lease(&api, id, rids[0]).await;
    let (s, doc) = api.get(&format!("/api/v1/documents/{doc_id}")).await;
    assert_eq!(s, 200, "{doc}");
    assert_eq!(doc["status"], "DRAFT");
    assert_eq!(doc["title"], "Lease: Flat 3");
    assert_eq!(doc["externalId"], "lease-3");
    let new_ids = assert_recipients_are_new_rows(&doc, &rids);
    assert_fields_and_meta_are_copied(&doc, &new_ids);

    // File: the same bytes, in the document's own blob; the document remembers its template.
    let c = app.db();
    let (template_id, sha, pages): (Option<i64>, String, String) = c
        .query_row(
            "SELECT d.template_id, b.sha256, d.page_sizes FROM documents d JOIN blobs b ON b.id = d.blob_id WHERE d.id = ?1",
            [doc_id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!(template_id, Some(id));
    assert_eq!(sha, docket::core::crypto::sha256_hex(&pdf));
    assert_eq!(serde_json::from_str::<Vec<Value>>(&pages).unwrap().len(), 3);

    let doc2 = unnamed_recipients_keep_their_placeholder(&api, id).await;
    // Deleting a generated draft leaves the template's file alone ...
    let (s, _) = api.delete(&format!("/api/v1/documents/{doc2}")).await;
    assert_eq!(s, 200);
    let (_, t) = api.get(&format!("/api/v1/templates/{id}")).await;
    assert_eq!(
        t["templateDocumentData"]["data"],
        docket::core::crypto::sha256_hex(&pdf)
    );
    deleting_the_template_leaves_its_documents_working(&app, &api, &c, id, doc_id, &pdf).await;
    app.stop().await;
}

/// Generates "Lease: Flat 3" from template `id`, naming recipient `rid`; the document's id.
async fn generate_flat_3_lease(api: &Api, id: i64, rid: i64) -> i64 {
    let body = json!({
        "title": "Lease: Flat 3",
        "externalId": "lease-3",
        "recipients": [{"id": rid, "name": "Tenant", "email": "Tenant@example.com", "signingOrder": 0}],
        "meta": {"subject": "Flat 3 lease", "timezone": "Paris time", "dateFormat": "dd MMM"}
    });
    let (s, made) = api
        .post(&format!("/api/v1/templates/{id}/generate-document"), body)
        .await;
    assert_eq!(s, 200, "{made}");
    assert_eq!(
        keys(&made),
        sorted(&["documentId", "externalId", "recipients"])
    );
    assert_eq!(
        keys(&made["recipients"][0]),
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
    made["documentId"].as_i64().unwrap()
}

/// Recipients: the named one changed, the other kept the template's values; all new rows
/// (not the template's `rids`). Their ids.
fn assert_recipients_are_new_rows(doc: &Value, rids: &[i64]) -> Vec<i64> {
    let recipients = doc["recipients"].as_array().unwrap();
    assert_eq!(recipients.len(), 2);
    assert_eq!(
        (
            recipients[0]["email"].as_str(),
            recipients[0]["name"].as_str()
        ),
        (Some("tenant@example.com"), Some("Tenant"))
    );
    assert_eq!(recipients[0]["role"], "SIGNER");
    assert_eq!(
        (
            recipients[1]["email"].as_str(),
            recipients[1]["role"].as_str()
        ),
        (Some("agency@example.com"), Some("CC"))
    );
    let new_ids: Vec<i64> = recipients
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect();
    assert!(new_ids.iter().all(|n| !rids.contains(n)));
    new_ids
}

/// Fields: copied, and pointing at the document's recipients `new_ids`. Meta: the request's
/// values win, free-text zone and format included.
fn assert_fields_and_meta_are_copied(doc: &Value, new_ids: &[i64]) {
    let fields = doc["fields"].as_array().unwrap();
    assert_eq!(fields.len(), 2);
    assert_eq!(
        (
            fields[0]["recipientId"].as_i64(),
            fields[0]["pageNumber"].as_i64()
        ),
        (Some(new_ids[0]), Some(1))
    );
    assert_eq!(fields[0]["pageWidth"], 30.5);
    assert_eq!(fields[1]["recipientId"], json!(new_ids[1]));
    assert_eq!(fields[1]["type"], "TEXT");
    assert_eq!(fields[1]["fieldMeta"]["label"], "Agency ref");

    assert_eq!(doc["meta"]["subject"], "Flat 3 lease");
    assert_eq!(
        doc["meta"]["message"], "Please sign",
        "kept from the template"
    );
    assert_eq!(doc["meta"]["timezone"], "Paris time");
    assert_eq!(doc["meta"]["dateFormat"], "dd MMM");
}

/// Unnamed template recipients keep their placeholder address; the document made so.
async fn unnamed_recipients_keep_their_placeholder(api: &Api, id: i64) -> i64 {
    let (s, made2) = api
        .post(
            &format!("/api/v1/templates/{id}/generate-document"),
            json!({"recipients": []}),
        )
        .await;
    assert_eq!(s, 200, "{made2}");
    assert_eq!(
        made2["recipients"][0]["email"],
        "recipient.1@placeholder.docket.invalid"
    );
    let doc2 = made2["documentId"].as_i64().unwrap();
    let (_, d2) = api.get(&format!("/api/v1/documents/{doc2}")).await;
    assert_eq!(d2["title"], "Lease");
    assert_eq!(d2["meta"]["timezone"], "Europe/Paris");
    doc2
}

/// ... and deleting template `id` leaves document `doc_id`, made from it, working, with its
/// file (`pdf`) intact and no template rows left over.
async fn deleting_the_template_leaves_its_documents_working(
    app: &TestApp,
    api: &Api,
    c: &crate::support::TestDb,
    id: i64,
    doc_id: i64,
    pdf: &[u8],
) {
    let (s, v) = api.delete(&format!("/api/v1/templates/{id}")).await;
    assert_eq!((s, v["deleted"].as_bool()), (200, Some(true)));
    let (s, again) = api.get(&format!("/api/v1/documents/{doc_id}")).await;
    assert_eq!(s, 200);
    assert_eq!(again["fields"].as_array().unwrap().len(), 2);
    let (template_id, blob): (Option<i64>, String) = c
        .query_row(
            "SELECT template_id, blob_id FROM documents WHERE id = ?1",
            [doc_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(template_id, None);
    assert_eq!(
        crate::support::stored_blob(&app.data_dir(), &blob),
        pdf,
        "the document's file is intact"
    );
    let leftovers: i64 = c
        .query_row(
            "SELECT (SELECT count(*) FROM recipients WHERE template_id IS NOT NULL) + (SELECT count(*) FROM fields WHERE template_id IS NOT NULL)",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(leftovers, 0);
    assert_eq!(api.get(&format!("/api/v1/templates/{id}")).await.0, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generate_document_refuses_bad_requests() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let (id, rids, _) = ready_template(&api).await;
    let path = format!("/api/v1/templates/{id}/generate-document");
    let documents_before = {
        let (_, l) = api.get("/api/v1/documents").await;
        l["documents"].as_array().unwrap().len()
    };

    let (s, v) = api.post(&path, json!({"title": "x"})).await;
    assert_eq!(s, 400, "{v}");
    assert_eq!(v["details"][0]["path"], "recipients");
    let (s, v) = api.post(&path, json!({"recipients": [{"id": rids[0], "email": "a@example.com"}, {"id": 999999, "email": "b@example.com"}]}))
    .await;
    assert_eq!(s, 400, "{v}");
    assert_eq!(v["details"][0]["path"], "recipients[1].id");
    let (s, v) = api
        .post(
            &path,
            json!({"recipients": [{"id": rids[0], "email": "agency@example.com"}]}),
        )
        .await;
    assert_eq!(s, 400, "{v}");
    assert_eq!(v["details"][0]["path"], "recipients[0].email");
    let (s, v) = api
        .post(
            &path,
            json!({"recipients": [{"id": rids[0]}], "meta": {"redirectUrl": "ftp://x"}}),
        )
        .await;
    assert_eq!(s, 400, "{v}");
    assert_eq!(v["details"][0]["path"], "meta.redirectUrl");
    let (_, l) = api.get("/api/v1/documents").await;
    assert_eq!(
        l["documents"].as_array().unwrap().len(),
        documents_before,
        "no document was made"
    );

    // A template without a file cannot make a document.
    let bare = api.create_template(lease()).await;
    let bare_id = bare.template_id();
    let bare_rid = bare.recipient_id(0);
    let (s, v) = api.post(&format!("/api/v1/templates/{bare_id}/generate-document"), json!({"recipients": [{"id": bare_rid, "name": "A", "email": "a@example.com", "signingOrder": 0}]}))
    .await;
    assert_eq!((s, v["code"].as_str()), (409, Some("conflict")), "{v}");

    // Refused requests copied nothing: the template's file is the only one.
    let c = app.db();
    let blobs: i64 = c
        .query_row("SELECT count(*) FROM blobs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(blobs, 1);
    app.stop().await;
}
