//! The pages read their query strings and forms by one rule: the last of a repeated parameter
//! counts, a parameter the page does not know is ignored, and one left out is as if empty (or
//! the page's default). Pinned here through the real server for each page that reads one: the
//! status, the `Location` and the words a person sees (or, for a page's JSON call, the error).

use crate::support::TestApp;
use crate::support::login::{Browser, LoginForm, add_account, browser, hidden_inputs};

/// An answer as a browser gets it.
struct Seen {
    status: u16,
    location: String,
    html: bool,
    body: String,
}

impl Seen {
    /// Asserts the status, the `Location` (`""`: none), that the body is HTML (else JSON), and
    /// that it says each of `says`.
    fn is(&self, status: u16, location: &str, html: bool, says: &[&str]) {
        assert_eq!(self.status, status, "{}", self.body);
        assert_eq!(self.location, location, "{}", self.body);
        assert_eq!(self.html, html, "HTML answer: {}", self.body);
        for s in says {
            assert!(self.body.contains(s), "{s:?} in:\n{}", self.body);
        }
    }
}

async fn seen(req: reqwest::RequestBuilder) -> Seen {
    let resp = req.send().await.unwrap();
    let header = |name: &str| {
        resp.headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_string())
            .unwrap_or_default()
    };
    let (location, kind) = (header("location"), header("content-type"));
    Seen {
        status: resp.status().as_u16(),
        location,
        html: kind.starts_with("text/html"),
        body: resp.text().await.unwrap(),
    }
}

fn get(app: &TestApp, path: &str, cookie: Option<&str>) -> reqwest::RequestBuilder {
    let req = app.client.get(app.url(path));
    match cookie {
        Some(c) => req.header("cookie", c),
        None => req,
    }
}

fn post(
    app: &TestApp,
    path: &str,
    cookie: Option<&str>,
    form: &[(&str, &str)],
) -> reqwest::RequestBuilder {
    let req = app.client.post(app.url(path)).form(form);
    match cookie {
        Some(c) => req.header("cookie", c),
        None => req,
    }
}

