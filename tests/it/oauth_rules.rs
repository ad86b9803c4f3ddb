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

// 1
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_clients_and_unregistered_redirect_uris_get_a_400_page_never_a_redirect() {
    let app = TestApp::spawn().await;
    let tenant = "https://app.example/cb?tenant=7";
    let (id, _) = setup(&app, &["--redirect-uri", tenant]);
    // A client with only the URI that has a query: the URI without it is a near miss.
    let args = ["client", "add", "--name", "T", "--redirect-uri", tenant];
    let only_tenant = s(&docket_json(&app.data_dir(), &args, None), "client_id");
    let cookie = sign_in(&app, EMAIL, PASSWORD).await.unwrap();
    // The control: both registered URIs open the consent page.
    for uri in [REDIRECT, tenant] {
        let url = auth_url(
            &app,
            &[
                ("client_id", &id),
                ("redirect_uri", uri),
                ("state", "s"),
                ("scope", "READ_PROFILE"),
            ],
        );
        assert_eq!(
            get_with(&app, &url, Some(&cookie)).await.status(),
            200,
            "{uri}"
        );
    }
    let cases: Vec<(&str, &str)> = vec![
        ("no-such-client", REDIRECT),
        (&id, "https://app.example/cb/"),
        (&id, "https://app.example/cb?x=1"),
        (&id, "https://app.example/cb?tenant=8"),
        (&id, "https://app.example/cb?tenant=7&x=1"),
        (&only_tenant, REDIRECT),
        (&only_tenant, "https://app.example/cb?tenant=7&"),
        (&id, "https://APP.example/cb"),
        (&id, "http://app.example/cb"),
        (&id, "https://evil.example/cb"),
    ];
    for (client, uri) in cases {
        let params = [
            ("client_id", client),
            ("redirect_uri", uri),
            ("state", "s"),
            ("scope", "READ_PROFILE"),
            ("response_type", "code"),
        ];
        for cookie in [None, Some(cookie.as_str())] {
            let resp = get_with(&app, &auth_url(&app, &params), cookie).await;
            assert_page_400(resp, &format!("GET {client} {uri}")).await;
            let mut form = params.to_vec();
            form.push(("decision", "allow"));
            form.push(("csrf_token", "x"));
            let mut req = app
                .client
                .post(app.url("/auth/oauth2/authorize"))
                .form(&form);
            if let Some(c) = cookie {
                req = req.header("cookie", c);
            }
            assert_page_400(req.send().await.unwrap(), &format!("POST {client} {uri}")).await;
        }
    }
    app.stop().await;
}

async fn assert_page_400(resp: Response, what: &str) {
    assert_eq!(resp.status(), 400, "{what}");
    assert!(location(&resp).is_none(), "{what}: never a redirect");
    let ct = resp.headers()["content-type"].to_str().unwrap().to_string();
    assert!(ct.starts_with("text/html"), "{what}: {ct}");
    assert!(resp.text().await.unwrap().contains("<html"), "{what}");
}

// 2
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_authorization_errors_redirect_with_error_description_state_and_iss() {
    let app = TestApp::spawn().await;
    let tenant = "https://app.example/cb?tenant=7";
    let (id, secret) = setup(&app, &["--redirect-uri", tenant]);
    let (narrow, _) = other_client(&app, "Narrow", &["--scope", "READ_PROFILE"]);
    let (public, _) = other_client(&app, "Pub", &["--public"]);
    let cookie = sign_in(&app, EMAIL, PASSWORD).await.unwrap();
    let state = "s t/&=?é+%";
    let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
    #[rustfmt::skip]
    let cases: Vec<(&str, &str, Pairs, &str)> = vec![
        (&id, REDIRECT, vec![("scope", "READ_PROFILE")], "invalid_request"),
        (&id, REDIRECT, vec![("state", state), ("scope", "READ_PROFILE ADMIN")], "invalid_scope"),
        (&id, REDIRECT, vec![("state", state), ("scope", ",READ_PROFILE,,NOPE")], "invalid_scope"),
        (&id, REDIRECT, vec![("state", state), ("scope", "openid ADMIN")], "invalid_scope"),
        (&id, REDIRECT, vec![("state", state), ("scope", "READ_PROFILE"), ("response_type", "token")], "unsupported_response_type"),
        (&narrow, REDIRECT, vec![("state", state), ("scope", "READ_BOOKING")], "invalid_scope"),
        (&public, REDIRECT, vec![("state", state), ("scope", "READ_PROFILE")], "invalid_request"),
        (&id, REDIRECT, vec![("state", state), ("scope", "READ_PROFILE"), ("code_challenge", challenge), ("code_challenge_method", "plain")], "invalid_request"),
        (&id, tenant, vec![("state", state), ("scope", "NOPE")], "invalid_scope"),
    ];
    for (client, uri, rest, expected) in cases {
        let mut params = vec![("client_id", client), ("redirect_uri", uri)];
        params.extend(rest.iter().copied());
        let has_state = rest.iter().any(|(k, _)| *k == "state");
        for cookie in [None, Some(cookie.as_str())] {
            let resp = get_with(&app, &auth_url(&app, &params), cookie).await;
            let what = format!("{params:?} logged in: {}", cookie.is_some());
            assert_eq!(resp.status(), 303, "{what}");
            let loc = location(&resp).unwrap();
            let (target, registered) = (
                url::Url::parse(&loc).unwrap(),
                url::Url::parse(uri).unwrap(),
            );
            assert_eq!(
                (target.origin(), target.path()),
                (registered.origin(), registered.path()),
                "{what}: {loc}"
            );
            let q = query_of(&loc);
            assert_eq!(
                q.get("error").map(String::as_str),
                Some(expected),
                "{what}: {loc}"
            );
            assert!(!q["error_description"].is_empty(), "{what}");
            assert_eq!(q["iss"], app.base, "{what}");
            assert!(!q.contains_key("code"), "{what}");
            if has_state {
                assert_eq!(q["state"], state, "{what}: state comes back unchanged");
            } else {
                assert!(!q.contains_key("state"), "{what}");
            }
            if uri == tenant {
                assert!(loc.starts_with(&format!("{tenant}&")), "{loc}");
                assert_eq!(q["tenant"], "7");
            }
        }
    }
    // The registered query survives on success too, and the code redeems on that URI.
    the_registered_query_survives_success(&app, &cookie, (&id, &secret), tenant, state).await;
    app.stop().await;
}

