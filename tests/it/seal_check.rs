//! The public check of sealed PDFs (`GET /verify`, `POST /verify`, `POST /api/v1/verify`), no
//! account: a PDF sealed here verifies with its completion time and recipients as the document
//! holds them; a byte flipped inside what was sealed, bytes appended, another instance's seal,
//! a plain PDF and a file that is not a PDF each get their verdict; nothing of the file is kept;
//! the body is bounded as an upload, the checks counted per client address; the page works
//! without scripts and in Chromium.

use std::collections::BTreeSet;

use reqwest::header::{CACHE_CONTROL, CONTENT_TYPE};
use serde_json::{Value, json};

use crate::support::TestApp;
use crate::support::api::{Api, fixture};
use crate::support::stores::files_under;
use crate::support::tools;

/// A document for Ann, signed and sealed: (its id, the sealed PDF).
async fn sealed(app: &TestApp, api: &Api, title: &str) -> (i64, Vec<u8>) {
    let created = api
        .create_document(json!({"title": title, "recipients": [
            {"name": "Ann Signer", "email": "ann@example.com", "role": "SIGNER"},
            {"name": "Cid Copy", "email": "cid@example.com", "role": "CC"}
        ]}))
        .await;
    let id = created.document_id();
    let ann = created.recipient_id(0);
    api.upload_ok(created.upload_url(), fixture("a4-1p.pdf"))
        .await;
    let fields = api
        .add_fields(
            id,
            json!([{"recipientId": ann, "type": "SIGNATURE", "pageNumber": 1, "pageX": 10, "pageY": 80, "pageWidth": 30, "pageHeight": 5}]),
        )
        .await;
    let (s, v) = api.send(id).await;
    assert_eq!(s, 200, "{v}");
    let signer = app.signer(&created.token(0));
    assert_eq!(signer.sign_typed(fields[0], "Ann Signer").await.0, 200);
    let (s, v) = signer.complete(json!({})).await;
    assert_eq!(s, 200, "{v}");
    api.wait_status(id, "COMPLETED").await;
    let (s, v) = api.get(&format!("/api/v1/documents/{id}/download")).await;
    assert_eq!(s, 200, "{v}");
    let url = v["downloadUrl"].as_str().unwrap();
    let pdf = app.client.get(url).send().await.unwrap().bytes().await;
    (id, pdf.unwrap().to_vec())
}

/// `POST /api/v1/verify` with `pdf` as the raw body: (status, answer).
async fn verify(app: &TestApp, pdf: &[u8]) -> (u16, Value) {
    let resp = app
        .client
        .post(app.url("/api/v1/verify"))
        .header(CONTENT_TYPE, "application/pdf")
        .body(pdf.to_vec())
        .send()
        .await
        .unwrap();
    (resp.status().as_u16(), resp.json().await.unwrap())
}

/// `POST /verify` with `pdf` as the form's file: (status, Cache-Control, page).
async fn verify_page(app: &TestApp, pdf: &[u8]) -> (u16, String, String) {
    let part = reqwest::multipart::Part::bytes(pdf.to_vec())
        .file_name("contract.pdf")
        .mime_str("application/pdf")
        .unwrap();
    let resp = app
        .client
        .post(app.url("/verify"))
        .multipart(reqwest::multipart::Form::new().part("file", part))
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    let cache = resp.headers()[CACHE_CONTROL].to_str().unwrap().to_string();
    (status, cache, resp.text().await.unwrap())
}

/// What the stored document says: its completion time and, per recipient, (name, e-mail,
/// signedAt).
async fn stated(api: &Api, id: i64) -> (Value, Vec<Value>) {
    let doc = api.document(id).await;
    let recipients = doc["recipients"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| json!({"name": r["name"], "email": r["email"], "signedAt": r["signedAt"]}))
        .collect();
    (doc["completedAt"].clone(), recipients)
}

