//! The OAuth provider end to end: a real client library (the `oauth2` crate), seed-style
//! clients, and the rules and errors of the spec.

use std::collections::HashMap;

use oauth2::basic::BasicClient;
use oauth2::{
    AuthType, AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, PkceCodeChallenge,
    RedirectUrl, Scope, TokenResponse, TokenUrl,
};
use serde_json::{Value, json};

use crate::{harness::TestApp, harness::docket_json};

pub const REDIRECT: &str = "https://app.example/cb";
pub const PASSWORD: &str = "a long test password";

/// A user and a confidential client; returns (client_id, secret).
pub fn setup(app: &TestApp, extra: &[&str]) -> (String, String) {
    let d = app.data_dir();
    docket_json(
        &d,
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
    let mut args = vec!["client", "add", "--name", "Cal", "--redirect-uri", REDIRECT];
    args.extend_from_slice(extra);
    let c = docket_json(&d, &args, None);
    (
        c["client_id"].as_str().unwrap().to_string(),
        c["client_secret"].as_str().unwrap_or_default().to_string(),
    )
}

fn unescape(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// Every `<input type="hidden" name=.. value=..>` of a page.
pub fn hidden_inputs(html: &str) -> Vec<(String, String)> {
    html.split("<input type=\"hidden\" ")
        .skip(1)
        .filter_map(|rest| {
            let name = rest.split("name=\"").nth(1)?.split('"').next()?;
            let value = rest.split("value=\"").nth(1)?.split('"').next()?;
            Some((name.to_string(), unescape(value)))
        })
        .collect()
}

pub fn set_cookie_pairs(resp: &reqwest::Response) -> Vec<String> {
    resp.headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok()?.split(';').next().map(str::to_string))
        .collect()
}

/// Logs in through the login page; returns the `Cookie` header to send afterwards.
pub async fn login(
    app: &TestApp,
    email: &str,
    password: &str,
) -> Result<String, reqwest::StatusCode> {
    let page = app.get("/auth/login").await;
    let pre = set_cookie_pairs(&page).join("; ");
    let html = page.text().await.unwrap();
    let mut form: Vec<(String, String)> = hidden_inputs(&html);
    form.push(("email".into(), email.into()));
    form.push(("password".into(), password.into()));
    let resp = app
        .client
        .post(app.url("/auth/login"))
        .header("cookie", &pre)
        .form(&form)
        .send()
        .await
        .unwrap();
    if resp.status() != 303 {
        return Err(resp.status());
    }
    let session = set_cookie_pairs(&resp).join("; ");
    Ok(format!("{pre}; {session}"))
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
    let mut form = hidden_inputs(&html);
    form.push(("decision".into(), decision.into()));
    let resp = app
        .client
        .post(app.url("/auth/oauth2/authorize"))
        .header("cookie", cookie)
        .form(&form)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 303);
    let location = resp.headers()["location"].to_str().unwrap();
    assert!(location.starts_with(REDIRECT), "{location}");
    location.to_string()
}

fn oauth_client(
    app: &TestApp,
    id: &str,
    secret: &str,
) -> oauth2::Client<
    oauth2::basic::BasicErrorResponse,
    oauth2::basic::BasicTokenResponse,
    oauth2::basic::BasicTokenIntrospectionResponse,
    oauth2::StandardRevocableToken,
    oauth2::basic::BasicRevocationErrorResponse,
    oauth2::EndpointSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointSet,
> {
    BasicClient::new(ClientId::new(id.into()))
        .set_client_secret(ClientSecret::new(secret.into()))
        .set_auth_uri(AuthUrl::new(app.url("/auth/oauth2/authorize")).unwrap())
        .set_token_uri(TokenUrl::new(app.url("/api/auth/oauth/token")).unwrap())
        .set_redirect_uri(RedirectUrl::new(REDIRECT.into()).unwrap())
}

