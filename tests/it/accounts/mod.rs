//! Accounts people run themselves, over HTTP with a real SMTP server: "Forgot password?" (the
//! same answer for any address, a one-time link that expires, throttled), a new password on
//! the account page (the other sessions end), a new e-mail that changes only when the link
//! mailed to it is opened; the admin CLI doing the same; the login page reached from a signing
//! link.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::TestApp;
use crate::support::cli::docket_json;
use crate::support::login::{
    LoginForm, PASSWORD, add_account, browser, hidden_inputs, set_cookie_pairs, sign_in,
};
use crate::support::mailbox::MailBox;

mod reset;

pub(crate) const NEW_PASSWORD: &str = "a brand new passphrase";

pub(crate) async fn with_mail() -> (MailBox, TestApp) {
    let smtp = MailBox::start();
    let app = TestApp::spawn_with(&["--tls", "off", "--smtp-url", &smtp.url()]).await;
    (smtp, app)
}

/// The messages received so far to `to`, decoded.
fn mail_to(smtp: &MailBox, to: &str) -> Vec<Value> {
    let out = tempfile::tempdir().unwrap();
    smtp.decoded(out.path())
        .into_iter()
        .filter(|m| m["to"].as_str().unwrap_or_default().contains(to))
        .collect()
}

/// Waits (30 s at most) for the `n`th message to `to`; returns it.
pub(crate) async fn nth_mail_to(smtp: &MailBox, to: &str, n: usize) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let got = mail_to(smtp, to);
        if got.len() >= n {
            return got[n - 1].clone();
        }
        assert!(Instant::now() < deadline, "no message {n} to {to}: {got:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Waits (30 s at most) for a message to `to` whose text holds `needle`; returns it.
async fn mail_saying(smtp: &MailBox, to: &str, needle: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let got = mail_to(smtp, to);
        if let Some(m) = got
            .iter()
            .find(|m| m["text"].as_str().unwrap_or_default().contains(needle))
        {
            return m.clone();
        }
        assert!(
            Instant::now() < deadline,
            "no message to {to} saying {needle:?}: {got:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The path starting with `prefix` in a message's text, up to the end of its token.
pub(crate) fn link_in(message: &Value, prefix: &str) -> String {
    let text = message["text"].as_str().unwrap();
    let start = text
        .find(prefix)
        .unwrap_or_else(|| panic!("no {prefix} link in {text}"));
    let token: String = text[start + prefix.len()..]
        .chars()
        .take_while(char::is_ascii_alphanumeric)
        .collect();
    format!("{prefix}{token}")
}

/// Posts `fields` to `path` with `cookie`: status, `Location`, body.
pub(crate) async fn post(
    app: &TestApp,
    path: &str,
    cookie: &str,
    fields: &[(&str, &str)],
) -> (u16, String, String) {
    let resp = app
        .client
        .post(app.url(path))
        .header("cookie", cookie)
        .form(fields)
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    let location = resp
        .headers()
        .get("location")
        .map(|l| l.to_str().unwrap().to_string())
        .unwrap_or_default();
    (status, location, resp.text().await.unwrap())
}

/// GETs `path` with `cookie`: status, `Location`, body.
pub(crate) async fn get(app: &TestApp, path: &str, cookie: &str) -> (u16, String, String) {
    let resp = app
        .client
        .get(app.url(path))
        .header("cookie", cookie)
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    let location = resp
        .headers()
        .get("location")
        .map(|l| l.to_str().unwrap().to_string())
        .unwrap_or_default();
    (status, location, resp.text().await.unwrap())
}

/// Whether the browser holding `cookie` is still signed in.
async fn signed_in(app: &TestApp, cookie: &str) -> bool {
    get(app, "/account", cookie).await.0 == 200
}

/// Asks "Forgot password?" for `email` with the form of `form`, as a browser does: a refusal's
/// status and page, or (post, redirect, get) the "Check your e-mail" page the answer's 303 leads
/// to, which names the address once: a reload of it does not, and sends nothing.
pub(crate) async fn forgot(app: &TestApp, form: &LoginForm, email: &str) -> (u16, String) {
    let mut fields = form.fields.clone();
    fields.push(("email".into(), email.into()));
    let resp = app
        .client
        .post(app.url("/auth/forgot"))
        .header("cookie", &form.cookie)
        .form(&fields)
        .send()
        .await
        .unwrap();
    if resp.status() != 303 {
        return (resp.status().as_u16(), resp.text().await.unwrap());
    }
    let to = resp.headers()["location"].to_str().unwrap().to_string();
    assert!(to.starts_with("/auth/forgot/sent"), "{to}");
    let once = crate::support::login::set_cookie_pairs(&resp);
    assert_eq!(once.len(), 1, "{once:?}");
    assert!(!once[0].contains(email), "the address is sealed: {once:?}");
    let brought = format!("{}; {}", form.cookie, once[0]);
    let (status, _, page) = get(app, &to, &brought).await;
    let (again, _, reloaded) = get(app, &to, &form.cookie).await;
    assert_eq!(again, 200);
    assert!(reloaded.contains("the address you typed"), "{reloaded}");
    if status == 200 {
        let shown = email.trim().to_lowercase();
        assert!(page.contains(&shown), "{shown} named once: {page}");
    }
    (status, page)
}

/// Sets `password` on the reset page at `link` (a path, with its query): status and `Location`.
pub(crate) async fn reset(app: &TestApp, link: &str, password: &str, again: &str) -> (u16, String) {
    let (s, _, page) = get(app, link, "").await;
    if s != 200 {
        return (s, String::new());
    }
    // The page's hidden fields (its CSRF token, the `next` it carries), then the passwords.
    let mut fields = hidden_inputs(&page);
    fields.push(("password".into(), password.into()));
    fields.push(("password2".into(), again.into()));
    let fields: Vec<(&str, &str)> = fields
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let (s, location, _) = post(app, link, "", &fields).await;
    (s, location)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs Python's aiosmtpd")]
async fn the_account_page_changes_name_password_and_email() {
    let (smtp, app) = with_mail().await;
    let d = app.data_dir();
    add_account(&d, "ada@example.com", "Ada");
    add_account(&d, "bob@example.com", "Bob");
    let here = browser(&app, "ada@example.com").await;
    let elsewhere = sign_in(&app, "ada@example.com", PASSWORD).await.unwrap();
    let (c, t) = (here.cookie.as_str(), here.csrf.as_str());

    // The name.
    let (s, _, page) = post(
        &app,
        "/account/name",
        c,
        &[("csrf_token", t), ("name", " ")],
    )
    .await;
    assert_eq!(s, 422);
    assert!(
        page.contains("Give 1 to 200 printable characters."),
        "{page}"
    );
    let (s, location, _) = post(
        &app,
        "/account/name",
        c,
        &[("csrf_token", "forged"), ("name", "X")],
    )
    .await;
    assert_eq!((s, location.as_str()), (403, ""));
    let (s, location, _) = post(
        &app,
        "/account/name",
        c,
        &[("csrf_token", t), ("name", "Ada Lovelace")],
    )
    .await;
    assert_eq!((s, location.as_str()), (303, "/account?done=name#profile"));
    let (_, _, page) = get(&app, &location, c).await;
    assert!(page.contains("Your name was changed."), "{page}");
    let shown = docket_json(&d, &["user", "show", "ada@example.com"], None);
    assert_eq!(shown["name"], "Ada Lovelace");

    // The password: the current one is asked; this session stays, the other ends.
    let change = |current: &'static str, new: &'static str, again: &'static str| {
        [
            ("csrf_token", t),
            ("current", current),
            ("password", new),
            ("password2", again),
        ]
    };
    let (s, _, page) = post(
        &app,
        "/account/password",
        c,
        &change("wrong one!", NEW_PASSWORD, NEW_PASSWORD),
    )
    .await;
    assert_eq!(s, 422);
    assert!(
        page.contains("That is not your current password."),
        "{page}"
    );
    let (s, _, page) = post(
        &app,
        "/account/password",
        c,
        &change(PASSWORD, NEW_PASSWORD, "different"),
    )
    .await;
    assert_eq!(s, 422);
    assert!(page.contains("The two passwords differ."), "{page}");
    let (s, location, _) = post(
        &app,
        "/account/password",
        c,
        &change(PASSWORD, NEW_PASSWORD, NEW_PASSWORD),
    )
    .await;
    assert_eq!(
        (s, location.as_str()),
        (303, "/account?done=password&ended=1#password")
    );
    let (_, _, page) = get(&app, &location, c).await;
    assert!(page.contains("One other session was signed out"), "{page}");
    assert!(signed_in(&app, c).await);
    assert!(!signed_in(&app, &elsewhere).await);
    assert!(sign_in(&app, "ada@example.com", PASSWORD).await.is_err());
    assert!(sign_in(&app, "ada@example.com", NEW_PASSWORD).await.is_ok());
    let notice = nth_mail_to(&smtp, "ada@example.com", 1).await;
    assert!(
        notice["text"]
            .as_str()
            .unwrap()
            .contains("The password was changed")
    );

    // The e-mail: confirm it is you first; another account's address is refused.
    let email = |to: &'static str| [("csrf_token", t), ("email", to)];
    let (s, location, _) = post(&app, "/account/email", c, &email("lovelace@example.com")).await;
    assert_eq!(s, 303);
    assert!(location.starts_with("/account/confirm?next="), "{location}");
    let (_, _, page) = get(&app, &location, c).await;
    let mut fields = hidden_inputs(&page);
    fields.push(("password".into(), NEW_PASSWORD.into()));
    let fields: Vec<(&str, &str)> = fields
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let (s, back, _) = post(&app, "/account/confirm", c, &fields).await;
    assert_eq!(
        (s, back.as_str()),
        (303, "/account?new_email=lovelace%40example.com#email")
    );
    let (_, _, page) = get(&app, &back, c).await;
    assert!(
        page.contains("value=\"lovelace@example.com\""),
        "the typed address is kept"
    );
    let (s, _, page) = post(&app, "/account/email", c, &email("bob@example.com")).await;
    assert_eq!(s, 409);
    assert!(page.contains("belongs to another Docket account"), "{page}");
    let (s, location, _) = post(&app, "/account/email", c, &email("lovelace@example.com")).await;
    assert_eq!((s, location.as_str()), (303, "/account?done=email#email"));
    let (_, _, page) = get(&app, "/account", c).await;
    assert!(
        page.contains("Waiting for you to open the link we sent to"),
        "{page}"
    );
    // Nothing changes until the link is opened.
    let shown = docket_json(&d, &["user", "show", "ada@example.com"], None);
    assert_eq!(shown["email"], "ada@example.com");
    let mail = nth_mail_to(&smtp, "lovelace@example.com", 1).await;
    assert_eq!(mail["subject"], "Confirm your new Docket e-mail address");
    let link = link_in(&mail, "/account/email/");
    let (s, _, page) = get(&app, &link, "").await;
    assert_eq!(s, 200);
    assert!(page.contains("ada@example.com") && page.contains("lovelace@example.com"));
    let shown = docket_json(&d, &["user", "show", "ada@example.com"], None);
    assert_eq!(
        shown["email"], "ada@example.com",
        "opening the page changes nothing"
    );
    let csrf = hidden_inputs(&page)
        .into_iter()
        .find(|(k, _)| k == "csrf_token")
        .unwrap()
        .1;
    let (s, _, _) = post(&app, &link, "", &[("csrf_token", "forged")]).await;
    assert_eq!(s, 403);
    // Post, redirect, get: the change answers 303 to a page that names the new address once
    // (a reload shows the account page instead, and posts nothing again).
    let done = app
        .client
        .post(app.url(&link))
        .form(&[("csrf_token", csrf.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(done.status(), 303);
    assert_eq!(done.headers()["location"], "/account/email-changed");
    let once = crate::support::login::set_cookie_pairs(&done);
    assert_eq!(once.len(), 1, "{once:?}");
    let (s, _, page) = get(&app, "/account/email-changed", &once[0]).await;
    assert_eq!(s, 200, "{page}");
    assert!(
        page.contains("now signs in as <strong>lovelace@example.com</strong>"),
        "{page}"
    );
    let (s, to, _) = get(&app, "/account/email-changed", "").await;
    assert_eq!((s, to.as_str()), (303, "/account"));
    let shown = docket_json(&d, &["user", "show", "lovelace@example.com"], None);
    assert_eq!(shown["name"], "Ada Lovelace");
    assert!(signed_in(&app, c).await, "the session stays");
    assert!(
        sign_in(&app, "lovelace@example.com", NEW_PASSWORD)
            .await
            .is_ok()
    );
    // Once only; the old address is told.
    assert_eq!(post(&app, &link, "", &[("csrf_token", &csrf)]).await.0, 410);
    mail_saying(&smtp, "ada@example.com", "changed to lovelace@example.com").await;
    app.stop().await;
}

#[tokio::test]
async fn the_admin_cli_renames_moves_and_sets_a_password() {
    let app = TestApp::spawn().await;
    let d = app.data_dir();
    add_account(&d, "ada@example.com", "Ada");
    add_account(&d, "bob@example.com", "Bob");
    let session = sign_in(&app, "ada@example.com", PASSWORD).await.unwrap();
    let out = docket_json(
        &d,
        &["user", "rename", "ada@example.com", "--name", "Ada L."],
        None,
    );
    assert_eq!(out["name"], "Ada L.");
    let out = docket_json(
        &d,
        &[
            "user",
            "set-email",
            "ada@example.com",
            "Lovelace@Example.com",
        ],
        None,
    );
    assert_eq!(out["email"], "lovelace@example.com");
    assert!(
        signed_in(&app, &session).await,
        "renaming and moving keep the sessions"
    );
    let taken = crate::support::cli::docket(
        &d,
        &[
            "user",
            "set-email",
            "lovelace@example.com",
            "bob@example.com",
        ],
        None,
    );
    assert_eq!(taken.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&taken.stderr).contains("belongs to another Docket account"));
    let queued = docket_json(&d, &["mail", "list"], None);
    assert!(
        queued
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["to"] == "ada@example.com" && m["kind"] == "SECURITY_NOTICE"),
        "the old address is told: {queued}"
    );
    docket_json(
        &d,
        &["user", "passwd", "lovelace@example.com", "--password-stdin"],
        Some(&format!("{NEW_PASSWORD}\n")),
    );
    assert!(
        !signed_in(&app, &session).await,
        "a new password ends the sessions"
    );
    assert!(
        sign_in(&app, "lovelace@example.com", NEW_PASSWORD)
            .await
            .is_ok()
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_login_page_from_a_signing_link_names_the_document_and_the_ways_in() {
    let app = TestApp::spawn().await;
    let owner = app.user_with_key("owner@example.com", "standard");
    let (_, token, _) = crate::recipient_auth::sent(
        &owner,
        "ann@example.com",
        json!({"globalAccessAuth": "ACCOUNT"}),
        Value::Null,
    )
    .await;
    let path = format!("/auth/login?next=%2Fsign%2F{token}&email=ann%40example.com");
    let (s, _, page) = get(&app, &path, "").await;
    assert_eq!(s, 200);
    assert!(
        page.contains("Sign in to sign <strong>“Guarded”</strong>, sent by Owner."),
        "{page}"
    );
    assert!(
        page.contains(&format!(
            "href=\"/auth/forgot?email=ann%40example.com&amp;next=%2Fsign%2F{token}\""
        )),
        "{page}"
    );
    assert!(
        page.contains(&format!("action=\"/sign/{token}/account\"")),
        "{page}"
    );
    assert!(page.contains("id=\"create-account\""));
    // The e-mail is filled in: the password box has the focus.
    assert!(
        page.contains("autocomplete=\"current-password\" required autofocus"),
        "{page}"
    );
    assert!(
        !page.contains("autocomplete=\"username\" value=\"ann@example.com\" required autofocus")
    );
    // The page's "Create an account" mails the link, as the signing page's does.
    let form = hidden_inputs(&page);
    let csrf = form
        .iter()
        .rev()
        .find(|(k, _)| k == "csrf_token")
        .unwrap()
        .1
        .clone();
    let resp = app
        .client
        .post(app.url(&format!("/sign/{token}/account")))
        .form(&[("csrf_token", csrf.as_str())])
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 303, "mailed; to the page that says so");

    // Once the recipient has an account, no "Create an account".
    add_account(&app.data_dir(), "ann@example.com", "Ann");
    let (_, _, page) = get(&app, &path, "").await;
    assert!(!page.contains("id=\"create-account\""));
    assert!(page.contains("Sign in to sign"));
    // An unknown link says nothing; a plain login focuses the e-mail box.
    let (s, _, page) = get(&app, "/auth/login?next=%2Fsign%2Fnot-a-token", "").await;
    assert_eq!(s, 200);
    assert!(!page.contains("Sign in to"), "{page}");
    assert!(page.contains("value=\"\" required autofocus"), "{page}");
    let resp = app.client.get(app.url("/auth/login")).send().await.unwrap();
    assert!(!set_cookie_pairs(&resp).is_empty());
    app.stop().await;
}
