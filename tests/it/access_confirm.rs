//! What acts for an account without its password (audit issue 52, finding 2): a session cookie
//! alone makes no API token or webhook, on the settings pages, through `/api/v1` or through
//! the Zapier routes: the session must have confirmed who it is within five minutes
//! (`/account/confirm`), and each one made mails the account a notice saying what, when and
//! from where. A password reset by mailed link revokes every API token, webhook and connected
//! app unless the person unticks the box; a signed-in password change does so when ticked.

use reqwest::Method;
use serde_json::{Value, json};

use crate::accounts::{NEW_PASSWORD, forgot, get, post};
use crate::recipient_auth::confirm_with;
use crate::settings_tokens::{make_token, page, post_form};
use crate::support::TestApp;
use crate::support::api::create_api_key;
use crate::support::login::{
    Browser, LoginForm, PASSWORD, add_account, browser, call, hidden_inputs, sign_in,
};
use crate::support::oauth::{REDIRECT, consent, setup, urlencode};

const EMAIL: &str = "ada@example.com";
/// A receiver nobody listens on: nothing here waits for a delivery.
const HOOK_URL: &str = "http://127.0.0.1:9/hook";

fn count(app: &TestApp, sql: &str) -> i64 {
    app.db().query_row(sql, [], |r| r.get(0)).unwrap()
}

/// The security notices mailed to Ada so far, oldest first.
fn notices(app: &TestApp) -> Vec<String> {
    app.db()
        .query_map(
            "SELECT body_text FROM mail_queue WHERE kind = 'SECURITY_NOTICE' AND to_addr = ?1
              ORDER BY id",
            [EMAIL],
            |r| r.get(0),
        )
        .unwrap()
}

/// `POST /api/v1/webhooks` from Ada's browser (cookie and `X-CSRF-Token`).
async fn hook_from_browser(app: &TestApp, ada: &Browser) -> (u16, Value) {
    let body = json!({"url": HOOK_URL, "events": ["DOCUMENT_SIGNED"]});
    let (c, t) = (Some(ada.cookie.as_str()), Some(ada.csrf.as_str()));
    call(app, Method::POST, "/api/v1/webhooks", c, t, Some(body)).await
}

