//! Behind a reverse proxy (`--trusted-proxies`): login throttling and the audit log see the
//! client the proxy forwarded, and only a trusted peer's forwarding headers count. The request
//! log shows no signing token.

use std::net::IpAddr;

use nix::sys::signal::Signal;
use serde_json::{Value, json};

use crate::support::api::fixture;
use crate::support::login::{LoginForm, PASSWORD, add_account};
use crate::support::{BinServer, TestApp, client};

/// One login post of `form` as forwarded for `forwarded_for`: the status.
async fn login_as(
    app: &TestApp,
    form: &LoginForm,
    forwarded_for: &str,
    email: &str,
    password: &str,
) -> u16 {
    forwarded(form.request(app, email, password), forwarded_for).await
}

/// Sends `request` as a proxy forwarding it for `forwarded_for` would: the status.
async fn forwarded(request: reqwest::RequestBuilder, forwarded_for: &str) -> u16 {
    request
        .header("x-forwarded-for", forwarded_for)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_logins_of_forwarded_clients_lock_out_no_other_client() {
    let app = TestApp::spawn_with(&["--tls", "off", "--trusted-proxies", "127.0.0.1/32"]).await;
    add_account(&app.data_dir(), "ada@example.com", "Ada");
    let form = LoginForm::open(&app, "/auth/login").await;
    // Sixty guesses at made-up accounts, each from another client behind the proxy: the
    // proxy's own address would have been locked after forty.
    for i in 0..60 {
        let status = login_as(
            &app,
            &form,
            &format!("198.51.100.{i}"),
            &format!("nobody{i}@example.com"),
            "wrong password",
        )
        .await;
        assert_eq!(status, 401, "guess {i}");
    }
    assert_eq!(
        login_as(&app, &form, "203.0.113.5", "ada@example.com", PASSWORD).await,
        303,
        "another client behind the same proxy signs in"
    );
    app.stop().await;
}

/// Asks "Forgot password?" for `email` as forwarded for `forwarded_for`: the status.
async fn forgot_as(app: &TestApp, form: &LoginForm, email: &str, forwarded_for: &str) -> u16 {
    let mut fields = form.fields.clone();
    fields.push(("email".into(), email.into()));
    let request = app
        .client
        .post(app.url("/auth/forgot"))
        .header("cookie", &form.cookie)
        .form(&fields);
    forwarded(request, forwarded_for).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_address_of_one_ipv6_slash_64_is_one_client_to_the_per_client_limits() {
    let app = TestApp::spawn_with(&["--tls", "off", "--trusted-proxies", "127.0.0.1/32"]).await;
    let form = LoginForm::open(&app, "/auth/forgot").await;
    // Twelve reset links an hour per client: each from a fresh address of one /64, as a host
    // that picks a new address for every request would send them.
    for i in 0..12 {
        let from = format!("2001:db8:5:6:{:x}::{:x}", i + 1, 7 * i + 3);
        let status = forgot_as(&app, &form, &format!("p{i}@example.com"), &from).await;
        assert_eq!(status, 303, "request {i} from {from}: sent, to its page");
    }
    assert_eq!(
        forgot_as(&app, &form, "q@example.com", "2001:db8:5:6:ffff:1:2:3").await,
        429,
        "a thirteenth address of the same /64 is the same client"
    );
    assert_eq!(
        forgot_as(&app, &form, "q@example.com", "2001:db8:5:7::1").await,
        303,
        "the next /64 is another client"
    );
    assert_eq!(
        forgot_as(&app, &form, "r@example.com", "203.0.113.77").await,
        303
    );
    // Failed logins from three addresses of one /64 count against one client.
    let login = LoginForm::open(&app, "/auth/login").await;
    for (i, from) in [
        "2001:db8:9:9::1",
        "2001:db8:9:9:1::1",
        "2001:db8:9:9:ab::cd",
    ]
    .iter()
    .enumerate()
    {
        let email = format!("nobody{i}@example.com");
        assert_eq!(login_as(&app, &login, from, &email, "wrong").await, 401);
    }
    let counted: Vec<(String, i64)> = app
        .db()
        .query_map(
            "SELECT key, failures FROM login_failures WHERE key LIKE 'ip:%'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(counted, [("ip:2001:db8:9:9::".to_string(), 3)]);
    app.stop().await;
}

async fn upload_from(app: &TestApp, local: Option<&str>, url: &str, forwarded_for: &str) {
    let mut b = reqwest::Client::builder().resolve("localhost", app.addr);
    if let Some(ip) = local {
        b = b.local_address(ip.parse::<IpAddr>().unwrap());
    }
    let resp = b
        .build()
        .unwrap()
        .put(url)
        .header("content-type", "application/pdf")
        .header("x-forwarded-for", forwarded_for)
        .header("forwarded", "for=192.0.2.66")
        .body(fixture("a4-1p.pdf"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_audit_log_records_the_forwarded_client_only_from_a_trusted_proxy() {
    let app = TestApp::spawn_with(&["--tls", "off", "--trusted-proxies", "127.0.0.1/32"]).await;
    let api = app.user_with_key("owner@example.com", "standard");
    let created = api
        .create_document(json!({"title": "t", "recipients": []}))
        .await;
    let id = created.document_id();
    let url = created.upload_url();
    // Through the proxy (127.0.0.1): the client wrote 6.6.6.6 itself, the proxy appended the
    // address it saw.
    upload_from(&app, Some("127.0.0.1"), url, "6.6.6.6, 203.0.113.9").await;
    // Straight from an untrusted peer: its headers are ignored.
    upload_from(&app, Some("127.0.0.2"), url, "203.0.113.10").await;
    let log: Value = api
        .get_response(&format!("/api/v1/documents/{id}/audit-log"))
        .await
        .json()
        .await
        .unwrap();
    let ips: Vec<&str> = log["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "UPLOADED")
        .map(|e| e["ipAddress"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(ips, ["203.0.113.9", "127.0.0.2"], "{log}");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_request_log_does_not_show_signing_tokens() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let mut server = BinServer::start_in(&data, &["--tls", "off", "--log-format", "json"]);
    let token = "Rt7KqW2mZpL9xYc4VbN8sD3fG6hJ1aE5";
    let c = client(server.addr, None);
    for path in [
        format!("/sign/{token}"),
        format!("/sign/{token}/state"),
        format!("/sign/{token}/pages/1-800.png"),
    ] {
        let resp = c
            .get(format!("http://127.0.0.1:{}{path}", server.addr.port()))
            .send()
            .await
            .unwrap();
        assert!(resp.status().is_client_error(), "{path}");
    }
    let stderr = server.stderr.take().unwrap();
    assert_eq!(server.stop_with(Signal::SIGTERM).code(), Some(0));
    let logs = std::io::read_to_string(stderr).unwrap();
    assert!(!logs.contains(token), "the token is in the log: {logs}");
    let paths: Vec<String> = logs
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| v["path"].as_str().map(str::to_string))
        .collect();
    assert!(
        paths.contains(&"/sign/[redacted]/state".to_string()),
        "{paths:?}"
    );
}
