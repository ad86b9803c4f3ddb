//! OpenID Connect at the protocol level: discovery, the key set, when an ID token is issued,
//! what userinfo tells, and the authorization request's `prompt`, `max_age` and `login_hint`
//! (the client libraries' own runs are in `clients.rs`).

use std::collections::HashMap;
use std::time::Duration;

use serde_json::Value;

use crate::oauth_rules::{code, redeem};
use crate::support::TestApp;
use crate::support::login::{LoginForm, PASSWORD, sign_in};
use crate::support::oauth::{REDIRECT, consent, setup};

async fn json(app: &TestApp, path: &str) -> Value {
    let resp = app.get(path).await;
    assert_eq!(resp.status(), 200, "{path}");
    resp.json().await.unwrap()
}

async fn userinfo(app: &TestApp, token: &str) -> reqwest::Response {
    app.client
        .get(app.url("/api/auth/oauth/userinfo"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
}

/// The payload of a compact JWS, decoded (its signature is checked by the library tests).
fn jwt_claims(token: &str) -> Value {
    use base64::Engine;
    let payload = token.split('.').nth(1).expect("three parts");
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_and_the_key_set_describe_what_is_served() {
    let app = TestApp::spawn().await;
    let m = json(&app, "/.well-known/openid-configuration").await;
    let base = app.base.as_str();
    assert_eq!(m["issuer"], base);
    assert_eq!(m["jwks_uri"], format!("{base}/.well-known/jwks.json"));
    assert_eq!(
        m["userinfo_endpoint"],
        format!("{base}/api/auth/oauth/userinfo")
    );
    assert_eq!(m["id_token_signing_alg_values_supported"][0], "RS256");
    assert_eq!(m["subject_types_supported"][0], "public");
    let listed = |key: &str, value: &str| {
        m[key]
            .as_array()
            .unwrap_or_else(|| panic!("{key} in {m}"))
            .iter()
            .any(|v| v == value)
    };
    assert!(listed("claims_supported", "auth_time"));
    for p in ["none", "login", "consent", "select_account"] {
        assert!(listed("prompt_values_supported", p), "{p}");
    }
    for s in ["openid", "profile", "email", "READ_PROFILE"] {
        assert!(
            m["scopes_supported"]
                .as_array()
                .unwrap()
                .iter()
                .any(|v| v == s),
            "{s}"
        );
    }
    let oauth = json(&app, "/.well-known/oauth-authorization-server").await;
    assert_eq!(oauth["userinfo_endpoint"], m["userinfo_endpoint"]);
    let keys = json(&app, "/.well-known/jwks.json").await;
    let key = &keys["keys"][0];
    assert_eq!(key["kty"], "RSA");
    assert_eq!(key["alg"], "RS256");
    assert!(key["kid"].is_string() && key["n"].is_string(), "{keys}");
    assert!(key.get("d").is_none(), "no private part is published");
    // The same key after a restart: tokens signed before stay verifiable.
    let data = app.stop().await;
    let again = TestApp::spawn_in(data, &["--tls", "off"]).await;
    assert_eq!(json(&again, "/.well-known/jwks.json").await, keys);
    again.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_id_token_comes_only_with_openid_and_userinfo_tells_what_the_scopes_allow() {
    let app = TestApp::spawn().await;
    let (id, secret) = setup(&app, &[]);
    let cookie = sign_in(&app, "ada@example.com", PASSWORD).await.unwrap();

    // Without openid: no ID token, and userinfo is refused.
    let c = code(&app, &cookie, &id, "READ_BOOKING", &[]).await;
    let t: Value = redeem(&app, &id, &secret, &c, &[])
        .await
        .json()
        .await
        .unwrap();
    assert!(t.get("id_token").is_none(), "{t}");
    let resp = userinfo(&app, t["access_token"].as_str().unwrap()).await;
    assert_eq!(resp.status(), 403);

    // openid alone: the ID token names the user and echoes the nonce; userinfo says only `sub`.
    let c = code(&app, &cookie, &id, "openid", &[("nonce", "n-42")]).await;
    let t: Value = redeem(&app, &id, &secret, &c, &[])
        .await
        .json()
        .await
        .unwrap();
    let claims = jwt_claims(t["id_token"].as_str().unwrap());
    assert_eq!(claims["nonce"], "n-42");
    assert_eq!(claims["aud"], id.as_str());
    assert_eq!(claims["iss"], app.base.as_str());
    assert!(claims.get("email").is_none(), "{claims}");
    let info: Value = userinfo(&app, t["access_token"].as_str().unwrap())
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(info, serde_json::json!({"sub": claims["sub"]}));

    // openid email: the address, never claimed verified.
    let c = code(&app, &cookie, &id, "openid email", &[]).await;
    let t: Value = redeem(&app, &id, &secret, &c, &[])
        .await
        .json()
        .await
        .unwrap();
    let claims = jwt_claims(t["id_token"].as_str().unwrap());
    assert!(claims.get("nonce").is_none(), "no nonce was sent: {claims}");
    assert_eq!(claims["email"], "ada@example.com");
    assert_eq!(claims["email_verified"], false);
    app.stop().await;
}

/// An authorization URL asking Ada's app for `openid` (state `st`), plus `extra`.
fn authorize(app: &TestApp, client_id: &str, extra: &[(&str, &str)]) -> String {
    authorize_for(app, client_id, "openid", extra)
}

/// As `authorize`, for `scope`.
fn authorize_for(app: &TestApp, client_id: &str, scope: &str, extra: &[(&str, &str)]) -> String {
    let mut url = url::Url::parse(&app.url("/auth/oauth2/authorize")).unwrap();
    url.query_pairs_mut().extend_pairs([
        ("client_id", client_id),
        ("redirect_uri", REDIRECT),
        ("state", "st"),
        ("scope", scope),
    ]);
    url.query_pairs_mut().extend_pairs(extra);
    url.to_string()
}

/// GETs `url` (with `cookie`, if any): the status and the redirect's `Location`, if any.
async fn visit(app: &TestApp, url: &str, cookie: Option<&str>) -> (u16, String) {
    let mut req = app.client.get(url);
    if let Some(c) = cookie {
        req = req.header("cookie", c);
    }
    let resp = req.send().await.unwrap();
    let location = resp
        .headers()
        .get("location")
        .map(|l| l.to_str().unwrap().to_string())
        .unwrap_or_default();
    (resp.status().as_u16(), location)
}

/// The query parameters of a URL (relative ones on this site too).
fn query(location: &str) -> HashMap<String, String> {
    url::Url::parse("https://docket.invalid/")
        .unwrap()
        .join(location)
        .unwrap()
        .query_pairs()
        .into_owned()
        .collect()
}

/// The ID token's claims for `code`.
async fn id_claims(app: &TestApp, id: &str, secret: &str, code: &str) -> Value {
    let t: Value = redeem(app, id, secret, code, &[])
        .await
        .json()
        .await
        .unwrap();
    jwt_claims(t["id_token"].as_str().unwrap_or_else(|| panic!("{t}")))
}

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// Signs in as Ada on the login page at `location` (where the authorization endpoint sent the
/// browser): the new `Cookie` header, and where the login sends the browser next.
async fn sign_in_at(app: &TestApp, location: &str) -> (String, String) {
    assert!(location.starts_with("/auth/login?"), "{location}");
    let form = LoginForm::open(app, location).await;
    let resp = form.post(app, "ada@example.com", PASSWORD).await;
    assert_eq!(resp.status(), 303);
    let next = resp.headers()["location"].to_str().unwrap().to_string();
    (form.cookie_after(&resp), next)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompt_none_answers_without_a_page_or_says_why_it_cannot() {
    let app = TestApp::spawn().await;
    let (id, secret) = setup(&app, &[]);
    let none = [("prompt", "none")];
    let refused = |location: &str, error: &str| {
        assert!(location.starts_with(REDIRECT), "{location}");
        let q = query(location);
        assert_eq!(q["error"], error, "{location}");
        assert_eq!(q["state"], "st");
        assert_eq!(q["iss"], app.base.as_str());
    };
    // Not signed in: no login page, the app hears login_required.
    let (status, location) = visit(&app, &authorize(&app, &id, &none), None).await;
    assert_eq!(status, 303);
    refused(&location, "login_required");
    // Signed in, but the app was never allowed: consent_required.
    let cookie = sign_in(&app, "ada@example.com", PASSWORD).await.unwrap();
    let (_, location) = visit(&app, &authorize(&app, &id, &none), Some(&cookie)).await;
    refused(&location, "consent_required");
    // Once allowed, the same request gets its code at once, and the ID token says when Ada
    // signed in.
    let allowed = code(&app, &cookie, &id, "openid", &[]).await;
    let first = id_claims(&app, &id, &secret, &allowed).await;
    let (status, location) = visit(&app, &authorize(&app, &id, &none), Some(&cookie)).await;
    assert_eq!(status, 303);
    let q = query(&location);
    assert_eq!(q["state"], "st");
    let claims = id_claims(&app, &id, &secret, &q["code"]).await;
    assert_eq!(claims["auth_time"], first["auth_time"]);
    assert!(claims["auth_time"].as_i64().unwrap() <= unix_now());
    // More than was allowed needs the page again.
    let wider = authorize_for(&app, &id, "openid email", &none);
    let (_, location) = visit(&app, &wider, Some(&cookie)).await;
    refused(&location, "consent_required");
    // prompt=consent shows the page although everything was allowed.
    let (status, _) = visit(
        &app,
        &authorize(&app, &id, &[("prompt", "consent")]),
        Some(&cookie),
    )
    .await;
    assert_eq!(status, 200);
    // Unknown values, none with another, a max_age that is no number of seconds.
    for bad in [
        [("prompt", "none login"), ("max_age", "")],
        [("prompt", "bogus"), ("max_age", "")],
        [("prompt", ""), ("max_age", "-1")],
    ] {
        let (_, location) = visit(&app, &authorize(&app, &id, &bad), Some(&cookie)).await;
        refused(&location, "invalid_request");
    }
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompt_login_and_an_exceeded_max_age_sign_the_user_in_again_once() {
    let app = TestApp::spawn().await;
    let (id, secret) = setup(&app, &[]);
    let cookie = sign_in(&app, "ada@example.com", PASSWORD).await.unwrap();
    let first = id_claims(
        &app,
        &id,
        &secret,
        &code(&app, &cookie, &id, "openid", &[]).await,
    )
    .await;
    let first = first["auth_time"].as_i64().expect("auth_time");
    // A young enough session goes straight to the consent page.
    let young = authorize(&app, &id, &[("max_age", "3600")]);
    assert_eq!(visit(&app, &young, Some(&cookie)).await.0, 200);
    tokio::time::sleep(Duration::from_millis(1100)).await;

    // prompt=login: to the login page (the hint filled in), then back, once.
    let again = [("prompt", "login"), ("login_hint", "ada@example.com")];
    let (status, location) = visit(&app, &authorize(&app, &id, &again), Some(&cookie)).await;
    assert_eq!(status, 303);
    assert_eq!(query(&location)["email"], "ada@example.com");
    let (fresh, next) = sign_in_at(&app, &location).await;
    assert!(next.starts_with("/auth/oauth2/authorize?"), "{next}");
    let q = consent(&app, &fresh, &app.url(&next), "allow").await;
    let claims = id_claims(&app, &id, &secret, &q["code"]).await;
    let second = claims["auth_time"].as_i64().unwrap();
    assert!(second > first, "signed in again: {second} after {first}");
    // The old session is not good enough for prompt=login even with the marker docket adds.
    assert_eq!(visit(&app, &app.url(&next), Some(&cookie)).await.0, 303);

    // max_age=0 after a second: sign in again, and the login that follows counts.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let (status, location) = visit(
        &app,
        &authorize(&app, &id, &[("max_age", "0")]),
        Some(&fresh),
    )
    .await;
    assert_eq!(status, 303);
    assert!(location.starts_with("/auth/login?"), "{location}");
    let (newest, next) = sign_in_at(&app, &location).await;
    let q = consent(&app, &newest, &app.url(&next), "allow").await;
    let claims = id_claims(&app, &id, &secret, &q["code"]).await;
    assert!(claims["auth_time"].as_i64().unwrap() > second);
    // select_account is a login too.
    let (_, location) = visit(
        &app,
        &authorize(&app, &id, &[("prompt", "select_account")]),
        Some(&newest),
    )
    .await;
    assert!(location.starts_with("/auth/login?"), "{location}");
    app.stop().await;
}

/// `url` with its `login_since` set to `mark`, or removed when `None`, and `extra` pairs set.
fn with_mark(url: &str, mark: Option<&str>, extra: &[(&str, &str)]) -> String {
    let mut u = url::Url::parse(url).unwrap();
    let mut pairs: Vec<(String, String)> = u
        .query_pairs()
        .into_owned()
        .filter(|(k, _)| k != "login_since" && !extra.iter().any(|(e, _)| e == k))
        .collect();
    if let Some(m) = mark {
        pairs.push(("login_since".into(), m.into()));
    }
    pairs.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    u.query_pairs_mut().clear().extend_pairs(pairs);
    u.to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_login_since_added_or_altered_by_hand_does_not_skip_the_login() {
    let app = TestApp::spawn().await;
    let (id, secret) = setup(&app, &[]);
    let old = sign_in(&app, "ada@example.com", PASSWORD).await.unwrap();
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let to_login = |(status, location): (u16, String)| {
        assert_eq!(status, 303, "{location}");
        assert!(location.starts_with("/auth/login?"), "{location}");
        location
    };
    // Added to the app's URL by hand: the login is still asked.
    for asked in [[("prompt", "login")], [("max_age", "0")]] {
        let url = authorize(&app, &id, &asked);
        for forged in ["0", "1", &unix_now().to_string(), "0.AAAA"] {
            let forged = with_mark(&url, Some(forged), &[]);
            to_login(visit(&app, &forged, Some(&old)).await);
        }
    }
    // The mark docket makes, with its time moved back: the login is still asked.
    let url = authorize(&app, &id, &[("prompt", "login")]);
    let location = to_login(visit(&app, &url, Some(&old)).await);
    let next = app.url(&query(&location)["next"]);
    let mark = query(&next)["login_since"].clone();
    let (time, tag) = mark.split_once('.').expect("a signed mark");
    assert!(time.parse::<i64>().unwrap() >= unix_now() - 5, "{mark}");
    let moved = with_mark(&next, Some(&format!("0.{tag}")), &[]);
    to_login(visit(&app, &moved, Some(&old)).await);
    // The Allow form is checked the same way: no code for the old session.
    let form = [
        ("client_id", id.as_str()),
        ("redirect_uri", REDIRECT),
        ("state", "st"),
        ("scope", "openid"),
        ("prompt", "login"),
        ("login_since", "0"),
        ("decision", "allow"),
    ];
    let resp = app
        .client
        .post(app.url("/auth/oauth2/authorize"))
        .header("cookie", &old)
        .form(&form)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 303);
    let location = resp.headers()["location"].to_str().unwrap().to_string();
    to_login((303, location));

    // The real flow: sign in, come back, allow; the ID token says the login was new.
    let (fresh, back) = sign_in_at(&app, &location_of(&app, &url, &old).await).await;
    assert!(back.starts_with("/auth/oauth2/authorize?"), "{back}");
    let q = consent(&app, &fresh, &app.url(&back), "allow").await;
    let claims = id_claims(&app, &id, &secret, &q["code"]).await;
    assert!(claims["auth_time"].as_i64().unwrap() >= time.parse::<i64>().unwrap());
    // The genuine mark, carried to another request (another state), does not count there.
    let elsewhere = with_mark(
        &app.url(&back),
        Some(&query(&back)["login_since"]),
        &[("state", "other")],
    );
    to_login(visit(&app, &elsewhere, Some(&fresh)).await);
    app.stop().await;
}

/// Where the authorization endpoint sends a browser with `cookie` for `url`.
async fn location_of(app: &TestApp, url: &str, cookie: &str) -> String {
    let (status, location) = visit(app, url, Some(cookie)).await;
    assert_eq!(status, 303, "{location}");
    location
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_hint_fills_in_the_login_form_escaped() {
    let app = TestApp::spawn().await;
    let (id, _) = setup(&app, &[]);
    let hint = r#"ada@example.com"><script>alert(1)</script>"#;
    let (status, location) =
        visit(&app, &authorize(&app, &id, &[("login_hint", hint)]), None).await;
    assert_eq!(status, 303);
    assert_eq!(query(&location)["email"], hint);
    let html = app.get(&location).await.text().await.unwrap();
    assert!(
        html.contains(r#"value="ada@example.com&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;""#),
        "the hint is in the field, escaped"
    );
    assert!(!html.contains("<script>alert"), "never as markup");
    // Signing in from there comes back to the request.
    let (_, next) = sign_in_at(&app, &location).await;
    assert!(next.starts_with("/auth/oauth2/authorize?"), "{next}");
    assert_eq!(query(&next)["login_hint"], hint);
    app.stop().await;
}
