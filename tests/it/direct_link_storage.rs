//! What a template's direct link stores (issue 52, finding 5): documents made from a template
//! share its stored PDF (twenty visitors and a generated document: one file), and still
//! download, sign and seal; deleting the template or a document removes no file another row
//! uses; a visitor document nobody signed is removed after `--direct-link-expiry-*`; and at most
//! `--direct-link-max-open` of a template's visitor documents wait unsigned at once, past
//! which the link answers 503 and stores nothing.

use std::time::Duration;

use serde_json::json;

use crate::direct_links::{count, set, template};
use crate::support::TestApp;
use crate::support::api::{Api, Signer};
use crate::support::login::{LoginForm, answer_of};
use crate::support::stores::stored_blob_ids;
use crate::support::wait::wait_for;

/// A visitor's form at `path` with `name` and `email`, forwarded for client `ip` (the server
/// trusts 127.0.0.1 as its proxy): status, `Location` and the page.
async fn visit_from(app: &TestApp, path: &str, email: &str, ip: &str) -> (u16, String, String) {
    let form = LoginForm::open(app, path).await;
    let mut fields = form.fields.clone();
    fields.push(("name".into(), "Visitor".into()));
    fields.push(("email".into(), email.into()));
    let resp = app
        .client
        .post(app.url(path))
        .header("cookie", &form.cookie)
        .header("x-forwarded-for", ip)
        .form(&fields)
        .send()
        .await
        .unwrap();
    answer_of(resp).await
}

/// A server whose visitors come from many addresses, with `extra` arguments; the owner's API
/// and the page of a working direct link of a template with a second signer, Bob.
async fn with_link(extra: &[&str]) -> (TestApp, Api, i64, String) {
    let mut args = vec!["--tls", "off", "--trusted-proxies", "127.0.0.1/32"];
    args.extend_from_slice(&["--rate-limit", "10000"]);
    args.extend_from_slice(extra);
    let app = TestApp::spawn_with(&args).await;
    let api = app.user_with_key("olive@example.com", "standard");
    let (id, rids) = template(&api, Some("bob@example.com")).await;
    let (s, link) = set(&api, id, json!({"enabled": true, "recipientId": rids[0]})).await;
    assert_eq!(s, 200, "{link}");
    let page = format!("/d/{}", link["token"].as_str().unwrap());
    (app, api, id, page)
}

/// Starts visitor `n`'s document: their signing link.
async fn start(app: &TestApp, page: &str, n: usize) -> Signer {
    let (s, location, html) = visit_from(
        app,
        page,
        &format!("v{n}@example.com"),
        &format!("203.0.113.{n}"),
    )
    .await;
    assert_eq!(s, 303, "visitor {n}: {html}");
    Signer::at(
        &app.url(""),
        location.strip_prefix("/sign/").expect(&location),
    )
}

/// Signs and fills every field of `who`'s, then finishes.
async fn sign_all(who: &Signer) {
    let (s, state) = who.state().await;
    assert_eq!(s, 200, "{state}");
    for f in state["fields"].as_array().unwrap() {
        let (s, v) = if f["type"] == "SIGNATURE" {
            who.sign(&f["id"]).await
        } else {
            who.fill(&f["id"], json!({"value": "Saturdays"})).await
        };
        assert_eq!(s, 200, "{v}");
    }
    let (s, v) = who.complete(json!({})).await;
    assert_eq!(s, 200, "{v}");
}

