//! TWO_FACTOR_AUTH with TOTP codes: actions, completion, logins that ask for the code, turning it
//! off.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_factor_actions_need_a_current_code_that_works_once() {
    let app = TestApp::spawn().await;
    let owner = app.user_with_key("owner@example.com", "enterprise");
    let auth = json!({"globalActionAuth": "TWO_FACTOR_AUTH"});
    let (id1, t1, f1) = sent(&owner, "ann@example.com", auth.clone(), Value::Null).await;
    let (_, t2, f2) = sent(&owner, "ann@example.com", auth, Value::Null).await;
    account(&app, "ann@example.com");
    let ann = sign_in(&app, "ann@example.com", PASSWORD).await.unwrap();
    for (t, f) in [(&t1, f1), (&t2, f2)] {
        let (s, _) = app.signer(t).with_cookie(&ann).sign_typed(f, "Ann").await;
        assert_eq!(s, 200);
    }
    // Not enrolled yet: told how to enrol.
    let (s, v) = complete_as(&app, &ann, &t1, json!({})).await;
    assert_eq!((s, code_of(&v)), (401, "totp_not_enrolled"), "{v}");
    let (secret, recovery) = enrol_totp(&app, &ann).await;
    let code = only_a_current_code_completes_and_once(&app, &ann, &secret, &t1, &t2).await;
    let signed = owner
        .audit(id1)
        .await
        .into_iter()
        .find(|e| e["type"] == "SIGNED")
        .unwrap();
    assert_eq!(signed["data"]["auth"]["method"], "TWO_FACTOR_AUTH");

    logging_in_asks_for_a_code_too(&app, &secret, &code).await;
    turning_totp_off_needs_a_code(&app, &ann, &recovery).await;
    app.stop().await;
}

/// Completing document 1 needs a code: none, a wrong one or an old one is refused, the current
/// one signs, and the same code again (for document 2) is refused. The code that signed.
async fn only_a_current_code_completes_and_once(
    app: &TestApp,
    ann: &str,
    secret: &[u8],
    t1: &str,
    t2: &str,
) -> String {
    let (s, v) = complete_as(app, ann, t1, json!({})).await;
    assert_eq!((s, code_of(&v)), (401, "second_factor_required"), "{v}");
    let (s, v) = complete_as(
        app,
        ann,
        t1,
        json!({"auth": {"method": "TWO_FACTOR_AUTH", "code": "123456"}}),
    )
    .await;
    assert_eq!((s, code_of(&v)), (401, "wrong_code"), "{v}");
    // A code from two minutes ago is too old.
    let old = totp_code(secret, unix_now() - 120);
    let (s, v) = complete_as(
        app,
        ann,
        t1,
        json!({"auth": {"method": "TWO_FACTOR_AUTH", "code": old}}),
    )
    .await;
    assert_eq!((s, code_of(&v)), (401, "wrong_code"), "{v}");
    let code = settled_code(secret, 0).await;
    let (s, v) = complete_as(
        app,
        ann,
        t1,
        json!({"auth": {"method": "TWO_FACTOR_AUTH", "code": code}}),
    )
    .await;
    assert_eq!(s, 200, "{v}");
    // The same code again, for the other document: refused.
    let (s, v) = complete_as(
        app,
        ann,
        t2,
        json!({"auth": {"method": "TWO_FACTOR_AUTH", "code": code}}),
    )
    .await;
    assert_eq!((s, code_of(&v)), (401, "wrong_code"), "replayed: {v}");
    code
}

