//! The login, consent and account pages in headless Chromium (Debian `chromium`, driven by
//! Playwright from npm `playwright-core`; `tests/run.sh` installs both). Screenshots are kept in
//! `target/browser-screenshots/`.

use std::path::Path;

use crate::support::api::{add_user, create_api_key};
use crate::support::login::{PASSWORD, add_account};
use crate::support::oauth::urlencode;
use crate::support::{TestApp, docket_json, tools};

/// The third-party app's redirect target: a loopback listener that answers every request 200.
fn fake_app() -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut stream = stream;
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 25\r\nconnection: close\r\n\r\napp received the redirect");
        }
    });
    format!("http://127.0.0.1:{port}/cb")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs chromium and node")]
async fn login_consent_and_account_pages_work_in_chromium() {
    let app = TestApp::spawn().await;
    let d = app.data_dir();
    add_account(&d, "ada@example.com", "Ada");
    let redirect = fake_app();
    let (id, secret) = add_the_client_cal(&d, &redirect);
    let auth_url = format!(
        "{}?client_id={id}&redirect_uri={}&state=browser-state&scope=READ_PROFILE%20READ_BOOKING",
        app.url("/auth/oauth2/authorize"),
        urlencode(&redirect)
    );
    let base = app.base.clone();
    let (ok, stdout, stderr) = tokio::task::spawn_blocking(move || {
        let args = [
            &base,
            &auth_url,
            "ada@example.com",
            PASSWORD,
            &id,
            &secret,
            &redirect,
        ];
        tools::browser_script("oauth.mjs", &args)
    })
    .await
    .unwrap();
    assert!(ok, "browser test failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("\"ok\":true"), "{stdout}");
    for shot in [
        "login-desktop",
        "consent-desktop",
        "account-desktop",
        "login-phone",
        "consent-phone",
        "account-phone",
    ] {
        let path = tools::screenshots().join(format!("{shot}.png"));
        assert!(path.exists(), "{shot} screenshot kept");
    }
    app.stop().await;
}

/// The confidential client "Cal" redirecting to `redirect`, with a logo: its id and secret.
fn add_the_client_cal(d: &Path, redirect: &str) -> (String, String) {
    let client = docket_json(
        d,
        &[
            "client",
            "add",
            "--name",
            "Cal",
            "--redirect-uri",
            redirect,
            "--logo-url",
            "https://cal.example.com/logo.png",
        ],
        None,
    );
    let id = client["client_id"].as_str().unwrap().to_string();
    let secret = client["client_secret"].as_str().unwrap().to_string();
    (id, secret)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs chromium and node")]
async fn the_api_explorer_lists_every_operation_and_sends_requests() {
    let app = TestApp::spawn().await;
    let d = app.data_dir();
    add_user(&d, "ex@example.com", &["--name", "Ex"]);
    let key = create_api_key(&d, "ex@example.com")["key"]
        .as_str()
        .unwrap()
        .to_string();
    let base = app.base.clone();
    let (ok, stdout, stderr) =
        tokio::task::spawn_blocking(move || tools::browser_script("explorer.mjs", &[&base, &key]))
            .await
            .unwrap();
    assert!(ok, "explorer test failed:\n{stdout}\n{stderr}");
    // The document was really created.
    let c = app.db();
    let title: String = c
        .query_row("SELECT title FROM documents", [], |r| r.get(0))
        .unwrap();
    assert_eq!(title, "From the explorer");
    app.stop().await;
}