/// The registered query of `tenant` survives on success too, and the code redeems on that URI.
async fn the_registered_query_survives_success(
    app: &TestApp,
    cookie: &str,
    (id, secret): (&str, &str),
    tenant: &str,
    state: &str,
) {
    let url = auth_url(
        app,
        &[
            ("client_id", id),
            ("redirect_uri", tenant),
            ("state", state),
            ("scope", "READ_PROFILE"),
        ],
    );
    let q = consent(app, cookie, &url, "allow").await;
    assert_eq!((q["tenant"].as_str(), q["state"].as_str()), ("7", state));
    assert_eq!(q["iss"], app.base);
    let form = [
        ("grant_type", "authorization_code"),
        ("code", q["code"].as_str()),
        ("redirect_uri", tenant),
    ];
    tokens(post_form(app, TOKEN, &with_client(id, secret, &form)).await).await;
}

// 3
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn not_logged_in_goes_to_login_and_the_flow_resumes_at_consent() {
    let app = TestApp::spawn().await;
    let (id, _) = setup(&app, &[]);
    let url = valid_auth_url(&app, &id, "READ_PROFILE", &[]);
    let resp = app.client.get(&url).send().await.unwrap();
    assert_eq!(resp.status(), 303);
    let loc = location(&resp).unwrap();
    assert!(loc.starts_with("/auth/login?next="), "{loc}");
    let next = query_of(&app.url(&loc))["next"].clone();
    assert!(next.starts_with("/auth/oauth2/authorize?"), "{next}");
    assert_eq!(
        query_of(&app.url(&next)),
        query_of(&url),
        "next carries every parameter"
    );

    // The login page keeps `next`; posting it lands back on the authorization URL.
    let form = LoginForm::open(&app, &loc).await;
    assert_eq!(form.field("next"), Some(next.as_str()), "{form:?}");
    let resp = form.post(&app, EMAIL, PASSWORD).await;
    assert_eq!(resp.status(), 303);
    assert_eq!(location(&resp).unwrap(), next);
    let cookie = form.cookie_after(&resp);
    let q = consent(&app, &cookie, &app.url(&next), "allow").await;
    assert!(q.contains_key("code"));
    assert_eq!(q["state"], "st-1");
    app.stop().await;
}

// 4
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deny_redirects_with_access_denied_state_and_iss() {
    let app = TestApp::spawn().await;
    let (id, _) = setup(&app, &[]);
    let cookie = sign_in(&app, EMAIL, PASSWORD).await.unwrap();
    let url = valid_auth_url(&app, &id, "READ_PROFILE", &[]);
    let q = consent(&app, &cookie, &url, "deny").await;
    assert_eq!(q["error"], "access_denied");
    assert_eq!(q["state"], "st-1");
    assert_eq!(q["iss"], app.base);
    assert!(!q.contains_key("code"));
    app.stop().await;
}

