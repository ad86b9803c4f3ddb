//! The login, consent and account pages in headless Chromium (Debian `chromium`, driven by
//! Playwright from npm `playwright-core`; `tests/run.sh` installs both). Screenshots are kept in
//! `target/browser-screenshots/`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{api::add_user, api::create_api_key};
use crate::{harness::TestApp, harness::docket_json};
use crate::{oauth_flow::PASSWORD, oauth_flow::urlencode};

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

fn browser_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/browser")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_consent_and_account_pages_work_in_chromium() {
    let dir = browser_dir();
    assert!(
        dir.join("node_modules/playwright-core").is_dir()
            && std::path::Path::new("/usr/bin/chromium").exists(),
        "browser tests need Debian chromium and `npm ci` in tests/browser: run tests/run.sh"
    );
    let app = TestApp::spawn().await;
    let d = app.data_dir();
    add_ada_with_the_test_password(&d);
    let redirect = fake_app();
    let (id, secret) = add_the_client_cal(&d, &redirect);
    let auth_url = format!(
        "{}?client_id={id}&redirect_uri={}&state=browser-state&scope=READ_PROFILE%20READ_BOOKING",
        app.url("/auth/oauth2/authorize"),
        urlencode(&redirect)
    );
    let out_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/browser-screenshots");
    let base = app.base.clone();
    let output = tokio::task::spawn_blocking(move || {
        Command::new("node")
            .current_dir(&dir)
            .arg("oauth.mjs")
            .args([
                &base,
                &auth_url,
                "ada@example.com",
                PASSWORD,
                &id,
                &secret,
                &redirect,
            ])
            .arg(&out_dir)
            .output()
            .expect("node runs")
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "browser test failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("\"ok\":true"), "{stdout}");
    for shot in [
        "login-desktop",
        "consent-desktop",
        "account-desktop",
        "login-phone",
        "consent-phone",
        "account-phone",
    ] {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join(format!("target/browser-screenshots/{shot}.png"));
        assert!(path.exists(), "{shot} screenshot kept");
    }
    app.stop().await;
}

/// ada@example.com with the test password.
fn add_ada_with_the_test_password(d: &Path) {
    docket_json(
        d,
        &[
            "user",
            "add",
            "ada@example.com",
            "--name",
            "Ada",
            "--password-stdin",
        ],
        Some(&format!("{PASSWORD}\n")),
    );
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
async fn the_api_explorer_lists_every_operation_and_sends_requests() {
    let dir = browser_dir();
    let app = TestApp::spawn().await;
    let d = app.data_dir();
    add_user(&d, "ex@example.com", &["--name", "Ex"]);
    let key = create_api_key(&d, "ex@example.com")["key"]
        .as_str()
        .unwrap()
        .to_string();
    let out_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/browser-screenshots");
    let base = app.base.clone();
    let output = tokio::task::spawn_blocking(move || {
        Command::new("node")
            .current_dir(&dir)
            .args(["explorer.mjs", &base, &key])
            .arg(&out_dir)
            .output()
            .expect("node runs")
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "explorer test failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // The document was really created.
    let c = app.db();
    let title: String = c
        .query_row("SELECT title FROM documents", [], |r| r.get(0))
        .unwrap();
    assert_eq!(title, "From the explorer");
    app.stop().await;
}
