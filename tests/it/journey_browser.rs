//! A new owner's first document, from end to end in headless Chromium
//! (`tests/browser/journey.mjs`): upload through the page, two recipients, fields placed by
//! mouse and by keyboard, send, both recipients sign through their links (one on a phone, one
//! from the dashboard's Inbox), and the signed PDF downloaded from the document page. The
//! dashboard's counts are checked after each step; here, the downloaded file must pass `pdfsig`
//! with every signed value within 1 pt of where its field was placed.

use serde_json::Value;

use crate::support::login::{PASSWORD, add_account};
use crate::support::{TestApp, sealed_pdf, tools};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "outside-tools"),
    ignore = "needs chromium, node and poppler"
)]
async fn a_new_owner_uploads_places_sends_and_downloads_the_signed_pdf_in_the_browser() {
    let app = TestApp::spawn().await;
    let email = "olive@example.com";
    add_account(&app.data_dir(), email, "Olive Owner");
    let fixtures = format!("{}/tests/fixtures/pdf", env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let signed = dir.path().join("signed.pdf");
    let (base, path) = (app.base.clone(), signed.to_string_lossy().into_owned());
    let (ok, stdout, stderr) = tokio::task::spawn_blocking(move || {
        tools::browser_script("journey.mjs", &[&base, email, PASSWORD, &fixtures, &path])
    })
    .await
    .unwrap();
    assert!(ok, "browser test failed:\n{stdout}\n{stderr}");
    let summary: Value = stdout
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| panic!("no summary line:\n{stdout}\n{stderr}"));
    assert_eq!(summary["ok"], true, "{stdout}");

    // The file the browser saved is the sealed document: one valid signature over all of it,
    // the certificate pages after the original page, each value where it was placed.
    sealed_pdf::assert_one_valid_signature(&signed);
    let text = tools::pdf_words(&signed);
    assert!(text.contains("Olive Owner"), "{text}");
    let words = sealed_pdf::word_boxes(&signed, 1);
    for word in ["Acme", "Ann", "Olive"] {
        sealed_pdf::assert_stamped_in(&words, word, &summary["placed"][word]);
    }
    for shot in [
        "journey-dashboard-uploaded-desktop",
        "journey-dashboard-sent-desktop",
        "journey-ann-signed-phone",
        "journey-dashboard-completed-desktop",
        "journey-dashboard-completed-phone",
        "journey-document-completed-desktop",
    ] {
        let path = tools::screenshots().join(format!("{shot}.png"));
        assert!(path.exists(), "{shot} screenshot kept");
    }
    app.stop().await;
}
