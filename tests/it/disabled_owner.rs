//! Nothing of a disabled account acts (issue 52, finding 3): while its owner is disabled, a
//! template's direct link answers as an unknown link and starts nothing, the signing links of
//! the documents it sent answer as unknown links, nothing is mailed and the owner's webhooks
//! get nothing new; enabled again, all of it works as before.

use serde_json::json;

use crate::direct_links::{count, mails, set, template, visit, visit_without_page};
use crate::support::api::Signer;
use crate::support::docket_json;
use crate::support::webhook::Receiver;

const OLIVE: &str = "olive@example.com";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_disabled_owners_direct_link_and_signing_links_start_and_mail_nothing() {
    let app =
        crate::support::TestApp::spawn_with(&["--tls", "off", "--allow-private-webhooks"]).await;
    let api = app.user_with_key(OLIVE, "standard");
    let (id, rids) = template(&api, Some("bob@example.com")).await;
    let (s, link) = set(&api, id, json!({"enabled": true, "recipientId": rids[0]})).await;
    assert_eq!(s, 200, "{link}");
    let page = format!("/d/{}", link["token"].as_str().unwrap());
    let rx = Receiver::start(&[]).await;
    api.add_webhook(json!({"url": rx.url(), "events": ["DOCUMENT_CREATED", "DOCUMENT_SENT", "DOCUMENT_OPENED", "DOCUMENT_SIGNED"]}))
        .await;

    // Before: a visitor starts a document (CREATED and SENT go to the webhook).
    let (s, location, html) = visit(&app, &page, "Ann Visitor", "ann@example.com").await;
    assert_eq!(s, 303, "{html}");
    let ann = Signer::at(&app.url(""), location.strip_prefix("/sign/").unwrap());
    rx.wait_for(2).await;
    // Ann fills in and signs her fields; only finishing is left.
    let (s, state) = ann.state().await;
    assert_eq!(s, 200, "{state}");
    for f in state["fields"].as_array().unwrap() {
        let (s, v) = if f["type"] == "SIGNATURE" {
            ann.sign(&f["id"]).await
        } else {
            ann.fill(&f["id"], json!({"value": "Saturdays"})).await
        };
        assert_eq!(s, 200, "{v}");
    }
    let deliveries = || count(&app, "SELECT count(*) FROM webhook_deliveries");
    let queued = deliveries();

    docket_json(&app.data_dir(), &["user", "disable", OLIVE], None);

    // The direct link is a 404, as an unknown one, on its page and its form.
    let resp = app.get(&page).await;
    assert_eq!(resp.status(), 404);
    let body = resp.text().await.unwrap();
    assert!(!body.to_lowercase().contains("disabled"), "{body}");
    let (s, _, _) = visit_without_page(&app, &page).await;
    assert_eq!(s, 404);
    // The visitor's signing link too: nothing is read, filled or signed through it.
    let (s, v) = ann.state().await;
    assert_eq!(s, 404, "{v}");
    assert_eq!(ann.page().await.status(), 404);
    let (s, v) = ann.complete(json!({})).await;
    assert_eq!(s, 404, "{v}");

    // Nothing was started, mailed or queued for a webhook.
    assert_eq!(count(&app, "SELECT count(*) FROM documents"), 1);
    assert_eq!(
        count(
            &app,
            "SELECT count(*) FROM recipients WHERE document_id IS NOT NULL AND signing_status = 'SIGNED'"
        ),
        0
    );
    assert!(mails(&app).is_empty(), "{:?}", mails(&app));
    assert_eq!(deliveries(), queued, "no webhook delivery queued");

    // Enabled again, the link and the visitor's document work as before: Ann finishes, and
    // the document goes on to Bob.
    docket_json(&app.data_dir(), &["user", "enable", OLIVE], None);
    assert_eq!(app.get(&page).await.status(), 200);
    let (s, v) = ann.complete(json!({})).await;
    assert_eq!(s, 200, "{v}");
    let asked = ("SIGNING_REQUEST".to_string(), "bob@example.com".to_string());
    assert!(mails(&app).contains(&asked), "{:?}", mails(&app));
}
