//! Signing in through the login page as a browser does: fetch the form (its CSRF cookie and
//! hidden fields), fill in the e-mail and password, post it, keep the session cookie.

use std::path::Path;

use reqwest::Method;
use serde_json::Value;

use super::cli::docket_json;
use super::server::TestApp;

/// The password of the tests' accounts (made with `docket user add --password-stdin`).
pub const PASSWORD: &str = "a long test password";

/// The login page's form as a browser holds it: the cookies the page set and its hidden
/// fields (the login CSRF token, `next`). One form serves many posts.
#[derive(Debug, Clone)]
pub struct LoginForm {
    /// The `Cookie` header to send with the form.
    pub cookie: String,
    pub fields: Vec<(String, String)>,
}

impl LoginForm {
    /// The form of the login page at `path` of `app` (`/auth/login`, or where a redirect sent
    /// the browser).
    pub async fn open(app: &TestApp, path: &str) -> LoginForm {
        Self::fetch(&app.client, &app.url(path)).await
    }

    /// The form of the login page at `url`, fetched with `client`.
    pub async fn fetch(client: &reqwest::Client, url: &str) -> LoginForm {
        let page = client.get(url).send().await.unwrap();
        assert_eq!(page.status(), 200, "the login page {url}");
        let cookie = set_cookie_pairs(&page).join("; ");
        LoginForm {
            cookie,
            fields: hidden_inputs(&page.text().await.unwrap()),
        }
    }

    /// The hidden field `name`, if the page has it.
    pub fn field(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Sets the field `name` (replacing the page's own, if any).
    pub fn set(&mut self, name: &str, value: &str) {
        self.fields.retain(|(k, _)| k != name);
        self.fields.push((name.into(), value.into()));
    }

    /// The fields with `email` and `password` filled in.
    pub fn filled(&self, email: &str, password: &str) -> Vec<(String, String)> {
        let mut fields = self.fields.clone();
        fields.push(("email".into(), email.into()));
        fields.push(("password".into(), password.into()));
        fields
    }

    /// The post of the form filled in with `email` and `password` to `app`, with the form's
    /// cookie, ready for more headers.
    pub fn request(&self, app: &TestApp, email: &str, password: &str) -> reqwest::RequestBuilder {
        app.client
            .post(app.url("/auth/login"))
            .header("cookie", &self.cookie)
            .form(&self.filled(email, password))
    }

    /// Posts the form filled in with `email` and `password`: the raw answer.
    pub async fn post(&self, app: &TestApp, email: &str, password: &str) -> reqwest::Response {
        self.request(app, email, password).send().await.unwrap()
    }

    /// The `Cookie` header a browser sends after `answer` to this form: the form's cookies
    /// and those the answer set (the session).
    pub fn cookie_after(&self, answer: &reqwest::Response) -> String {
        format!("{}; {}", self.cookie, set_cookie_pairs(answer).join("; "))
    }
}

/// Adds the account `email` named `name` with the test [`PASSWORD`] to `data_dir`.
pub fn add_account(data_dir: &Path, email: &str, name: &str) {
    docket_json(
        data_dir,
        &["user", "add", email, "--name", name, "--password-stdin"],
        Some(&format!("{PASSWORD}\n")),
    );
}

/// Signs in through the login page; returns the `Cookie` header to send afterwards, or the
/// status of a login that did not redirect.
pub async fn sign_in(
    app: &TestApp,
    email: &str,
    password: &str,
) -> Result<String, reqwest::StatusCode> {
    let form = LoginForm::open(app, "/auth/login").await;
    let resp = form.post(app, email, password).await;
    if resp.status() != 303 {
        return Err(resp.status());
    }
    Ok(form.cookie_after(&resp))
}

fn unescape(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// Every `<input type="hidden" name=.. value=..>` of a page.
pub fn hidden_inputs(html: &str) -> Vec<(String, String)> {
    html.split("<input type=\"hidden\" ")
        .skip(1)
        .filter_map(|rest| {
            let name = rest.split("name=\"").nth(1)?.split('"').next()?;
            let value = rest.split("value=\"").nth(1)?.split('"').next()?;
            Some((name.to_string(), unescape(value)))
        })
        .collect()
}

/// The `name=value` part of each `Set-Cookie` of an answer.
pub fn set_cookie_pairs(resp: &reqwest::Response) -> Vec<String> {
    resp.headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok()?.split(';').next().map(str::to_string))
        .collect()
}
/// A signed-in browser of the web application: its `Cookie` header and the CSRF token its
/// pages carry (`<meta name="csrf-token">`).
pub struct Browser {
    pub cookie: String,
    pub csrf: String,
}

pub async fn browser(app: &TestApp, email: &str) -> Browser {
    let cookie = sign_in(app, email, PASSWORD).await.unwrap();
    let html = app
        .client
        .get(app.url("/account"))
        .header("cookie", &cookie)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let csrf = html
        .split("<meta name=\"csrf-token\" content=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap_or_else(|| panic!("no csrf-token in the account page:\n{html}"))
        .to_string();
    Browser { cookie, csrf }
}

/// A call with the given cookie and token (either may be absent): status and JSON answer.
pub async fn call(
    app: &TestApp,
    method: Method,
    path: &str,
    cookie: Option<&str>,
    csrf: Option<&str>,
    body: Option<Value>,
) -> (u16, Value) {
    let mut req = app.client.request(method, app.url(path));
    if let Some(c) = cookie {
        req = req.header("cookie", c);
    }
    if let Some(t) = csrf {
        req = req.header("x-csrf-token", t);
    }
    if let Some(b) = body {
        req = req.json(&b);
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    (status, resp.json().await.unwrap_or(Value::Null))
}

/// An answer as the page tests read it: the status, the `Location` header and the body.
pub async fn answer_of(resp: reqwest::Response) -> (u16, String, String) {
    let status = resp.status().as_u16();
    let location = resp
        .headers()
        .get("location")
        .map(|l| l.to_str().unwrap().to_string())
        .unwrap_or_default();
    (status, location, resp.text().await.unwrap())
}

/// GET `path` with `cookie`: the status, the `Location` header and the body.
pub async fn page(app: &TestApp, path: &str, cookie: Option<&str>) -> (u16, String, String) {
    let mut req = app.client.get(app.url(path));
    if let Some(c) = cookie {
        req = req.header("cookie", c);
    }
    answer_of(req.send().await.unwrap()).await
}
