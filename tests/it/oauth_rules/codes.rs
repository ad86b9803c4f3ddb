//! The token endpoint: RFC 6749's errors, single-use codes, PKCE, client binding, scopes, and
//! what disabling a user or removing a client does to their tokens.

use super::*;

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
