//! What the server answers today for a repeated, a missing and an unknown parameter: on the
//! token endpoint (form and JSON bodies), refresh, revoke, introspect, the authorization
//! endpoint (query and consent form), signed URLs, the `apiKey` query and a few API queries.
//! Written before these routes read their parameters into types, so that the change keeps
//! every answer: the last of a repeated parameter counts, unknown ones are ignored, and a
//! missing one gets the same refusal as before.

use reqwest::Response;
use serde_json::{Value, json};

use crate::oauth_rules::{code, pair};
use crate::support::TestApp;
use crate::support::api::{fixture, two_recipients};
use crate::support::login::{PASSWORD, hidden_inputs, sign_in};
use crate::support::oauth::{REDIRECT, setup};

const EMAIL: &str = "ada@example.com";
const TOKEN: &str = "/api/auth/oauth/token";
const REFRESH: &str = "/api/auth/oauth/refreshToken";
const REVOKE: &str = "/api/auth/oauth/revoke";
const INTROSPECT: &str = "/api/auth/oauth/introspect";

/// A form, and the status and `error` it gets.
type Case<'a> = (Vec<(&'a str, &'a str)>, u16, &'a str);

async fn form(app: &TestApp, path: &str, pairs: &[(&str, &str)]) -> Response {
    app.client
        .post(app.url(path))
        .form(pairs)
        .send()
        .await
        .unwrap()
}

async fn raw_json(app: &TestApp, path: &str, body: &str) -> Response {
    app.client
        .post(app.url(path))
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap()
}

/// The status and RFC 6749 `error` of an answer (`""` when it has none).
async fn outcome(resp: Response) -> (u16, String) {
    let status = resp.status().as_u16();
    let body: Value = resp.json().await.unwrap_or(Value::Null);
    let error = body["error"].as_str().unwrap_or_default().to_string();
    (status, error)
}

async fn expect(resp: Response, status: u16, error: &str, what: &str) -> Value {
    let got = resp.status().as_u16();
    let body: Value = resp.json().await.unwrap_or(Value::Null);
    assert_eq!(got, status, "{what}: {body}");
    assert_eq!(
        body["error"].as_str().unwrap_or_default(),
        error,
        "{what}: {body}"
    );
    body
}

fn authorize_url(app: &TestApp, pairs: &[(&str, &str)]) -> String {
    let mut url = url::Url::parse(&app.url("/auth/oauth2/authorize")).unwrap();
    url.query_pairs_mut().extend_pairs(pairs);
    url.to_string()
}

async fn get(app: &TestApp, url: &str, cookie: Option<&str>) -> Response {
    let mut req = app.client.get(url);
    if let Some(c) = cookie {
        req = req.header("cookie", c);
    }
    req.send().await.unwrap()
}

fn location(resp: &Response) -> String {
    resp.headers()
        .get("location")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default()
}

/// The query parameter `name` of URL (or path) `location`.
fn param(location: &str, name: &str) -> Option<String> {
    let url = url::Url::parse(location)
        .or_else(|_| url::Url::parse("http://x/").unwrap().join(location))
        .unwrap();
    url.query_pairs()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
}

mod api;
mod authorize;
mod token;