/// Logging in now asks for a code too: the password alone gives no session, `code` (used
/// already) does not sign in, the next one does and keeps `next`.
async fn logging_in_asks_for_a_code_too(app: &TestApp, secret: &[u8], code: &str) {
    let (pre, resp) = password_step(
        app,
        "ann@example.com",
        "/auth/oauth2/authorize?client_id=app",
    )
    .await;
    assert_eq!(resp.status(), 303);
    assert!(
        resp.headers()["location"]
            .to_str()
            .unwrap()
            .starts_with("/auth/login/verify"),
    );
    let verify = resp.headers()["location"].to_str().unwrap().to_string();
    let cookies: Vec<String> = set_cookie_pairs(&resp);
    assert!(
        !cookies.iter().any(|c| c.starts_with("docket_session=")),
        "no session from the password alone: {cookies:?}"
    );
    // The second step (as the OAuth consent flow goes through it): the code page keeps `next`.
    let cookie = format!("{pre}; {}", cookies.join("; "));
    let html = app
        .client
        .get(app.url(&verify))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let mut step = hidden_inputs(&html);
    step.truncate(2); // the code form: csrf_token and next
    assert_eq!(
        step[1],
        (
            "next".to_string(),
            "/auth/oauth2/authorize?client_id=app".to_string()
        )
    );
    let mut wrong = step.clone();
    wrong.push(("code".into(), code.to_string()));
    let again = verify_login(app, &cookie, &wrong).await;
    assert_eq!(again.status(), 401, "a used code does not sign in");
    step.push(("code".into(), settled_code(secret, 1).await));
    let done = verify_login(app, &cookie, &step).await;
    assert_eq!(done.status(), 303);
    assert_eq!(
        done.headers()["location"],
        "/auth/oauth2/authorize?client_id=app"
    );
    assert!(
        set_cookie_pairs(&done)
            .iter()
            .any(|c| c.starts_with("docket_session=")),
        "signed in after the code"
    );
}

/// Turning TOTP off needs a code: a wrong one changes nothing, a recovery code works (once).
async fn turning_totp_off_needs_a_code(app: &TestApp, ann: &str, recovery: &[String]) {
    let (csrf, _) = account_page(app, ann).await;
    assert_eq!(totp_off(app, ann, &csrf, "999999").await, 401);
    let (_, html) = account_page(app, ann).await;
    assert!(html.contains("Authenticator app: <strong>on</strong>"));
    assert_eq!(totp_off(app, ann, &csrf, &recovery[0]).await, 303);
    let (_, html) = account_page(app, ann).await;
    assert!(html.contains("Authenticator app: off"), "{html}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_factor_access_leaves_reading_open_and_asks_the_code_at_finishing() {
    let app = TestApp::spawn().await;
    let owner = app.user_with_key("owner@example.com", "enterprise");
    let access = json!({"globalAccessAuth": ["TWO_FACTOR_AUTH"]});
    let (id, token, field) = sent(&owner, "ann@example.com", access.clone(), Value::Null).await;
    // The link alone reads the document (unlike ACCOUNT access) but cannot act.
    let anonymous = app.signer(&token);
    let (s, v) = anonymous.state().await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(anonymous.page().await.status(), 200);
    let (s, v) = anonymous.sign_typed(field, "Ann").await;
    assert_eq!((s, code_of(&v)), (401, "account_required"), "{v}");

    account(&app, "ann@example.com");
    let ann = sign_in(&app, "ann@example.com", PASSWORD).await.unwrap();
    let (s, _) = app
        .signer(&token)
        .with_cookie(&ann)
        .sign_typed(field, "Ann")
        .await;
    assert_eq!(s, 200);
    let (s, v) = complete_as(&app, &ann, &token, json!({})).await;
    assert_eq!((s, code_of(&v)), (401, "totp_not_enrolled"), "{v}");
    let (secret, _) = enrol_totp(&app, &ann).await;
    let (s, v) = complete_as(&app, &ann, &token, json!({})).await;
    assert_eq!((s, code_of(&v)), (401, "second_factor_required"), "{v}");
    let code = settled_code(&secret, 0).await;
    let body = json!({"auth": {"method": "TWO_FACTOR_AUTH", "code": code}});
    let (s, v) = complete_as(&app, &ann, &token, body).await;
    assert_eq!(s, 200, "{v}");
    let signed = owner
        .audit(id)
        .await
        .into_iter()
        .find(|e| e["type"] == "SIGNED")
        .unwrap();
    assert_eq!(signed["data"]["auth"]["method"], "TWO_FACTOR_AUTH");

    // Per recipient too; and, like action authentication, for enterprise accounts only.
    let recipient = json!({"accessAuth": "TWO_FACTOR_AUTH"});
    let (_, token, field) = sent(&owner, "bob@example.com", Value::Null, recipient).await;
    let (s, v) = app.signer(&token).sign_typed(field, "Bob").await;
    assert_eq!((s, code_of(&v)), (401, "account_required"), "{v}");
    let standard = app.user_with_key("std@example.com", "standard");
    let (s, v) = standard
        .post(
            "/api/v1/documents",
            json!({"title": "x", "recipients": [], "authOptions": access}),
        )
        .await;
    assert_eq!(s, 403, "{v}");
    app.stop().await;
}
