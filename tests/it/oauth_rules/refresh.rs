//! Refresh tokens, revocation and introspection.

use super::*;

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