/// The `Location` of a 303, its status checked.
fn see_other((status, location, body): (u16, String, String)) -> String {
    assert_eq!(status, 303, "{body}");
    location
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_or_webhook_needs_a_recently_confirmed_session_and_is_told_by_mail() {
    let app = TestApp::spawn_with(&["--tls", "off", "--allow-private-webhooks"]).await;
    add_account(&app.data_dir(), EMAIL, "Ada");
    let ada = browser(&app, EMAIL).await;
    let (c, t) = (ada.cookie.as_str(), Some(ada.csrf.as_str()));

    // Not confirmed: to `/account/confirm`, back to the form as typed; nothing is made.
    let fields = [("name", "CI"), ("expiry", "never")];
    let to = see_other(
        post(
            &app,
            "/settings/tokens",
            c,
            &[fields[0], fields[1], ("csrf_token", ada.csrf.as_str())],
        )
        .await,
    );
    assert_eq!(
        to,
        "/account/confirm?next=%2Fsettings%2Ftokens%3Fname%3DCI%26expiry%3Dnever"
    );
    let (s, _, html) = get(&app, &to, c).await;
    assert_eq!(s, 200);
    assert!(html.contains("Confirm it is you"), "{html}");
    let (_, html) = page(&app, &ada, "/settings/tokens?name=CI&expiry=never").await;
    assert!(
        html.contains("id=\"token-name\" name=\"name\" value=\"CI\""),
        "the name is kept: {html}"
    );
    assert!(
        html.contains("value=\"never\" id=\"expiry-never\" checked"),
        "{html}"
    );
    let hook = [
        ("url", HOOK_URL),
        ("event.DOCUMENT_SIGNED", "on"),
        ("csrf_token", ada.csrf.as_str()),
    ];
    let to = see_other(post(&app, "/settings/webhooks", c, &hook).await);
    assert!(
        to.starts_with("/account/confirm?next=%2Fsettings%2Fwebhooks%2Fnew%3Furl%3D"),
        "{to}"
    );
    let back = url::Url::parse(&app.url(&to)).unwrap();
    let next = back
        .query_pairs()
        .find(|(k, _)| k == "next")
        .unwrap()
        .1
        .to_string();
    let (_, html) = page(&app, &ada, &next).await;
    assert!(html.contains(HOOK_URL), "the address is kept: {html}");
    assert!(
        html.contains("id=\"event-DOCUMENT_SIGNED\" checked"),
        "{html}"
    );
    // The API and the Zapier route with the browser's cookie: 401 `confirmation_required`.
    let (s, v) = hook_from_browser(&app, &ada).await;
    assert_eq!(
        (s, v["code"].as_str()),
        (401, Some("confirmation_required")),
        "{v}"
    );
    let body = json!({"webhookUrl": HOOK_URL, "eventTrigger": "DOCUMENT_SIGNED"});
    let path = "/api/v1/zapier/subscribe";
    let (s, v) = call(&app, Method::POST, path, Some(c), t, Some(body)).await;
    assert_eq!(
        (s, v["code"].as_str()),
        (401, Some("confirmation_required")),
        "{v}"
    );
    assert_eq!(count(&app, "SELECT count(*) FROM api_keys"), 0);
    assert_eq!(count(&app, "SELECT count(*) FROM webhooks"), 0);
    assert!(notices(&app).is_empty());

    // Confirmed with the password: each is made, and each is mailed.
    assert_eq!(confirm_with(&app, c, ("password", PASSWORD)).await, 303);
    let (token, _) = make_token(&app, &ada, "CI", "never").await;
    let (s, html) = post_form(&app, "/settings/webhooks", c, t, &hook[..2]).await;
    assert_eq!(s, 303, "{html}");
    let (s, v) = hook_from_browser(&app, &ada).await;
    assert_eq!(s, 200, "{v}");
    let api = app.api(&token);
    let (s, _) = api.get("/api/v1/documents").await;
    assert_eq!(s, 200);
    let mails = notices(&app);
    assert_eq!(mails.len(), 3, "{mails:?}");
    assert!(mails[0].contains("An API token named \"CI\" that never expires, with every permission of the account, was created"), "{}", mails[0]);
    assert!(
        mails[1].contains(&format!(
            "A webhook posting DOCUMENT_SIGNED to {HOOK_URL} was added"
        )),
        "{}",
        mails[1]
    );
    for m in &mails {
        assert!(m.contains("When: ") && m.contains("From: 127.0.0.1"), "{m}");
        assert!(m.contains("If it was not,"), "{m}");
    }
    // An API key is itself the credential: it makes webhooks as before, and they are told.
    let key = create_api_key(&app.data_dir(), EMAIL)["key"]
        .as_str()
        .unwrap()
        .to_string();
    let (s, v) = app
        .api(&key)
        .post(
            "/api/v1/webhooks",
            json!({"url": HOOK_URL, "events": ["DOCUMENT_COMPLETED"]}),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(notices(&app).len(), 4);

    // Five minutes later the confirmation is over: refused again, and so is pointing a webhook
    // elsewhere; a change of events alone asks nothing.
    app.db_rw()
        .execute("UPDATE sessions SET confirmed_at = confirmed_at - 301", [])
        .unwrap();
    let to = see_other(
        post(
            &app,
            "/settings/tokens",
            c,
            &[fields[0], fields[1], ("csrf_token", ada.csrf.as_str())],
        )
        .await,
    );
    assert!(to.starts_with("/account/confirm?next="), "{to}");
    let id = v["id"].as_i64().unwrap();
    let path = format!("/settings/webhooks/{id}");
    let moved = [
        ("url", "http://127.0.0.1:10/elsewhere"),
        ("event.DOCUMENT_COMPLETED", "on"),
        ("enabled", "on"),
        ("csrf_token", ada.csrf.as_str()),
    ];
    let to = see_other(post(&app, &path, c, &moved).await);
    assert!(
        to.starts_with(&format!(
            "/account/confirm?next=%2Fsettings%2Fwebhooks%2F{id}%2Fedit%3Furl%3D"
        )),
        "{to}"
    );
    let same = [
        ("url", HOOK_URL),
        ("event.DOCUMENT_SIGNED", "on"),
        ("enabled", "on"),
        ("csrf_token", ada.csrf.as_str()),
    ];
    let to = see_other(post(&app, &path, c, &same).await);
    assert_eq!(to, format!("{path}?done=saved"));
    let (_, v) = app.api(&key).get(&format!("/api/v1/webhooks/{id}")).await;
    assert_eq!(
        (&v["url"], &v["events"]),
        (&json!(HOOK_URL), &json!(["DOCUMENT_SIGNED"])),
        "{v}"
    );
    assert_eq!(count(&app, "SELECT count(*) FROM api_keys"), 2);
    assert_eq!(notices(&app).len(), 4);
    app.stop().await;
}

/// What acts for Ada besides her browser: an API token and a webhook made in a confirmed
/// session, and the app "Cal" she allowed (its client id, secret and refresh token).
struct Access {
    token: String,
    hook: i64,
    client: (String, String),
    refresh: String,
}

async fn grant_everything(app: &TestApp) -> Access {
    let client = setup(app, &[]);
    let ada = browser(app, EMAIL).await;
    assert_eq!(
        confirm_with(app, &ada.cookie, ("password", PASSWORD)).await,
        303
    );
    let (token, _) = make_token(app, &ada, "CI", "never").await;
    let (s, v) = hook_from_browser(app, &ada).await;
    assert_eq!(s, 200, "{v}");
    let auth = format!(
        "{}?client_id={}&state=s-1&redirect_uri={}&scope=READ_BOOKING,READ_PROFILE",
        app.url("/auth/oauth2/authorize"),
        client.0,
        urlencode(REDIRECT)
    );
    let q = consent(app, &ada.cookie, &auth, "allow").await;
    let tokens: Value = app
        .client
        .post(app.url("/api/auth/oauth/token"))
        .json(
            &json!({"code": q["code"], "client_id": client.0, "client_secret": client.1,
                      "grant_type": "authorization_code", "redirect_uri": REDIRECT}),
        )
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    Access {
        token,
        hook: v["id"].as_i64().unwrap(),
        client,
        refresh: tokens["refresh_token"].as_str().unwrap().to_string(),
    }
}

impl Access {
    /// Whether the token, the webhook and the app still work: the token's status on
    /// `/api/v1`, whether the webhook is on, and the refresh's status.
    async fn state(&self, app: &TestApp) -> (u16, bool, u16) {
        let (s, _) = app.api(&self.token).get("/api/v1/documents").await;
        let on: bool = app
            .db()
            .query_row(
                "SELECT enabled FROM webhooks WHERE id = ?1",
                [self.hook],
                |r| r.get(0),
            )
            .unwrap();
        let refreshed = app
            .client
            .post(app.url("/api/auth/oauth/refreshToken"))
            .bearer_auth(&self.refresh)
            .json(
                &json!({"grant_type": "refresh_token", "client_id": self.client.0,
                          "client_secret": self.client.1}),
            )
            .send()
            .await
            .unwrap()
            .status()
            .as_u16();
        (s, on, refreshed)
    }
}

/// Asks "Forgot password?" for Ada and opens the mailed link: its path and page.
async fn reset_page(app: &TestApp) -> (String, String) {
    let form = LoginForm::open(app, "/auth/forgot").await;
    assert_eq!(forgot(app, &form, EMAIL).await.0, 200);
    let text: String = app
        .db()
        .query_row(
            "SELECT body_text FROM mail_queue WHERE kind = 'PASSWORD_RESET' ORDER BY id DESC",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let start = text.find("/auth/reset/").expect("the link");
    let link: String = text[start..]
        .chars()
        .take_while(|c| !c.is_whitespace())
        .collect();
    let (s, _, html) = get(app, &link, "").await;
    assert_eq!(s, 200, "{html}");
    (link, html)
}

/// Posts the reset page `html` of `link` with the new password, the box `revoke` as given.
async fn reset_with(app: &TestApp, link: &str, html: &str, revoke: bool) -> String {
    let mut fields = hidden_inputs(html);
    fields.push(("password".into(), NEW_PASSWORD.into()));
    fields.push(("password2".into(), NEW_PASSWORD.into()));
    if revoke {
        fields.push(("revoke".into(), "on".into()));
    }
    let fields: Vec<(&str, &str)> = fields
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    see_other(post(app, link, "", &fields).await)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reset_by_mailed_link_revokes_tokens_webhooks_and_apps_unless_unticked() {
    let app = TestApp::spawn_with(&["--tls", "off", "--allow-private-webhooks"]).await;
    let access = grant_everything(&app).await;
    assert_eq!(access.state(&app).await, (200, true, 200));

    // The box is there, ticked, with its label.
    let (link, html) = reset_page(&app).await;
    assert!(
        html.contains("<input type=\"checkbox\" name=\"revoke\" id=\"revoke\" aria-describedby=\"revoke-hint\" checked> Also revoke every API token, webhook and connected app</label>"),
        "{html}"
    );
    let to = reset_with(&app, &link, &html, true).await;
    assert_eq!(
        to,
        "/auth/login?done=reset&revoked=1.1.1&email=ada%40example.com"
    );
    let (_, _, login) = get(&app, &to, "").await;
    assert!(
        login.contains("Your password was changed. Sign in with the new one. 1 API token was revoked, 1 webhook was switched off and 1 connected app was disconnected."),
        "{login}"
    );
    let (token, on, refreshed) = access.state(&app).await;
    assert_eq!((token, on), (401, false));
    assert!(
        refreshed == 400 || refreshed == 401,
        "the refresh token is refused: {refreshed}"
    );
    let told = notices(&app);
    assert!(
        told.last().unwrap().contains("The password was reset with a link mailed to this address, and everything else that acted for the account was revoked (1 API token, 1 webhook switched off, 1 connected app)"),
        "{told:?}"
    );
    app.stop().await;

    // Unticked: the password changes, they all keep working.
    let app = TestApp::spawn_with(&["--tls", "off", "--allow-private-webhooks"]).await;
    let access = grant_everything(&app).await;
    let (link, html) = reset_page(&app).await;
    let to = reset_with(&app, &link, &html, false).await;
    assert_eq!(to, "/auth/login?done=reset&email=ada%40example.com");
    assert_eq!(access.state(&app).await, (200, true, 200));
    assert!(sign_in(&app, EMAIL, NEW_PASSWORD).await.is_ok());
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_password_change_revokes_them_when_ticked() {
    let app = TestApp::spawn_with(&["--tls", "off", "--allow-private-webhooks"]).await;
    let access = grant_everything(&app).await;
    let ada = browser(&app, EMAIL).await;
    // Unticked on the account page.
    let (_, html) = page(&app, &ada, "/account").await;
    assert!(
        html.contains("<input type=\"checkbox\" name=\"revoke\" id=\"revoke\" aria-describedby=\"revoke-hint\"> Also revoke"),
        "{html}"
    );
    let change = [
        ("csrf_token", ada.csrf.as_str()),
        ("current", PASSWORD),
        ("password", NEW_PASSWORD),
        ("password2", NEW_PASSWORD),
        ("revoke", "on"),
    ];
    let to = see_other(post(&app, "/account/password", &ada.cookie, &change).await);
    assert_eq!(to, "/account?done=password&ended=1&revoked=1.1.1#password");
    let (_, html) = page(&app, &ada, &to).await;
    assert!(
        html.contains("One other session was signed out; you stay signed in here. 1 API token was revoked, 1 webhook was switched off and 1 connected app was disconnected."),
        "{html}"
    );
    let (token, on, refreshed) = access.state(&app).await;
    assert_eq!((token, on), (401, false));
    assert!(refreshed == 400 || refreshed == 401, "{refreshed}");
    // Switched off with a note; switching it on again is a change that asks for confirmation.
    let path = format!("/settings/webhooks/{}", access.hook);
    let on = [
        ("url", HOOK_URL),
        ("event.DOCUMENT_SIGNED", "on"),
        ("enabled", "on"),
        ("csrf_token", ada.csrf.as_str()),
    ];
    let to = see_other(post(&app, &path, &ada.cookie, &on).await);
    assert!(to.starts_with("/account/confirm?next="), "{to}");
    assert_eq!(
        confirm_with(&app, &ada.cookie, ("password", NEW_PASSWORD)).await,
        303
    );
    let to = see_other(post(&app, &path, &ada.cookie, &on).await);
    assert_eq!(to, format!("{path}?done=saved"));
    assert!(notices(&app).last().unwrap().contains("was switched on"));
    app.stop().await;
}