// 5
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn token_endpoint_errors_follow_rfc_6749() {
    let app = TestApp::spawn().await;
    let (id, secret) = setup(&app, &[]);
    let cookie = sign_in(&app, EMAIL, PASSWORD).await.unwrap();
    let c = code(&app, &cookie, &id, "READ_PROFILE", &[]).await;

    // Wrong secret, in the body and as Basic; unknown client: 401 invalid_client + challenge.
    let wrong = redeem(&app, &id, "not-the-secret", &c, &[]).await;
    let challenge = wrong.headers().get("www-authenticate").cloned();
    assert_eq!(oauth_error(wrong, 401).await, "invalid_client");
    assert!(challenge.is_some(), "401 carries WWW-Authenticate");
    let form = [
        ("grant_type", "authorization_code"),
        ("code", c.as_str()),
        ("redirect_uri", REDIRECT),
    ];
    let basic = app
        .client
        .post(app.url(TOKEN))
        .basic_auth(&id, Some("not-the-secret"))
        .form(&form)
        .send()
        .await
        .unwrap();
    let challenge = basic.headers()["www-authenticate"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(challenge.starts_with("Basic"), "{challenge}");
    assert_eq!(oauth_error(basic, 401).await, "invalid_client");
    let unknown = redeem(&app, "no-such-client", &secret, &c, &[]).await;
    assert!(unknown.headers().contains_key("www-authenticate"));
    assert_eq!(oauth_error(unknown, 401).await, "invalid_client");

    // Authenticated, but no or an unsupported grant type.
    let resp = post_form(&app, TOKEN, &with_client(&id, &secret, &[("code", &c)])).await;
    assert_eq!(oauth_error(resp, 400).await, "invalid_request");
    let form = [
        ("grant_type", "password"),
        ("username", EMAIL),
        ("password", PASSWORD),
    ];
    let resp = post_form(&app, TOKEN, &with_client(&id, &secret, &form)).await;
    assert_eq!(oauth_error(resp, 400).await, "unsupported_grant_type");

    let resp = app.get(TOKEN).await;
    assert_eq!(resp.status(), 405);

    // None of that spent the code: the right credentials redeem it, with no-store.
    let t = tokens(redeem(&app, &id, &secret, &c, &[]).await).await;
    assert_eq!(t["token_type"], "Bearer");
    assert_eq!(t["scope"], "READ_PROFILE");
    app.stop().await;
}

// 6
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_code_works_once_and_its_reuse_revokes_what_it_issued() {
    let app = TestApp::spawn().await;
    let (id, secret) = setup(&app, &[]);
    let cookie = sign_in(&app, EMAIL, PASSWORD).await.unwrap();
    let c = code(&app, &cookie, &id, "READ_PROFILE", &[]).await;
    let (access, rt) = pair(redeem(&app, &id, &secret, &c, &[]).await).await;
    assert_eq!(me(&app, &access).await.status(), 200);
    let refreshed = tokens(refresh(&app, &id, &secret, &rt).await).await;
    let access2 = s(&refreshed, "access_token");
    assert_eq!(me(&app, &access2).await.status(), 200);

    let again = redeem(&app, &id, &secret, &c, &[]).await;
    assert_eq!(oauth_error(again, 400).await, "invalid_grant");
    assert_eq!(me(&app, &access).await.status(), 401);
    assert_eq!(
        me(&app, &access2).await.status(),
        401,
        "tokens refreshed from it too"
    );
    assert_eq!(
        oauth_error(refresh(&app, &id, &secret, &rt).await, 400).await,
        "invalid_grant"
    );
    let form = [
        ("grant_type", "refresh_token"),
        ("refresh_token", rt.as_str()),
    ];
    let resp = post_form(&app, TOKEN, &with_client(&id, &secret, &form)).await;
    assert_eq!(oauth_error(resp, 400).await, "invalid_grant");
    app.stop().await;
}

// 7
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_redemptions_of_one_code_give_exactly_one_success() {
    let app = TestApp::spawn().await;
    let (id, secret) = setup(&app, &[]);
    let cookie = sign_in(&app, EMAIL, PASSWORD).await.unwrap();
    for round in 0..5 {
        let c = code(&app, &cookie, &id, "READ_PROFILE", &[]).await;
        let (a, b) = tokio::join!(
            redeem(&app, &id, &secret, &c, &[]),
            redeem(&app, &id, &secret, &c, &[])
        );
        let mut statuses = [a.status().as_u16(), b.status().as_u16()];
        statuses.sort();
        assert_eq!(statuses, [200, 400], "round {round}");
        let loser = if a.status() == 400 { a } else { b };
        assert_eq!(
            oauth_error(loser, 400).await,
            "invalid_grant",
            "round {round}"
        );
    }
    app.stop().await;
}

// 8
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pkce_and_redirect_uri_bind_the_code() {
    let app = TestApp::spawn().await;
    let other = "https://app.example/other";
    let (id, secret) = setup(&app, &["--redirect-uri", other]);
    let cookie = sign_in(&app, EMAIL, PASSWORD).await.unwrap();
    let pkce = || {
        let (ch, v) = PkceCodeChallenge::new_random_sha256();
        (ch.as_str().to_string(), v.secret().to_string())
    };
    let with_challenge = |ch: &str| {
        vec![
            ("code_challenge".to_string(), ch.to_string()),
            ("code_challenge_method".into(), "S256".into()),
        ]
    };
    async fn code_with(
        app: &TestApp,
        cookie: &str,
        id: &str,
        extra: &[(String, String)],
    ) -> String {
        let extra: Vec<(&str, &str)> = extra
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        code(app, cookie, id, "READ_PROFILE", &extra).await
    }

    // The control: the right verifier redeems.
    let (ch, v) = pkce();
    let c = code_with(&app, &cookie, &id, &with_challenge(&ch)).await;
    tokens(redeem(&app, &id, &secret, &c, &[("code_verifier", &v)]).await).await;

    // A wrong verifier (well-formed), and none at all, when a challenge was given.
    let (ch, _) = pkce();
    let (_, wrong) = pkce();
    let c = code_with(&app, &cookie, &id, &with_challenge(&ch)).await;
    let resp = redeem(&app, &id, &secret, &c, &[("code_verifier", &wrong)]).await;
    assert_eq!(oauth_error(resp, 400).await, "invalid_grant");
    let c = code_with(&app, &cookie, &id, &with_challenge(&ch)).await;
    assert_eq!(
        oauth_error(redeem(&app, &id, &secret, &c, &[]).await, 400).await,
        "invalid_grant"
    );

    // A verifier for a code issued without a challenge.
    let (_, v) = pkce();
    let c = code_with(&app, &cookie, &id, &[]).await;
    let resp = redeem(&app, &id, &secret, &c, &[("code_verifier", &v)]).await;
    assert_eq!(oauth_error(resp, 400).await, "invalid_grant");

    // Another registered redirect URI than the one the code was issued for.
    let c = code_with(&app, &cookie, &id, &[]).await;
    let form = [
        ("grant_type", "authorization_code"),
        ("code", c.as_str()),
        ("redirect_uri", other),
    ];
    let resp = post_form(&app, TOKEN, &with_client(&id, &secret, &form)).await;
    assert_eq!(oauth_error(resp, 400).await, "invalid_grant");
    app.stop().await;
}

// 9
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_cannot_use_another_clients_code_or_refresh_token() {
    let app = TestApp::spawn().await;
    let (id, secret) = setup(&app, &[]);
    let (other, other_secret) = other_client(&app, "Other", &[]);
    let cookie = sign_in(&app, EMAIL, PASSWORD).await.unwrap();

    let c = code(&app, &cookie, &id, "READ_PROFILE", &[]).await;
    let stolen = redeem(&app, &other, &other_secret, &c, &[]).await;
    assert_eq!(oauth_error(stolen, 400).await, "invalid_grant");

    let c = code(&app, &cookie, &id, "READ_PROFILE", &[]).await;
    let (_, rt) = pair(redeem(&app, &id, &secret, &c, &[]).await).await;
    tokens(refresh(&app, &id, &secret, &rt).await).await;
    let resp = refresh(&app, &other, &other_secret, &rt).await;
    assert_eq!(oauth_error(resp, 400).await, "invalid_grant");
    let form = [
        ("grant_type", "refresh_token"),
        ("refresh_token", rt.as_str()),
    ];
    let resp = post_form(&app, TOKEN, &with_client(&other, &other_secret, &form)).await;
    assert_eq!(oauth_error(resp, 400).await, "invalid_grant");
    app.stop().await;
}

// 10
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_need_the_endpoints_scope_and_bad_tokens_are_401() {
    let app = TestApp::spawn().await;
    let (id, secret) = setup(&app, &[]);
    let cookie = sign_in(&app, EMAIL, PASSWORD).await.unwrap();
    let c = code(&app, &cookie, &id, "READ_BOOKING", &[]).await;
    let (bookings, _) = pair(redeem(&app, &id, &secret, &c, &[]).await).await;
    let c = code(&app, &cookie, &id, "READ_PROFILE", &[]).await;
    let (profile, _) = pair(redeem(&app, &id, &secret, &c, &[]).await).await;
    let list = |t: String| {
        let req = app.client.get(app.url("/listBookings")).bearer_auth(t);
        async move { req.send().await.unwrap() }
    };

    let resp = me(&app, &bookings).await;
    assert_eq!(resp.status(), 403);
    let challenge = resp.headers()["www-authenticate"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        challenge.starts_with("Bearer") && challenge.contains("insufficient_scope"),
        "{challenge}"
    );
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["error"], "insufficient_scope");
    assert_eq!(me(&app, &profile).await.status(), 200);

    assert_eq!(list(profile.clone()).await.status(), 403);
    let resp = list(bookings.clone()).await;
    assert_eq!(resp.status(), 200);
    assert!(resp.json::<Value>().await.unwrap().is_array());

    for bad in ["dka_not-a-token", &format!("{profile}x"), ""] {
        let resp = if bad.is_empty() {
            app.get("/api/auth/oauth/me").await
        } else {
            me(&app, bad).await
        };
        assert_eq!(resp.status(), 401, "{bad:?}");
        let challenge = resp.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .to_string();
        assert!(challenge.starts_with("Bearer "), "{challenge}");
        assert!(
            challenge.contains(r#"error="invalid_token""#),
            "{challenge}"
        );
        let body: Value = resp.json().await.unwrap();
        assert!(
            body["error"].is_string() && body["message"].is_string(),
            "{body}"
        );
    }
    assert_eq!(list("dka_not-a-token".into()).await.status(), 401);
    app.stop().await;
}

// 11
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disabling_a_user_or_removing_a_client_stops_their_tokens_at_once() {
    let app = TestApp::spawn().await;
    let (id, secret) = setup(&app, &[]);
    let (other, other_secret) = other_client(&app, "Other", &[]);
    add_account(&app.data_dir(), "bob@example.com", "Bob");
    let ada = sign_in(&app, EMAIL, PASSWORD).await.unwrap();
    let bob = sign_in(&app, "bob@example.com", PASSWORD).await.unwrap();
    let c = code(&app, &ada, &id, "READ_PROFILE", &[]).await;
    let (ada_access, ada_refresh) = pair(redeem(&app, &id, &secret, &c, &[]).await).await;
    let bob_q = allow(&app, &bob, &valid_auth_url(&app, &id, "READ_PROFILE", &[])).await;
    let (bob_access, _) = pair(redeem(&app, &id, &secret, &bob_q["code"], &[]).await).await;
    let url = valid_auth_url(&app, &id, "READ_PROFILE", &[]);
    assert_eq!(get_with(&app, &url, Some(&ada)).await.status(), 200);
    assert_eq!(me(&app, &ada_access).await.status(), 200);

    docket_json(&app.data_dir(), &["user", "disable", EMAIL], None);
    assert_eq!(me(&app, &ada_access).await.status(), 401);
    let resp = refresh(&app, &id, &secret, &ada_refresh).await;
    assert_eq!(oauth_error(resp, 400).await, "invalid_grant");
    let resp = get_with(&app, &url, Some(&ada)).await;
    assert_eq!(resp.status(), 303, "the session no longer counts");
    assert!(location(&resp).unwrap().starts_with("/auth/login?"));
    assert!(
        sign_in(&app, EMAIL, PASSWORD).await.is_err(),
        "disabled users cannot log in"
    );
    assert_eq!(
        me(&app, &bob_access).await.status(),
        200,
        "other users are untouched"
    );

    // Removing a client ends its tokens; another client's tokens live on.
    let c = allow(
        &app,
        &bob,
        &valid_auth_url(&app, &other, "READ_PROFILE", &[]),
    )
    .await["code"]
        .clone();
    let (other_access, _) = pair(redeem(&app, &other, &other_secret, &c, &[]).await).await;
    docket_json(&app.data_dir(), &["client", "remove", &id], None);
    assert_eq!(me(&app, &bob_access).await.status(), 401);
    let listed = app
        .client
        .get(app.url("/listBookings"))
        .bearer_auth(&bob_access)
        .send()
        .await
        .unwrap();
    assert_eq!(listed.status(), 401);
    assert_eq!(me(&app, &other_access).await.status(), 200);
    app.stop().await;
}

// 12
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn consent_and_login_forms_need_their_csrf_tokens() {
    let app = TestApp::spawn().await;
    let (id, _) = setup(&app, &[]);
    let first = sign_in(&app, EMAIL, PASSWORD).await.unwrap();
    let second = sign_in(&app, EMAIL, PASSWORD).await.unwrap();
    the_consent_form_needs_its_own_token_and_session(&app, &id, &first, &second).await;
    the_login_form_needs_its_token_and_cookie(&app).await;
    app.stop().await;
}

/// Consent to `id`'s request without a csrf_token, with a wrong one, another session's
/// (`second`), or for other parameters is 403; the page's own form in its own session
/// (`first`) gives a code.
async fn the_consent_form_needs_its_own_token_and_session(
    app: &TestApp,
    id: &str,
    first: &str,
    second: &str,
) {
    let url = valid_auth_url(app, id, "READ_PROFILE", &[]);
    let page = get_with(app, &url, Some(first)).await;
    let mut form = hidden_inputs(&page.text().await.unwrap());
    form.push(("decision".into(), "allow".into()));
    let without: Vec<(String, String)> = form
        .iter()
        .filter(|(k, _)| k != "csrf_token")
        .cloned()
        .collect();
    let replace = |k: &str, v: &str| -> Vec<(String, String)> {
        form.iter()
            .map(|(a, b)| (a.clone(), if a == k { v.to_string() } else { b.clone() }))
            .collect()
    };
    let post = |form: Vec<(String, String)>, cookie: String| {
        let req = app
            .client
            .post(app.url("/auth/oauth2/authorize"))
            .header("cookie", cookie)
            .form(&form);
        async move { req.send().await.unwrap() }
    };
    for (what, form, cookie) in [
        ("no csrf_token", without, first),
        ("a wrong one", replace("csrf_token", "AAAA"), first),
        ("another session's", form.clone(), second),
        (
            "other parameters",
            replace("scope", "READ_PROFILE WRITE_BOOKING"),
            first,
        ),
    ] {
        let resp = post(form, cookie.to_string()).await;
        assert_eq!(resp.status(), 403, "{what}");
        assert!(location(&resp).is_none(), "{what}: no code");
    }
    // The control: the page's own form, in its own session.
    let resp = post(form.clone(), first.to_string()).await;
    assert_eq!(resp.status(), 303);
    assert!(query_of(&location(&resp).unwrap()).contains_key("code"));
}

/// Login without the login CSRF token, with a wrong one, or without its cookie: 403 and no
/// session; the control logs in.
async fn the_login_form_needs_its_token_and_cookie(app: &TestApp) {
    let LoginForm {
        cookie: pre,
        fields: hidden,
    } = LoginForm::open(app, "/auth/login").await;
    let creds = [
        ("email".to_string(), EMAIL.to_string()),
        ("password".to_string(), PASSWORD.to_string()),
    ];
    let no_token: Vec<_> = hidden
        .iter()
        .filter(|(k, _)| k != "csrf_token")
        .cloned()
        .chain(creds.clone())
        .collect();
    let wrong: Vec<_> = hidden
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                if k == "csrf_token" {
                    "AAAA".into()
                } else {
                    v.clone()
                },
            )
        })
        .chain(creds.clone())
        .collect();
    let full: Vec<_> = hidden.iter().cloned().chain(creds.clone()).collect();
    for (what, form, cookie) in [
        ("no token", &no_token, pre.as_str()),
        ("wrong token", &wrong, pre.as_str()),
        ("no cookie", &full, ""),
    ] {
        let resp = app
            .client
            .post(app.url("/auth/login"))
            .header("cookie", cookie)
            .form(form)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 403, "{what}");
        assert!(
            !set_cookie_pairs(&resp)
                .iter()
                .any(|c| c.starts_with("docket_session=")),
            "{what}"
        );
    }
    let resp = app
        .client
        .post(app.url("/auth/login"))
        .header("cookie", &pre)
        .form(&full)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 303, "the control logs in");
}

