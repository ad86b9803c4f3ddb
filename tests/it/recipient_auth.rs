//! Recipient authentication through the real server's JSON calls (no browser): ACCOUNT access
//! and action, accounts created from the mailed link, TWO_FACTOR_AUTH with TOTP codes computed
//! here, PASSKEY with a software authenticator, and logins that then ask for the second factor.
//! Each proof is refused when missing, replayed, or made for another account.

use reqwest::Method as M;
use serde_json::{Value, json};

use crate::authenticator::Passkey;
use crate::support::api::{Api, Signer, fixture};
use crate::support::login::{
    LoginForm, PASSWORD, add_account, hidden_inputs, set_cookie_pairs, sign_in,
};
use crate::support::tools;
use crate::support::{TestApp, docket_json};

/// A recipient account with the test password.
pub fn account(app: &TestApp, email: &str) {
    add_account(&app.data_dir(), email, "Ann");
}

/// A sent one-page document for one SIGNER `email` with one SIGNATURE field and the given
/// `authOptions` (document and recipient). Returns (document id, signing token, field id).
pub async fn sent(
    owner: &Api,
    email: &str,
    doc_auth: Value,
    recipient_auth: Value,
) -> (i64, String, i64) {
    let created = owner
        .create_document(
            json!({"title": "Guarded", "authOptions": doc_auth, "recipients": [
                {"name": "Ann", "email": email, "role": "SIGNER", "authOptions": recipient_auth}
            ]}),
        )
        .await;
    let id = created.document_id();
    let token = created.token(0);
    let rid = created.recipient_id(0);
    let (up, _) = owner
        .upload(created.upload_url(), fixture("a4-1p.pdf"))
        .await;
    assert_eq!(up, 200);
    let (s, fields) = owner
        .post(
            &format!("/api/v1/documents/{id}/fields"),
            json!([{"recipientId": rid, "type": "SIGNATURE", "pageNumber": 1,
            "pageX": 10, "pageY": 80, "pageWidth": 30, "pageHeight": 5}]),
        )
        .await;
    assert_eq!(s, 200, "{fields}");
    let field = fields["fields"][0]["id"]
        .as_i64()
        .or_else(|| fields[0]["id"].as_i64())
        .expect("field id");
    let (s, v) = owner.send_with(id, json!({})).await;
    assert_eq!(s, 200, "{v}");
    (id, token, field)
}

pub fn code_of(v: &Value) -> &str {
    v["code"].as_str().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs poppler's pdftotext")]
async fn account_access_shows_nothing_until_the_recipients_account_signs_in() {
    let app = TestApp::spawn().await;
    let owner = app.user_with_key("owner@example.com", "standard");
    let (id, token, field) = sent(
        &owner,
        "ann@example.com",
        json!({"globalAccessAuth": "ACCOUNT"}),
        Value::Null,
    )
    .await;
    let link = app.signer(&token);

    anonymous_sees_the_title_and_sender_only(&app, &link, field).await;
    another_account_is_refused(&app, &link).await;

    // Nothing was opened yet.
    let before: Vec<String> = owner
        .audit(id)
        .await
        .iter()
        .map(|e| e["type"].as_str().unwrap().to_string())
        .collect();
    assert!(!before.contains(&"OPENED".to_string()), "{before:?}");

    the_recipients_own_account_reads_and_signs(&app, &owner, &link, id, field).await;
    the_certificate_says_how_the_recipient_proved_who_they_were(&app, &owner, id).await;
    app.stop().await;
}

/// Anonymous: the page shows the title and sender only; every JSON call is 401.
async fn anonymous_sees_the_title_and_sender_only(app: &TestApp, link: &Signer, field: i64) {
    let page = app.get(&link.path("")).await;
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(
        html.contains("Guarded") && html.contains("owner@example.com"),
        "{html}"
    );
    assert!(
        html.contains("account-gate") && !html.contains("data-token"),
        "{html}"
    );
    assert!(
        html.contains("create-account"),
        "no account yet: offer to make one"
    );
    for (m, rest, body) in [
        (M::GET, "/state".to_string(), None),
        (M::GET, "/pages/1.png".to_string(), None),
        (
            M::POST,
            format!("/fields/{field}"),
            Some(json!({"typed": "Ann"})),
        ),
        (M::POST, "/complete".to_string(), Some(json!({}))),
        (
            M::POST,
            "/reject".to_string(),
            Some(json!({"reason": "no"})),
        ),
    ] {
        let (s, v) = link.call(m, &rest, body).await;
        let path = link.path(&rest);
        assert_eq!((s, code_of(&v)), (401, "account_required"), "{path}: {v}");
    }
}

/// Another account is refused with a code that says so.
async fn another_account_is_refused(app: &TestApp, link: &Signer) {
    account(app, "bob@example.com");
    let bob = sign_in(app, "bob@example.com", PASSWORD).await.unwrap();
    let as_bob = link.with_cookie(&bob);
    let (s, v) = as_bob.state().await;
    assert_eq!((s, code_of(&v)), (401, "wrong_account"), "{v}");
    let html = as_bob.page().await.text().await.unwrap();
    assert!(
        html.contains("You are signed in as bob@example.com"),
        "{html}"
    );
}

/// The recipient's own account reads and signs; the audit log says how.
async fn the_recipients_own_account_reads_and_signs(
    app: &TestApp,
    owner: &Api,
    link: &Signer,
    id: i64,
    field: i64,
) {
    account(app, "ann@example.com");
    let ann = sign_in(app, "ann@example.com", PASSWORD).await.unwrap();
    let as_ann = link.with_cookie(&ann);
    let (s, v) = as_ann.state().await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["auth"]["accessAuth"], "ACCOUNT");
    assert_eq!(v["auth"]["signedInAs"], "ann@example.com");
    let (s, _) = as_ann.sign_typed(field, "Ann").await;
    assert_eq!(s, 200);
    let (s, v) = as_ann.complete(json!({})).await;
    assert_eq!(s, 200, "{v}");
    let signed = owner
        .audit(id)
        .await
        .into_iter()
        .find(|e| e["type"] == "SIGNED")
        .expect("SIGNED recorded");
    assert_eq!(signed["data"]["auth"]["method"], "ACCOUNT");
    assert_eq!(signed["data"]["auth"]["account"], "ann@example.com");
}

