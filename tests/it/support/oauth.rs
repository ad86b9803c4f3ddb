//! The OAuth side's common steps: Ada and the client "Cal" (`setup`), the consent page
//! (`consent`), and the identity endpoint (`me`).

use std::collections::HashMap;

use super::cli::docket_json;
use super::login::{add_account, hidden_inputs};
use super::server::TestApp;

/// Where the test client "Cal" is sent back to.
pub const REDIRECT: &str = "https://app.example/cb";

/// A user and a confidential client; returns (client_id, secret).
pub fn setup(app: &TestApp, extra: &[&str]) -> (String, String) {
    let d = app.data_dir();
    add_account(&d, "ada@example.com", "Ada");
    let mut args = vec!["client", "add", "--name", "Cal", "--redirect-uri", REDIRECT];
    args.extend_from_slice(extra);
    let c = docket_json(&d, &args, None);
    (
        c["client_id"].as_str().unwrap().to_string(),
        c["client_secret"].as_str().unwrap_or_default().to_string(),
    )
}

/// Follows an authorization URL as a logged-in user and clicks `decision`; returns the
/// redirect's query parameters.
pub async fn consent(
    app: &TestApp,
    cookie: &str,
    auth_url: &str,
    decision: &str,
) -> HashMap<String, String> {
    let location = consent_location(app, cookie, auth_url, decision).await;
    url::Url::parse(&location)
        .unwrap()
        .query_pairs()
        .into_owned()
        .collect()
}

/// As `consent`, the whole URL the browser is sent back to.
pub async fn consent_location(
    app: &TestApp,
    cookie: &str,
    auth_url: &str,
    decision: &str,
) -> String {
    let page = app
        .client
        .get(auth_url)
        .header("cookie", cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200, "consent page");
    let csp = page.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        csp.contains("form-action 'self' https://app.example"),
        "{csp}"
    );
    let html = page.text().await.unwrap();
    assert!(html.contains("Cal") && html.contains("ada@example.com"));
    let resp = decide(app, cookie, &html, decision).await;
    assert_eq!(resp.status(), 303);
    let location = resp.headers()["location"].to_str().unwrap();
    assert!(location.starts_with(REDIRECT), "{location}");
    location.to_string()
}

pub async fn me(app: &TestApp, token: &str) -> reqwest::Response {
    app.client
        .get(app.url("/api/auth/oauth/me"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
}

pub fn urlencode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// Posts the form of the consent page `html` as `cookie` with `decision` ("allow" or "deny"):
/// the answer.
pub async fn decide(app: &TestApp, cookie: &str, html: &str, decision: &str) -> reqwest::Response {
    let mut form = hidden_inputs(html);
    form.push(("decision".into(), decision.into()));
    app.client
        .post(app.url("/auth/oauth2/authorize"))
        .header("cookie", cookie)
        .form(&form)
        .send()
        .await
        .unwrap()
}