// 13
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn repeated_bad_logins_for_one_account_are_refused_with_429() {
    let app = TestApp::spawn().await;
    setup(&app, &[]);
    let started = Instant::now();
    for i in 1..=10 {
        let resp = login_attempt(&app, EMAIL, "wrong password").await;
        assert_eq!(resp.status(), 401, "attempt {i}");
    }
    let resp = login_attempt(&app, EMAIL, PASSWORD).await;
    assert_eq!(resp.status(), 429, "even the right password is refused now");
    let retry: u64 = resp.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(retry > 0);
    assert!(
        !set_cookie_pairs(&resp)
            .iter()
            .any(|c| c.starts_with("docket_session="))
    );
    assert!(
        started.elapsed() < Duration::from_secs(90),
        "bounded: {:?}",
        started.elapsed()
    );
    app.stop().await;
}

// 14
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn codes_tokens_and_sessions_are_stored_only_as_hashes() {
    let app = TestApp::spawn().await;
    let (id, secret) = setup(&app, &[]);
    let cookie = sign_in(&app, EMAIL, PASSWORD).await.unwrap();
    let session = cookie
        .split(';')
        .filter_map(|p| p.trim().strip_prefix("docket_session="))
        .next()
        .expect("a session cookie")
        .to_string();
    let c = code(&app, &cookie, &id, "READ_PROFILE", &[]).await;
    let (access, rt) = pair(redeem(&app, &id, &secret, &c, &[]).await).await;
    assert_eq!(me(&app, &access).await.status(), 200);

    let all = crate::support::database_bytes(&app.data_dir());
    let has = |needle: &str| all.windows(needle.len()).any(|w| w == needle.as_bytes());
    for (what, clear) in [
        ("code", &c),
        ("access token", &access),
        ("refresh token", &rt),
        ("session", &session),
    ] {
        assert!(!has(clear), "the {what} is stored in clear");
        assert!(
            has(&docket::core::crypto::sha256_hex(clear)),
            "the {what}'s hash is stored"
        );
    }
    app.stop().await;
}

