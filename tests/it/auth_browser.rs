//! Recipient authentication in headless Chromium (`tests/browser/recipient_auth.mjs`): a
//! recipient of an ACCOUNT document creates an account through the mailed link (a real SMTP
//! server) and signs; a TWO_FACTOR_AUTH signer without an authenticator app is offered a code by
//! e-mail and the way to set an app up, rejects a second document without a code, enrols TOTP
//! on the account page, comes back and signs with a computed code; another asks for a code by
//! e-mail, reads it from the mail and signs with it; a PASSKEY signer registers a passkey in
//! Chromium's virtual authenticator and signs with it; a PASSWORD signer types their account
//! password again. The refusals without proof are in `recipient_auth.rs`, through the raw
//! calls.

use serde_json::{Value, json};

use crate::recipient_auth::{account, sent};
use crate::support::TestApp;
use crate::support::login::PASSWORD;
use crate::support::mailbox::MailBox;
use crate::support::tools;

async fn flow(mode: &str, doc_auth: Value, recipient_auth: Value, with_account: bool) {
    let smtp = MailBox::start();
    let url = smtp.url();
    let app = TestApp::spawn_with(&["--tls", "off", "--smtp-url", &url]).await;
    let owner = app.user_with_key("owner@example.com", "enterprise");
    let email = "signer@example.com";
    if with_account {
        account(&app, email);
    }
    let (_, token, _) = sent(&owner, email, doc_auth.clone(), recipient_auth.clone()).await;
    let link = app.url(&format!("/sign/{token}"));
    let md = smtp.dir().to_string_lossy().to_string();
    let mut args: Vec<String> = vec![mode.into(), link, email.into(), PASSWORD.into(), md];
    if mode == "totp" {
        // A second document, which the recipient rejects without a code.
        let (_, token, _) = sent(&owner, email, doc_auth, recipient_auth).await;
        args.push(app.url(&format!("/sign/{token}")));
    }
    tokio::task::spawn_blocking(move || {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        tools::browser_step("recipient_auth.mjs", &refs);
    })
    .await
    .unwrap();
    for shot in shots(mode) {
        for size in ["desktop", "phone"] {
            let path = tools::screenshots().join(format!("{shot}-{size}.png"));
            assert!(path.exists(), "{shot}-{size} screenshot kept");
        }
    }
    app.stop().await;
}

/// The screenshots each flow keeps, at desktop and phone size.
fn shots(mode: &str) -> &'static [&'static str] {
    match mode {
        "account" => &["auth-account-gate"],
        "totp" => &[
            "auth-totp-signin",
            "auth-totp-setup",
            "auth-reject-done",
            "auth-totp-recovery",
            "auth-totp-code",
        ],
        "emailed" => &["auth-email-code", "auth-email-signed"],
        "passkey" => &["auth-passkey-add"],
        _ => &[],
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "outside-tools"),
    ignore = "needs chromium, node and Python's aiosmtpd"
)]
async fn an_account_recipient_creates_an_account_from_the_mail_and_signs_in_chromium() {
    flow(
        "account",
        json!({"globalAccessAuth": "ACCOUNT"}),
        Value::Null,
        false,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "outside-tools"),
    ignore = "needs chromium, node and Python's aiosmtpd"
)]
async fn a_two_factor_signer_enrols_totp_and_signs_with_a_code_in_chromium() {
    flow(
        "totp",
        Value::Null,
        json!({"actionAuth": "TWO_FACTOR_AUTH"}),
        true,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "outside-tools"),
    ignore = "needs chromium, node and Python's aiosmtpd"
)]
async fn a_two_factor_signer_without_an_app_signs_with_an_emailed_code_in_chromium() {
    flow(
        "emailed",
        json!({"globalActionAuth": "TWO_FACTOR_AUTH"}),
        Value::Null,
        true,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "outside-tools"),
    ignore = "needs chromium, node and Python's aiosmtpd"
)]
async fn a_passkey_signer_registers_a_passkey_and_signs_with_it_in_chromium() {
    flow(
        "passkey",
        Value::Null,
        json!({"actionAuth": "PASSKEY"}),
        true,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "outside-tools"),
    ignore = "needs chromium, node and Python's aiosmtpd"
)]
async fn a_password_signer_types_the_account_password_again_in_chromium() {
    flow(
        "password",
        Value::Null,
        json!({"actionAuth": ["PASSWORD"]}),
        true,
    )
    .await;
}
