//! The login and consent forms: CSRF tokens, throttling, hashes at rest, the account's connected
//! apps, and where a login may go next.

use super::*;

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
        ("https://evil.example/", "/"),
        ("//evil.example", "/"),
        ("/\\evil.example", "/"),
        ("/\t/evil.example", "/"),
        ("/\t\\evil.example", "/"),
        ("/\n/evil.example", "/"),
        ("/\r\n/evil.example", "/"),
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