// 15
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn public_clients_use_pkce_and_rotate_refresh_tokens_and_reuse_revokes_the_grant() {
    let app = TestApp::spawn().await;
    let (id, secret) = setup(&app, &["--public"]);
    assert!(secret.is_empty(), "public clients get no secret");
    let cookie = sign_in(&app, EMAIL, PASSWORD).await.unwrap();
    let (ch, v) = PkceCodeChallenge::new_random_sha256();
    let extra = [
        ("code_challenge", ch.as_str()),
        ("code_challenge_method", "S256"),
    ];
    let c = code(&app, &cookie, &id, "READ_PROFILE", &extra).await;
    let (a1, r1) = pair(redeem(&app, &id, "", &c, &[("code_verifier", v.secret())]).await).await;
    assert_eq!(me(&app, &a1).await.status(), 200);

    let t2 = tokens(refresh(&app, &id, "", &r1).await).await;
    let (a2, r2) = (s(&t2, "access_token"), s(&t2, "refresh_token"));
    assert_ne!(r2, r1, "a new refresh token");
    assert_eq!(me(&app, &a2).await.status(), 200);
    let t3 = tokens(refresh(&app, &id, "", &r2).await).await;
    let (a3, r3) = (s(&t3, "access_token"), s(&t3, "refresh_token"));
    assert_ne!(r3, r2);
    assert_eq!(me(&app, &a3).await.status(), 200);

    // The rotated-out r1 comes back: refused, and the whole grant ends.
    assert_eq!(
        oauth_error(refresh(&app, &id, "", &r1).await, 400).await,
        "invalid_grant"
    );
    assert_eq!(me(&app, &a3).await.status(), 401);
    assert_eq!(
        oauth_error(refresh(&app, &id, "", &r3).await, 400).await,
        "invalid_grant"
    );
    app.stop().await;
}

