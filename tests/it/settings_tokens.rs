//! Settings -> API tokens over HTTP: a token made with the browser's session (confirmed, see
//! `access_confirm`) works on
//! `/api/v1` (as `Bearer <token>` and as the bare `Authorization` value) until it is revoked or
//! expires; another user's token is a 404; a form without the session's CSRF token is refused;
//! a refused form says what to change.

use reqwest::Method;

use crate::support::TestApp;
use crate::support::login::{Browser, add_account, browser};

/// Posts the form `fields` (with `csrf` as its token, when given) to `path`: status and page.
pub async fn post_form(
    app: &TestApp,
    path: &str,
    cookie: &str,
    csrf: Option<&str>,
    fields: &[(&str, &str)],
) -> (u16, String) {
    let mut form: Vec<(&str, &str)> = fields.to_vec();
    if let Some(t) = csrf {
        form.push(("csrf_token", t));
    }
    let resp = app
        .client
        .post(app.url(path))
        .header("cookie", cookie)
        .form(&form)
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    (status, resp.text().await.unwrap())
}

/// The page at `path` as `who` sees it: status and HTML.
pub async fn page(app: &TestApp, who: &Browser, path: &str) -> (u16, String) {
    let resp = app
        .client
        .get(app.url(path))
        .header("cookie", &who.cookie)
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    (status, resp.text().await.unwrap())
}

/// What a form that makes a secret answered: 303 to `to`, with the cookie (`name=value`) that
/// carries the secret there, and the whole `Set-Cookie`.
pub struct Made {
    pub to: String,
    pub cookie: String,
    pub set_cookie: String,
}

/// Posts the form `fields` that makes a secret (an API token, a webhook) to `path` in `who`'s
/// browser: it must answer 303 (post, redirect, get) with the secret in a cookie.
pub async fn post_made(app: &TestApp, path: &str, who: &Browser, fields: &[(&str, &str)]) -> Made {
    let mut form: Vec<(&str, &str)> = fields.to_vec();
    form.push(("csrf_token", &who.csrf));
    let resp = app
        .client
        .post(app.url(path))
        .header("cookie", &who.cookie)
        .form(&form)
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    let to = resp
        .headers()
        .get("location")
        .map(|v| v.to_str().unwrap().to_string());
    let set_cookie = resp
        .headers()
        .get("set-cookie")
        .map(|v| v.to_str().unwrap().to_string());
    let body = resp.text().await.unwrap();
    assert_eq!(status, 303, "{path}: {body}");
    let (to, set_cookie) = (to.unwrap(), set_cookie.expect("the secret's cookie"));
    let cookie = set_cookie.split(';').next().unwrap().to_string();
    Made {
        to,
        cookie,
        set_cookie,
    }
}

/// The page at `path` in `who`'s browser with the cookie `extra` too: status, headers, HTML.
pub async fn page_with(
    app: &TestApp,
    who: &Browser,
    path: &str,
    extra: &str,
) -> (u16, reqwest::header::HeaderMap, String) {
    let resp = app
        .client
        .get(app.url(path))
        .header("cookie", format!("{}; {extra}", who.cookie))
        .send()
        .await
        .unwrap();
    let (status, headers) = (resp.status().as_u16(), resp.headers().clone());
    (status, headers, resp.text().await.unwrap())
}

/// Follows `made` to its page as a browser does (once with the cookie, which the page clears;
/// then without): the page that shows the secret, after checking the cookie's rules and that
/// a reload shows the page without it. `secret_of` finds the secret in the page.
pub async fn shown_once(
    app: &TestApp,
    who: &Browser,
    made: &Made,
    secret_of: impl Fn(&str) -> String,
) -> String {
    let page_path = made.to.split('?').next().unwrap();
    let rules = format!("Path={page_path}; HttpOnly; SameSite=Strict; Max-Age=300");
    assert!(made.set_cookie.contains(&rules), "{}", made.set_cookie);
    let (s, headers, html) = page_with(app, who, &made.to, &made.cookie).await;
    assert_eq!(s, 200, "{html}");
    assert!(html.contains("you will not see it again"), "{html}");
    assert_eq!(headers["cache-control"], "no-store");
    let cleared = headers["set-cookie"].to_str().unwrap();
    assert!(
        cleared.contains(&format!("=; Path={page_path};")) && cleared.contains("Max-Age=0"),
        "{cleared}"
    );
    let secret = secret_of(&html);
    assert!(!made.cookie.contains(&secret), "sealed, never in plain");
    // The reload: the browser no longer has the cookie.
    let (s, headers, again) = page_with(app, who, &made.to, "x=1").await;
    assert_eq!(s, 200);
    assert!(!again.contains(&secret), "shown once:\n{again}");
    assert!(headers.get("set-cookie").is_none());
    html
}