async fn ada(app: &TestApp) -> Browser {
    add_account(&app.data_dir(), "ada@example.com", "Ada");
    browser(app, "ada@example.com").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_login_pages_take_the_last_of_a_repeated_parameter_and_ignore_unknown_ones() {
    let app = TestApp::spawn().await;
    add_account(&app.data_dir(), "ada@example.com", "Ada");

    // The form: the last `next` and `email` fill it; `zzz` changes nothing.
    let page = seen(get(
        &app,
        "/auth/login?next=%2Ffirst&next=%2Fsign%2Fabc&email=a%40x.org&email=b%40x.org&zzz=1",
        None,
    ))
    .await;
    page.is(200, "", true, &["value=\"/sign/abc\"", "value=\"b@x.org\""]);
    assert!(!page.body.contains("/first"), "{}", page.body);
    // `done`: the last counts; an unknown one says nothing.
    let page = seen(get(&app, "/auth/login?done=zzz&done=reset", None)).await;
    page.is(200, "", true, &["Your password was changed."]);
    let page = seen(get(&app, "/auth/login?done=reset&done=zzz", None)).await;
    page.is(200, "", true, &[]);
    assert!(!page.body.contains("Your password was changed."));
    let page = seen(get(&app, "/auth/login?done=reset&revoked=zzz", None)).await;
    page.is(
        200,
        "",
        true,
        &["Your password was changed. Sign in with the new one."],
    );

    // Posted: no token is an expired form; a repeated e-mail is its last.
    let form = LoginForm::open(&app, "/auth/login").await;
    let expired = seen(post(&app, "/auth/login", Some(&form.cookie), &[])).await;
    expired.is(403, "", true, &["The form expired. Please sign in again."]);
    let mut fields: Vec<(&str, &str)> = form
        .fields
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    fields.extend([
        ("email", "ada@example.com"),
        ("email", "nobody@example.com"),
        ("password", crate::support::login::PASSWORD),
        ("zzz", "1"),
    ]);
    let wrong = seen(post(&app, "/auth/login", Some(&form.cookie), &fields)).await;
    wrong.is(
        401,
        "",
        true,
        &["Wrong e-mail or password.", "nobody@example.com"],
    );
    let n = fields.len();
    fields.swap(n - 3, n - 4);
    fields.extend([("next", "/elsewhere"), ("next", "/settings/tokens")]);
    let signed = seen(post(&app, "/auth/login", Some(&form.cookie), &fields)).await;
    signed.is(303, "/settings/tokens", false, &[]);

    // Signing out without a session: to the login, with the last `next` (none: none).
    let out = seen(post(
        &app,
        "/auth/logout",
        None,
        &[("next", "/a"), ("next", "/sign/xyz"), ("zzz", "1")],
    ))
    .await;
    out.is(303, "/auth/login?next=%2Fsign%2Fxyz", false, &[]);
    let out = seen(post(&app, "/auth/logout", None, &[])).await;
    out.is(303, "/auth/login", false, &[]);

    // The second step without a pending login: back to the password, with the last `next`.
    let verify = seen(get(
        &app,
        "/auth/login/verify?next=%2Fa&next=%2Fb&zzz=1",
        None,
    ))
    .await;
    verify.is(303, "/auth/login?next=%2Fb", false, &[]);
    let verify = seen(post(
        &app,
        "/auth/login/verify",
        None,
        &[("next", "/a"), ("next", "/b")],
    ))
    .await;
    verify.is(303, "/auth/login?next=%2Fb", false, &[]);
    let verify = seen(post(&app, "/auth/login/verify", None, &[])).await;
    verify.is(303, "/auth/login?next=%2F", false, &[]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reset_signup_and_direct_forms_refuse_a_missing_token_as_before() {
    let app = TestApp::spawn().await;
    let jar = LoginForm::open(&app, "/auth/forgot?next=%2Fa&next=%2Fb&email=x&email=y").await;
    assert_eq!(jar.field("next"), Some("/b"));
    let page = seen(get(
        &app,
        "/auth/forgot?email=a%40x.org&email=b%40x.org&zzz=1",
        None,
    ))
    .await;
    page.is(200, "", true, &["value=\"b@x.org\""]);
    let forgot = seen(post(
        &app,
        "/auth/forgot",
        Some(&jar.cookie),
        &[("email", "a@x.org"), ("email", "b@x.org")],
    ))
    .await;
    forgot.is(
        403,
        "",
        true,
        &["The form expired. Please try again.", "b@x.org"],
    );
    let mut fields: Vec<(&str, &str)> = jar
        .fields
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    fields.extend([
        ("email", "a@x.org"),
        ("email", "not an address"),
        ("zzz", "1"),
    ]);
    let refused = seen(post(&app, "/auth/forgot", Some(&jar.cookie), &fields)).await;
    refused.is(422, "", true, &["Enter your e-mail address"]);

    let reset = seen(post(
        &app,
        "/auth/reset/nothing",
        None,
        &[("password", "x")],
    ))
    .await;
    reset.is(403, "", true, &["the form expired; reload the page"]);
    let gone = seen(get(&app, "/auth/reset/nothing?next=%2Fa&next=%2Fb", None)).await;
    gone.is(410, "", true, &["href=\"/auth/forgot?next=%2Fb\""]);

    // A signing link's "create an account" form answers with the HTML page, not JSON.
    let invite = seen(post(&app, "/sign/nothing/account", None, &[("zzz", "1")])).await;
    invite.is(403, "", true, &["the form expired; reload the page"]);
    let signup = seen(post(&app, "/auth/signup/nothing", None, &[("name", "A")])).await;
    signup.is(403, "", true, &["the form expired; reload the page"]);
    let email = seen(post(&app, "/account/email/nothing", None, &[])).await;
    email.is(403, "", true, &["the form expired; reload the page"]);

    // A direct link that does not exist: its page and its form alike.
    let direct = seen(post(
        &app,
        "/d/nothing",
        None,
        &[("name", "A"), ("name", "B"), ("email", "a@x.org")],
    ))
    .await;
    direct.is(404, "", true, &[]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_account_pages_take_the_last_of_a_repeated_parameter() {
    let app = TestApp::spawn().await;
    let ada = ada(&app).await;
    let me = Some(ada.cookie.as_str());

    // Signed out: the sign-in form, then back.
    let page = seen(get(&app, "/account?done=name", None)).await;
    page.is(303, "/auth/login?next=%2Faccount", false, &[]);
    let page = seen(get(&app, "/account?done=zzz&done=name&zzz=1", me)).await;
    page.is(200, "", true, &["Your name was changed."]);
    let page = seen(get(&app, "/account?done=name&done=zzz", me)).await;
    page.is(200, "", true, &[]);
    assert!(!page.body.contains("Your name was changed."));
    let page = seen(get(
        &app,
        "/account?done=password&ended=2&ended=1&new_email=a%40x.org&new_email=b%40x.org",
        me,
    ))
    .await;
    page.is(
        200,
        "",
        true,
        &["One other session was signed out", "value=\"b@x.org\""],
    );

    // The name form: the last name counts; none is the form refused.
    let csrf = ada.csrf.as_str();
    let named = seen(post(
        &app,
        "/account/name",
        me,
        &[
            ("name", "Ada L"),
            ("name", "Ada Lovelace"),
            ("csrf_token", csrf),
            ("zzz", "1"),
        ],
    ))
    .await;
    named.is(303, "/account?done=name#profile", false, &[]);
    let page = seen(get(&app, "/account", me)).await;
    page.is(200, "", true, &["Ada Lovelace"]);
    let unnamed = seen(post(&app, "/account/name", me, &[("csrf_token", csrf)])).await;
    assert_eq!(unnamed.status, 422, "{}", unnamed.body);
    assert!(unnamed.html);
    let expired = seen(post(&app, "/account/name", me, &[("name", "X")])).await;
    expired.is(403, "", true, &["the form expired; reload the page"]);
    let revoke = seen(post(
        &app,
        "/account/apps/1/revoke",
        me,
        &[("csrf_token", "x")],
    ))
    .await;
    revoke.is(403, "", true, &["the form expired; reload the page"]);

    // Confirming who one is: the last `next`; no code at all asks for one.
    let page = seen(get(&app, "/account/confirm?next=%2Fa&next=%2Fb", None)).await;
    page.is(
        303,
        "/auth/login?next=%2Faccount%2Fconfirm%3Fnext%3D%252Fb",
        false,
        &[],
    );
    let page = seen(get(
        &app,
        "/account/confirm?next=%2Fa&next=%2Fsettings%2Ftokens",
        me,
    ))
    .await;
    page.is(200, "", true, &["value=\"/settings/tokens\""]);
    let inputs = hidden_inputs(&page.body);
    let factors = inputs
        .iter()
        .find(|(k, _)| k == "csrf_token")
        .map(|(_, v)| v.clone())
        .unwrap();
    let asked = seen(post(
        &app,
        "/account/confirm",
        me,
        &[("csrf_token", &factors), ("next", "/a"), ("zzz", "1")],
    ))
    .await;
    asked.is(401, "", true, &["Enter a code."]);
    let wrong = seen(post(
        &app,
        "/account/confirm",
        me,
        &[
            ("csrf_token", &factors),
            ("password", "right"),
            ("password", "wrong"),
        ],
    ))
    .await;
    assert_eq!(wrong.status, 401, "{}", wrong.body);
    let confirmed = seen(post(
        &app,
        "/account/confirm",
        me,
        &[
            ("csrf_token", &factors),
            ("password", "wrong"),
            ("password", crate::support::login::PASSWORD),
            ("next", "/a"),
            ("next", "/settings/tokens"),
        ],
    ))
    .await;
    confirmed.is(303, "/settings/tokens", false, &[]);

    // The second factors' forms: a TOTP code left out is refused by the use case.
    let disable = seen(post(
        &app,
        "/account/totp/disable",
        me,
        &[("csrf_token", &factors)],
    ))
    .await;
    assert!(disable.html && disable.status >= 400, "{}", disable.body);
    // Their JSON calls answer in JSON whatever the path says.
    let call = seen(
        app.client
            .post(app.url("/account/passkeys/options"))
            .header("cookie", &ada.cookie)
            .header("content-type", "application/json")
            .body("{}"),
    )
    .await;
    call.is(403, "", false, &["sign in again and reload the page"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_apps_pages_take_the_last_of_a_repeated_parameter() {
    let app = TestApp::spawn().await;
    let ada = ada(&app).await;
    let me = Some(ada.cookie.as_str());
    let csrf = ada.csrf.as_str();

    // The dashboard: the last tab and search.
    let key = crate::support::api::create_api_key(&app.data_dir(), "ada@example.com");
    let api = app.api(key["key"].as_str().unwrap());
    crate::dashboard::drafted(&api, "Needle one", &[]).await;
    let page = seen(get(
        &app,
        "/?tab=inbox&tab=drafts&q=zzz&q=needle&page=x&zzz=1",
        me,
    ))
    .await;
    page.is(200, "", true, &["value=\"needle\"", "Needle one"]);
    let page = seen(get(&app, "/?tab=drafts&tab=inbox&q=needle", me)).await;
    page.is(200, "", true, &[]);
    assert!(!page.body.contains("Needle one"), "{}", page.body);
    let page = seen(get(&app, "/?page=2&page=1", me)).await;
    page.is(200, "", true, &[]);

    // A page image: the last `w` counts, a width that is none of the three is a JSON 400.
    let image = seen(get(&app, "/documents/999/pages/1.png?w=800&w=7", me)).await;
    image.is(400, "", false, &["w must be one of"]);
    let image = seen(get(&app, "/documents/999/pages/1.png?w=7&w=800&zzz=1", me)).await;
    image.is(404, "", false, &[]);
    let image = seen(get(&app, "/templates/999/pages/1.png", None)).await;
    image.is(401, "", false, &["sign in to see this page"]);
    let image = seen(get(&app, "/sign/nothing/pages/1.png?w=800&w=7", None)).await;
    image.is(400, "", false, &["w must be one of"]);
    let image = seen(get(&app, "/sign/nothing/pages/1.png?w=7&w=800", None)).await;
    image.is(404, "", false, &[]);

    // API tokens: the form as typed (back from confirming), its last values.
    let page = seen(get(
        &app,
        "/settings/tokens?name=first&name=second&expiry=7&expiry=30&zzz=1",
        me,
    ))
    .await;
    page.is(200, "", true, &["value=\"second\""]);
    assert!(
        page.body.contains("id=\"expiry-30\" checked"),
        "{}",
        page.body
    );
    let page = seen(get(&app, "/settings/tokens?done=zzz&done=revoked", me)).await;
    page.is(200, "", true, &[]);
    let refused = seen(post(
        &app,
        "/settings/tokens",
        me,
        &[("csrf_token", csrf), ("name", "a"), ("name", "b")],
    ))
    .await;
    refused.is(
        400,
        "",
        true,
        &["Choose when the token stops working.", "value=\"b\""],
    );
    let revoked = seen(post(
        &app,
        "/settings/tokens/999/revoke",
        me,
        &[("csrf_token", csrf)],
    ))
    .await;
    assert!(revoked.html && revoked.status == 404, "{}", revoked.body);

    // Webhooks: the new form as typed, its last URL; a form without a URL is refused.
    let page = seen(get(
        &app,
        "/settings/webhooks/new?url=https%3A%2F%2Fa.example&url=https%3A%2F%2Fb.example&event.DOCUMENT_SIGNED=on&zzz=1",
        me,
    ))
    .await;
    page.is(200, "", true, &["value=\"https://b.example\""]);
    let refused = seen(post(
        &app,
        "/settings/webhooks",
        me,
        &[("csrf_token", csrf), ("events", "all"), ("zzz", "1")],
    ))
    .await;
    assert_eq!(refused.status, 400, "{}", refused.body);
    assert!(refused.html);
    let page = seen(get(&app, "/settings/webhooks/999/edit?url=x", me)).await;
    assert!(page.html && page.status == 404, "{}", page.body);
    let page = seen(get(&app, "/settings/webhooks/999/edit", None)).await;
    page.is(
        303,
        "/auth/login?next=%2Fsettings%2Fwebhooks%2F999%2Fedit",
        false,
        &[],
    );
    let test = seen(post(
        &app,
        "/settings/webhooks/999/test",
        me,
        &[
            ("csrf_token", csrf),
            ("event", "zzz"),
            ("event", "DOCUMENT_SIGNED"),
        ],
    ))
    .await;
    assert!(test.html && test.status == 404, "{}", test.body);

    // A template's form: another's (or none) is the 404 page.
    let used = seen(post(
        &app,
        "/templates/999/use",
        me,
        &[
            ("csrf_token", csrf),
            ("action", "send"),
            ("action", "draft"),
        ],
    ))
    .await;
    assert!(used.html && used.status == 404, "{}", used.body);
}
