//! "Forgot password?" keeps the way back: the login page reached from a signing link hands its
//! `next` to the form, the form to the mailed link's query, the link's page to the login after
//! the new password, and that login to the signing page. A `next` that leaves the site (another
//! host, `//host`, `/\host`) is dropped at every step.

use serde_json::Value;

use crate::accounts::{NEW_PASSWORD, forgot, get, nth_mail_to, post, reset, with_mail};
use crate::support::login::{LoginForm, add_account, hidden_inputs};

/// The link starting with `prefix` in a message's text, with its query.
fn link_with_query(message: &Value, prefix: &str) -> String {
    let text = message["text"].as_str().unwrap();
    let start = text
        .find(prefix)
        .unwrap_or_else(|| panic!("no {prefix} link in {text}"));
    text[start..]
        .split(|c: char| c.is_whitespace() || c == '>')
        .next()
        .unwrap()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs Python's aiosmtpd")]
async fn a_reset_leads_back_to_a_local_next_and_drops_a_foreign_one() {
    let (smtp, app) = with_mail().await;
    add_account(&app.data_dir(), "ada@example.com", "Ada");
    add_account(&app.data_dir(), "bob@example.com", "Bob");

    // A path of the site: "Forgot password?" on the login page carries it.
    let (_, _, login) = get(
        &app,
        "/auth/login?next=%2Fsign%2Fabc123&email=ada%40example.com",
        "",
    )
    .await;
    assert!(
        login.contains("href=\"/auth/forgot?email=ada%40example.com&amp;next=%2Fsign%2Fabc123\""),
        "{login}"
    );
    // The form keeps it (and its way back to sign in), and the mailed link's query has it.
    let form = LoginForm::open(&app, "/auth/forgot?next=%2Fsign%2Fabc123").await;
    assert_eq!(form.field("next"), Some("/sign/abc123"));
    let (s, sent) = forgot(&app, &form, "ada@example.com").await;
    assert_eq!(s, 200, "{sent}");
    assert!(
        sent.contains("href=\"/auth/login?next=%2Fsign%2Fabc123\""),
        "{sent}"
    );
    let mail = nth_mail_to(&smtp, "ada@example.com", 1).await;
    let link = link_with_query(&mail, "/auth/reset/");
    assert!(link.ends_with("?next=%2Fsign%2Fabc123"), "{link}");
    // The token is the path's alone: the query is not part of it.
    let (s, _, page) = get(&app, &link, "").await;
    assert_eq!(s, 200, "{page}");
    assert!(
        page.contains("name=\"next\" value=\"/sign/abc123\""),
        "{page}"
    );
    // After the new password: the login, filled in, on its way to the signing page.
    let (s, location) = reset(&app, &link, NEW_PASSWORD, NEW_PASSWORD).await;
    assert_eq!(s, 303);
    assert_eq!(
        location,
        "/auth/login?done=reset&email=ada%40example.com&next=%2Fsign%2Fabc123"
    );
    let form = LoginForm::open(&app, &location).await;
    assert_eq!(form.field("next"), Some("/sign/abc123"));
    let signed = form.post(&app, "ada@example.com", NEW_PASSWORD).await;
    assert_eq!(signed.status(), 303);
    assert_eq!(signed.headers()["location"], "/sign/abc123");
    // A used link's page offers a new link for the same way back.
    let (s, _, page) = get(&app, &link, "").await;
    assert_eq!(s, 410);
    assert!(
        page.contains("href=\"/auth/forgot?next=%2Fsign%2Fabc123\""),
        "{page}"
    );

    // Another site: dropped by the login page's link, the form, the mail and the link's page.
    let foreign = [
        "https://evil.example/x",
        "//evil.example/x",
        "/\\evil.example/x",
        "/\t/evil.example/x",
    ];
    for bad in foreign {
        let enc: String = url::form_urlencoded::byte_serialize(bad.as_bytes()).collect();
        let (_, _, login) = get(&app, &format!("/auth/login?next={enc}"), "").await;
        assert!(login.contains("href=\"/auth/forgot\""), "{bad}: {login}");
        let (s, _, page) = get(&app, &format!("/auth/forgot?next={enc}"), "").await;
        assert_eq!(s, 200);
        assert!(!page.contains("evil.example"), "{bad}: {page}");
    }
    let mut form = LoginForm::open(&app, "/auth/forgot").await;
    form.set("next", "//evil.example/x");
    let (s, sent) = forgot(&app, &form, "bob@example.com").await;
    assert_eq!(s, 200);
    assert!(!sent.contains("evil.example"), "{sent}");
    let mail = nth_mail_to(&smtp, "bob@example.com", 1).await;
    let link = link_with_query(&mail, "/auth/reset/");
    assert!(!link.contains('?'), "{link}");
    // Put on the link by hand, and posted by a forged form: still dropped.
    let forged = format!("{link}?next=https%3A%2F%2Fevil.example%2Fx");
    let (s, _, page) = get(&app, &forged, "").await;
    assert_eq!(s, 200);
    assert!(!page.contains("evil.example"), "{page}");
    let csrf = hidden_inputs(&page)
        .into_iter()
        .find(|(k, _)| k == "csrf_token")
        .unwrap()
        .1;
    let fields = [
        ("csrf_token", csrf.as_str()),
        ("next", "//evil.example/x"),
        ("password", NEW_PASSWORD),
        ("password2", NEW_PASSWORD),
    ];
    let (s, location, _) = post(&app, &link, "", &fields).await;
    assert_eq!(s, 303);
    assert_eq!(location, "/auth/login?done=reset&email=bob%40example.com");
    // Without a way back, the login after the reset lands on the documents list (issue 55,
    // item 5), not on the account page.
    let form = LoginForm::open(&app, &location).await;
    let signed = form.post(&app, "bob@example.com", NEW_PASSWORD).await;
    assert_eq!(signed.status(), 303);
    assert_eq!(signed.headers()["location"], "/");
    app.stop().await;
}

/// Issue 55, item 5: signing in directly at the login page lands on the documents list, where
/// a sender's work starts; a `next` of the site is still followed.
#[tokio::test]
async fn signing_in_without_a_next_lands_on_the_documents_list() {
    let app = crate::support::TestApp::spawn().await;
    add_account(&app.data_dir(), "ada@example.com", "Ada");
    let form = LoginForm::open(&app, "/auth/login").await;
    assert_eq!(form.field("next"), Some("/"));
    let signed = form
        .post(&app, "ada@example.com", crate::support::login::PASSWORD)
        .await;
    assert_eq!(signed.status(), 303);
    assert_eq!(signed.headers()["location"], "/");
    let cookie = form.cookie_after(&signed);
    let (s, _, page) = get(&app, "/", &cookie).await;
    assert_eq!(s, 200);
    assert!(
        page.contains("<h1 id=\"dash-title\">Documents</h1>"),
        "{page}"
    );
    let form = LoginForm::open(&app, "/auth/login?next=%2Fsettings%2Ftokens").await;
    let signed = form
        .post(&app, "ada@example.com", crate::support::login::PASSWORD)
        .await;
    assert_eq!(signed.headers()["location"], "/settings/tokens");
    app.stop().await;
}
