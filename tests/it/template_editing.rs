//! The template API's editing operations through the real server (what the web application's
//! editor calls for a template): a template from a PDF in one step (nothing made when the file
//! is refused), its settings, its recipients changed, made placeholders again, reordered and
//! removed, its fields changed and removed, each checked by the documents' own rules; a
//! duplicate with its own file; and another user's template a 404 on every one of them.

use reqwest::Method as M;
use serde_json::{Value, json};

use crate::support::TestApp;
use crate::support::api::{Api, detail_paths, fixture};
use crate::support::stores::stored_blob_ids;

/// `POST /api/v1/templates/upload?title=` of `pdf`: status and JSON answer.
pub(crate) async fn upload(api: &Api, title: &str, pdf: Vec<u8>) -> (u16, Value) {
    let resp = api
        .request(M::POST, "/api/v1/templates/upload")
        .query(&[("title", title)])
        .header("content-type", "application/pdf")
        .body(pdf)
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    (status, resp.json().await.unwrap_or(Value::Null))
}

fn count(app: &TestApp, sql: &str) -> i64 {
    app.db().query_row(sql, [], |r| r.get(0)).unwrap()
}

/// A template from the 3-page PDF with two placeholder signers, a signature field each and a
/// text field for the first: (template id, recipient ids, field ids).
async fn two_roles(api: &Api) -> (i64, Vec<i64>, Vec<i64>) {
    let (s, up) = upload(api, "Lease", fixture("mixed-sizes-3p.pdf")).await;
    assert_eq!(s, 200, "{up}");
    let id = up["templateId"].as_i64().unwrap();
    let mut rids = Vec::new();
    for (name, order) in [("Tenant", 1), ("", 2)] {
        let (s, r) = api
            .post(
                &format!("/api/v1/templates/{id}/recipients"),
                json!({"name": name, "role": "SIGNER", "signingOrder": order}),
            )
            .await;
        assert_eq!(s, 200, "{r}");
        rids.push(r["id"].as_i64().unwrap());
    }
    let field = |rid: i64, kind: &str, y: i64| json!({"recipientId": rid, "type": kind, "pageNumber": 1, "pageX": 10, "pageY": y, "pageWidth": 30, "pageHeight": 6, "fieldMeta": {"type": kind.to_lowercase()}});
    let fids = api
        .add_template_fields(
            id,
            json!([
                field(rids[0], "SIGNATURE", 70),
                field(rids[1], "SIGNATURE", 80),
                field(rids[0], "TEXT", 20)
            ]),
        )
        .await;
    (id, rids, fids)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_template_from_a_pdf_in_one_step_and_nothing_left_by_a_refusal() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let (s, v) = upload(&api, "Notes", fixture("not-a-pdf-text.pdf")).await;
    assert_eq!(s, 415, "{v}");
    let (s, v) = upload(&api, "", fixture("mixed-sizes-3p.pdf")).await;
    assert_eq!((s, detail_paths(&v)), (400, vec!["title"]), "{v}");
    assert_eq!(count(&app, "SELECT count(*) FROM templates"), 0);
    assert!(stored_blob_ids(&app.data_dir()).is_empty());

    let pdf = fixture("mixed-sizes-3p.pdf");
    let (s, up) = upload(&api, "Lease", pdf.clone()).await;
    assert_eq!(s, 200, "{up}");
    assert_eq!(up["pages"], 3);
    assert!(up.get("documentId").is_none(), "{up}");
    let id = up["templateId"].as_i64().unwrap();
    let (s, t) = api.get(&format!("/api/v1/templates/{id}")).await;
    assert_eq!(s, 200);
    assert_eq!(t["title"], "Lease");
    assert_eq!(t["Recipient"], json!([]));
    assert_eq!(
        t["templateDocumentData"]["data"],
        docket::core::crypto::sha256_hex(&pdf)
    );
    assert_eq!(count(&app, "SELECT count(*) FROM documents"), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_recipients_and_fields_change_under_the_documents_rules() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let (id, rids, fids) = two_roles(&api).await;
    let base = format!("/api/v1/templates/{id}");

    // Settings: as a draft's, members left out kept.
    let (s, t) = api
        .patch(
            &base,
            json!({"title": "Lease 2026", "meta": {"subject": "Your lease", "signingOrder": "SEQUENTIAL"}}),
        )
        .await;
    assert_eq!(s, 200, "{t}");
    assert_eq!(t["title"], "Lease 2026");
    assert_eq!(t["templateMeta"]["subject"], "Your lease");
    assert_eq!(t["templateMeta"]["signingOrder"], "SEQUENTIAL");
    let (s, v) = api
        .patch(
            &base,
            json!({"title": "", "meta": {"timezone": "Mars/Base"}}),
        )
        .await;
    assert_eq!(
        (s, detail_paths(&v)),
        (400, vec!["title", "meta.timezone"]),
        "{v}"
    );

    // Recipients: a real address, refused addresses, back to a placeholder, reordered.
    let r0 = format!("{base}/recipients/{}", rids[0]);
    let (s, r) = api
        .patch(&r0, json!({"email": "ann@example.com", "name": "Ann"}))
        .await;
    assert_eq!(s, 200, "{r}");
    assert_eq!(
        (r["email"].as_str(), r["name"].as_str()),
        (Some("ann@example.com"), Some("Ann"))
    );
    assert_eq!(r["role"], "SIGNER", "kept");
    let (s, v) = api.patch(&r0, json!({"email": "nope"})).await;
    assert_eq!((s, detail_paths(&v)), (400, vec!["email"]), "{v}");
    let r1 = format!("{base}/recipients/{}", rids[1]);
    let (s, v) = api.patch(&r1, json!({"email": "ANN@example.com"})).await;
    assert_eq!(s, 409, "the same address twice: {v}");
    let (s, r) = api.patch(&r0, json!({"email": null})).await;
    assert_eq!(s, 200, "{r}");
    let email = r["email"].as_str().unwrap();
    assert!(email.ends_with("@placeholder.docket.invalid"), "{r}");
    let (s, r) = api.patch(&r0, json!({"signingOrder": 3})).await;
    assert_eq!((s, r["signingOrder"].as_i64()), (200, Some(3)), "{r}");

    // Fields: moved, checked against the pages and recipients, removed.
    let f0 = format!("{base}/fields/{}", fids[0]);
    let (s, f) = api.patch(&f0, json!({"pageNumber": 3, "pageX": 40})).await;
    assert_eq!(s, 200, "{f}");
    assert_eq!(
        (f["page"].as_i64(), f["positionX"].as_str()),
        (Some(3), Some("40"))
    );
    assert_eq!(f["positionY"], "70", "kept");
    let (s, v) = api
        .patch(&f0, json!({"pageNumber": 4, "recipientId": 999_999}))
        .await;
    assert_eq!(
        (s, detail_paths(&v)),
        (400, vec!["recipientId", "pageNumber"]),
        "{v}"
    );
    let (s, gone) = api.delete(&f0).await;
    assert_eq!((s, gone["deleted"].as_bool()), (200, Some(true)), "{gone}");
    assert_eq!(gone["id"], fids[0]);
    assert_eq!(api.delete(&f0).await.0, 404);

    // A recipient removed takes its fields with it.
    let (s, gone) = api.delete(&r0).await;
    assert_eq!((s, gone["deleted"].as_bool()), (200, Some(true)), "{gone}");
    let (_, t) = api.get(&base).await;
    assert_eq!(t["Recipient"].as_array().unwrap().len(), 1, "{t}");
    let left: Vec<i64> = t["Field"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_i64().unwrap())
        .collect();
    assert_eq!(left, [fids[1]]);
    assert_eq!(api.delete(&r0).await.0, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_duplicate_has_its_own_rows_and_file_and_outlives_its_original() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let (id, rids, _) = two_roles(&api).await;
    let (s, original) = api.get(&format!("/api/v1/templates/{id}")).await;
    assert_eq!(s, 200);
    let (s, copy) = api
        .post(&format!("/api/v1/templates/{id}/duplicate"), json!({}))
        .await;
    assert_eq!(s, 200, "{copy}");
    let cid = copy["id"].as_i64().unwrap();
    assert_ne!(cid, id);
    assert_eq!(copy["title"], "Lease (copy)");
    assert_eq!(copy["externalId"], Value::Null);
    assert_eq!(
        copy["templateDocumentData"]["data"],
        original["templateDocumentData"]["data"]
    );
    assert_ne!(copy["directLink"]["token"], original["directLink"]["token"]);
    let new_rids: Vec<i64> = copy["Recipient"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect();
    assert_eq!(new_rids.len(), 2);
    assert!(new_rids.iter().all(|r| !rids.contains(r)));
    let fields = copy["Field"].as_array().unwrap();
    assert_eq!(fields.len(), 3);
    assert!(
        fields
            .iter()
            .all(|f| new_rids.contains(&f["recipientId"].as_i64().unwrap())),
        "{copy}"
    );
    assert_eq!(stored_blob_ids(&app.data_dir()).len(), 2, "a file each");

    // The original goes; the copy still makes documents.
    assert_eq!(api.delete(&format!("/api/v1/templates/{id}")).await.0, 200);
    let recipients: Vec<Value> = new_rids
        .iter()
        .enumerate()
        .map(|(i, r)| json!({"id": r, "name": format!("P{i}"), "email": format!("p{i}@example.com")}))
        .collect();
    let (s, made) = api
        .post(
            &format!("/api/v1/templates/{cid}/generate-document"),
            json!({"recipients": recipients}),
        )
        .await;
    assert_eq!(s, 200, "{made}");
    let doc = made["documentId"].as_i64().unwrap();
    assert_eq!(api.send(doc).await.0, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_users_template_is_404_on_every_editing_route() {
    let app = TestApp::spawn().await;
    let owner = app.user_with_key("owner@example.com", "standard");
    let other = app.user_with_key("other@example.com", "standard");
    let (id, rids, fids) = two_roles(&owner).await;
    let base = format!("/api/v1/templates/{id}");
    let r = format!("{base}/recipients/{}", rids[0]);
    let f = format!("{base}/fields/{}", fids[0]);
    for (method, path, body) in [
        (M::PATCH, base.clone(), Some(json!({"title": "Mine"}))),
        (M::POST, format!("{base}/duplicate"), Some(json!({}))),
        (M::PATCH, r.clone(), Some(json!({"name": "Mine"}))),
        (M::DELETE, r, None),
        (M::PATCH, f.clone(), Some(json!({"pageX": 1}))),
        (M::DELETE, f, None),
    ] {
        let (s, v) = other.call(method.clone(), &path, body).await;
        assert_eq!(s, 404, "{method} {path}: {v}");
    }
    let (_, t) = owner.get(&base).await;
    assert_eq!(t["title"], "Lease");
    assert_eq!(t["Field"].as_array().unwrap().len(), 3);
    assert_eq!(count(&app, "SELECT count(*) FROM templates"), 1);
}