/// The value of the input `id` in `html`.
pub fn input_value(html: &str, id: &str) -> String {
    let start = format!("id=\"{id}\" value=\"");
    html.split(&start)
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or_else(|| panic!("no #{id} in:\n{html}"))
        .to_string()
}

/// Makes a token named `name` in `who`'s browser, confirming who it is first (with the
/// password: the tests' accounts have no second factor), as the page asks: its value and id.
pub async fn make_token(app: &TestApp, who: &Browser, name: &str, expiry: &str) -> (String, i64) {
    make_token_at(app, who, "", name, expiry).await
}

/// As `make_token`, on the tokens page of the workspace whose pages start with `base`
/// (`/t/{slug}` for a team's).
pub async fn make_token_at(
    app: &TestApp,
    who: &Browser,
    base: &str,
    name: &str,
    expiry: &str,
) -> (String, i64) {
    let proof = ("password", crate::support::login::PASSWORD);
    assert_eq!(
        crate::recipient_auth::confirm_with(app, &who.cookie, proof).await,
        303
    );
    let fields = [("name", name), ("expiry", expiry)];
    let list = format!("{base}/settings/tokens");
    let made = post_made(app, &list, who, &fields).await;
    assert_eq!(made.to, list);
    let html = shown_once(app, who, &made, |h| input_value(h, "token-value")).await;
    let token = input_value(&html, "token-value");
    assert!(token.starts_with("api_") && token.len() == 44, "{token}");
    let id = html
        .split("/revoke\"")
        .next()
        .and_then(|h| h.rsplit("/settings/tokens/").next())
        .and_then(|n| n.parse().ok())
        .expect("the new token is listed with its revocation");
    (token, id)
}

