//! Templates in headless Chromium (`tests/browser/templates.mjs`): a template made from a PDF
//! in the browser with two placeholder recipients and their fields, its details page with the
//! ids, "Use template" sending a document to real people (its title following the first name
//! typed until edited by hand); here both of them sign through their
//! links and the document completes, with the value given on the Use page in place. Duplicate
//! and delete are in the script; every page is checked by axe-core at desktop and phone sizes.
//! The script also turns the template's direct link on and has a stranger sign through it on a
//! phone; here the owner is told, and the document goes on to the other recipient, who signs.
//! Last, the sent document is saved as a template from its page.

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
        "direct",
        "document",
        "saved",
        "use-title",
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
    // The title followed the first name typed, then was edited by hand.
    assert_eq!(doc["title"], "Lease – Thomas Tenant, flat 3");
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

    // The stranger's document: the owner's, told by e-mail, and now Rita's turn.
    let visitor = summary["visitor"].as_str().unwrap();
    let (_, list) = api.get("/api/v1/documents").await;
    let made = list["documents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| {
            d["recipients"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r["email"] == visitor)
        })
        .unwrap_or_else(|| panic!("the visitor's document in {list}"))
        .clone();
    let doc = api.document(made["id"].as_i64().unwrap()).await;
    assert_eq!(doc["status"], "PENDING", "{doc}");
    let told: i64 = app
        .db()
        .query_row(
            "SELECT count(*) FROM mail_queue WHERE kind = 'DIRECT_LINK_SIGNED' AND to_addr = ?1",
            [email],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(told, 1, "the owner is told");
    let rita = doc["recipients"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["email"] == "rita@example.com")
        .unwrap();
    let asked: i64 = app
        .db()
        .query_row(
            "SELECT count(*) FROM mail_queue WHERE kind = 'SIGNING_REQUEST' AND to_addr = 'rita@example.com'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(asked, 1, "the next recipient is asked");
    let signer = app.signer(rita["token"].as_str().unwrap());
    let sig = doc["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["recipientId"] == rita["id"] && f["type"] == "SIGNATURE")
        .unwrap()["id"]
        .as_i64()
        .unwrap();
    assert_eq!(signer.sign_typed(sig, "Rita Referee").await.0, 200);
    assert_eq!(signer.complete(json!({})).await.0, 200);
    let id = doc["id"].as_i64().unwrap();
    api.wait_document(id, "completed", |d| d["status"] == "COMPLETED")
        .await;
    // The document saved as a template on its page: a template of its own, the same file.
    let saved = summary["saved"].as_i64().unwrap();
    let (s, t) = api.get(&format!("/api/v1/templates/{saved}")).await;
    assert_eq!(s, 200, "{t}");
    assert_eq!(t["title"], "Lease – Thomas Tenant, flat 3");
    let (_, original) = api
        .get(&format!("/api/v1/templates/{}", summary["template"]))
        .await;
    assert_eq!(
        t["templateDocumentData"]["data"],
        original["templateDocumentData"]["data"]
    );
    app.stop().await;
}