// 15, confidential clients under --rotate-refresh-tokens
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn confidential_clients_rotate_refresh_tokens_under_the_server_flag() {
    let app = TestApp::spawn_with(&["--tls", "off", "--rotate-refresh-tokens"]).await;
    let (id, secret) = setup(&app, &[]);
    let cookie = sign_in(&app, EMAIL, PASSWORD).await.unwrap();
    let c = code(&app, &cookie, &id, "READ_PROFILE", &[]).await;
    let (_, r1) = pair(redeem(&app, &id, &secret, &c, &[]).await).await;
    let t2 = tokens(refresh(&app, &id, &secret, &r1).await).await;
    let r2 = s(&t2, "refresh_token");
    assert_ne!(r2, r1);
    let form = [
        ("grant_type", "refresh_token"),
        ("refresh_token", r2.as_str()),
    ];
    let t3 = tokens(post_form(&app, TOKEN, &with_client(&id, &secret, &form)).await).await;
    let (a3, r3) = (s(&t3, "access_token"), s(&t3, "refresh_token"));
    assert_ne!(r3, r2, "the token endpoint rotates too");
    assert_eq!(me(&app, &a3).await.status(), 200);
    assert_eq!(
        oauth_error(refresh(&app, &id, &secret, &r2).await, 400).await,
        "invalid_grant"
    );
    assert_eq!(me(&app, &a3).await.status(), 401, "reuse revokes the grant");
    app.stop().await;
}

