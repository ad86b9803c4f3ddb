//! Settings in headless Chromium (`tests/browser/settings.mjs`): an API token made, copied,
//! used on `/api/v1` by the script and revoked; a webhook to a loopback receiver, its test
//! event (checked here at the receiver) and redelivery in the delivery log, an edit and a
//! deletion; desktop and phone sizes, axe-core, screenshots.

use crate::support::login::{PASSWORD, add_account};
use crate::support::webhook::Receiver;
use crate::support::{TestApp, tools};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs chromium and node")]
async fn tokens_and_webhooks_work_in_chromium_at_both_sizes() {
    let app = TestApp::spawn_with(&["--tls", "off", "--allow-private-webhooks"]).await;
    add_account(&app.data_dir(), "ada@example.com", "Ada Lovelace");
    let rx = Receiver::start(&[]).await;
    let (base, url) = (app.base.clone(), rx.url());
    tokio::task::spawn_blocking(move || {
        tools::browser_step("settings.mjs", &[&base, "ada@example.com", PASSWORD, &url]);
    })
    .await
    .unwrap();
    // The test event and its redelivery reached the receiver: the same signed body twice.
    let got = rx.received();
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!(got[0].body, got[1].body);
    let body = got[0].json();
    assert_eq!(body["event"], "DOCUMENT_SIGNED");
    assert_eq!(body["payload"]["test"], true);
    assert!(got[0].headers["x-docket-signature"].starts_with("t="));
    for shot in [
        "tokens-empty-desktop",
        "tokens-error-desktop",
        "tokens-created-desktop",
        "tokens-revoke-desktop",
        "tokens-revoked-desktop",
        "webhooks-empty-desktop",
        "webhook-form-desktop",
        "webhook-form-error-desktop",
        "webhook-created-desktop",
        "webhook-log-desktop",
        "webhook-redelivered-desktop",
        "webhook-edit-desktop",
        "webhooks-list-desktop",
        "tokens-created-phone",
        "tokens-phone",
        "webhooks-phone",
        "webhook-form-phone",
        "webhook-form-some-phone",
        "webhook-log-phone",
        "webhook-edit-phone",
        "webhook-delete-phone",
        "webhooks-deleted-phone",
    ] {
        let path = tools::screenshots().join(format!("settings-{shot}.png"));
        assert!(path.exists(), "{} kept", path.display());
    }
    app.stop().await;
}
