//! The OAuth provider's rules, one test each, through the real server: what the authorization
//! endpoint may and may not redirect, the token endpoint's errors, single-use codes, PKCE,
//! client binding, scopes, revocation, CSRF, throttling and storage. Spec:
//! /work/shared/spec/oauth.md.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use oauth2::PkceCodeChallenge;
use reqwest::Response;
use serde_json::Value;

use crate::support::login::{
    LoginForm, PASSWORD, add_account, hidden_inputs, set_cookie_pairs, sign_in,
};
use crate::support::oauth::{REDIRECT, consent, decide, me, setup};
use crate::support::{TestApp, docket_json};

mod authorize;
mod codes;
mod refresh;
mod sessions;

const EMAIL: &str = "ada@example.com";
const TOKEN: &str = "/api/auth/oauth/token";
const REFRESH: &str = "/api/auth/oauth/refreshToken";
const REVOKE: &str = "/api/auth/oauth/revoke";
const INTROSPECT: &str = "/api/auth/oauth/introspect";

type Pairs<'a> = Vec<(&'a str, &'a str)>;

/// The authorization URL for `client_id` with `params` (in order; none implied).
fn auth_url(app: &TestApp, params: &[(&str, &str)]) -> String {
    let mut url = url::Url::parse(&app.url("/auth/oauth2/authorize")).unwrap();
    url.query_pairs_mut().extend_pairs(params);
    url.to_string()
}

/// A valid authorization URL: `client_id`, REDIRECT, a state, `scope`, plus `extra`.
fn valid_auth_url(app: &TestApp, client_id: &str, scope: &str, extra: &[(&str, &str)]) -> String {
    let mut p = vec![
        ("client_id", client_id),
        ("redirect_uri", REDIRECT),
        ("state", "st-1"),
        ("scope", scope),
    ];
    p.extend_from_slice(extra);
    auth_url(app, &p)
}

/// Allows the request as the logged-in user; returns the code.
pub async fn code(
    app: &TestApp,
    cookie: &str,
    client_id: &str,
    scope: &str,
    extra: &[(&str, &str)],
) -> String {
    let q = consent(
        app,
        cookie,
        &valid_auth_url(app, client_id, scope, extra),
        "allow",
    )
    .await;
    q.get("code").expect("a code").clone()
}

async fn get_with(app: &TestApp, url: &str, cookie: Option<&str>) -> Response {
    let mut req = app.client.get(url);
    if let Some(c) = cookie {
        req = req.header("cookie", c);
    }
    req.send().await.unwrap()
}

async fn post_form(app: &TestApp, path: &str, form: &[(&str, &str)]) -> Response {
    app.client
        .post(app.url(path))
        .form(form)
        .send()
        .await
        .unwrap()
}

/// `form` plus the client's credentials in the body (no secret for public clients).
fn with_client<'a>(
    id: &'a str,
    secret: &'a str,
    form: &[(&'a str, &'a str)],
) -> Vec<(&'a str, &'a str)> {
    let mut f = form.to_vec();
    f.push(("client_id", id));
    if !secret.is_empty() {
        f.push(("client_secret", secret));
    }
    f
}

/// Redeems `code` (redirect_uri REDIRECT) with `extra` fields.
pub async fn redeem(
    app: &TestApp,
    id: &str,
    secret: &str,
    code: &str,
    extra: &[(&str, &str)],
) -> Response {
    let mut form = vec![
        ("grant_type", "authorization_code"),
        ("code", code),
        ("redirect_uri", REDIRECT),
    ];
    form.extend_from_slice(extra);
    post_form(app, TOKEN, &with_client(id, secret, &form)).await
}

/// The seed's refresh endpoint, refresh token in the body.
pub async fn refresh(app: &TestApp, id: &str, secret: &str, rt: &str) -> Response {
    let form = [("grant_type", "refresh_token"), ("refresh_token", rt)];
    post_form(app, REFRESH, &with_client(id, secret, &form)).await
}

