//! The editor of a draft in headless Chromium (`tests/browser/editor.mjs`): settings,
//! recipients, fields placed by mouse and keyboard, undo, a refused send shown next to what
//! must change, then Send; both recipients sign through their links, and each value is found in
//! the sealed PDF (`pdftotext -bbox`) within 1 pt of where the editor placed its field.

use serde_json::{Value, json};

use crate::support::api::{Api, create_api_key, fixture};
use crate::support::login::{PASSWORD, add_account};
use crate::support::{TestApp, sealed_pdf, tools};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "outside-tools"),
    ignore = "needs chromium, node and poppler"
)]
async fn a_draft_edited_in_the_browser_is_sealed_where_its_fields_were_placed() {
    let app = TestApp::spawn().await;
    let d = app.data_dir();
    let email = "olive@example.com";
    add_account(&d, email, "Olive Owner");
    let api = app.api(create_api_key(&d, email)["key"].as_str().unwrap());
    let created = api
        .create_document(json!({"title": "Lease", "recipients": []}))
        .await;
    let id = created.document_id();
    api.upload_ok(created.upload_url(), fixture("a4-1p.pdf"))
        .await;

    let (base, id_text) = (app.base.clone(), id.to_string());
    let summary = tokio::task::spawn_blocking(move || {
        tools::summary(tools::browser_script(
            "editor.mjs",
            &[&base, &id_text, email, PASSWORD],
        ))
    })
    .await
    .unwrap();
    for step in ["settings", "recipients", "fields", "review"] {
        for size in ["desktop", "phone"] {
            let shot = tools::screenshots().join(format!("editor-{step}-{size}.png"));
            assert!(shot.exists(), "{shot:?} kept");
        }
    }
    for shot in [
        "editor-recipients-pasted-desktop",
        "editor-fields-tapped-phone",
        "editor-fields-touch-phone",
        "editor-review-pages-desktop",
    ] {
        let shot = tools::screenshots().join(format!("{shot}.png"));
        assert!(shot.exists(), "{shot:?} kept");
    }

    let doc = api.document(id).await;
    assert_eq!(doc["status"], "PENDING", "{doc}");
    assert_eq!(doc["title"], "Lease 2026");
    let placed = &summary["placed"];
    sign_both(&app, &doc).await;
    let sealed = download_sealed(&api, id).await;
    let words = sealed_pdf::word_boxes(sealed.path(), 1);
    for (key, word) in [("TEXT", "Acme"), ("SIGNATURE", "Ann"), ("BOB", "Bob")] {
        sealed_pdf::assert_stamped_in(&words, word, &placed[key]);
    }
    app.stop().await;
}

/// Bob (first in the order) types his signature; then Ann fills her text and types hers.
async fn sign_both(app: &TestApp, doc: &Value) {
    let recipients = doc["recipients"].as_array().unwrap();
    let of = |mail: &str| {
        recipients
            .iter()
            .find(|r| r["email"] == mail)
            .unwrap()
            .clone()
    };
    let fields = doc["fields"].as_array().unwrap();
    let field = |r: &Value, kind: &str| {
        fields
            .iter()
            .find(|f| f["recipientId"] == r["id"] && f["type"] == kind)
            .unwrap_or_else(|| panic!("{kind} of {r}"))["id"]
            .as_i64()
            .unwrap()
    };
    let (ann, bob) = (of("ann@example.com"), of("bob@example.com"));
    let signer = |r: &Value| app.signer(r["token"].as_str().unwrap());
    let b = signer(&bob);
    let (s, v) = b.sign_typed(field(&bob, "SIGNATURE"), "Bob").await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = b.complete(json!({})).await;
    assert_eq!(s, 200, "{v}");
    let a = signer(&ann);
    let (s, v) = a.fill(field(&ann, "TEXT"), json!({"value": "Acme"})).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = a.sign_typed(field(&ann, "SIGNATURE"), "Ann").await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = a.complete(json!({})).await;
    assert_eq!(s, 200, "{v}");
}

/// The sealed PDF of document `id`, once it is completed, in a temp file removed on drop.
async fn download_sealed(api: &Api, id: i64) -> tempfile::NamedTempFile {
    api.wait_document(id, "sealed", |d| d["status"] == "COMPLETED")
        .await;
    let (s, v) = api.get(&format!("/api/v1/documents/{id}/download")).await;
    assert_eq!(s, 200, "{v}");
    let resp = api
        .client()
        .get(v["downloadUrl"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let file = tempfile::Builder::new()
        .prefix("editor-sealed-")
        .suffix(".pdf")
        .tempfile()
        .unwrap();
    std::fs::write(file.path(), resp.bytes().await.unwrap()).unwrap();
    file
}
