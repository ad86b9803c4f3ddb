//! Second factors that cannot be raced or swapped, through the real server: every answer is
//! counted before it is checked, so bursts of concurrent wrong codes get at most the limits'
//! checks (a pending login 5, an account 10) on the login's second step, on signing links and
//! on turning TOTP off; and a session cookie alone changes no second factor: the owner confirms
//! with a current factor (the password for an account without one), and the account is mailed.

use serde_json::{Value, json};

use crate::recipient_auth::{
    account, account_page, code_of, complete_as, confirm_with, enrol_totp, password_step,
    register_passkey, sent, settled_code, totp_code, totp_off, unix_now,
};
use crate::support::TestApp;
use crate::support::login::{PASSWORD, hidden_inputs, set_cookie_pairs, sign_in};

const EMAIL: &str = "ann@example.com";

/// The id of the account `email`.
fn user_id(app: &TestApp, email: &str) -> i64 {
    app.db()
        .query_row("SELECT id FROM users WHERE email = ?1", [email], |r| {
            r.get(0)
        })
        .unwrap()
}

/// Second-factor answers counted against the account (its throttle row), and whether it is
/// locked now.
fn account_count(app: &TestApp, user: i64) -> (i64, bool) {
    app.db()
        .query_row(
            "SELECT coalesce(max(failures), 0), coalesce(max(locked_until), 0) > ?2
               FROM login_failures WHERE key = ?1",
            docket::params![format!("factor:{user}"), unix_now() as i64],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap()
}

/// Ann's account with TOTP on: her session cookie and the secret.
async fn ann_with_totp(app: &TestApp) -> (String, Vec<u8>) {
    account(app, EMAIL);
    let ann = sign_in(app, EMAIL, PASSWORD).await.unwrap();
    let (secret, _) = enrol_totp(app, &ann).await;
    (ann, secret)
}

/// A login of Ann waiting for her second factor: the cookies and the code form's hidden fields.
async fn pending_login(app: &TestApp) -> (String, Vec<(String, String)>) {
    let (pre, resp) = password_step(app, EMAIL, "/account").await;
    assert_eq!(resp.status(), 303);
    let cookie = format!("{pre}; {}", set_cookie_pairs(&resp).join("; "));
    let html = app
        .client
        .get(app.url("/auth/login/verify?next=%2Faccount"))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let mut form = hidden_inputs(&html);
    form.truncate(2);
    (cookie, form)
}

/// Sends every code in `codes` at once to the pending login behind `cookie`: the answers'
/// statuses and whether each set a session cookie.
async fn code_burst(
    app: &TestApp,
    cookie: &str,
    form: &[(String, String)],
    codes: Vec<String>,
) -> Vec<(u16, bool)> {
    let tasks: Vec<_> = codes
        .into_iter()
        .map(|code| {
            let (client, url, cookie) = (
                app.client.clone(),
                app.url("/auth/login/verify"),
                cookie.to_string(),
            );
            let mut form = form.to_vec();
            form.push(("code".into(), code));
            tokio::spawn(async move {
                let resp = client
                    .post(url)
                    .header("cookie", cookie)
                    .form(&form)
                    .send()
                    .await
                    .unwrap();
                let session = set_cookie_pairs(&resp)
                    .iter()
                    .any(|c| c.contains("session=") && !c.ends_with('='));
                (resp.status().as_u16(), session)
            })
        })
        .collect();
    let mut out = Vec::new();
    for t in tasks {
        out.push(t.await.unwrap());
    }
    out
}

/// Six-digit codes that are not `secret`'s around now.
fn wrong_codes(secret: &[u8], n: usize) -> Vec<String> {
    let now = unix_now();
    let near: Vec<String> = (0..6)
        .map(|i| totp_code(secret, now - 90 + i * 30))
        .collect();
    (0..)
        .map(|i| format!("{:06}", 100_003 + i * 7919))
        .filter(|c| !near.contains(c))
        .take(n)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_wrong_codes_on_one_pending_login_gets_at_most_five_checks() {
    let app = TestApp::spawn().await;
    let (_, secret) = ann_with_totp(&app).await;
    let user = user_id(&app, EMAIL);
    let (cookie, form) = pending_login(&app).await;
    // 60 wrong codes at once. Every answer checked and refused stands against the pending login
    // (counted after the check, all 60 were checked and counted): at most its five.
    let answers = code_burst(&app, &cookie, &form, wrong_codes(&secret, 60)).await;
    let checked: i64 = app
        .db()
        .query_row(
            "SELECT coalesce(max(failures), 0) FROM pending_logins WHERE user_id = ?1",
            [user],
            |r| r.get(0),
        )
        .unwrap();
    assert!((1..=5).contains(&checked), "{checked} checks: {answers:?}");
    assert!(answers.iter().all(|(_, session)| !session));
    let (count, locked) = account_count(&app, user);
    assert_eq!(count, checked, "the account counted the same answers");
    assert!(!locked, "the account's own limit was not reached");
    // The pending login is spent either way: a right code now does not sign in.
    let again = code_burst(&app, &cookie, &form, vec![settled_code(&secret, 1).await]).await;
    assert_eq!(again[0], (303, false), "back to the password");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bursts_across_pending_logins_get_at_most_the_accounts_ten_checks() {
    let app = TestApp::spawn().await;
    let (_, secret) = ann_with_totp(&app).await;
    let user = user_id(&app, EMAIL);
    let mut logins = Vec::new();
    for _ in 0..8 {
        logins.push(pending_login(&app).await);
    }
    // Five wrong codes on each of eight pending logins, all at once: 40 answers, where the
    // account allows ten checks before it locks.
    let tasks: Vec<_> = logins
        .into_iter()
        .map(|(cookie, form)| {
            let codes = wrong_codes(&secret, 5);
            let app_url = app.base.clone();
            let client = app.client.clone();
            tokio::spawn(async move {
                let mut out = Vec::new();
                let sends: Vec<_> = codes
                    .into_iter()
                    .map(|code| {
                        let mut form = form.clone();
                        form.push(("code".into(), code));
                        let (client, cookie) = (client.clone(), cookie.clone());
                        let url = format!("{app_url}/auth/login/verify");
                        tokio::spawn(async move {
                            let r = client
                                .post(url)
                                .header("cookie", cookie)
                                .form(&form)
                                .send()
                                .await
                                .unwrap();
                            r.status().as_u16()
                        })
                    })
                    .collect();
                for s in sends {
                    out.push(s.await.unwrap());
                }
                out
            })
        })
        .collect();
    let mut statuses = Vec::new();
    for t in tasks {
        statuses.extend(t.await.unwrap());
    }
    // 429 is given before any check; every other answer was checked.
    let checked = statuses.iter().filter(|s| **s != 429).count();
    assert!(
        checked <= 10,
        "{checked} of 40 answers checked for a limit of 10: {statuses:?}"
    );
    let (count, locked) = account_count(&app, user);
    assert_eq!(count, 10, "{statuses:?}");
    assert!(locked);
    // Locked: the right code on a new pending login is refused too.
    let (cookie, form) = pending_login(&app).await;
    let right = code_burst(&app, &cookie, &form, vec![settled_code(&secret, 0).await]).await;
    assert_eq!(right[0], (429, false));
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_wrong_codes_on_a_signing_link_gets_at_most_the_accounts_checks() {
    let app = TestApp::spawn().await;
    let owner = app.user_with_key("owner@example.com", "enterprise");
    let auth = json!({"globalActionAuth": "TWO_FACTOR_AUTH"});
    let (_, token, field) = sent(&owner, EMAIL, auth, Value::Null).await;
    let (ann, secret) = ann_with_totp(&app).await;
    let (s, _) = app
        .signer(&token)
        .with_cookie(&ann)
        .sign_typed(field, "Ann")
        .await;
    assert_eq!(s, 200);
    // 40 wrong codes at once (a right one among them would finish the document and turn the
    // rest into 409s): only 401 after a check, or 429 before one.
    let tasks: Vec<_> = wrong_codes(&secret, 40)
        .into_iter()
        .map(|code| {
            let (app_client, base, ann, token) = (
                app.client.clone(),
                app.base.clone(),
                ann.clone(),
                token.clone(),
            );
            tokio::spawn(async move {
                let r = app_client
                    .post(format!("{base}/sign/{token}/complete"))
                    .header("cookie", ann)
                    .json(&json!({"auth": {"method": "TWO_FACTOR_AUTH", "code": code}}))
                    .send()
                    .await
                    .unwrap();
                let status = r.status().as_u16();
                let v: Value = r.json().await.unwrap_or(Value::Null);
                (status, code_of(&v).to_string())
            })
        })
        .collect();
    let mut answers = Vec::new();
    for t in tasks {
        answers.push(t.await.unwrap());
    }
    let wrong = answers.iter().filter(|(_, c)| c == "wrong_code").count();
    let refused = answers.iter().filter(|(s, _)| *s == 429).count();
    assert!(
        (1..=10).contains(&wrong),
        "{wrong} checks for a limit of 10: {answers:?}"
    );
    assert_eq!(wrong + refused, 40, "only checks and 429: {answers:?}");
    // Locked: the right code waits too.
    let code = settled_code(&secret, 0).await;
    let right = json!({"auth": {"method": "TWO_FACTOR_AUTH", "code": code}});
    let (s, v) = complete_as(&app, &ann, &token, right).await;
    assert_eq!((s, code_of(&v)), (429, "rate_limited"), "{v}");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_codes_to_turn_totp_off_lock_the_account_after_ten() {
    let app = TestApp::spawn().await;
    let (ann, secret) = ann_with_totp(&app).await;
    let (csrf, _) = account_page(&app, &ann).await;
    let mut statuses = Vec::new();
    for code in wrong_codes(&secret, 30) {
        statuses.push(totp_off(&app, &ann, &csrf, &code).await.as_u16());
    }
    assert_eq!(statuses[..10], [401; 10], "{statuses:?}");
    assert_eq!(statuses[10..], [429; 20], "{statuses:?}");
    // Still on, and even the right code waits for the lock to end.
    let (_, html) = account_page(&app, &ann).await;
    assert!(html.contains("Authenticator app: <strong>on</strong>"));
    let right = totp_off(&app, &ann, &csrf, &settled_code(&secret, 0).await).await;
    assert_eq!(right, 429);
    app.stop().await;
}

/// The security notices mailed to `to`, oldest first.
fn notices(app: &TestApp, to: &str) -> Vec<String> {
    app.db()
        .query_map(
            "SELECT body_text FROM mail_queue WHERE kind = 'SECURITY_NOTICE' AND to_addr = ?1
              ORDER BY id",
            [to],
            |r| r.get::<_, String>(0),
        )
        .unwrap()
        .into_iter()
        .map(|t| t.lines().nth(2).unwrap_or_default().to_string())
        .collect()
}

/// Posts the account page's "set up an authenticator app" form: the answer's status and where
/// it sends the browser.
async fn start_totp(app: &TestApp, cookie: &str) -> (u16, String) {
    let (csrf, _) = account_page(app, cookie).await;
    let r = app
        .client
        .post(app.url("/account/totp/start"))
        .header("cookie", cookie)
        .form(&[("csrf_token", csrf.as_str())])
        .send()
        .await
        .unwrap();
    let location = r
        .headers()
        .get("location")
        .map(|l| l.to_str().unwrap().to_string())
        .unwrap_or_default();
    (r.status().as_u16(), location)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_cookie_alone_changes_no_second_factor() {
    let app = TestApp::spawn().await;
    account(&app, EMAIL);
    let ann = sign_in(&app, EMAIL, PASSWORD).await.unwrap();
    // Without a confirmation: to the confirmation page, nothing started.
    let (s, to) = start_totp(&app, &ann).await;
    assert_eq!((s, to.as_str()), (303, "/account/confirm?next=%2Faccount"));
    let (csrf, _) = account_page(&app, &ann).await;
    let options = app
        .client
        .post(app.url("/account/passkeys/options"))
        .header("cookie", &ann)
        .header("x-csrf-token", &csrf)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(options.status(), 401);
    let v: Value = options.json().await.unwrap();
    assert_eq!(code_of(&v), "confirmation_required");
    // Without a second factor, the password confirms (a wrong one does not).
    assert_eq!(confirm_with(&app, &ann, ("password", "wrong")).await, 401);
    assert_eq!(start_totp(&app, &ann).await.0, 303);
    let (secret, _) = enrol_totp(&app, &ann).await;
    let _passkey = register_passkey(&app, &ann, "Laptop").await;

    // A new session of Ann (as a stolen cookie would be): not confirmed.
    let thief = signed_in_with_code(&app, &secret).await;
    let (s, to) = start_totp(&app, &thief).await;
    assert_eq!((s, to.as_str()), (303, "/account/confirm?next=%2Faccount"));
    // With a second factor on, the password is not enough; a wrong code neither.
    assert_eq!(
        confirm_with(&app, &thief, ("password", PASSWORD)).await,
        401
    );
    assert_eq!(confirm_with(&app, &thief, ("code", "000000")).await, 401);
    assert_eq!(start_totp(&app, &thief).await.0, 303);
    let removed = remove_first_passkey(&app, &thief).await;
    assert_eq!(removed, 303);
    let (_, html) = account_page(&app, &thief).await;
    assert!(html.contains("Laptop"), "the passkey stays");
    // A current code confirms; then the app can be replaced and the passkey removed.
    let code = settled_code(&secret, 1).await;
    assert_eq!(confirm_with(&app, &thief, ("code", &code)).await, 303);
    let (s, to) = start_totp(&app, &thief).await;
    assert_eq!(
        (s, to.as_str()),
        (303, "/account/totp"),
        "a new app's enrolment"
    );
    assert_eq!(remove_first_passkey(&app, &thief).await, 303);
    let (_, html) = account_page(&app, &thief).await;
    assert!(html.contains("No passkeys yet"));
    assert_eq!(
        notices(&app, EMAIL),
        [
            "An authenticator app was set up on your Docket account ann@example.com.",
            "A passkey named \"Laptop\" was added on your Docket account ann@example.com.",
            "The passkey named \"Laptop\" was removed on your Docket account ann@example.com.",
        ]
    );
    app.stop().await;
}

/// A new session of Ann through her password and a current code.
async fn signed_in_with_code(app: &TestApp, secret: &[u8]) -> String {
    let (cookie, form) = pending_login(app).await;
    let mut form = form;
    form.push(("code".into(), settled_code(secret, 0).await));
    let resp = app
        .client
        .post(app.url("/auth/login/verify"))
        .header("cookie", &cookie)
        .form(&form)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 303);
    set_cookie_pairs(&resp)
        .into_iter()
        .filter(|c| c.contains("session=") && !c.ends_with('='))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Removes the first passkey the account page lists: the status.
async fn remove_first_passkey(app: &TestApp, cookie: &str) -> u16 {
    let (csrf, html) = account_page(app, cookie).await;
    let at = html.find("/account/passkeys/").unwrap() + "/account/passkeys/".len();
    let id: String = html[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    app.client
        .post(app.url(&format!("/account/passkeys/{id}/delete")))
        .header("cookie", cookie)
        .form(&[("csrf_token", csrf)])
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_code_an_action_did_not_need_counts_for_nothing() {
    let app = TestApp::spawn().await;
    let owner = app.user_with_key("owner@example.com", "enterprise");
    let auth = json!({"globalActionAuth": "ACCOUNT"});
    let (_, token, field) = sent(&owner, EMAIL, auth, Value::Null).await;
    let (ann, secret) = ann_with_totp(&app).await;
    let link = app.signer(&token).with_cookie(&ann);
    assert_eq!(link.sign_typed(field, "Ann").await.0, 200);
    // The document asks for the account only: the (wrong) code that comes along is not checked.
    let wrong = wrong_codes(&secret, 1).remove(0);
    let body = json!({"auth": {"method": "TWO_FACTOR_AUTH", "code": wrong}});
    let (s, v) = link.complete(body).await;
    assert_eq!(s, 200, "{v}");
    let (count, _) = account_count(&app, user_id(&app, EMAIL));
    assert_eq!(count, 0, "an answer nobody checked stands against nobody");
    app.stop().await;
}