/// The sealed PDF's audit certificate says how the recipient proved who they were.
async fn the_certificate_says_how_the_recipient_proved_who_they_were(
    app: &TestApp,
    owner: &Api,
    id: i64,
) {
    owner.wait_status(id, "COMPLETED").await;
    let (s, v) = owner.get(&format!("/api/v1/documents/{id}/download")).await;
    assert_eq!(s, 200, "{v}");
    let bytes = app
        .client
        .get(v["downloadUrl"].as_str().unwrap())
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let pdf = dir.path().join("sealed.pdf");
    std::fs::write(&pdf, &bytes).unwrap();
    let text = tools::pdf_words(&pdf);
    assert!(
        text.contains("Authentication") && text.contains("account sign-in"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn account_action_leaves_reading_open_and_guards_every_action() {
    let app = TestApp::spawn().await;
    let owner = app.user_with_key("owner@example.com", "enterprise");
    let (_, token, field) = sent(
        &owner,
        "ann@example.com",
        Value::Null,
        json!({"actionAuth": "ACCOUNT"}),
    )
    .await;
    let link = app.signer(&token);
    let (s, v) = link.state().await;
    assert_eq!(s, 200, "reading is open: {v}");
    assert_eq!(v["auth"]["actionAuth"], "ACCOUNT");
    assert_eq!(v["auth"]["accountReady"], false);
    assert!(v["auth"]["inviteCsrf"].is_string());
    for (rest, body) in [
        (format!("/fields/{field}"), json!({"typed": "Ann"})),
        ("/complete".to_string(), json!({})),
        ("/reject".to_string(), json!({"reason": "no"})),
    ] {
        let (s, v) = link.call(M::POST, &rest, Some(body)).await;
        let path = link.path(&rest);
        assert_eq!((s, code_of(&v)), (401, "account_required"), "{path}: {v}");
    }
    account(&app, "ann@example.com");
    let ann = sign_in(&app, "ann@example.com", PASSWORD).await.unwrap();
    let as_ann = link.with_cookie(&ann);
    let (s, _) = as_ann.sign_typed(field, "Ann").await;
    assert_eq!(s, 200);
    let (s, v) = as_ann.reject("wrong terms").await;
    assert_eq!(s, 200, "{v}");
    app.stop().await;
}

/// The link in the latest ACCOUNT_INVITE message to `to` in the outbox.
fn invite_link(app: &TestApp, to: &str) -> String {
    let list = docket_json(&app.data_dir(), &["mail", "list"], None);
    let mail = list
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["kind"] == "ACCOUNT_INVITE" && m["to"] == to)
        .unwrap_or_else(|| panic!("no invite to {to}: {list}"))
        .clone();
    let id = mail["id"].as_i64().unwrap().to_string();
    let text = docket_json(&app.data_dir(), &["mail", "show", &id], None).to_string();
    let start = text.find("/auth/signup/").expect("a signup link");
    let code: String = text[start + "/auth/signup/".len()..]
        .chars()
        .take_while(char::is_ascii_alphanumeric)
        .collect();
    format!("/auth/signup/{code}")
}

/// A sent ACCOUNT-access document for new@example.com, who has no account: its link, and the
/// hidden fields of the page's "create an account" form.
async fn gated_for_new(app: &TestApp, owner: &Api) -> (Signer, Vec<(String, String)>) {
    let (_, token, _) = sent(
        owner,
        "new@example.com",
        json!({"globalAccessAuth": "ACCOUNT"}),
        Value::Null,
    )
    .await;
    let signing = app.signer(&token);
    let html = signing.page().await.text().await.unwrap();
    let form = hidden_inputs(&html)
        .into_iter()
        .filter(|(k, _)| k == "csrf_token")
        .collect();
    (signing, form)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recipient_without_an_account_creates_one_from_the_mailed_link() {
    let app = TestApp::spawn().await;
    let owner = app.user_with_key("owner@example.com", "standard");
    let (signing, form) = gated_for_new(&app, &owner).await;
    let base = signing.path("");
    // Without the form's token: refused.
    let resp = app
        .client
        .post(app.url(&format!("{base}/account")))
        .form(&[("csrf_token", "forged")])
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 403);
    let resp = app
        .client
        .post(app.url(&format!("{base}/account")))
        .form(&form)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let link = invite_link(&app, "new@example.com");

    let page = app.get(&link).await;
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(html.contains("new@example.com"));
    let mut fields = hidden_inputs(&html);
    fields.extend([
        ("name".to_string(), "Nora New".to_string()),
        ("password".to_string(), PASSWORD.to_string()),
        ("password2".to_string(), PASSWORD.to_string()),
    ]);
    let resp = app
        .client
        .post(app.url(&link))
        .form(&fields)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 303);
    assert_eq!(resp.headers()["location"], base.as_str());
    let cookie = set_cookie_pairs(&resp).join("; ");
    let (s, v) = signing.with_cookie(&cookie).state().await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["auth"]["signedInAs"], "new@example.com");

    // The link works once; the account exists now, so no new link is mailed.
    let again = app
        .client
        .post(app.url(&link))
        .form(&fields)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 410);
    assert!(sign_in(&app, "new@example.com", PASSWORD).await.is_ok());
    let resp = app
        .client
        .post(app.url(&format!("{base}/account")))
        .form(&form)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 409);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn account_links_are_mailed_at_most_three_times_an_hour() {
    let app = TestApp::spawn().await;
    let owner = app.user_with_key("owner@example.com", "standard");
    let (signing, form) = gated_for_new(&app, &owner).await;
    let base = signing.path("");
    let mut statuses = Vec::new();
    for _ in 0..4 {
        let resp = app
            .client
            .post(app.url(&format!("{base}/account")))
            .form(&form)
            .send()
            .await
            .unwrap();
        statuses.push(resp.status().as_u16());
    }
    assert_eq!(statuses, [200, 200, 200, 429]);
    app.stop().await;
}