async fn documents_with(app: &TestApp, authorization: &str) -> u16 {
    app.client
        .request(Method::GET, app.url("/api/v1/documents"))
        .header("authorization", authorization)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

#[tokio::test]
async fn a_token_made_in_the_browser_works_on_the_api_until_revoked_or_expired() {
    let app = TestApp::spawn().await;
    let d = app.data_dir();
    add_account(&d, "ada@example.com", "Ada");
    add_account(&d, "bob@example.com", "Bob");
    let ada = browser(&app, "ada@example.com").await;
    let bob = browser(&app, "bob@example.com").await;

    let (s, html) = page(&app, &ada, "/settings/tokens").await;
    assert_eq!(s, 200);
    assert!(html.contains("You have no API tokens yet"), "{html}");
    assert!(html.contains("href=\"/settings/tokens\" aria-current=\"page\""));

    let (token, id) = make_token(&app, &ada, "Ledger sync", "30").await;
    assert_eq!(documents_with(&app, &format!("Bearer {token}")).await, 200);
    assert_eq!(documents_with(&app, &token).await, 200);
    // Listed with its prefix, never its value; last use recorded.
    let (_, html) = page(&app, &ada, "/settings/tokens").await;
    assert!(html.contains("Ledger sync") && html.contains(&token[..8]));
    assert!(!html.contains(&token), "the token is shown once");
    assert!(!html.contains("Never used"), "its use is listed:\n{html}");
    // Bob sees none of it, and cannot revoke it: a 404, as an unknown token.
    let (_, theirs) = page(&app, &bob, "/settings/tokens").await;
    assert!(!theirs.contains("Ledger sync"), "{theirs}");
    let path = format!("/settings/tokens/{id}/revoke");
    let (s, _) = post_form(&app, &path, &bob.cookie, Some(&bob.csrf), &[]).await;
    assert_eq!(s, 404);
    assert_eq!(documents_with(&app, &token).await, 200);
    // Without the form's token, or with another session's, nothing happens.
    let (s, html) = post_form(&app, &path, &ada.cookie, None, &[]).await;
    assert_eq!(s, 403, "{html}");
    let (s, _) = post_form(&app, &path, &ada.cookie, Some(&bob.csrf), &[]).await;
    assert_eq!(s, 403);
    let fields = [("name", "x"), ("expiry", "never")];
    let (s, _) = post_form(&app, "/settings/tokens", &ada.cookie, None, &fields).await;
    assert_eq!(s, 403);

    let (s, _) = post_form(&app, &path, &ada.cookie, Some(&ada.csrf), &[]).await;
    assert_eq!(s, 303);
    assert_eq!(documents_with(&app, &format!("Bearer {token}")).await, 401);
    let (_, html) = page(&app, &ada, "/settings/tokens?done=revoked").await;
    assert!(html.contains("The token was revoked") && !html.contains("Ledger sync"));

    // An expired token is refused; the list marks it.
    let (old, old_id) = make_token(&app, &ada, "Old job", "7").await;
    assert_eq!(documents_with(&app, &old).await, 200);
    app.db_rw()
        .execute(
            "UPDATE api_keys SET expires_at = ?1 WHERE id = ?2",
            [docket::core::db::now() - 1, old_id],
        )
        .unwrap();
    // A server trusts a key it checked for a second (`oauth::verified`): an expiry changed
    // behind its back (never done outside tests) is seen after that.
    tokio::time::sleep(docket::core::db::REVOCATION_SETTLES).await;
    assert_eq!(documents_with(&app, &old).await, 401);
    let (_, html) = page(&app, &ada, "/settings/tokens").await;
    assert!(html.contains("Expired"), "{html}");

    // A date: the token works through that day.
    let fields = [
        ("name", "Dated"),
        ("expiry", "date"),
        ("date", "2030-01-31"),
    ];
    post_made(&app, "/settings/tokens", &ada, &fields).await;
    let (_, dated) = page(&app, &ada, "/settings/tokens").await;
    assert!(dated.contains("1 Feb 2030, 00:00 UTC"), "{dated}");
    app.stop().await;
}

/// Issue 55, item 4: the form that makes a token goes back to the list (post, redirect, get),
/// which shows the token once; reloading the list makes no other token and shows it no more,
/// and the sealed cookie opens for no other session or page.
#[tokio::test]
async fn a_reload_after_making_a_token_makes_no_other_and_shows_it_no_more() {
    let app = TestApp::spawn().await;
    let d = app.data_dir();
    add_account(&d, "ada@example.com", "Ada");
    add_account(&d, "bob@example.com", "Bob");
    let ada = browser(&app, "ada@example.com").await;
    let bob = browser(&app, "bob@example.com").await;
    let proof = ("password", crate::support::login::PASSWORD);
    assert_eq!(
        crate::recipient_auth::confirm_with(&app, &ada.cookie, proof).await,
        303
    );
    let fields = [("name", "Once"), ("expiry", "30")];
    let made = post_made(&app, "/settings/tokens", &ada, &fields).await;
    // Another session brings the cookie back: nothing shown, but the cookie is cleared.
    let (s, headers, html) = page_with(&app, &bob, "/settings/tokens", &made.cookie).await;
    assert_eq!(s, 200);
    assert!(!html.contains("you will not see it again"), "{html}");
    assert!(
        headers["set-cookie"]
            .to_str()
            .unwrap()
            .contains("Max-Age=0")
    );
    let html = shown_once(&app, &ada, &made, |h| input_value(h, "token-value")).await;
    let token = input_value(&html, "token-value");
    assert!(token.starts_with("api_"), "{token}");
    // The reload, and a few more: still one token.
    for _ in 0..3 {
        let (s, _) = page(&app, &ada, "/settings/tokens").await;
        assert_eq!(s, 200);
    }
    let count: i64 = app
        .db()
        .query_row("SELECT count(*) FROM api_keys", [], |r| r.get(0))
        .unwrap();
    assert_eq!(count, 1);
    app.stop().await;
}

async fn make_token_on(app: &TestApp, who: &Browser, date: &str) -> (u16, String) {
    let fields = [("name", "Dated"), ("expiry", "date"), ("date", date)];
    post_form(
        app,
        "/settings/tokens",
        &who.cookie,
        Some(&who.csrf),
        &fields,
    )
    .await
}

#[tokio::test]
async fn a_refused_token_form_says_what_to_change() {
    let app = TestApp::spawn().await;
    add_account(&app.data_dir(), "ada@example.com", "Ada");
    let ada = browser(&app, "ada@example.com").await;
    let fields = [("name", "  "), ("expiry", "date"), ("date", "2001-01-01")];
    let (s, html) = post_form(
        &app,
        "/settings/tokens",
        &ada.cookie,
        Some(&ada.csrf),
        &fields,
    )
    .await;
    assert_eq!(s, 400, "{html}");
    assert!(
        html.contains("Give the key a name of 1 to 100 characters."),
        "{html}"
    );
    assert!(
        html.contains("Choose a day after today and at most ten years away."),
        "{html}"
    );
    assert!(html.contains("aria-invalid=\"true\""));
    let (s, html) = make_token_on(&app, &ada, "not a date").await;
    assert_eq!(s, 400);
    assert!(
        html.contains("Choose the day the token stops working."),
        "{html}"
    );
    // The same keys as the admin CLI's: one made on the page is listed and revoked there.
    let (token, id) = make_token(&app, &ada, "CI", "never").await;
    let listed = crate::support::cli::docket_json(&app.data_dir(), &["apikey", "list"], None);
    assert_eq!(listed[0]["name"], "CI", "{listed}");
    assert_eq!(listed[0]["user"], "ada@example.com");
    assert_eq!(listed[0]["prefix"], &token[..8]);
    let id = id.to_string();
    crate::support::cli::docket_json(&app.data_dir(), &["apikey", "revoke", &id], None);
    assert_eq!(documents_with(&app, &token).await, 401);
    app.stop().await;
}