// 16
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn revocation_and_introspection() {
    let app = TestApp::spawn().await;
    let (id, secret) = setup(&app, &[]);
    let (other, other_secret) = other_client(&app, "Other", &[]);
    let cookie = sign_in(&app, EMAIL, PASSWORD).await.unwrap();

    let c = code(&app, &cookie, &id, "READ_BOOKING READ_PROFILE", &[]).await;
    let (a1, _) = pair(redeem(&app, &id, &secret, &c, &[]).await).await;
    let info = introspect(&app, &id, &secret, &a1).await;
    assert_eq!(info["active"], true, "{info}");
    assert_eq!(info["scope"], "READ_BOOKING READ_PROFILE");
    assert_eq!(info["client_id"], id.as_str());
    assert_eq!(info["username"], "ada");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    assert!(info["exp"].as_u64().unwrap() > now, "{info}");
    assert_eq!(
        introspect(&app, &other, &other_secret, &a1).await,
        serde_json::json!({"active": false})
    );

    only_the_tokens_own_client_revokes_it(&app, (&id, &secret), (&other, &other_secret), &a1).await;
    a_refresh_token_takes_the_access_tokens_of_its_line(&app, &cookie, &id, &secret).await;
    assert_eq!(
        revoke(&app, &id, &secret, "dka_unknown").await.status(),
        200
    );
    app.stop().await;
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

/// Revocation needs client authentication, and only the token's own client revokes it.
async fn only_the_tokens_own_client_revokes_it(
    app: &TestApp,
    (id, secret): (&str, &str),
    (other, other_secret): (&str, &str),
    a1: &str,
) {
    assert_eq!(
        oauth_error(revoke(app, id, "wrong", a1).await, 401).await,
        "invalid_client"
    );
    assert_eq!(revoke(app, other, other_secret, a1).await.status(), 200);
    assert_eq!(
        me(app, a1).await.status(),
        200,
        "another client cannot revoke it"
    );
    let resp = app
        .client
        .post(app.url(REVOKE))
        .basic_auth(id, Some(secret))
        .form(&[("token", a1)])
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(me(app, a1).await.status(), 401);
    assert_eq!(
        introspect(app, id, secret, a1).await,
        serde_json::json!({"active": false})
    );
}

/// A refresh token takes the access tokens of its line with it.
async fn a_refresh_token_takes_the_access_tokens_of_its_line(
    app: &TestApp,
    cookie: &str,
    id: &str,
    secret: &str,
) {
    let c = code(app, cookie, id, "READ_PROFILE", &[]).await;
    let (a2, r2) = pair(redeem(app, id, secret, &c, &[]).await).await;
    let a2b = s(
        &tokens(refresh(app, id, secret, &r2).await).await,
        "access_token",
    );
    assert_eq!(introspect(app, id, secret, &r2).await["active"], true);
    assert_eq!(revoke(app, id, secret, &r2).await.status(), 200);
    assert_eq!(me(app, &a2).await.status(), 401);
    assert_eq!(me(app, &a2b).await.status(), 401);
    assert_eq!(
        oauth_error(refresh(app, id, secret, &r2).await, 400).await,
        "invalid_grant"
    );
    assert_eq!(
        introspect(app, id, secret, &r2).await,
        serde_json::json!({"active": false})
    );
}

// 17
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metadata_describes_this_server() {
    let app = TestApp::spawn().await;
    let resp = app.get("/.well-known/oauth-authorization-server").await;
    assert_eq!(resp.status(), 200);
    let m: Value = resp.json().await.unwrap();
    let base = &app.base;
    assert_eq!(m["issuer"], base.as_str());
    assert_eq!(
        m["authorization_endpoint"],
        format!("{base}/auth/oauth2/authorize")
    );
    assert_eq!(m["token_endpoint"], format!("{base}{TOKEN}"));
    assert_eq!(m["revocation_endpoint"], format!("{base}{REVOKE}"));
    assert_eq!(m["introspection_endpoint"], format!("{base}{INTROSPECT}"));
    let list = |k: &str| -> Vec<String> {
        m[k].as_array()
            .unwrap_or_else(|| panic!("{k}: {m}"))
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    };
    let scopes = list("scopes_supported");
    for s in [
        "READ_BOOKING",
        "READ_PROFILE",
        "WRITE_BOOKING",
        "READ_DOCUMENT",
        "WRITE_DOCUMENT",
    ] {
        assert!(scopes.contains(&s.to_string()), "{s}");
    }
    assert_eq!(list("code_challenge_methods_supported"), ["S256"]);
    let methods = list("token_endpoint_auth_methods_supported");
    for s in ["client_secret_basic", "client_secret_post", "none"] {
        assert!(methods.contains(&s.to_string()), "{s}");
    }
    assert!(list("grant_types_supported").contains(&"authorization_code".to_string()));
    assert!(list("grant_types_supported").contains(&"refresh_token".to_string()));
    assert_eq!(m["authorization_response_iss_parameter_supported"], true);
    app.stop().await;
}

// 18
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_account_page_lists_connected_apps_and_revokes_them() {
    let app = TestApp::spawn().await;
    let (id, secret) = setup(&app, &[]);
    let cookie = sign_in(&app, EMAIL, PASSWORD).await.unwrap();
    let c = code(&app, &cookie, &id, "READ_PROFILE", &[]).await;
    let (access, rt) = pair(redeem(&app, &id, &secret, &c, &[]).await).await;

    let account = |cookie: &str| {
        let req = app.client.get(app.url("/account")).header("cookie", cookie);
        async move {
            let resp = req.send().await.unwrap();
            assert_eq!(resp.status(), 200);
            resp.text().await.unwrap()
        }
    };
    let html = account(&cookie).await;
    assert!(html.contains("Cal"), "the app is listed by name");
    let start = html
        .find(r#"action="/account/apps/"#)
        .expect("a revoke form");
    let form_html = &html[start..start + html[start..].find("</form>").unwrap()];
    let action = form_html.split('"').nth(1).unwrap().to_string();
    let csrf: Vec<(String, String)> = hidden_inputs(form_html);
    assert_eq!(csrf.len(), 1);
    assert_eq!(csrf[0].0, "csrf_token");

    let post = |form: Vec<(String, String)>| {
        let req = app
            .client
            .post(app.url(&action))
            .header("cookie", &cookie)
            .form(&form);
        async move { req.send().await.unwrap() }
    };
    assert_eq!(post(vec![]).await.status(), 403, "no csrf token");
    assert_eq!(
        post(vec![("csrf_token".into(), "AAAA".into())])
            .await
            .status(),
        403
    );
    assert_eq!(me(&app, &access).await.status(), 200, "nothing revoked yet");

    let resp = post(csrf).await;
    assert_eq!(resp.status(), 303);
    assert_eq!(location(&resp).unwrap(), "/account");
    let html = account(&cookie).await;
    assert!(
        !html.contains("Cal") && !html.contains(&action),
        "the app is gone"
    );
    assert_eq!(me(&app, &access).await.status(), 401);
    assert_eq!(
        oauth_error(refresh(&app, &id, &secret, &rt).await, 400).await,
        "invalid_grant"
    );
    app.stop().await;
}

// Login's `next` (rule 3) only ever leads to this site: browsers drop tabs and newlines from
// URLs, so `/<TAB>/evil.example` would be `//evil.example` to them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_next_never_leaves_this_site() {
    let app = TestApp::spawn().await;
    setup(&app, &[]);
    let login = LoginForm::open(&app, "/auth/login").await;
    let (pre, csrf) = (&login.cookie, login.field("csrf_token").unwrap());
    for (next, expected) in [
        ("/account?tab=apps", "/account?tab=apps"),
        ("https://evil.example/", "/account"),
        ("//evil.example", "/account"),
        ("/\\evil.example", "/account"),
        ("/\t/evil.example", "/account"),
        ("/\t\\evil.example", "/account"),
        ("/\n/evil.example", "/account"),
        ("/\r\n/evil.example", "/account"),
    ] {
        let form = [
            ("csrf_token", csrf),
            ("next", next),
            ("email", EMAIL),
            ("password", PASSWORD),
        ];
        let resp = app
            .client
            .post(app.url("/auth/login"))
            .header("cookie", pre)
            .form(&form)
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 303, "{next:?}");
        assert_eq!(location(&resp).unwrap(), expected, "{next:?}");
    }
    app.stop().await;
}

