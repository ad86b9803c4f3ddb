//! Folders in headless Chromium (`tests/browser/folders.mjs`): made, entered, pinned, renamed
//! by keyboard, a document put into one from its page, a team folder's visibility, the
//! templates list's folders; axe-core at desktop and phone sizes, screenshots.

use serde_json::json;

use crate::support::login::{PASSWORD, add_account, browser};
use crate::support::{TestApp, docket_json, tools};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs chromium and node")]
async fn folders_work_in_chromium_at_both_sizes_and_by_keyboard() {
    let app = TestApp::spawn().await;
    let d = app.data_dir();
    add_account(&d, "ada@example.com", "Ada");
    docket_json(
        &d,
        &[
            "team",
            "create",
            "Sales",
            "--slug",
            "sales",
            "--admin",
            "ada@example.com",
        ],
        None,
    );
    let ada = browser(&app, "ada@example.com").await;
    let made: serde_json::Value = app
        .client
        .post(app.url("/api/v1/documents"))
        .header("cookie", &ada.cookie)
        .header("x-csrf-token", &ada.csrf)
        .json(&json!({ "title": "Lease of the mill", "recipients": [] }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = made["documentId"].as_i64().unwrap().to_string();
    let base = app.base.clone();
    tokio::task::spawn_blocking(move || {
        tools::browser_step("folders.mjs", &[&base, PASSWORD, &id]);
    })
    .await
    .unwrap();
    for name in ["top", "manage", "document", "team", "templates"] {
        for size in ["desktop", "phone"] {
            let path = tools::screenshots().join(format!("folders-{name}-{size}.png"));
            assert!(path.exists(), "{} kept", path.display());
        }
    }
    app.stop().await;
}
