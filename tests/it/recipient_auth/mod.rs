//! Recipient authentication through the real server's JSON calls (no browser): ACCOUNT access
//! and action, accounts created from the mailed link, TWO_FACTOR_AUTH with TOTP codes computed
//! here or codes e-mailed on request, PASSKEY with a software authenticator, and logins that
//! then ask for the second factor. Each proof is refused when missing, replayed, or made for
//! another account.

use reqwest::Method as M;
use serde_json::{Value, json};

use crate::authenticator::Passkey;
use crate::support::api::{Api, Signer, fixture};
use crate::support::login::{
    LoginForm, PASSWORD, add_account, hidden_inputs, set_cookie_pairs, sign_in,
};
use crate::support::tools;
use crate::support::{TestApp, docket_json};

mod account;
mod emailed;
mod passkey;
mod password;
mod totp;

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
    let get = |path: &'static str, cookie: String| async move {
        app.client
            .get(app.url(path))
            .header("cookie", cookie)
            .send()
            .await
            .unwrap()
    };
    // Post, redirect, get: the form starts the enrolment, its page shows it, and a reload
    // shows the same key again (no second enrolment).
    let started = app
        .client
        .post(app.url("/account/totp/start"))
        .header("cookie", cookie)
        .form(&[("csrf_token", csrf.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(started.status(), 303);
    assert_eq!(started.headers()["location"], "/account/totp");
    let page = get("/account/totp", cookie.to_string()).await;
    assert_eq!(page.status(), 200);
    assert_eq!(page.headers()["cache-control"], "no-store");
    let html = page.text().await.unwrap();
    assert!(
        html.contains("data:image/svg+xml;base64,"),
        "a QR code is drawn"
    );
    let secret = secret_from(&html);
    let again = get("/account/totp", cookie.to_string()).await;
    assert_eq!(secret_from(&again.text().await.unwrap()), secret);
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
    assert_eq!(done.status(), 303);
    assert_eq!(done.headers()["location"], "/account/totp/recovery-codes");
    let once = crate::support::login::set_cookie_pairs(&done);
    assert_eq!(
        once.len(),
        1,
        "the codes cross the redirect in one cookie: {once:?}"
    );
    // The codes' page shows them once: a reload, or the page without the cookie, does not.
    assert_eq!(
        get("/account/totp/recovery-codes", cookie.to_string())
            .await
            .headers()["location"],
        "/account"
    );
    let shown = get(
        "/account/totp/recovery-codes",
        format!("{cookie}; {}", once[0]),
    )
    .await;
    assert_eq!(shown.status(), 200);
    assert_eq!(shown.headers()["cache-control"], "no-store");
    let cleared = crate::support::login::set_cookie_pairs(&shown);
    assert_eq!(cleared.len(), 1, "the page clears its cookie");
    assert!(cleared[0].ends_with('='), "{cleared:?}");
    let html = shown.text().await.unwrap();
    let codes: Vec<String> = html
        .split("<li><code>")
        .skip(1)
        .map(|c| c.split('<').next().unwrap().to_string())
        .collect();
    assert_eq!(codes.len(), 10, "ten recovery codes");
    assert!(
        codes.iter().all(|c| !once[0].contains(c.as_str())),
        "sealed in the cookie"
    );
    // TOTP is on, so the enrolment page has nothing to show: back to the account.
    let over = get("/account/totp", cookie.to_string()).await;
    assert_eq!(over.status(), 303);
    (secret, codes)
}

/// Completes signing link `token` with `body`, signed in with `cookie`.
pub async fn complete_as(app: &TestApp, cookie: &str, token: &str, body: Value) -> (u16, Value) {
    let link = app.signer(token).with_cookie(cookie);
    link.complete(body).await
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
