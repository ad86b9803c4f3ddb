//! Link attachments in headless Chromium (`tests/browser/attachments.mjs`): a draft's editor adds,
//! refuses, edits and removes them by keyboard; a sent document's page and its recipient's
//! signing page show them; axe-core and both sizes. The draft's links are checked by the API
//! afterwards.

use serde_json::json;

use crate::support::api::{Api, create_api_key, fixture};
use crate::support::login::{PASSWORD, add_account};
use crate::support::{TestApp, tools};

/// A one-page document of `api` with one signer and their signature field, and `attachments`:
/// its id and the signer's link.
async fn document(api: &Api, attachments: serde_json::Value) -> (i64, String) {
    let mut body = json!({"title": "Lease", "recipients": [
        {"name": "Ann Signer", "email": "ann@example.com", "role": "SIGNER"}]});
    if !attachments.is_null() {
        body["attachments"] = attachments;
    }
    let made = api.create_document(body).await;
    let id = made.document_id();
    api.upload_ok(made.upload_url(), fixture("a4-1p.pdf")).await;
    api.add_fields(
        id,
        json!([{"recipientId": made.recipient_id(0), "type": "SIGNATURE", "pageNumber": 1,
                 "pageX": 10, "pageY": 70, "pageWidth": 30, "pageHeight": 6}]),
    )
    .await;
    let token = made.token(0);
    (id, token)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs chromium and node")]
async fn attachments_are_edited_by_keyboard_and_shown_to_recipients_in_chromium() {
    let app = TestApp::spawn().await;
    let d = app.data_dir();
    add_account(&d, "ada@example.com", "Ada");
    let api = app.api(
        create_api_key(&d, "ada@example.com")["key"]
            .as_str()
            .unwrap(),
    );
    let (draft, _) = document(&api, json!(null)).await;
    let (sent, token) = document(
        &api,
        json!([{"label": "Lease terms", "data": "https://example.com/lease"},
               {"label": "Map", "data": "https://maps.example.net/flat-2"}]),
    )
    .await;
    assert_eq!(api.send(sent).await.0, 200);
    let link = app.url(&format!("/sign/{token}"));
    let (base, draft_s, sent_s) = (app.base.clone(), draft.to_string(), sent.to_string());
    tokio::task::spawn_blocking(move || {
        let args = [&base, "ada@example.com", PASSWORD, &draft_s, &sent_s, &link];
        tools::browser_step("attachments.mjs", &args);
    })
    .await
    .unwrap();
    let doc = api.document(draft).await;
    assert_eq!(
        doc["meta"]["attachments"],
        json!([{"label": "Terms (2026)", "data": "https://example.com/terms", "type": "link"}]),
        "{doc}"
    );
    for shot in ["refused", "editor", "document", "signing"] {
        for size in ["desktop", "phone"] {
            let path = tools::screenshots().join(format!("attachments-{shot}-{size}.png"));
            assert!(path.exists(), "{} kept", path.display());
        }
    }
    app.stop().await;
}