/// A 200 token response's body (checked for `no-store`).
async fn tokens(resp: Response) -> Value {
    assert_eq!(resp.status(), 200, "token response");
    assert_eq!(resp.headers()["cache-control"], "no-store");
    resp.json().await.unwrap()
}

fn s(v: &Value, k: &str) -> String {
    v[k].as_str()
        .unwrap_or_else(|| panic!("{k} in {v}"))
        .to_string()
}

/// (access, refresh) of a 200 token response.
pub async fn pair(resp: Response) -> (String, String) {
    let t = tokens(resp).await;
    (s(&t, "access_token"), s(&t, "refresh_token"))
}

/// Asserts an RFC 6749 5.2 error with `status`; returns its `error`.
async fn oauth_error(resp: Response, status: u16) -> String {
    assert_eq!(resp.status(), status);
    assert_eq!(resp.headers()["cache-control"], "no-store");
    let body: Value = resp.json().await.unwrap();
    assert!(body["error_description"].is_string(), "{body}");
    s(&body, "error")
}

fn location(resp: &Response) -> Option<String> {
    resp.headers()
        .get("location")
        .map(|v| v.to_str().unwrap().to_string())
}

fn query_of(url: &str) -> HashMap<String, String> {
    url::Url::parse(url)
        .unwrap()
        .query_pairs()
        .into_owned()
        .collect()
}

/// A second confidential client on REDIRECT; (client_id, secret).
fn other_client(app: &TestApp, name: &str, extra: &[&str]) -> (String, String) {
    let mut args = vec!["client", "add", "--name", name, "--redirect-uri", REDIRECT];
    args.extend_from_slice(extra);
    let c = docket_json(&app.data_dir(), &args, None);
    (
        s(&c, "client_id"),
        c["client_secret"].as_str().unwrap_or_default().to_string(),
    )
}

/// Allows `url` as whoever `cookie` is logged in as (any user, any client); the redirect's query.
async fn allow(app: &TestApp, cookie: &str, url: &str) -> HashMap<String, String> {
    let page = get_with(app, url, Some(cookie)).await;
    assert_eq!(page.status(), 200, "consent page");
    let resp = decide(app, cookie, &page.text().await.unwrap(), "allow").await;
    assert_eq!(resp.status(), 303);
    query_of(&location(&resp).unwrap())
}

/// One login attempt through the page (fresh login CSRF); the raw answer.
async fn login_attempt(app: &TestApp, email: &str, password: &str) -> Response {
    LoginForm::open(app, "/auth/login")
        .await
        .post(app, email, password)
        .await
}

async fn assert_page_400(resp: Response, what: &str) {
    assert_eq!(resp.status(), 400, "{what}");
    assert!(location(&resp).is_none(), "{what}: never a redirect");
    let ct = resp.headers()["content-type"].to_str().unwrap().to_string();
    assert!(ct.starts_with("text/html"), "{what}: {ct}");
    assert!(resp.text().await.unwrap().contains("<html"), "{what}");
}

/// The form `token=<token>` plus client `cid`'s credentials, as owned pairs.
fn owned_with_client(cid: &str, csecret: &str, token: &str) -> Vec<(String, String)> {
    with_client(cid, csecret, &[("token", token)])
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Introspects `token` as client `cid` (asserting 200): the answer.
pub async fn introspect(app: &TestApp, cid: &str, csecret: &str, token: &str) -> Value {
    let resp = introspect_call(app, cid, csecret, token).await;
    assert_eq!(resp.status(), 200);
    resp.json::<Value>().await.unwrap()
}

/// Introspects `token` as client `cid`: the response, whatever its status.
pub async fn introspect_call(app: &TestApp, cid: &str, csecret: &str, token: &str) -> Response {
    let form = owned_with_client(cid, csecret, token);
    let req = app.client.post(app.url(INTROSPECT)).form(&form);
    req.send().await.unwrap()
}

/// Revokes `token` as client `cid`.
pub async fn revoke(app: &TestApp, cid: &str, csecret: &str, token: &str) -> Response {
    let form = owned_with_client(cid, csecret, token);
    let req = app.client.post(app.url(REVOKE)).form(&form);
    req.send().await.unwrap()
}
