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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn token_refresh_revoke_and_introspect_read_the_last_value_and_ignore_unknown_names() {
    let app = TestApp::spawn().await;
    let (id, secret) = setup(&app, &[]);
    let cookie = sign_in(&app, EMAIL, PASSWORD).await.unwrap();
    let (id, secret) = (id.as_str(), secret.as_str());
    let creds = [("client_id", id), ("client_secret", secret)];
    let with = |extra: &[(&'static str, &'static str)]| {
        let mut f: Vec<(&str, &str)> = extra.to_vec();
        f.extend_from_slice(&creds);
        f
    };

    // Token: missing, unknown and repeated parameters.
    let cases: Vec<Case> = vec![
        (with(&[]), 400, "invalid_request"),
        (
            with(&[("grant_type", "authorization_code")]),
            400,
            "invalid_request",
        ),
        (
            with(&[("grant_type", "refresh_token")]),
            400,
            "invalid_request",
        ),
        (
            with(&[("grant_type", "password")]),
            400,
            "unsupported_grant_type",
        ),
        (
            with(&[
                ("grant_type", "authorization_code"),
                ("code", "nope"),
                ("x", "1"),
            ]),
            400,
            "invalid_grant",
        ),
        (
            with(&[
                ("grant_type", "password"),
                ("grant_type", "authorization_code"),
                ("code", "nope"),
            ]),
            400,
            "invalid_grant",
        ),
        (
            with(&[
                ("grant_type", "authorization_code"),
                ("code", "nope"),
                ("grant_type", "password"),
            ]),
            400,
            "unsupported_grant_type",
        ),
        (
            vec![
                ("grant_type", "authorization_code"),
                ("code", "nope"),
                ("client_id", "someone-else"),
                ("client_id", id),
                ("client_secret", secret),
            ],
            400,
            "invalid_grant",
        ),
        (
            vec![
                ("grant_type", "authorization_code"),
                ("code", "nope"),
                ("client_id", id),
                ("client_id", "someone-else"),
                ("client_secret", secret),
            ],
            401,
            "invalid_client",
        ),
        (
            vec![("grant_type", "authorization_code"), ("code", "nope")],
            401,
            "invalid_client",
        ),
        (
            with(&[
                ("grant_type", "refresh_token"),
                ("refresh_token", "nope"),
                ("scope", ""),
            ]),
            400,
            "invalid_scope",
        ),
    ];
    for (pairs, status, error) in cases {
        expect(
            form(&app, TOKEN, &pairs).await,
            status,
            error,
            &format!("{pairs:?}"),
        )
        .await;
    }

    // The same as JSON: the last of a repeated key, numbers and booleans as text, other
    // values as if left out, and a body that is not an object refused.
    let json_cases: Vec<(String, u16, &str)> = vec![
        (
            format!(r#"{{"client_id":"{id}","client_secret":"{secret}"}}"#),
            400,
            "invalid_request",
        ),
        (
            format!(
                r#"{{"grant_type":"password","grant_type":"authorization_code","code":7,"x":[1],"client_id":"{id}","client_secret":"{secret}"}}"#
            ),
            400,
            "invalid_grant",
        ),
        (
            format!(
                r#"{{"grant_type":"authorization_code","code":["a"],"client_id":"{id}","client_secret":"{secret}"}}"#
            ),
            400,
            "invalid_request",
        ),
        (
            format!(
                r#"{{"grant_type":"authorization_code","code":null,"client_id":"{id}","client_secret":"{secret}"}}"#
            ),
            400,
            "invalid_request",
        ),
        (
            format!(
                r#"{{"grant_type":true,"code":"x","client_id":"{id}","client_secret":"{secret}"}}"#
            ),
            400,
            "unsupported_grant_type",
        ),
        (
            format!(
                r#"{{"grant_type":"refresh_token","refresh_token":1.5e3,"client_id":"{id}","client_secret":"{secret}"}}"#
            ),
            400,
            "invalid_grant",
        ),
        ("[1]".to_string(), 400, "invalid_request"),
        ("{".to_string(), 400, "invalid_request"),
    ];
    for (body, status, error) in json_cases {
        expect(raw_json(&app, TOKEN, &body).await, status, error, &body).await;
    }

    // A real code, redeemed with an unknown parameter and a repeated one whose last is right.
    let c = code(&app, &cookie, id, "READ_PROFILE", &[]).await;
    let resp = form(
        &app,
        TOKEN,
        &with(&[
            ("grant_type", "authorization_code"),
            ("code", "nope"),
            ("utm", "x"),
            ("redirect_uri", "https://elsewhere.example/cb"),
            ("redirect_uri", REDIRECT),
        ])
        .into_iter()
        .chain([("code", c.as_str())])
        .collect::<Vec<_>>(),
    )
    .await;
    let (access, refresh) = pair(resp).await;

    // Refresh: missing, repeated (the last counts) and unknown.
    expect(
        form(&app, REFRESH, &with(&[])).await,
        400,
        "invalid_request",
        "refresh, none",
    )
    .await;
    let refreshed = form(
        &app,
        REFRESH,
        &[
            ("refresh_token", "nope"),
            ("refresh_token", refresh.as_str()),
            ("grant_type", "authorization_code"),
            ("grant_type", "refresh_token"),
            ("colour", "blue"),
            ("client_id", id),
            ("client_secret", secret),
        ],
    )
    .await;
    assert_eq!(
        refreshed.status(),
        200,
        "{}",
        refreshed.text().await.unwrap()
    );
    let wrong_last = form(
        &app,
        REFRESH,
        &[
            ("refresh_token", refresh.as_str()),
            ("refresh_token", "nope"),
            ("client_id", id),
            ("client_secret", secret),
        ],
    )
    .await;
    expect(wrong_last, 400, "invalid_grant", "refresh, wrong last").await;

    // Introspect: missing, repeated and unknown.
    for path in [INTROSPECT, REVOKE] {
        expect(
            form(&app, path, &with(&[])).await,
            400,
            "invalid_request",
            path,
        )
        .await;
    }
    let asked = form(
        &app,
        INTROSPECT,
        &with(&[("token", "nope"), ("hint", "x")])
            .into_iter()
            .chain([("token", access.as_str())])
            .collect::<Vec<_>>(),
    )
    .await;
    let shown = expect(asked, 200, "", "introspect, right last").await;
    assert_eq!(shown["active"], true, "{shown}");
    let asked = form(
        &app,
        INTROSPECT,
        &[("token", access.as_str()), ("token", "nope")]
            .into_iter()
            .chain(creds)
            .collect::<Vec<_>>(),
    )
    .await;
    let shown = expect(asked, 200, "", "introspect, wrong last").await;
    assert_eq!(shown["active"], false, "{shown}");
    let json = format!(
        r#"{{"token":"nope","token":"{access}","client_id":"{id}","client_secret":"{secret}"}}"#
    );
    let shown = expect(raw_json(&app, INTROSPECT, &json).await, 200, "", "JSON").await;
    assert_eq!(shown["active"], true, "{shown}");

    // Revoke: the last token is the one revoked; an unknown parameter changes nothing.
    let revoked = form(
        &app,
        REVOKE,
        &[("token", "nope"), ("token", access.as_str()), ("why", "x")]
            .into_iter()
            .chain(creds)
            .collect::<Vec<_>>(),
    )
    .await;
    assert_eq!(outcome(revoked).await, (200, String::new()));
    let gone = form(
        &app,
        INTROSPECT,
        &with(&[])
            .into_iter()
            .chain([("token", access.as_str())])
            .collect::<Vec<_>>(),
    )
    .await;
    assert_eq!(expect(gone, 200, "", "revoked").await["active"], false);
    app.stop().await;
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn authorize_reads_the_last_value_and_ignores_unknown_names() {
    let app = TestApp::spawn().await;
    let (id, _) = setup(&app, &[]);
    let id = id.as_str();
    let cookie = sign_in(&app, EMAIL, PASSWORD).await.unwrap();
    let base = [
        ("redirect_uri", REDIRECT),
        ("response_type", "code"),
        ("state", "s1"),
        ("scope", "READ_PROFILE"),
    ];
    let with = |extra: &[(&'static str, &str)]| {
        let mut p: Vec<(&str, &str)> = base.to_vec();
        p.extend_from_slice(extra);
        authorize_url(&app, &p)
    };

    // The page: the last client_id counts, an unknown parameter is ignored.
    let page = get(
        &app,
        &with(&[("client_id", "nobody"), ("client_id", id), ("x", "1")]),
        Some(&cookie),
    )
    .await;
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    let carried = hidden_inputs(&html);
    assert!(!carried.iter().any(|(k, _)| k == "x"), "{carried:?}");
    assert_eq!(carried.iter().filter(|(k, _)| k == "client_id").count(), 1);
    let page = get(
        &app,
        &with(&[("client_id", id), ("client_id", "nobody")]),
        Some(&cookie),
    )
    .await;
    assert_eq!(page.status(), 400);
    assert!(location(&page).is_empty());
    // Missing client_id: the error page; a wrong last response_type: the error redirect.
    let page = get(&app, &with(&[]), Some(&cookie)).await;
    assert_eq!(page.status(), 400);
    assert!(location(&page).is_empty());
    let refused = get(
        &app,
        &with(&[("client_id", id), ("response_type", "token")]),
        Some(&cookie),
    )
    .await;
    assert_eq!(refused.status(), 303);
    let to = location(&refused);
    assert!(to.starts_with(REDIRECT), "{to}");
    assert_eq!(
        param(&to, "error").as_deref(),
        Some("unsupported_response_type"),
        "{to}"
    );
    assert_eq!(param(&to, "state").as_deref(), Some("s1"), "{to}");
    // Missing scope and response_type: their defaults; a missing state with no PKCE: the
    // error redirect.
    let no_scope = authorize_url(&app, &[("client_id", id), ("state", "s")]);
    let page = get(&app, &no_scope, Some(&cookie)).await;
    assert_eq!(page.status(), 200);
    let no_state = authorize_url(
        &app,
        &[
            ("client_id", id),
            ("redirect_uri", REDIRECT),
            ("response_type", "code"),
            ("scope", "READ_PROFILE"),
        ],
    );
    let refused = get(&app, &no_state, Some(&cookie)).await;
    let (status, to) = (refused.status().as_u16(), location(&refused));
    assert_eq!(
        (status, param(&to, "error")),
        (303, Some("invalid_request".into())),
        "{to}"
    );

    // Signed out: to the login form, carrying the request's known parameters once each.
    let login = get(
        &app,
        &with(&[("client_id", "nobody"), ("client_id", id), ("x", "1")]),
        None,
    )
    .await;
    assert_eq!(login.status(), 303);
    let next = param(&location(&login), "next").unwrap();
    assert!(next.starts_with("/auth/oauth2/authorize?"), "{next}");
    assert_eq!(param(&next, "client_id").as_deref(), Some(id), "{next}");
    assert_eq!(next.matches("client_id=").count(), 1, "{next}");
    assert!(param(&next, "x").is_none(), "{next}");

    // The consent form: the last decision and the last csrf_token count, unknown ones are
    // ignored, a missing token is refused with the error page.
    let post = |pairs: Vec<(String, String)>| {
        let app = &app;
        let cookie = cookie.clone();
        async move {
            app.client
                .post(app.url("/auth/oauth2/authorize"))
                .header("cookie", cookie)
                .form(&pairs)
                .send()
                .await
                .unwrap()
        }
    };
    let page_url = with(&[("client_id", id)]);
    let html = get(&app, &page_url, Some(&cookie))
        .await
        .text()
        .await
        .unwrap();
    let fields = hidden_inputs(&html);
    let mut no_token: Vec<(String, String)> = fields
        .iter()
        .filter(|(k, _)| k != "csrf_token")
        .cloned()
        .collect();
    no_token.push(("decision".into(), "allow".into()));
    let refused = post(no_token.clone()).await;
    assert_eq!(refused.status(), 403);
    assert!(location(&refused).is_empty());
    let token = fields
        .iter()
        .find(|(k, _)| k == "csrf_token")
        .unwrap()
        .1
        .clone();
    let mut wrong_last = no_token.clone();
    wrong_last.push(("csrf_token".into(), token.clone()));
    wrong_last.push(("csrf_token".into(), "forged".into()));
    assert_eq!(post(wrong_last).await.status(), 403);
    let mut denied = fields.clone();
    denied.push(("decision".into(), "allow".into()));
    denied.push(("decision".into(), "deny".into()));
    let resp = post(denied).await;
    assert_eq!(resp.status(), 303);
    assert_eq!(
        param(&location(&resp), "error").as_deref(),
        Some("access_denied")
    );
    let mut allowed = no_token;
    allowed.push(("csrf_token".into(), "forged".into()));
    allowed.push(("csrf_token".into(), token));
    allowed.push(("decision".into(), "deny".into()));
    allowed.push(("decision".into(), "allow".into()));
    allowed.push(("extra".into(), "1".into()));
    let resp = post(allowed).await;
    assert_eq!(resp.status(), 303);
    let to = location(&resp);
    assert!(param(&to, "code").is_some(), "{to}");
    assert_eq!(param(&to, "state").as_deref(), Some("s1"), "{to}");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_queries_read_the_last_value_and_ignore_unknown_names() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let created = api.create_document(two_recipients()).await;
    let doc = created.document_id();

    // (path, status, code): lists, the audit log, download and send.
    let cases: Vec<(String, u16, &str)> = vec![
        ("/api/v1/documents?page=x".into(), 400, "validation_error"),
        ("/api/v1/documents?page=x&page=1&foo=bar".into(), 200, ""),
        (
            "/api/v1/documents?page=1&page=x".into(),
            400,
            "validation_error",
        ),
        (
            "/api/v1/documents?status=BOGUS".into(),
            400,
            "invalid_request",
        ),
        (
            "/api/v1/documents?status=BOGUS&status=DRAFT&query=".into(),
            200,
            "",
        ),
        (
            "/api/v1/documents?perPage=0".into(),
            400,
            "validation_error",
        ),
        ("/api/v1/templates?perPage=x&perPage=5&x=1".into(), 200, ""),
        (
            "/api/v1/templates?page=1&page=0".into(),
            400,
            "validation_error",
        ),
        (
            format!("/api/v1/documents/{doc}/audit-log?page=0"),
            400,
            "invalid_request",
        ),
        (
            format!("/api/v1/documents/{doc}/audit-log?page=0&page=1&y=2"),
            200,
            "",
        ),
        (
            format!("/api/v1/documents/{doc}/audit-log?perPage=a"),
            400,
            "invalid_request",
        ),
        (
            format!("/api/v1/documents/{doc}/download?original=maybe"),
            400,
            "invalid_request",
        ),
        (
            format!("/api/v1/documents/{doc}/download?original=true&original=maybe"),
            400,
            "invalid_request",
        ),
    ];
    for (path, status, code) in cases {
        let resp = api.get_response(&path).await;
        let got = resp.status().as_u16();
        let body: Value = resp.json().await.unwrap_or(Value::Null);
        assert_eq!(got, status, "{path}: {body}");
        assert_eq!(
            body["code"].as_str().unwrap_or_default(),
            code,
            "{path}: {body}"
        );
    }
    for q in [
        "strictFormValues=maybe",
        "strictFormValues=true&strictFormValues=1",
    ] {
        let path = format!("/api/v1/documents/{doc}/send?{q}");
        let (status, body) = api.post(&path, json!({})).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (400, Some("invalid_request")),
            "{q}: {body}"
        );
    }

    // Signed upload URLs: a missing or repeated-and-altered signature is refused, an unknown
    // parameter changes nothing.
    let upload = created.0["uploadUrl"].as_str().unwrap().to_string();
    let unsigned = upload.split('?').next().unwrap().to_string();
    let pdf = fixture("a4-1p.pdf");
    let (status, body) = api.upload(&unsigned, pdf.clone()).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (403, Some("forbidden")),
        "{body}"
    );
    let (status, body) = api.upload(&format!("{upload}&sig=AAAA"), pdf.clone()).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (403, Some("forbidden")),
        "{body}"
    );
    let sig = param(&upload, "sig").unwrap();
    let (status, body) = api
        .upload(&format!("{upload}&sig=AAAA&sig={sig}&x=1"), pdf.clone())
        .await;
    assert_eq!(status, 200, "{body}");
    let path = format!("/api/v1/documents/{doc}/download?original=maybe&original=true&x=1");
    let (status, body) = api.get(&path).await;
    assert_eq!(status, 200, "{body}");
    let download = body["downloadUrl"].as_str().unwrap().to_string();
    let fetched = app
        .client
        .get(format!("{download}&x=1"))
        .send()
        .await
        .unwrap();
    assert_eq!(fetched.status(), 200);
    let fetched = app
        .client
        .get(format!("{download}&exp=1"))
        .send()
        .await
        .unwrap();
    assert_eq!(fetched.status(), 403);

    // A one-step upload: `title` left out is the empty title, refused as the JSON create's.
    let made = api
        .request(reqwest::Method::POST, "/api/v1/documents/upload?x=1")
        .header("content-type", "application/pdf")
        .body(pdf.clone())
        .send()
        .await
        .unwrap();
    let (status, body) = (made.status().as_u16(), made.json::<Value>().await.unwrap());
    assert_eq!(
        (status, body["code"].as_str()),
        (400, Some("validation_error")),
        "{body}"
    );
    let made = api
        .request(
            reqwest::Method::POST,
            "/api/v1/documents/upload?title=&title=Lease",
        )
        .header("content-type", "application/pdf")
        .body(pdf)
        .send()
        .await
        .unwrap();
    assert_eq!(made.status(), 200);

    // `?apiKey=`: the last one counts.
    let key = api.key().to_string();
    let me = |q: String| {
        let app = &app;
        async move {
            let url = app.url(&format!("/api/integrations/zapier/me?{q}"));
            app.client.get(url).send().await.unwrap().status().as_u16()
        }
    };
    assert_eq!(me(format!("apiKey=nope&apiKey={key}&x=1")).await, 201);
    assert_eq!(me(format!("apiKey={key}&apiKey=nope")).await, 401);
    assert_eq!(me("x=1".into()).await, 401);
    app.stop().await;
}
