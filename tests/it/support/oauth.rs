//! The OAuth side's common steps: Ada and the client "Cal" (`setup`), the consent page
//! (`consent`), the identity endpoint (`me`), and for any signed-in user the access token an
//! app gets through them (`client`, `access_token`).

use std::collections::HashMap;

use serde_json::{Value, json};

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

/// A confidential client named `name`, registered by the server's admin (`docket client add`)
/// with [`REDIRECT`]; returns (client_id, secret).
pub fn client(app: &TestApp, name: &str) -> (String, String) {
    let args = ["client", "add", "--name", name, "--redirect-uri", REDIRECT];
    let c = docket_json(&app.data_dir(), &args, None);
    (
        c["client_id"].as_str().unwrap().to_string(),
        c["client_secret"].as_str().unwrap().to_string(),
    )
}

/// The access token the client `(id, secret)` gets for the signed-in browser `cookie` with
/// `scopes` (comma-separated), as an app does: the consent page allowed, its code exchanged.
pub async fn access_token(
    app: &TestApp,
    cookie: &str,
    (id, secret): (&str, &str),
    scopes: &str,
) -> String {
    let auth = format!(
        "{}?response_type=code&client_id={id}&state=s-1&redirect_uri={}&scope={scopes}",
        app.url("/auth/oauth2/authorize"),
        urlencode(REDIRECT)
    );
    let page = app
        .client
        .get(&auth)
        .header("cookie", cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200, "consent page");
    let html = page.text().await.unwrap();
    let resp = decide(app, cookie, &html, "allow").await;
    assert_eq!(resp.status(), 303, "consent");
    let back = url::Url::parse(resp.headers()["location"].to_str().unwrap()).unwrap();
    let code = back
        .query_pairs()
        .find(|(k, _)| k == "code")
        .map(|(_, v)| v.into_owned())
        .unwrap_or_else(|| panic!("no code in {back}"));
    let resp = app
        .client
        .post(app.url("/api/auth/oauth/token"))
        .json(
            &json!({"code": code, "client_id": id, "client_secret": secret,
            "grant_type": "authorization_code", "redirect_uri": REDIRECT}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200, "token exchange");
    let tokens: Value = resp.json().await.unwrap();
    tokens["access_token"].as_str().unwrap().to_string()
}
