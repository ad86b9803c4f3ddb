//! The authorization endpoint: what it may and may not redirect, the login on the way, denial,
//! and the server's metadata.

use super::*;

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
        // No state and no PKCE: a silent request would give a code without a click (issue 57:
        // without prompt=none it shows the consent page, `calcom_compat`).
        (&id, REDIRECT, vec![("scope", "READ_PROFILE"), ("prompt", "none")], "invalid_request"),
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