/// The document whose recipient `email` is, and that recipient's signing token.
fn document_of(app: &TestApp, email: &str) -> (i64, String) {
    app.db()
        .query_row(
            "SELECT document_id, token FROM recipients WHERE email = ?1 AND document_id IS NOT NULL",
            [email],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_visitors_share_the_templates_file_which_outlives_the_template() {
    let (app, api, id, page) = with_link(&[]).await;
    let files = stored_blob_ids(&app.data_dir());
    assert_eq!(files.len(), 1, "the template's PDF: {files:?}");
    let pdf = crate::support::api::fixture("mixed-sizes-3p.pdf");

    let mut visitors = Vec::new();
    for n in 0..20 {
        visitors.push(start(&app, &page, n).await);
    }
    // A document generated through the API shares it too.
    let (_, t) = api.get(&format!("/api/v1/templates/{id}")).await;
    let bob = t["Recipient"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["email"] == "bob@example.com")
        .unwrap()["id"]
        .clone();
    let first = t["Recipient"][0]["id"].clone();
    let (s, generated) = api
        .post(
            &format!("/api/v1/templates/{id}/generate-document"),
            json!({"recipients": [{"id": first, "email": "gen@example.com", "name": "Gen"}, {"id": bob}]}),
        )
        .await;
    assert_eq!(s, 200, "{generated}");
    let draft = generated["documentId"].as_i64().unwrap();
    assert_eq!(count(&app, "SELECT count(*) FROM documents"), 21);
    assert_eq!(
        stored_blob_ids(&app.data_dir()),
        files,
        "21 documents, one stored file"
    );
    assert_eq!(count(&app, "SELECT count(*) FROM blobs"), 1);
    assert_eq!(
        count(&app, "SELECT count(DISTINCT blob_id) FROM documents"),
        1
    );

    // The shared file downloads as each document's original.
    let (v0, _) = document_of(&app, "v0@example.com");
    assert_eq!(api.original(v0).await, pdf);
    assert_eq!(api.original(draft).await, pdf);

    // Deleting the generated draft and then the template leaves the file to the visitors.
    assert_eq!(
        api.delete(&format!("/api/v1/documents/{draft}")).await.0,
        200
    );
    assert_eq!(api.delete(&format!("/api/v1/templates/{id}")).await.0, 200);
    assert_eq!(stored_blob_ids(&app.data_dir()), files);
    assert_eq!(api.original(v0).await, pdf);

    // A visitor's document is signed by all and sealed; the seal is a file of its own.
    sign_all(&visitors[0]).await;
    let bob_link: String = app
        .db()
        .query_row(
            "SELECT token FROM recipients WHERE document_id = ?1 AND email = 'bob@example.com'",
            [v0],
            |r| r.get(0),
        )
        .unwrap();
    sign_all(&Signer::at(&app.url(""), &bob_link)).await;
    // COMPLETED is recorded with the sealed file, in one transaction.
    api.wait_status(v0, "COMPLETED").await;
    let now = stored_blob_ids(&app.data_dir());
    assert_eq!(now.len(), 2, "the shared PDF and one sealed PDF: {now:?}");
    assert!(now.contains(&files[0]));
    assert_eq!(api.original(v0).await, pdf);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_visitor_document_nobody_signed_is_removed_after_the_expiry() {
    // Sixty seconds, so the expiry looks every fifteen; the test moves documents back in time.
    let (app, api, id, page) = with_link(&["--direct-link-expiry-secs", "60"]).await;
    let signed = start(&app, &page, 1).await;
    let abandoned = start(&app, &page, 2).await;
    let recent = start(&app, &page, 3).await;
    sign_all(&signed).await;
    let (d1, _) = document_of(&app, "v1@example.com");
    let (d2, _) = document_of(&app, "v2@example.com");
    let (d3, _) = document_of(&app, "v3@example.com");
    // The first two were started an hour ago; the third just now.
    app.db_rw()
        .execute(
            "UPDATE documents SET created_at = created_at - 3600 WHERE id IN (?1, ?2)",
            docket::params![d1, d2],
        )
        .unwrap();
    wait_for(Duration::from_secs(40), || {
        match count(
            &app,
            &format!("SELECT count(*) FROM documents WHERE id = {d2}"),
        ) {
            0 => Ok(()),
            _ => Err("the unsigned document is still there".to_string()),
        }
    })
    .await;
    // Gone with its recipients, fields and audit; its link answers as an unknown one.
    for table in ["recipients", "fields", "audit_events"] {
        let sql = format!("SELECT count(*) FROM {table} WHERE document_id = {d2}");
        assert_eq!(count(&app, &sql), 0, "{table}");
    }
    let (s, v) = abandoned.state().await;
    assert_eq!(s, 404, "{v}");
    assert_eq!(api.get(&format!("/api/v1/documents/{d2}")).await.0, 404);
    // The signed one and the recent one stay, and so does the template's file.
    assert_eq!(api.document(d1).await["status"], "PENDING");
    assert_eq!(recent.state().await.0, 200);
    assert_eq!(api.document(d3).await["status"], "PENDING");
    assert_eq!(count(&app, "SELECT count(*) FROM documents"), 2);
    let (_, t) = api.get(&format!("/api/v1/templates/{id}")).await;
    let file = t["templateDocumentData"]["data"].clone();
    assert!(file.is_string(), "{t}");
    assert_eq!(stored_blob_ids(&app.data_dir()).len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_link_is_busy_while_its_bound_of_unsigned_documents_waits() {
    let (app, _api, _id, page) = with_link(&["--direct-link-max-open", "3"]).await;
    let first = start(&app, &page, 1).await;
    start(&app, &page, 2).await;
    start(&app, &page, 3).await;
    let form = LoginForm::open(&app, &page).await;
    let mut fields = form.fields.clone();
    fields.push(("name".into(), "Visitor".into()));
    fields.push(("email".into(), "v4@example.com".into()));
    let resp = app
        .client
        .post(app.url(&page))
        .header("cookie", &form.cookie)
        .header("x-forwarded-for", "203.0.113.4")
        .form(&fields)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 503);
    assert_eq!(resp.headers()["retry-after"], "600");
    let html = resp.text().await.unwrap();
    assert!(html.contains("this link is busy"), "{html}");
    assert_eq!(count(&app, "SELECT count(*) FROM documents"), 3);
    assert_eq!(
        count(
            &app,
            "SELECT count(*) FROM recipients WHERE email = 'v4@example.com'"
        ),
        0
    );

    // Once a visitor has signed, their document no longer counts: the next one gets in.
    sign_all(&first).await;
    start(&app, &page, 4).await;
    assert_eq!(count(&app, "SELECT count(*) FROM documents"), 4);
}