/// The TOTP secret the enrolment page shows, as bytes.
pub fn secret_from(html: &str) -> Vec<u8> {
    let start = html.find("id=\"totp-secret\">").expect("the key is shown") + 17;
    let text: String = html[start..]
        .chars()
        .take_while(|c| *c != '<')
        .filter(|c| !c.is_whitespace())
        .collect();
    totp_rs::Secret::try_from_base32(&text)
        .expect("base32")
        .as_ref()
        .to_vec()
}

/// The code for `secret` at `unix` (RFC 6238, SHA-1, six digits, 30 s).
pub fn totp_code(secret: &[u8], unix: u64) -> String {
    totp_rs::Builder::new()
        .with_secret(secret.to_vec())
        .build()
        .unwrap()
        .generate(unix)
        .to_string()
}

/// The code for `secret` `steps` 30-second steps from now, computed at least five seconds
/// before the current step ends (waiting for the next one if need be), so that the server
/// judges it in the same step the test meant, however the test's clock falls.
pub async fn settled_code(secret: &[u8], steps: i64) -> String {
    let into = unix_now() % 30;
    if into >= 25 {
        tokio::time::sleep(std::time::Duration::from_secs(31 - into)).await;
    }
    totp_code(secret, unix_now().saturating_add_signed(steps * 30))
}

pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// A csrf token from the account page (forms) and the page itself.
pub async fn account_page(app: &TestApp, cookie: &str) -> (String, String) {
    let html = app
        .client
        .get(app.url("/account"))
        .header("cookie", cookie)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    // The second-factor forms' token (the passkey box carries it too).
    let start = html.find("data-csrf=\"").expect("the passkey box") + 11;
    let csrf: String = html[start..].chars().take_while(|c| *c != '"').collect();
    (csrf, html)
}

/// Confirms it is the account's owner on `/account/confirm` with `proof` (a form field and its
/// value, e.g. `("password", PASSWORD)`): the status of the answer (303 back when confirmed).
pub async fn confirm_with(app: &TestApp, cookie: &str, proof: (&str, &str)) -> u16 {
    let html = app
        .client
        .get(app.url("/account/confirm?next=%2Faccount"))
        .header("cookie", cookie)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let mut form: Vec<(String, String)> = hidden_inputs(&html).into_iter().take(2).collect();
    form.push((proof.0.into(), proof.1.into()));
    app.client
        .post(app.url("/account/confirm"))
        .header("cookie", cookie)
        .form(&form)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

/// Enrols TOTP for the signed-in account (without a second factor yet: it confirms with its
/// password) through the account page; returns the secret and the recovery codes.
pub async fn enrol_totp(app: &TestApp, cookie: &str) -> (Vec<u8>, Vec<String>) {
    assert_eq!(confirm_with(app, cookie, ("password", PASSWORD)).await, 303);
    let (csrf, _) = account_page(app, cookie).await;
    let page = app
        .client
        .post(app.url("/account/totp/start"))
        .header("cookie", cookie)
        .form(&[("csrf_token", csrf.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(
        html.contains("data:image/svg+xml;base64,"),
        "a QR code is drawn"
    );
    let secret = secret_from(&html);
    // A wrong code keeps the enrolment open.
    let wrong = app
        .client
        .post(app.url("/account/totp/confirm"))
        .header("cookie", cookie)
        .form(&[("csrf_token", csrf.as_str()), ("code", "000000")])
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), 400);
    // Confirm with the previous step's code, leaving the current one for the test.
    let code = settled_code(&secret, -1).await;
    let done = app
        .client
        .post(app.url("/account/totp/confirm"))
        .header("cookie", cookie)
        .form(&[("csrf_token", csrf.as_str()), ("code", code.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(done.status(), 200);
    let html = done.text().await.unwrap();
    let codes: Vec<String> = html
        .split("<li><code>")
        .skip(1)
        .map(|c| c.split('<').next().unwrap().to_string())
        .collect();
    assert_eq!(codes.len(), 10, "ten recovery codes");
    (secret, codes)
}

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

/// Completes signing link `token` with `body`, signed in with `cookie`.
pub async fn complete_as(app: &TestApp, cookie: &str, token: &str, body: Value) -> (u16, Value) {
    let link = app.signer(token).with_cookie(cookie);
    link.complete(body).await
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

/// Posts the login's second step, `form`, with `cookie`.
pub async fn verify_login(
    app: &TestApp,
    cookie: &str,
    form: &[(String, String)],
) -> reqwest::Response {
    app.client
        .post(app.url("/auth/login/verify"))
        .header("cookie", cookie)
        .form(form)
        .send()
        .await
        .unwrap()
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

/// Asks to turn TOTP off with `code`, signed in with `cookie`: the status.
pub async fn totp_off(app: &TestApp, cookie: &str, csrf: &str, code: &str) -> reqwest::StatusCode {
    app.client
        .post(app.url("/account/totp/disable"))
        .header("cookie", cookie)
        .form(&[("csrf_token", csrf), ("code", code)])
        .send()
        .await
        .unwrap()
        .status()
}

/// The login form's first step (e-mail and password) with `next`: the cookies the form page set,
/// and the answer.
pub async fn password_step(app: &TestApp, email: &str, next: &str) -> (String, reqwest::Response) {
    let mut form = LoginForm::open(app, "/auth/login").await;
    form.set("next", next);
    let resp = form.post(app, email, PASSWORD).await;
    (form.cookie, resp)
}

/// Registers a software passkey for the signed-in account, which has no second factor yet or
/// confirmed it is its owner lately.
pub async fn register_passkey(app: &TestApp, cookie: &str, name: &str) -> Passkey {
    confirm_with(app, cookie, ("password", PASSWORD)).await;
    let (csrf, _) = account_page(app, cookie).await;
    let options = app
        .client
        .post(app.url("/account/passkeys/options"))
        .header("cookie", cookie)
        .header("x-csrf-token", &csrf)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(options.status(), 200);
    let options: Value = options.json().await.unwrap();
    let mut key = Passkey::new();
    let credential = key.register(&options["publicKey"], &app.base);
    let resp = app
        .client
        .post(app.url("/account/passkeys"))
        .header("cookie", cookie)
        .header("x-csrf-token", &csrf)
        .json(&json!({"credential": credential, "name": name}))
        .send()
        .await
        .unwrap();
    let status = resp.status();
    assert_eq!(status, 201, "{}", resp.text().await.unwrap());
    key
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn passkey_actions_need_an_assertion_by_the_recipients_own_passkey() {
    let app = TestApp::spawn().await;
    let owner = app.user_with_key("owner@example.com", "enterprise");
    let auth = json!({"actionAuth": "PASSKEY"});
    let (id1, t1, f1) = sent(&owner, "ann@example.com", Value::Null, auth.clone()).await;
    let (_, t2, f2) = sent(&owner, "ann@example.com", Value::Null, auth).await;
    account(&app, "ann@example.com");
    account(&app, "bob@example.com");
    let ann = sign_in(&app, "ann@example.com", PASSWORD).await.unwrap();
    let bob = sign_in(&app, "bob@example.com", PASSWORD).await.unwrap();
    let (ann1, ann2) = (
        app.signer(&t1).with_cookie(&ann),
        app.signer(&t2).with_cookie(&ann),
    );
    for (link, f) in [(&ann1, f1), (&ann2, f2)] {
        let (s, _) = link.sign_typed(f, "Ann").await;
        assert_eq!(s, 200);
    }
    let (s, v) = ann1.complete(json!({})).await;
    assert_eq!((s, code_of(&v)), (401, "passkey_not_enrolled"), "{v}");
    let mut ann_key = register_passkey(&app, &ann, "Ann's laptop").await;
    let mut bob_key = register_passkey(&app, &bob, "Bob's phone").await;

    only_a_fresh_assertion_by_anns_passkey_completes(
        &app,
        [&ann1, &ann2],
        &mut ann_key,
        &mut bob_key,
    )
    .await;
    let signed = owner
        .audit(id1)
        .await
        .into_iter()
        .find(|e| e["type"] == "SIGNED")
        .unwrap();
    assert_eq!(signed["data"]["auth"]["method"], "PASSKEY");

    logging_in_asks_for_the_passkey(&app, &mut ann_key).await;
    passkeys_are_renamed_and_removed_by_their_own_account_only(&app, &ann, &bob).await;
    resetting_bobs_factors_lets_his_password_suffice(&app).await;
    app.stop().await;
}

/// A passkey challenge for `link` (asserting 200): its `publicKey` options.
async fn passkey_challenge(link: &Signer) -> Value {
    let (s, v) = link
        .call(M::POST, "/passkey-challenge", Some(json!({})))
        .await;
    assert_eq!(s, 200, "{v}");
    v["publicKey"].clone()
}

/// Completing Ann's first document needs an assertion: Bob's passkey's or one made for another
/// origin is refused, Ann's own signs, and the same answer again (on the second document) is
/// refused.
async fn only_a_fresh_assertion_by_anns_passkey_completes(
    app: &TestApp,
    [ann1, ann2]: [&Signer; 2],
    ann_key: &mut Passkey,
    bob_key: &mut Passkey,
) {
    let (s, v) = ann1.complete(json!({})).await;
    assert_eq!((s, code_of(&v)), (401, "second_factor_required"), "{v}");
    // Bob's passkey answering Ann's challenge: refused.
    let options = passkey_challenge(ann1).await;
    let foreign = bob_key.assert(&options, &app.base);
    let (s, v) = ann1
        .complete(json!({"auth": {"method": "PASSKEY", "credential": foreign}}))
        .await;
    assert_eq!((s, code_of(&v)), (401, "passkey_refused"), "{v}");
    // An answer made for another origin: refused.
    let options = passkey_challenge(ann1).await;
    let phished = ann_key.assert(&options, "https://evil.example");
    let (s, v) = ann1
        .complete(json!({"auth": {"method": "PASSKEY", "credential": phished}}))
        .await;
    assert_eq!((s, code_of(&v)), (401, "passkey_refused"), "{v}");
    // Ann's own answer to Ann's challenge signs.
    let options = passkey_challenge(ann1).await;
    let good = ann_key.assert(&options, &app.base);
    let (s, v) = ann1
        .complete(json!({"auth": {"method": "PASSKEY", "credential": good.clone()}}))
        .await;
    assert_eq!(s, 200, "{v}");
    // The same answer again, on the other document: its challenge was used and was not this
    // recipient's.
    let (s, v) = ann2
        .complete(json!({"auth": {"method": "PASSKEY", "credential": good}}))
        .await;
    assert_eq!((s, code_of(&v)), (401, "passkey_refused"), "replayed: {v}");
}

/// Logging in asks for the passkey now: the password alone gives no session, the assertion
/// does.
async fn logging_in_asks_for_the_passkey(app: &TestApp, ann_key: &mut Passkey) {
    let (_, resp) = password_step(app, "ann@example.com", "/account").await;
    assert_eq!(resp.status(), 303);
    let pending = set_cookie_pairs(&resp)
        .into_iter()
        .find(|c| c.starts_with("docket_pending="))
        .expect("a pending login");
    let options: Value = app
        .client
        .post(app.url("/auth/login/passkey/options"))
        .header("cookie", &pending)
        .json(&json!({}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let answer = ann_key.assert(&options["publicKey"], &app.base);
    let resp = app
        .client
        .post(app.url("/auth/login/passkey"))
        .header("cookie", &pending)
        .json(&json!({"credential": answer, "next": "/account"}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert!(
        set_cookie_pairs(&resp)
            .iter()
            .any(|c| c.starts_with("docket_session=")),
        "signed in"
    );
}

/// The id of the first passkey listed on an account page.
fn first_passkey_id(html: &str) -> String {
    let at = html.find("/account/passkeys/").unwrap() + "/account/passkeys/".len();
    html[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect()
}

/// Posts `form` to `path` signed in with `cookie`: the status.
async fn post_form(
    app: &TestApp,
    cookie: &str,
    path: &str,
    form: &[(&str, String)],
) -> reqwest::StatusCode {
    app.client
        .post(app.url(path))
        .header("cookie", cookie)
        .form(form)
        .send()
        .await
        .unwrap()
        .status()
}

/// Rename and remove, own passkeys only.
async fn passkeys_are_renamed_and_removed_by_their_own_account_only(
    app: &TestApp,
    ann: &str,
    bob: &str,
) {
    let (csrf, html) = account_page(app, ann).await;
    let ann_id = first_passkey_id(&html);
    let (_, bob_html) = account_page(app, bob).await;
    let bob_id = first_passkey_id(&bob_html);
    let renamed = post_form(
        app,
        ann,
        &format!("/account/passkeys/{ann_id}/rename"),
        &[("csrf_token", csrf.clone()), ("name", "Work laptop".into())],
    )
    .await;
    assert_eq!(renamed, 303);
    assert!(account_page(app, ann).await.1.contains("Work laptop"));
    let theirs = post_form(
        app,
        ann,
        &format!("/account/passkeys/{bob_id}/delete"),
        &[("csrf_token", csrf.clone())],
    )
    .await;
    assert_eq!(theirs, 404, "another account's passkey");
    let bob_page = account_page(app, bob).await.1;
    assert!(
        bob_page.contains("phone</h3>"),
        "Bob's passkey stays: {bob_page}"
    );
    let removed = post_form(
        app,
        ann,
        &format!("/account/passkeys/{ann_id}/delete"),
        &[("csrf_token", csrf)],
    )
    .await;
    assert_eq!(removed, 303);
    assert!(account_page(app, ann).await.1.contains("No passkeys yet"));
}

/// Bob lost his phone: the admin removes his second factors, and the password suffices again.
async fn resetting_bobs_factors_lets_his_password_suffice(app: &TestApp) {
    let (_, resp) = password_step(app, "bob@example.com", "/account").await;
    assert!(
        !set_cookie_pairs(&resp)
            .iter()
            .any(|c| c.starts_with("docket_session="))
    );
    docket_json(
        &app.data_dir(),
        &["user", "reset-factors", "bob@example.com"],
        None,
    );
    let (_, resp) = password_step(app, "bob@example.com", "/account").await;
    assert_eq!(resp.headers()["location"], "/account");
    assert!(
        set_cookie_pairs(&resp)
            .iter()
            .any(|c| c.starts_with("docket_session="))
    );
}

/// The failed password checks counted for `key` in the login throttle.
fn failures(app: &TestApp, key: &str) -> i64 {
    app.db()
        .query_row(
            "SELECT coalesce(sum(failures), 0) FROM login_failures WHERE key = ?1",
            [key],
            |r| r.get(0),
        )
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn password_action_needs_the_accounts_password_typed_again_under_the_login_throttle() {
    let app = TestApp::spawn().await;
    let owner = app.user_with_key("owner@example.com", "enterprise");
    // Lists, as the other signing service takes them: either method will do.
    let (id, token, field) = sent(
        &owner,
        "ann@example.com",
        json!({"globalActionAuth": ["PASSKEY", "PASSWORD"]}),
        Value::Null,
    )
    .await;
    account(&app, "ann@example.com");
    let ann = sign_in(&app, "ann@example.com", PASSWORD).await.unwrap();
    let link = app.signer(&token);
    let as_ann = link.with_cookie(&ann);
    let (s, v) = as_ann.state().await;
    assert_eq!(s, 200, "{v}");
    // Ann has no passkey: the page asks for her password.
    assert_eq!(v["auth"]["actionAuth"], "PASSWORD");
    assert_eq!(
        v["auth"]["actionAuthAllowed"],
        json!(["PASSKEY", "PASSWORD"])
    );
    assert_eq!(as_ann.sign_typed(field, "Ann").await.0, 200);

    let with = |password: &str| json!({"auth": {"method": "PASSWORD", "password": password}});
    // Without it, or without the sign-in, nothing happens.
    let (s, v) = as_ann.complete(json!({})).await;
    assert_eq!((s, code_of(&v)), (401, "password_required"), "{v}");
    let (s, v) = link.complete(with(PASSWORD)).await;
    assert_eq!((s, code_of(&v)), (401, "account_required"), "{v}");
    // A wrong one is refused and counts as a failed login to her account.
    let key = "email:ann@example.com";
    assert_eq!(failures(&app, key), 0);
    let (s, v) = as_ann.complete(with("not my password")).await;
    assert_eq!((s, code_of(&v)), (401, "wrong_password"), "{v}");
    assert_eq!(failures(&app, key), 1);
    // While logins to her account are locked, so is this.
    app.db_rw()
        .execute(
            "UPDATE login_failures SET locked_until = ?2 WHERE key = ?1",
            docket::params![key, docket::core::db::now() + 600],
        )
        .unwrap();
    let (s, v) = as_ann.complete(with(PASSWORD)).await;
    assert_eq!(s, 429, "{v}");
    app.db_rw()
        .execute("DELETE FROM login_failures WHERE key = ?1", [key])
        .unwrap();
    let (s, v) = as_ann.complete(with(PASSWORD)).await;
    assert_eq!(s, 200, "{v}");
    let signed = owner
        .audit(id)
        .await
        .into_iter()
        .find(|e| e["type"] == "SIGNED")
        .expect("SIGNED recorded");
    assert_eq!(signed["data"]["auth"]["method"], "PASSWORD");
    assert_eq!(signed["data"]["auth"]["account"], "ann@example.com");

    // A recipient's EXPLICIT_NONE waives the document's action authentication.
    let (_, token, field) = sent(
        &owner,
        "bo@example.com",
        json!({"globalActionAuth": ["PASSWORD"]}),
        json!({"actionAuth": ["EXPLICIT_NONE"]}),
    )
    .await;
    let bo = app.signer(&token);
    assert_eq!(bo.sign_typed(field, "Bo").await.0, 200);
    let (s, v) = bo.complete(json!({})).await;
    assert_eq!(s, 200, "{v}");
    app.stop().await;
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
