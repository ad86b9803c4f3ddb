//! The upload page and the document page in headless Chromium (`tests/browser/document_page.mjs`):
//! uploads through the page, started by choosing or dropping the file (one refused with its
//! reason, then another chosen), then a sent document's page: copy a signing link, remind,
//! correct an e-mail address, download, cancel from the danger area at the page's end; desktop and phone sizes,
//! axe-core on each page and state, screenshots `upload-*` and `document-*`. Then
//! (`tests/browser/document_fields.mjs`) a half-signed document's page draws its fields in their
//! recipients' colours, and a completed one's shows the sealed pages.

use crate::support::api::create_api_key;
use crate::support::login::{PASSWORD, add_account};
use crate::support::{TestApp, tools};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs chromium and node")]
async fn the_upload_and_document_pages_work_in_chromium() {
    let app = TestApp::spawn().await;
    let d = app.data_dir();
    add_account(&d, "ada@example.com", "Ada Lovelace");
    let key = create_api_key(&d, "ada@example.com")["key"]
        .as_str()
        .unwrap()
        .to_string();
    let fixtures = format!("{}/tests/fixtures/pdf", env!("CARGO_MANIFEST_DIR"));
    let base = app.base.clone();
    let (ok, stdout, stderr) = tokio::task::spawn_blocking(move || {
        let args = [&base, "ada@example.com", PASSWORD, &key, &fixtures];
        tools::browser_script("document_page.mjs", &args)
    })
    .await
    .unwrap();
    assert!(
        ok && stdout.contains("\"ok\":true"),
        "browser test failed:\n{stdout}\n{stderr}"
    );
    // Two documents were made through the page, none by the refused uploads.
    let n: i64 = app
        .db()
        .query_row("SELECT count(*) FROM documents", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 2);
    for shot in [
        "upload-desktop",
        "upload-refused-desktop",
        "document-pending-desktop",
        "document-corrected-desktop",
        "document-danger-desktop",
        "document-cancel-desktop",
        "document-cancelled-desktop",
        "upload-phone",
        "upload-refused-phone",
        "document-draft-phone",
        "document-danger-phone",
        "document-pending-phone",
        "document-cancel-phone",
        "document-cancelled-phone",
    ] {
        let path = tools::screenshots().join(format!("{shot}.png"));
        assert!(path.exists(), "{shot} screenshot kept");
    }
    app.stop().await;
}

/// A sent one-page document for Cy Crane and Di Dale: Di's signature at the bottom, Cy's text
/// and signature above it; Cy has filled in and signed. Answers its id and Di's signing token.
async fn half_signed(app: &TestApp, api: &crate::support::api::Api) -> (i64, String) {
    use crate::support::api::fixture;
    use serde_json::json;
    let created = api
        .create_document(json!({"title": "Supply contract", "recipients": [
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
    assert_eq!(api.send(id).await.0, 200);
    let cy_link = app.signer(&created.token(0));
    let (s, v) = cy_link.fill(fields[1], json!({"value": "Acme Ltd"})).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(cy_link.sign_typed(fields[2], "Cy Crane").await.0, 200);
    assert_eq!(cy_link.complete(json!({})).await.0, 200);
    (id, created.token(1))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs chromium and node")]
async fn the_document_page_draws_the_fields_and_then_the_sealed_pages_in_chromium() {
    use serde_json::json;
    use sha2::{Digest, Sha256};
    let app = TestApp::spawn().await;
    let d = app.data_dir();
    add_account(&d, "ada@example.com", "Ada Lovelace");
    let key = create_api_key(&d, "ada@example.com")["key"]
        .as_str()
        .unwrap()
        .to_string();
    let api = app.api(&key);
    let ada = crate::support::login::browser(&app, "ada@example.com").await;
    let (pending, _) = half_signed(&app, &api).await;
    let (done, di_token) = half_signed(&app, &api).await;
    // The upload's page 1 at each width the page may load, before it is sealed.
    let mut originals = Vec::new();
    for w in [800, 1200, 1600] {
        let bytes = app
            .client
            .get(app.url(&format!("/documents/{done}/pages/1.png?w={w}")))
            .header("cookie", &ada.cookie)
            .send()
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap();
        originals.push(format!("{:x}", Sha256::digest(&bytes)));
    }
    let doc = api.document(done).await;
    let of_di = |r: &&serde_json::Value| r["email"] == "di@example.com";
    let di_id = &doc["recipients"]
        .as_array()
        .unwrap()
        .iter()
        .find(of_di)
        .unwrap()["id"];
    let di_field = doc["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| &f["recipientId"] == di_id)
        .unwrap()["id"]
        .as_i64()
        .unwrap();
    let di = app.signer(&di_token);
    assert_eq!(di.sign_typed(di_field, "Di Dale").await.0, 200);
    assert_eq!(di.complete(json!({})).await.0, 200);
    api.wait_status(done, "COMPLETED").await;

    let base = app.base.clone();
    let (pending, done, originals) = (pending.to_string(), done.to_string(), originals.join(","));
    let summary = tokio::task::spawn_blocking(move || {
        let args = [
            &base,
            "ada@example.com",
            PASSWORD,
            &pending,
            &done,
            &originals,
        ];
        tools::summary(tools::browser_script("document_fields.mjs", &args))
    })
    .await
    .unwrap();
    assert_eq!(summary["fields"], 3, "{summary}");
    for shot in [
        "document-fields-desktop",
        "document-fields-phone",
        "document-sealed-desktop",
        "document-sealed-phone",
    ] {
        let path = tools::screenshots().join(format!("{shot}.png"));
        assert!(path.exists(), "{shot} screenshot kept");
    }
    app.stop().await;
}
