//! The upload page and the document page in headless Chromium (`tests/browser/document_page.mjs`):
//! uploads through the page (one refused with its reason), then a sent document's page: copy a
//! signing link, remind, correct an e-mail address, download, cancel; desktop and phone sizes,
//! axe-core on each page and state, screenshots `upload-*` and `document-*`.

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
        "document-cancel-desktop",
        "document-cancelled-desktop",
        "upload-phone",
        "upload-refused-phone",
        "document-draft-phone",
        "document-pending-phone",
        "document-cancel-phone",
        "document-cancelled-phone",
    ] {
        let path = tools::screenshots().join(format!("{shot}.png"));
        assert!(path.exists(), "{shot} screenshot kept");
    }
    app.stop().await;
}
