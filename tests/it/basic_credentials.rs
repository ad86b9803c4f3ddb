//! Client credentials in HTTP Basic (RFC 6749 2.3.1): id and secret are each form-urlencoded;
//! anything that does not decode strictly is refused with 401 `invalid_client` (5.2).

use base64::Engine;
use serde_json::Value;

use crate::support::TestApp;
use crate::support::oauth::setup;

const INTROSPECT: &str = "/api/auth/oauth/introspect";

/// Introspects a made-up token with `Authorization: Basic base64(plain)` and `form`.
async fn introspect(app: &TestApp, plain: &str, form: &[(&str, &str)]) -> reqwest::Response {
    let header = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(plain)
    );
    let mut f = vec![("token", "no-such-token")];
    f.extend_from_slice(form);
    app.client
        .post(app.url(INTROSPECT))
        .header("authorization", header)
        .form(&f)
        .send()
        .await
        .unwrap()
}

/// Every byte as `%XX`: what a client may legitimately send for any id or secret.
fn escape_all(s: &str) -> String {
    s.bytes().map(|b| format!("%{b:02X}")).collect()
}

async fn assert_invalid_client(resp: reqwest::Response, what: &str) {
    assert_eq!(resp.status(), 401, "{what}");
    let challenge = resp.headers()["www-authenticate"].to_str().unwrap();
    assert!(challenge.starts_with("Basic"), "{what}: {challenge}");
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["error"], "invalid_client", "{what}: {body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn basic_credentials_are_form_decoded_strictly() {
    let app = TestApp::spawn().await;
    let (id, secret) = setup(&app, &[]);

    // The controls: plain and fully percent-encoded credentials both authenticate.
    for plain in [
        format!("{id}:{secret}"),
        format!("{}:{}", escape_all(&id), escape_all(&secret)),
    ] {
        let resp = introspect(&app, &plain, &[]).await;
        assert_eq!(resp.status(), 200, "{plain}");
        let body: Value = resp.json().await.unwrap();
        assert_eq!(body["active"], false);
    }

    // A raw '&' or '=' is not form-urlencoded: refused, never read as "the first value".
    let cases = [
        ("a raw & after the secret", format!("{id}:{secret}&x=1")),
        ("a raw = in the secret", format!("{id}:{secret}=")),
        ("a raw & after the id", format!("{id}&x=1:{secret}")),
        ("a broken escape", format!("{id}:{secret}%G1")),
        ("no colon", format!("{id}{secret}")),
    ];
    for (what, plain) in &cases {
        assert_invalid_client(introspect(&app, plain, &[]).await, what).await;
    }
    // Malformed Basic credentials are refused even when the body carries valid ones.
    let form = [
        ("client_id", id.as_str()),
        ("client_secret", secret.as_str()),
    ];
    let resp = introspect(&app, &format!("{id}:{secret}&x=1"), &form).await;
    assert_invalid_client(resp, "malformed Basic beside body credentials").await;
    let resp = app
        .client
        .post(app.url(INTROSPECT))
        .header("authorization", "Basic !!not-base64!!")
        .form(&[("token", "t"), form[0], form[1]])
        .send()
        .await
        .unwrap();
    assert_invalid_client(resp, "Basic that is not base64, beside body credentials").await;
    app.stop().await;
}
