//! The web application's upload and document page over HTTP: a PDF posted with the session and
//! the page's token becomes a draft with its file in one step (a refused one leaves nothing:
//! no document, no blob, no temp file); the document page and its downloads answer the owner's
//! session alone, and another user's document is a 404.

use reqwest::Method;
use serde_json::{Value, json};

use crate::support::TestApp;
use crate::support::api::{create_api_key, fixture};
use crate::support::login::{Browser, add_account, browser, call};
use crate::support::stores::{files_under, stored_blob_ids};

/// `POST /api/v1/documents/upload?title=...` of `pdf` as `who` (cookie and token, either may
/// be left out): status and JSON answer.
async fn upload(
    app: &TestApp,
    (cookie, csrf): (Option<&str>, Option<&str>),
    title: &str,
    body: reqwest::Body,
) -> (u16, Value) {
    let mut req = app
        .client
        .post(app.url("/api/v1/documents/upload"))
        .query(&[("title", title)])
        .header("content-type", "application/pdf")
        .body(body);
    if let Some(c) = cookie {
        req = req.header("cookie", c);
    }
    if let Some(t) = csrf {
        req = req.header("x-csrf-token", t);
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    (status, resp.json().await.unwrap_or(Value::Null))
}

fn as_browser(b: &Browser) -> (Option<&str>, Option<&str>) {
    (Some(b.cookie.as_str()), Some(b.csrf.as_str()))
}

/// A GET of a page with `cookie`: status, headers and body.
async fn get(app: &TestApp, path: &str, cookie: Option<&str>) -> reqwest::Response {
    let mut req = app.client.get(app.url(path));
    if let Some(c) = cookie {
        req = req.header("cookie", c);
    }
    req.send().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upload_from_the_page_is_a_draft_with_its_file_and_its_page_shows_it() {
    let app = TestApp::spawn().await;
    let d = app.data_dir();
    add_account(&d, "ada@example.com", "Ada");
    add_account(&d, "bob@example.com", "Bob");
    let ada = browser(&app, "ada@example.com").await;
    let bob = browser(&app, "bob@example.com").await;

    // The upload page is there for a signed-in user, and sends others to sign in.
    let page = get(&app, "/documents/new", Some(&ada.cookie)).await;
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(html.contains(r#"type="file""#) && html.contains(r#"accept="application/pdf""#));
    let anonymous = get(&app, "/documents/new", None).await;
    assert_eq!(anonymous.status(), 303);

    // Without the page's token the cookie is no credential; with another session's, refused.
    let pdf = || reqwest::Body::from(fixture("mixed-sizes-3p.pdf"));
    let (s, _) = upload(&app, (Some(&ada.cookie), None), "Lease", pdf()).await;
    assert_eq!(s, 401);
    let (s, _) = upload(&app, (Some(&ada.cookie), Some(&bob.csrf)), "Lease", pdf()).await;
    assert_eq!(s, 403);
    assert_eq!(count(&app, "SELECT count(*) FROM documents"), 0);

    let (s, up) = upload(&app, as_browser(&ada), "Lease for Flat 3", pdf()).await;
    assert_eq!(s, 200, "{up}");
    assert_eq!(up["pages"], 3, "{up}");
    let id = up["documentId"].as_i64().unwrap();
    let path = format!("/api/v1/documents/{id}");
    let (c, t) = as_browser(&ada);
    let (s, doc) = call(&app, Method::GET, &path, c, t, None).await;
    assert_eq!(s, 200);
    assert_eq!(
        (doc["title"].as_str(), doc["status"].as_str()),
        (Some("Lease for Flat 3"), Some("DRAFT"))
    );
    let audit: Vec<String> = app
        .db()
        .query_map(
            "SELECT type FROM audit_events WHERE document_id = ?1 ORDER BY id",
            [id],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(audit, ["CREATED", "UPLOADED"]);
    assert_eq!(stored_blob_ids(&d).len(), 1);

    // The document page: title, status, the way back to the editor, the pages.
    let page = get(&app, &format!("/documents/{id}"), Some(&ada.cookie)).await;
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    for expected in [
        "Lease for Flat 3",
        "Draft",
        &format!(r#"href="/documents/{id}/edit""#),
        "Continue editing",
        "Page 3 of 3",
        "You uploaded the PDF (3 pages)",
        "Delete draft",
    ] {
        assert!(
            html.contains(expected),
            "{expected} missing from the page:\n{html}"
        );
    }
    // Deleting the draft is the page's last section, a danger area with its heading and what it
    // does, after the pages; not beside the head row's links (issue 55, item 11).
    let at = |needle: &str| {
        html.find(needle)
            .unwrap_or_else(|| panic!("{needle} missing from the page:\n{html}"))
    };
    assert!(at(r#"id="pages-h""#) < at(r#"id="danger-zone""#));
    assert!(at(r#"id="danger-zone""#) < at(r#"<h2 id="remove-h">Delete this draft</h2>"#));
    assert!(at("<h2 id=\"remove-h\">") < at("The draft and its PDF are deleted for good."));
    assert!(at(r#"id="danger-zone""#) < at(r#"id="remove-open""#));
    assert_eq!(
        get(&app, &format!("/documents/{id}"), Some(&bob.cookie))
            .await
            .status(),
        404
    );
    let anonymous = get(&app, &format!("/documents/{id}"), None).await;
    assert_eq!(anonymous.status(), 303);
    assert!(
        anonymous.headers()["location"]
            .to_str()
            .unwrap()
            .starts_with("/auth/login?next=")
    );

    // The original with the cookie alone, as a link fetches it; not another user's.
    let original = format!("/documents/{id}/download/original.pdf");
    let file = get(&app, &original, Some(&ada.cookie)).await;
    assert_eq!(file.status(), 200);
    assert_eq!(
        file.headers()["content-disposition"],
        r#"attachment; filename="Lease-for-Flat-3.pdf""#
    );
    assert_eq!(
        file.bytes().await.unwrap().as_ref(),
        fixture("mixed-sizes-3p.pdf").as_slice()
    );
    assert_eq!(get(&app, &original, Some(&bob.cookie)).await.status(), 404);
    assert_eq!(get(&app, &original, None).await.status(), 303);
    // Not signed yet: the page says why.
    let signed = get(
        &app,
        &format!("/documents/{id}/download/signed.pdf"),
        Some(&ada.cookie),
    )
    .await;
    assert_eq!(signed.status(), 400);
    assert!(signed.text().await.unwrap().contains("COMPLETED"));
    // The audit trail, as CSV.
    let trail = format!("/documents/{id}/download/audit-log.csv");
    let csv = get(&app, &trail, Some(&ada.cookie)).await;
    assert_eq!(csv.status(), 200);
    assert_eq!(
        csv.headers()["content-disposition"],
        r#"attachment; filename="Lease-for-Flat-3-audit-log.csv""#
    );
    let csv = csv.text().await.unwrap();
    assert!(csv.starts_with("time,event,actor"), "{csv}");
    assert!(csv.contains("\"UPLOADED\",\"ada@example.com\""), "{csv}");
    assert_eq!(get(&app, &trail, Some(&bob.cookie)).await.status(), 404);
    let other = get(
        &app,
        &format!("/documents/{id}/download/other.pdf"),
        Some(&ada.cookie),
    )
    .await;
    assert_eq!(other.status(), 404);
    app.stop().await;
}

fn count(app: &TestApp, sql: &str) -> i64 {
    app.db().query_row(sql, [], |r| r.get(0)).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_upload_says_why_and_leaves_nothing_behind() {
    let app = TestApp::spawn_with(&["--max-upload-mb", "1"]).await;
    let d = app.data_dir();
    add_account(&d, "ada@example.com", "Ada");
    let ada = browser(&app, "ada@example.com").await;
    let who = as_browser(&ada);

    let (s, v) = upload(&app, who, "Notes", fixture("not-a-pdf-text.pdf").into()).await;
    assert_eq!(s, 415, "{v}");
    assert!(
        v["message"].as_str().unwrap().contains("upload a PDF"),
        "{v}"
    );
    let (s, v) = upload(&app, who, "Secret", fixture("encrypted-aes256.pdf").into()).await;
    assert_eq!(s, 400, "{v}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("password-protected"),
        "{v}"
    );
    // Too large: declared, and streamed without a length (the bound is counted as it comes).
    let big = || {
        let mut b = fixture("a4-1p.pdf");
        b.resize(1024 * 1024 + 100 * 1024, b' ');
        b
    };
    let (s, v) = upload(&app, who, "Big", big().into()).await;
    assert_eq!(s, 413, "{v}");
    assert!(v["message"].as_str().unwrap().contains("1 MiB"), "{v}");
    let pieces: Vec<Result<Vec<u8>, std::io::Error>> =
        big().chunks(64 * 1024).map(|c| Ok(c.to_vec())).collect();
    let streamed = reqwest::Body::wrap_stream(futures_util::stream::iter(pieces));
    let (s, v) = upload(&app, who, "Big", streamed).await;
    assert_eq!(s, 413, "{v}");
    // A title the API would refuse is refused before the file is stored.
    let (s, v) = upload(&app, who, "  ", fixture("a4-1p.pdf").into()).await;
    assert_eq!(s, 400, "{v}");
    assert_eq!(v["details"][0]["path"], "title", "{v}");

    assert_eq!(count(&app, "SELECT count(*) FROM documents"), 0);
    assert_eq!(count(&app, "SELECT count(*) FROM audit_events"), 0);
    assert_eq!(count(&app, "SELECT count(*) FROM blobs"), 0);
    let blobs = stored_blob_ids(&d);
    assert!(blobs.is_empty(), "{blobs:?}");
    let temp = files_under(&d.join("blobs/tmp"));
    assert!(temp.is_empty(), "{temp:?}");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_signed_pdf_downloads_with_the_session_once_completed() {
    let app = TestApp::spawn().await;
    let d = app.data_dir();
    add_account(&d, "ada@example.com", "Ada");
    let key = create_api_key(&d, "ada@example.com")["key"]
        .as_str()
        .unwrap()
        .to_string();
    let api = app.api(&key);
    let ada = browser(&app, "ada@example.com").await;
    let created = api
        .create_document(
            json!({"title": "NDA", "recipients": [{"name": "Cy", "email": "cy@example.com"}]}),
        )
        .await;
    let id = created.document_id();
    api.upload_ok(created.upload_url(), fixture("a4-1p.pdf"))
        .await;
    let rid = created.recipient_id(0);
    let field = api
        .add_fields(
            id,
            json!([{"recipientId": rid, "type": "SIGNATURE", "pageNumber": 1,
            "pageX": 10, "pageY": 80, "pageWidth": 30, "pageHeight": 8}]),
        )
        .await[0];
    assert_eq!(api.send(id).await.0, 200);
    let cy = app.signer(&created.token(0));
    assert_eq!(cy.sign_typed(field, "Cy").await.0, 200);
    assert_eq!(cy.complete(json!({})).await.0, 200);
    api.wait_status(id, "COMPLETED").await;

    let file = get(
        &app,
        &format!("/documents/{id}/download/signed.pdf"),
        Some(&ada.cookie),
    )
    .await;
    assert_eq!(file.status(), 200);
    assert_eq!(
        file.headers()["content-disposition"],
        r#"attachment; filename="NDA-signed.pdf""#
    );
    assert!(file.bytes().await.unwrap().starts_with(b"%PDF"));
    let html = get(&app, &format!("/documents/{id}"), Some(&ada.cookie))
        .await
        .text()
        .await
        .unwrap();
    for expected in [
        "Completed",
        "Download signed PDF",
        "Cy signed",
        "You downloaded the signed PDF",
    ] {
        assert!(
            html.contains(expected),
            "{expected} missing from the page:\n{html}"
        );
    }
    app.stop().await;
}

/// The bytes of page `n`'s image of document `id` at width `w`, as its owner's page loads it.
async fn page_image(app: &TestApp, cookie: &str, id: i64, n: u32, w: u32) -> Vec<u8> {
    let resp = get(
        app,
        &format!("/documents/{id}/pages/{n}.png?w={w}"),
        Some(cookie),
    )
    .await;
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-type"], "image/png");
    resp.bytes().await.unwrap().to_vec()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_document_page_lists_each_recipients_fields_and_shows_the_sealed_pages_once_completed()
{
    let app = TestApp::spawn().await;
    let d = app.data_dir();
    add_account(&d, "ada@example.com", "Ada");
    add_account(&d, "bob@example.com", "Bob");
    let key = create_api_key(&d, "ada@example.com")["key"]
        .as_str()
        .unwrap()
        .to_string();
    let api = app.api(&key);
    let ada = browser(&app, "ada@example.com").await;
    let bob = browser(&app, "bob@example.com").await;
    let created = api
        .create_document(json!({"title": "NDA", "recipients": [
            {"name": "Cy Crane", "email": "cy@example.com", "role": "SIGNER"},
            {"name": "Di Dale", "email": "di@example.com", "role": "SIGNER"}
        ]}))
        .await;
    let id = created.document_id();
    api.upload_ok(created.upload_url(), fixture("a4-1p.pdf"))
        .await;
    let (cy, di) = (created.recipient_id(0), created.recipient_id(1));
    let at = |r: i64, kind: &str, y: i64| {
        json!({"recipientId": r, "type": kind, "pageNumber": 1,
               "pageX": 10, "pageY": y, "pageWidth": 30, "pageHeight": 6,
               "fieldMeta": {"type": kind.to_lowercase()}})
    };
    let fields = api
        .add_fields(
            id,
            json!([
                at(di, "SIGNATURE", 85),
                at(cy, "TEXT", 60),
                at(cy, "SIGNATURE", 70)
            ]),
        )
        .await;
    let original = page_image(&app, &ada.cookie, id, 1, 800).await;
    assert_eq!(api.send(id).await.0, 200);

    // Cy fills in and signs; Di has not yet.
    let cy_link = app.signer(&created.token(0));
    let (s, v) = cy_link.fill(fields[1], json!({"value": "Acme Ltd"})).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(cy_link.sign_typed(fields[2], "Cy Crane").await.0, 200);
    assert_eq!(cy_link.complete(json!({})).await.0, 200);
    let html = get(&app, &format!("/documents/{id}"), Some(&ada.cookie))
        .await
        .text()
        .await
        .unwrap();
    // Each recipient's card lists their fields, in page order and from the top, filled or not.
    let card = |html: &str, r: i64| {
        let start = html.find(&format!("id=\"recipient-{r}\"")).unwrap();
        let rest = &html[start..];
        let end = rest.find("class=\"recipient card\"").unwrap_or(rest.len());
        rest[..end].to_string()
    };
    let lines = |c: &str| -> Vec<String> {
        c.split("<li>")
            .skip(1)
            .map(|l| {
                let l = l.split("</li>").next().unwrap();
                let words: String = l
                    .split('<')
                    .map(|p| p.rsplit('>').next().unwrap())
                    .collect();
                words.split_whitespace().collect::<Vec<_>>().join(" ")
            })
            .filter(|l| l.contains(" on page "))
            .collect()
    };
    assert_eq!(
        lines(&card(&html, cy)),
        ["Text on page 1 Filled", "Signature on page 1 Filled"],
        "{html}"
    );
    assert_eq!(
        lines(&card(&html, di)),
        ["Signature on page 1 Not filled yet"]
    );
    // The pages carry what the fields are drawn from: their sizes, and that they are drawn.
    assert!(html.contains(r#"data-sizes="595x842""#), "{html}");
    assert!(html.contains(" data-fields>"), "{html}");
    // Until completed, the pages are the upload's.
    let pending = page_image(&app, &ada.cookie, id, 1, 800).await;
    assert!(
        pending == original,
        "a pending document shows the upload's pages"
    );

    let di_link = app.signer(&created.token(1));
    assert_eq!(di_link.sign_typed(fields[0], "Di Dale").await.0, 200);
    assert_eq!(di_link.complete(json!({})).await.0, 200);
    api.wait_status(id, "COMPLETED").await;
    let html = get(&app, &format!("/documents/{id}"), Some(&ada.cookie))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        !html.contains(" data-fields>"),
        "no fields drawn over sealed pages"
    );
    assert!(html.contains("The signed pages"), "{html}");
    assert_eq!(lines(&card(&html, di)), ["Signature on page 1 Filled"]);
    // Once completed, the sealed pages: the values are burnt into them.
    let sealed = page_image(&app, &ada.cookie, id, 1, 800).await;
    assert!(
        sealed != original,
        "the completed page shows the sealed copy"
    );
    // The sealed copy's pages have the same access rule: another user's is a 404, and only the
    // document's own pages are shown (the certificate's pages are in the download).
    for path in [
        format!("/documents/{id}/pages/1.png"),
        format!("/documents/{id}"),
    ] {
        assert_eq!(get(&app, &path, Some(&bob.cookie)).await.status(), 404);
    }
    let past = get(
        &app,
        &format!("/documents/{id}/pages/2.png"),
        Some(&ada.cookie),
    )
    .await;
    assert_eq!(past.status(), 404);
    app.stop().await;
}
