//! Templates in headless Chromium (`tests/browser/templates.mjs`): a template made from a PDF
//! in the browser with two placeholder recipients and their fields, its details page with the
//! ids, "Use template" sending a document to real people; here both of them sign through their
//! links and the document completes, with the value given on the Use page in place. Duplicate
//! and delete are in the script; every page is checked by axe-core at desktop and phone sizes.

use serde_json::json;

use crate::support::api::create_api_key;
use crate::support::login::{PASSWORD, add_account};
use crate::support::{TestApp, tools};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs chromium and node")]
async fn a_template_made_in_the_browser_is_used_and_signed() {
    let app = TestApp::spawn().await;
    let d = app.data_dir();
    let email = "tess@example.com";
    add_account(&d, email, "Tess Owner");
    let fixtures = format!("{}/tests/fixtures/pdf", env!("CARGO_MANIFEST_DIR"));
    let base = app.base.clone();
    let summary = tokio::task::spawn_blocking(move || {
        tools::summary(tools::browser_script(
            "templates.mjs",
            &[&base, email, PASSWORD, &fixtures],
        ))
    })
    .await
    .unwrap();
    for name in [
        "empty",
        "new",
        "editor-recipients",
        "editor-review",
        "details",
        "list",
    ] {
        for size in ["desktop", "phone"] {
            let shot = tools::screenshots().join(format!("templates-{name}-{size}.png"));
            assert!(shot.exists(), "{shot:?} kept");
        }
    }

    // The document the Use page sent: the template's fields on the people it named.
    let api = app.api(create_api_key(&d, email)["key"].as_str().unwrap());
    let id = summary["document"].as_i64().unwrap();
    let doc = api.document(id).await;
    assert_eq!(doc["status"], "PENDING", "{doc}");
    assert_eq!(doc["title"], "Lease");
    let recipients = doc["recipients"].as_array().unwrap();
    let names: Vec<&str> = recipients
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Tom Tenant", "Gail Guarantor"], "{doc}");
    let fields = doc["fields"].as_array().unwrap();
    assert!(
        fields
            .iter()
            .any(|f| f["type"] == "TEXT" && f["customText"] == "Flat 3"),
        "the value given on the Use page: {doc}"
    );
    for r in recipients {
        let signer = app.signer(r["token"].as_str().unwrap());
        let sig = fields
            .iter()
            .find(|f| f["recipientId"] == r["id"] && f["type"] == "SIGNATURE")
            .unwrap_or_else(|| panic!("a signature field for {r}"));
        let name = r["name"].as_str().unwrap();
        let (s, v) = signer.sign_typed(sig["id"].as_i64().unwrap(), name).await;
        assert_eq!(s, 200, "{v}");
        let (s, v) = signer.complete(json!({})).await;
        assert_eq!(s, 200, "{v}");
    }
    api.wait_document(id, "completed", |d| d["status"] == "COMPLETED")
        .await;
    app.stop().await;
}