pub async fn me(app: &TestApp, token: &str) -> reqwest::Response {
    app.client
        .get(app.url("/api/auth/oauth/me"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_oauth2_crate_completes_code_pkce_and_refresh_with_basic_and_body_credentials() {
    let app = TestApp::spawn().await;
    let (id, secret) = setup(&app, &[]);
    let cookie = login(&app, "ada@example.com", PASSWORD).await.unwrap();
    for auth_type in [AuthType::BasicAuth, AuthType::RequestBody] {
        let client = oauth_client(&app, &id, &secret).set_auth_type(auth_type);
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let (url, csrf) = client
            .authorize_url(CsrfToken::new_random)
            .add_scope(Scope::new("READ_PROFILE".into()))
            .add_scope(Scope::new("READ_BOOKING".into()))
            .set_pkce_challenge(challenge)
            .url();
        let q = consent(&app, &cookie, url.as_str(), "allow").await;
        assert_eq!(q["state"], *csrf.secret(), "state comes back unchanged");
        assert_eq!(q["iss"], app.base, "iss names this server");

        let token = client
            .exchange_code(AuthorizationCode::new(q["code"].clone()))
            .set_pkce_verifier(verifier)
            .request_async(&app.client)
            .await
            .expect("code exchange");
        let scopes: Vec<String> = token
            .scopes()
            .unwrap()
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(scopes, vec!["READ_BOOKING", "READ_PROFILE"]);
        let resp = me(&app, token.access_token().secret()).await;
        assert_eq!(resp.status(), 200);
        let body: Value = resp.json().await.unwrap();
        assert_eq!(
            body,
            json!({"id": 1, "username": "ada", "name": "Ada", "email": "ada@example.com"})
        );

        let refreshed = client
            .exchange_refresh_token(token.refresh_token().unwrap())
            .request_async(&app.client)
            .await
            .expect("refresh");
        assert_ne!(
            refreshed.access_token().secret(),
            token.access_token().secret()
        );
        assert_eq!(
            me(&app, refreshed.access_token().secret()).await.status(),
            200
        );
    }
    app.stop().await;
}

/// A seed-style client: no response_type, JSON bodies, the refresh token as a Bearer header.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seed_style_clients_work() {
    let app = TestApp::spawn().await;
    let (id, secret) = setup(&app, &[]);
    let cookie = login(&app, "ada@example.com", PASSWORD).await.unwrap();
    let auth = format!(
        "{}?client_id={id}&state=s-123&redirect_uri={}&scope=READ_BOOKING,READ_PROFILE",
        app.url("/auth/oauth2/authorize"),
        urlencode(REDIRECT)
    );
    let q = consent(&app, &cookie, &auth, "allow").await;
    assert_eq!(q["state"], "s-123");
    let resp = app
        .client
        .post(app.url("/api/auth/oauth/token"))
        .json(&json!({"code": q["code"], "client_id": id, "client_secret": secret, "grant_type": "authorization_code", "redirect_uri": REDIRECT}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["cache-control"], "no-store");
    let tokens: Value = resp.json().await.unwrap();
    let access = tokens["access_token"].as_str().unwrap();
    let refresh = tokens["refresh_token"].as_str().unwrap();
    assert_eq!(tokens["token_type"], "Bearer");
    assert_eq!(tokens["expires_in"], 3600);

    let resp = app
        .client
        .post(app.url("/api/auth/oauth/refreshToken"))
        .bearer_auth(refresh)
        .json(&json!({"grant_type": "refresh_token", "client_id": id, "client_secret": secret}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let body: Value = resp.json().await.unwrap();
    let new_access = body["access_token"].as_str().unwrap();
    assert_ne!(new_access, access);
    assert_eq!(
        body["refresh_token"], refresh,
        "confidential clients keep their refresh token, and every answer carries it"
    );
    assert_eq!(me(&app, new_access).await.status(), 200);
    app.stop().await;
}

pub fn urlencode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}