/// Every file of the data directory and the number of blob rows: what a check must not change.
fn kept(app: &TestApp) -> (BTreeSet<String>, i64) {
    let files = files_under(&app.data_dir())
        .into_iter()
        .map(|p| p.to_string_lossy().to_string())
        .filter(|p| !p.ends_with("-wal") && !p.ends_with("-shm") && !p.ends_with("-journal"))
        .collect();
    let rows = app
        .db()
        .query_row("SELECT COUNT(*) FROM blobs", [], |r| r.get(0))
        .unwrap();
    (files, rows)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sealed_pdf_is_checked_and_every_change_is_seen_without_keeping_the_file() {
    let app = TestApp::spawn_with(&["--tls", "off", "--check-rate-limit", "0"]).await;
    let api = app.user_with_key("owner@example.com", "standard");
    let (id, pdf) = sealed(&app, &api, "Lease of Flat 4B").await;
    let before = kept(&app);

    // Sealed here and unchanged: the document as the certificate states it.
    let (s, v) = verify(&app, &pdf).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["verdict"], "SEALED", "{v}");
    assert_eq!(
        (v["sealedHere"].as_bool(), v["unchanged"].as_bool()),
        (Some(true), Some(true))
    );
    assert_eq!(v["detailsAvailable"], true);
    assert_eq!(
        (v["documentId"].as_i64(), v["title"].as_str()),
        (Some(id), Some("Lease of Flat 4B"))
    );
    let (completed, recipients) = stated(&api, id).await;
    assert!(completed.is_string(), "{completed}");
    assert_eq!(v["completedAt"], completed);
    let signers: Vec<Value> = v["signers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| json!({"name": r["name"], "email": r["email"], "signedAt": r["signedAt"]}))
        .collect();
    assert_eq!(signers, recipients);
    assert!(signers[0]["signedAt"].is_string() && signers[1]["signedAt"].is_null());

    // One byte flipped inside what was sealed.
    let mut flipped = pdf.clone();
    flipped[300] ^= 0x20;
    let (s, v) = verify(&app, &flipped).await;
    assert_eq!((s, v["verdict"].as_str()), (200, Some("MODIFIED")), "{v}");
    assert_eq!(
        (v["sealedHere"].as_bool(), v["unchanged"].as_bool()),
        (Some(true), Some(false))
    );
    assert_eq!(
        (v["detailsAvailable"].as_bool(), v["title"].is_null()),
        (Some(false), true)
    );

    // An incremental update after the seal: changed, and what was sealed is still named.
    let mut appended = pdf.clone();
    appended.extend_from_slice(b"\n5 0 obj\n(added later)\nendobj\n%%EOF\n");
    let (s, v) = verify(&app, &appended).await;
    assert_eq!((s, v["verdict"].as_str()), (200, Some("APPENDED")), "{v}");
    assert_eq!(
        (v["sealedHere"].as_bool(), v["unchanged"].as_bool()),
        (Some(true), Some(false))
    );
    assert_eq!(v["title"], "Lease of Flat 4B");

    // A PDF without a signature, and a file that is not a PDF.
    let (s, v) = verify(&app, &fixture("a4-1p.pdf")).await;
    assert_eq!((s, v["verdict"].as_str()), (200, Some("NOT_SIGNED")), "{v}");
    assert_eq!(v["sealedHere"], false);
    let (s, v) = verify(&app, b"GIF89a, not a PDF").await;
    assert_eq!((s, v["code"].as_str()), (422, Some("not_pdf")), "{v}");

    // The page: the form, then the verdict, never stored by a cache.
    let form = app.get("/verify").await;
    assert_eq!(form.status(), 200);
    let html = form.text().await.unwrap();
    assert!(html.contains(r#"enctype="multipart/form-data""#) && html.contains(r#"name="file""#));
    let (s, cache, html) = verify_page(&app, &pdf).await;
    assert_eq!(s, 200, "{html}");
    assert!(cache.contains("no-store"), "{cache}");
    assert!(
        html.contains("Sealed here, unchanged") && html.contains("Lease of Flat 4B"),
        "{html}"
    );
    assert!(
        html.contains("Ann Signer") && html.contains("cid@example.com"),
        "{html}"
    );
    let (s, _, html) = verify_page(&app, b"not a pdf").await;
    assert_eq!(s, 422);
    assert!(html.contains("The file is not a PDF"), "{html}");
    let login = app.get("/auth/login").await.text().await.unwrap();
    assert!(
        login.contains(r#"href="/verify""#),
        "the public pages link to the check"
    );

    // Nothing of the checked files was kept.
    assert_eq!(kept(&app), before);

    // Deleted by its owner: still sealed here and unchanged, its details no longer shown.
    let (s, v) = api.delete(&format!("/api/v1/documents/{id}")).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = verify(&app, &pdf).await;
    assert_eq!((s, v["verdict"].as_str()), (200, Some("SEALED")), "{v}");
    assert_eq!(
        (v["unchanged"].as_bool(), v["detailsAvailable"].as_bool()),
        (Some(true), Some(false))
    );
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .contains("no longer kept here"),
        "{v}"
    );
    assert_eq!(v["signers"], json!([]));

    // Another Docket (its own data directory, its own local CA) sealed this one.
    let other = TestApp::spawn().await;
    let other_api = other.user_with_key("owner@example.com", "standard");
    let (_, foreign) = sealed(&other, &other_api, "Elsewhere").await;
    other.stop().await;
    let (s, v) = verify(&app, &foreign).await;
    assert_eq!(
        (s, v["verdict"].as_str()),
        (200, Some("OTHER_SIGNER")),
        "{v}"
    );
    assert_eq!(
        (v["sealedHere"].as_bool(), v["title"].is_null()),
        (Some(false), true)
    );

    if cfg!(feature = "outside-tools") {
        // The certificate page names the check.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sealed.pdf");
        std::fs::write(&path, &pdf).unwrap();
        let words = tools::pdf_words(&path);
        assert!(words.contains(&app.url("/verify")), "{words}");
    }
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_check_is_bounded_by_size_and_by_client() {
    let app = TestApp::spawn_with(&[
        "--tls",
        "off",
        "--check-rate-limit",
        "4",
        "--max-upload-mb",
        "1",
    ])
    .await;
    let big = {
        let mut b = b"%PDF-1.7\n".to_vec();
        b.resize((1 << 20) + 1, b' ');
        b
    };
    crate::support::wait::clear_of_a_window_boundary().await;
    // Declared too long, and sent without a length (chunked) past the maximum.
    let (s, v) = verify(&app, &big).await;
    assert_eq!(
        (s, v["code"].as_str()),
        (413, Some("payload_too_large")),
        "{v}"
    );
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
        big.chunks(64 * 1024).map(|c| Ok(c.to_vec())).collect();
    // On a connection of its own: one the pool kept from the refusal above may be closed
    // under the request before the server reads it, and then it is not counted.
    let fresh = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    let sent = fresh
        .post(app.url("/api/v1/verify"))
        .header(CONTENT_TYPE, "application/pdf")
        .body(reqwest::Body::wrap_stream(futures_util::stream::iter(
            chunks,
        )))
        .send()
        .await;
    // The server answers 413 as soon as the body passes the maximum and closes the
    // connection without reading the rest: the client sees the answer, or, when it was still
    // writing, the connection closed under it. Either way nothing past the maximum was taken,
    // and the server goes on answering (below).
    match sent {
        Ok(resp) => assert_eq!(resp.status(), 413),
        Err(e) => assert!(e.is_request() && !e.is_timeout(), "{e:?}"),
    }
    // Within the size, the rest of the minute's budget; then 429, on the page as in the API.
    assert_eq!(verify(&app, b"%PDF-1.7\n").await.0, 200);
    assert_eq!(verify_page(&app, b"%PDF-1.7\n").await.0, 200);
    let (s, v) = verify(&app, b"%PDF-1.7\n").await;
    assert_eq!((s, v["code"].as_str()), (429, Some("rate_limited")), "{v}");
    let (s, _, _) = verify_page(&app, b"%PDF-1.7\n").await;
    assert_eq!(s, 429);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs chromium and node")]
async fn the_check_page_works_in_chromium() {
    let app = TestApp::spawn_with(&["--tls", "off", "--check-rate-limit", "0"]).await;
    let api = app.user_with_key("owner@example.com", "standard");
    let (_, pdf) = sealed(&app, &api, "Lease of Flat 4B").await;
    let dir = tempfile::tempdir().unwrap();
    let sealed_path = dir.path().join("sealed.pdf");
    std::fs::write(&sealed_path, &pdf).unwrap();
    let mut changed = pdf.clone();
    changed.extend_from_slice(b"\n%%EOF\n");
    let changed_path = dir.path().join("changed.pdf");
    std::fs::write(&changed_path, &changed).unwrap();
    let base = app.base.clone();
    let (a, b) = (
        sealed_path.to_string_lossy().to_string(),
        changed_path.to_string_lossy().to_string(),
    );
    tokio::task::spawn_blocking(move || tools::browser_step("verify.mjs", &[&base, &a, &b]))
        .await
        .unwrap();
    for shot in ["verify-form", "verify-sealed", "verify-changed"] {
        for size in ["desktop", "phone"] {
            let path = tools::screenshots().join(format!("{shot}-{size}.png"));
            assert!(path.exists(), "{shot}-{size} screenshot kept");
        }
    }
    app.stop().await;
}