// RFC 6749 section 6: a refresh may narrow the new access token's scope, but a refresh token
// issued in exchange keeps the scope of the one presented.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_narrowed_refresh_does_not_narrow_the_rotated_refresh_token() {
    let app = TestApp::spawn().await;
    let (id, _) = setup(&app, &["--public"]);
    let cookie = sign_in(&app, EMAIL, PASSWORD).await.unwrap();
    let (ch, v) = PkceCodeChallenge::new_random_sha256();
    let extra = [
        ("code_challenge", ch.as_str()),
        ("code_challenge_method", "S256"),
    ];
    let c = code(&app, &cookie, &id, "READ_BOOKING READ_PROFILE", &extra).await;
    let (_, r1) = pair(redeem(&app, &id, "", &c, &[("code_verifier", v.secret())]).await).await;
    let narrow = |rt: String, scope: &'static str| {
        let form = [
            ("grant_type", "refresh_token"),
            ("refresh_token", rt.as_str()),
            ("scope", scope),
            ("client_id", id.as_str()),
        ];
        let req = app.client.post(app.url(REFRESH)).form(&form);
        async move { req.send().await.unwrap() }
    };
    let list = |t: String| {
        let req = app.client.get(app.url("/listBookings")).bearer_auth(t);
        async move { req.send().await.unwrap().status() }
    };

    let wider = narrow(r1.clone(), "READ_PROFILE WRITE_BOOKING").await;
    assert_eq!(oauth_error(wider, 400).await, "invalid_scope");
    let t2 = tokens(narrow(r1, "READ_PROFILE").await).await;
    assert_eq!(t2["scope"], "READ_PROFILE");
    assert_eq!(list(s(&t2, "access_token")).await, 403);
    let t3 = tokens(refresh(&app, &id, "", &s(&t2, "refresh_token")).await).await;
    assert_eq!(t3["scope"], "READ_BOOKING READ_PROFILE");
    assert_eq!(list(s(&t3, "access_token")).await, 200);
    app.stop().await;
}
