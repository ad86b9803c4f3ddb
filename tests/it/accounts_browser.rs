//! Accounts people run themselves in headless Chromium (`tests/browser/accounts.mjs`), at
//! desktop and phone sizes with axe-core on every page: "Forgot password?" from the login page,
//! the mailed link, the new password (another browser's session is signed out); the account
//! page's name and e-mail (the link mailed to the new address); the login page reached from a
//! signing link, and "Forgot password?" from there leading back to the document.

use serde_json::{Value, json};

use crate::support::TestApp;
use crate::support::login::add_account;
use crate::support::mailbox::MailBox;
use crate::support::tools::browser_step;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs chromium and node")]
async fn accounts_in_the_browser() {
    let smtp = MailBox::start();
    let app = TestApp::spawn_with(&["--tls", "off", "--smtp-url", &smtp.url()]).await;
    let d = app.data_dir();
    add_account(&d, "ada@example.com", "Ada Lovelace");
    let owner = app.user_with_key("owner@example.com", "standard");
    let (_, token, _) = crate::recipient_auth::sent(
        &owner,
        "ann@example.com",
        json!({"globalAccessAuth": "ACCOUNT"}),
        Value::Null,
    )
    .await;
    // A recipient with an account, who forgot its password.
    add_account(&d, "bob@example.com", "Bob Babbage");
    let (_, bob_token, _) = crate::recipient_auth::sent(
        &owner,
        "bob@example.com",
        json!({"globalAccessAuth": "ACCOUNT"}),
        Value::Null,
    )
    .await;
    let maildir = smtp.dir().to_path_buf();
    let base = app.url("");
    let args = [
        base.trim_end_matches('/'),
        "ada@example.com",
        crate::support::login::PASSWORD,
        token.as_str(),
        maildir.to_str().unwrap(),
        "bob@example.com",
        bob_token.as_str(),
    ];
    browser_step("accounts.mjs", &args);
    app.stop().await;
}
