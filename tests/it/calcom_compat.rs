//! Requests written for the scheduling service's OAuth interface, sent unchanged but for the
//! base URL and the client's credentials: an authorization without `redirect_uri` (the app has
//! one registered), without `scope`, or without `state` (the consent page's click then
//! protects), and the identity check by POST.

use serde_json::Value;

use crate::oauth_rules::pair;
use crate::support::TestApp;
use crate::support::login::{PASSWORD, sign_in};
use crate::support::oauth::{REDIRECT, consent, setup};

fn authorize_url(app: &TestApp, pairs: &[(&str, &str)]) -> String {
    let mut url = url::Url::parse(&app.url("/auth/oauth2/authorize")).unwrap();
    url.query_pairs_mut().extend_pairs(pairs);
    url.to_string()
}

async fn token(app: &TestApp, form: &[(&str, &str)]) -> reqwest::Response {
    app.client
        .post(app.url("/api/auth/oauth/token"))
        .form(form)
        .send()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_without_redirect_uri_or_scope_gets_the_lone_uri_and_the_default_scopes() {
    let app = TestApp::spawn().await;
    let (id, secret) = setup(&app, &[]);
    let cookie = sign_in(&app, "ada@example.com", PASSWORD).await.unwrap();
    let url = authorize_url(&app, &[("client_id", &id), ("state", "st")]);
    let q = consent(&app, &cookie, &url, "allow").await;
    assert_eq!(q["state"], "st");
    // The token request need not name the URI the authorization request did not name.
    let form = [
        ("grant_type", "authorization_code"),
        ("code", q["code"].as_str()),
        ("client_id", &id),
        ("client_secret", &secret),
    ];
    let t: Value = token(&app, &form).await.json().await.unwrap();
    assert_eq!(t["scope"], "READ_BOOKING READ_PROFILE", "{t}");
    // The identity check, by POST as the other service's clients send it.
    let me = app
        .client
        .post(app.url("/api/auth/oauth/me"))
        .bearer_auth(t["access_token"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(me.status(), 200);
    let me: Value = me.json().await.unwrap();
    assert_eq!(me["email"], "ada@example.com");
    // Naming it anyway is fine; naming another is not.
    let q = consent(&app, &cookie, &url, "allow").await;
    let mut form = form.to_vec();
    form[1].1 = q["code"].as_str();
    form.push(("redirect_uri", REDIRECT));
    assert_eq!(token(&app, &form).await.status(), 200);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn several_registered_uris_must_be_named_and_a_named_code_needs_its_uri() {
    let app = TestApp::spawn().await;
    let other = "https://app.example/other";
    let (id, secret) = setup(&app, &["--redirect-uri", other]);
    let url = authorize_url(&app, &[("client_id", &id), ("state", "st")]);
    let page = app.get(url.trim_start_matches(app.base.as_str())).await;
    assert_eq!(page.status(), 400, "no redirect to guess between two URIs");
    // A code whose request named its URI still needs it at the token endpoint.
    let cookie = sign_in(&app, "ada@example.com", PASSWORD).await.unwrap();
    let named = authorize_url(
        &app,
        &[
            ("client_id", &id),
            ("state", "st"),
            ("redirect_uri", REDIRECT),
        ],
    );
    let q = consent(&app, &cookie, &named, "allow").await;
    let form = [
        ("grant_type", "authorization_code"),
        ("code", q["code"].as_str()),
        ("client_id", &id),
        ("client_secret", &secret),
    ];
    assert_eq!(token(&app, &form).await.status(), 400);
    app.stop().await;
}

/// The scheduling service's clients leave `state` out, or send `state=undefined`, and get a
/// code there (issue 57): RFC 6749 recommends `state` to the client, the provider does not need
/// it. Such a request always shows the consent page, whose click is then what stands between a
/// request forged by another site and a code, so `prompt=none` without `state` or PKCE is
/// refused. (Until issue 57 a request with neither was refused outright.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_state_the_consent_click_gives_a_code_and_the_redirect_carries_no_state() {
    let app = TestApp::spawn().await;
    let (id, secret) = setup(&app, &[]);
    let cookie = sign_in(&app, "ada@example.com", PASSWORD).await.unwrap();
    let redeem = |code: String, verifier: Option<String>| {
        let (id, secret) = (id.clone(), secret.clone());
        let app = &app;
        async move {
            let mut form = vec![
                ("grant_type", "authorization_code".to_string()),
                ("code", code),
                ("client_id", id),
                ("client_secret", secret),
            ];
            if let Some(v) = verifier {
                form.push(("code_verifier", v));
            }
            let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
            let (access, _) = pair(token(app, &form).await).await;
            assert!(!access.is_empty());
        }
    };
    // Neither state nor PKCE, as the other service's clients send it: the consent page, then a
    // code at the app's redirect URI, which carries no state.
    let bare = authorize_url(&app, &[("client_id", &id), ("scope", "READ_PROFILE")]);
    let q = consent(&app, &cookie, &bare, "allow").await;
    assert!(!q.contains_key("state"), "{q:?}");
    redeem(q["code"].clone(), None).await;
    // `state=undefined` is a state like any other, and comes back as sent.
    let undefined = authorize_url(&app, &[("client_id", &id), ("state", "undefined")]);
    let q = consent(&app, &cookie, &undefined, "allow").await;
    assert_eq!(q["state"], "undefined");
    redeem(q["code"].clone(), None).await;
    // A silent request (`prompt=none`, everything already allowed) with neither would give a
    // code without any click: refused at the app's redirect URI.
    let silent = authorize_url(
        &app,
        &[
            ("client_id", &id),
            ("scope", "READ_PROFILE"),
            ("prompt", "none"),
        ],
    );
    let resp = app
        .client
        .get(&silent)
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 303);
    let location = resp.headers()["location"].to_str().unwrap();
    assert!(location.contains("error=invalid_request"), "{location}");
    assert!(!location.contains("code="), "{location}");
    // With PKCE: the code comes back without a state, silently too.
    let verifier = "v".repeat(64);
    let challenge = {
        use base64::Engine;
        use sha2::Digest;
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(&verifier))
    };
    let url = authorize_url(
        &app,
        &[
            ("client_id", &id),
            ("scope", "READ_PROFILE"),
            ("code_challenge", &challenge),
            ("code_challenge_method", "S256"),
        ],
    );
    let q = consent(&app, &cookie, &url, "allow").await;
    assert!(!q.contains_key("state"), "{q:?}");
    redeem(q["code"].clone(), Some(verifier)).await;
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_refresh_answer_carries_the_refresh_token_to_keep_using() {
    let app = TestApp::spawn().await;
    let (id, secret) = setup(&app, &[]);
    let cookie = sign_in(&app, "ada@example.com", PASSWORD).await.unwrap();
    let url = authorize_url(&app, &[("client_id", &id), ("state", "st")]);
    let q = consent(&app, &cookie, &url, "allow").await;
    let form = [
        ("grant_type", "authorization_code"),
        ("code", q["code"].as_str()),
        ("client_id", &id),
        ("client_secret", &secret),
    ];
    let (_, refresh) = pair(token(&app, &form).await).await;
    // Without rotation the answer names the same token, on the other service's endpoint (the
    // token as Bearer, as its clients send it, or in the body) and on the standard one.
    let bearer = app
        .client
        .post(app.url("/api/auth/oauth/refreshToken"))
        .bearer_auth(&refresh)
        .json(&serde_json::json!({"client_id": id, "client_secret": secret}))
        .send()
        .await
        .unwrap();
    let (_, kept) = pair(bearer).await;
    assert_eq!(kept, refresh);
    let body = [
        ("grant_type", "refresh_token"),
        ("refresh_token", refresh.as_str()),
        ("client_id", &id),
        ("client_secret", &secret),
    ];
    let in_body = app
        .client
        .post(app.url("/api/auth/oauth/refreshToken"))
        .form(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(pair(in_body).await.1, refresh);
    let (access, kept) = pair(token(&app, &body).await).await;
    assert_eq!(kept, refresh, "and it still works");
    let me = app
        .client
        .get(app.url("/api/auth/oauth/me"))
        .bearer_auth(&access)
        .send()
        .await
        .unwrap();
    assert_eq!(me.status(), 200);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn token_errors_carry_message_beside_error_for_older_integrations() {
    let app = TestApp::spawn().await;
    let (id, secret) = setup(&app, &[]);
    let form = [
        ("grant_type", "authorization_code"),
        ("code", "not-a-code"),
        ("client_id", id.as_str()),
        ("client_secret", secret.as_str()),
    ];
    let resp = token(&app, &form).await;
    assert_eq!(resp.status(), 400);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["error"], "invalid_grant", "{body}");
    assert!(!body["message"].as_str().unwrap().is_empty(), "{body}");
    assert_eq!(body["message"], body["error_description"]);
    app.stop().await;
}
