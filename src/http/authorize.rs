//! `GET /auth/oauth2/authorize` (the consent page) and `POST /auth/oauth2/authorize` (Allow or
//! Deny). The checks and the Allow are in
//! `oauth::consent`; this module keeps the page, the CSRF token and the redirects.

use std::collections::HashMap;

use bytes::Bytes;
use http::{HeaderValue, StatusCode, header};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::login::redirect;
use super::reply::{Format, error_response, html_response};
use super::session::current;
use crate::assets::{escape, page};
use crate::crypto::SecretToken;
use crate::error::AppError;
use crate::http::state::AppState;
use crate::oauth::authorize::{Invalid, Params, Valid, error_redirect, redirect_to};
use crate::oauth::clients::Client;
use crate::oauth::{consent, scope};
use crate::sessions::csrf;
use crate::users::User;

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = move || super::with_state(state.clone());
    let show = warp::path!("auth" / "oauth2" / "authorize")
        .and(warp::get())
        .and(s())
        .and(warp::query::<HashMap<String, String>>())
        .and(super::session::cookies())
        .then(|st, q, c| async move { show(st, q, c).await });
    let decide = warp::path!("auth" / "oauth2" / "authorize")
        .and(warp::post())
        .and(s())
        .and(super::session::cookies())
        .and(super::body::capped_bytes(16 * 1024))
        .then(|st, c, b: Bytes| async move {
            let form: HashMap<String, String> =
                url::form_urlencoded::parse(&b).into_owned().collect();
            decide(st, c, form).await
        });
    show.or(decide).unify().boxed()
}

fn invalid(state: &AppState, e: Invalid) -> Response {
    match e {
        Invalid::Page(msg) => error_response(&AppError::bad_request(msg), Format::Html),
        Invalid::Redirect {
            redirect_uri,
            error,
            description,
            state: st,
        } => redirect(&error_redirect(
            &redirect_uri,
            error,
            &description,
            st.as_deref(),
            &state.issuer(),
        )),
    }
}

fn login_redirect(params: &Params) -> Response {
    let query: String = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(params.pairs())
        .finish();
    let next = format!("/auth/oauth2/authorize?{query}");
    let login: String = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("next", &next)
        .finish();
    redirect(&format!("/auth/login?{login}"))
}

/// The consent CSRF token: bound to the session and to every request parameter.
fn consent_token(state: &AppState, session: &str, v: &Valid) -> String {
    let session_hash = SecretToken::presented(session).hash();
    let scopes = format!("{} ({})", scope::join(&v.scopes), v.scope_text);
    csrf::token(
        &state.keys,
        "consent",
        &[
            &session_hash,
            &v.client.client_id,
            &v.redirect_uri,
            if v.redirect_uri_sent { "sent" } else { "only" },
            v.state.as_deref().unwrap_or(""),
            &scopes,
            v.code_challenge.as_deref().unwrap_or(""),
            v.nonce.as_deref().unwrap_or(""),
        ],
    )
}

/// What both the page and the form submission need: a valid request and a signed-in user.
/// Otherwise the response to send: the error page, the error redirect, or the login page.
async fn admit(
    state: &AppState,
    fields: &HashMap<String, String>,
    cookies: Option<&str>,
) -> Result<(Valid, String, User), Response> {
    let params = Params::from_map(fields);
    let valid = match consent::check(&state.db, &params).await {
        Ok(Ok(v)) => v,
        Ok(Err(e)) => return Err(invalid(state, e)),
        Err(e) => return Err(error_response(&e, Format::Html)),
    };
    match current(state, cookies).await {
        Ok(Some((session, user))) => Ok((valid, session, user)),
        Ok(None) => Err(login_redirect(&params)),
        Err(e) => Err(error_response(&e, Format::Html)),
    }
}

async fn show(
    state: AppState,
    query: HashMap<String, String>,
    cookies: Option<String>,
) -> Response {
    let (valid, session, user) = match admit(&state, &query, cookies.as_deref()).await {
        Ok(v) => v,
        Err(resp) => return resp,
    };
    let token = consent_token(&state, &session, &valid);
    let main = consent_page(&valid, &user, &hidden_fields(&query), &token);
    let title = format!("Allow {}?", valid.client.name);
    let mut resp = html_response(StatusCode::OK, &page(&title, &main));
    // The Allow/Deny form redirects to the app: allow its origin as a form target.
    if let Ok(v) = HeaderValue::from_str(&consent_csp(&valid.redirect_uri)) {
        resp.headers_mut()
            .insert(header::CONTENT_SECURITY_POLICY, v);
    }
    resp
}

/// The request's parameters as hidden inputs, so that the form carries them to `decide`.
fn hidden_fields(query: &HashMap<String, String>) -> String {
    let mut hidden = String::new();
    for (k, v) in Params::from_map(query).pairs() {
        hidden.push_str(&format!(
            r#"<input type="hidden" name="{k}" value="{}">"#,
            escape(v)
        ));
    }
    hidden
}

/// The app's logo (or its initial) and its link.
fn app_identity(c: &Client) -> (String, String) {
    let initial = escape(
        &c.name
            .chars()
            .next()
            .unwrap_or('?')
            .to_uppercase()
            .to_string(),
    );
    // When the logo cannot load, `consent.js` swaps it for the initial.
    let logo = match &c.logo_url {
        Some(url) => format!(
            r#"<img class="app-logo" src="{}" alt="" width="64" height="64"><span class="app-logo app-logo-fallback" aria-hidden="true" hidden>{initial}</span>"#,
            escape(url)
        ),
        None => format!(r#"<span class="app-logo" aria-hidden="true">{initial}</span>"#),
    };
    let link = c
        .app_url
        .as_ref()
        .map(|u| {
            format!(
                r#"<a href="{0}" rel="noopener noreferrer">{0}</a>"#,
                escape(u)
            )
        })
        .unwrap_or_default();
    (logo, link)
}

/// The consent page's main part: who asks, for what, and the Allow/Deny form.
fn consent_page(valid: &Valid, user: &User, hidden: &str, token: &str) -> String {
    let c = &valid.client;
    let (logo, link) = app_identity(c);
    let scopes: String = valid
        .scopes
        .iter()
        .map(|s| format!("<li><strong>{}</strong></li>", escape(s.describe())))
        .collect();
    format!(
        r#"<section class="narrow">
<div class="card stack">
  <div class="app-identity">{logo}<div><h1 class="app-name">{name}</h1>{link}</div></div>
  <p><strong>{name}</strong> wants to access your Docket account
     <strong>{user_name}</strong> ({email}).</p>
  <p class="muted">This will allow {name} to:</p>
  <ul class="scope-list">{scopes}</ul>
  <form method="post" action="/auth/oauth2/authorize" class="stack">
    {hidden}
    <input type="hidden" name="csrf_token" value="{token}">
    <div class="form-actions">
      <button class="button secondary" type="submit" name="decision" value="deny">Deny</button>
      <button class="button primary" type="submit" name="decision" value="allow">Allow</button>
    </div>
  </form>
  <p class="small muted">You will be sent to <code>{redirect}</code>. You can revoke access at any
     time on your <a href="/account">account page</a>.</p>
</div>
</section>
<script src="{script}" defer></script>"#,
        script = crate::assets::url("js/consent.js"),
        name = escape(&c.name),
        user_name = escape(&user.name),
        email = escape(&user.email),
        redirect = escape(&valid.redirect_uri),
    )
}

fn consent_csp(redirect_uri: &str) -> String {
    let target = match url::Url::parse(redirect_uri) {
        Ok(u) if u.scheme() == "http" || u.scheme() == "https" => u.origin().ascii_serialization(),
        Ok(u) => format!("{}:", u.scheme()),
        Err(_) => String::new(),
    };
    super::middleware::PAGE_CSP.replace(
        "form-action 'self'",
        &format!("form-action 'self' {target}"),
    )
}

async fn decide(
    state: AppState,
    cookies: Option<String>,
    form: HashMap<String, String>,
) -> Response {
    let (valid, session, user) = match admit(&state, &form, cookies.as_deref()).await {
        Ok(v) => v,
        Err(resp) => return resp,
    };
    let presented = form
        .get("csrf_token")
        .map(String::as_str)
        .unwrap_or_default();
    if !crate::crypto::ct_eq(
        consent_token(&state, &session, &valid).as_bytes(),
        presented.as_bytes(),
    ) {
        return error_response(
            &AppError::Forbidden("This form expired or was not sent from this site. Go back to the app and start again.".into()),
            Format::Html,
        );
    }
    let issuer = state.issuer();
    if form.get("decision").map(String::as_str) != Some("allow") {
        return redirect(&error_redirect(
            &valid.redirect_uri,
            "access_denied",
            "the user denied the request",
            valid.state.as_deref(),
            &issuer,
        ));
    }
    let stored = consent::allow(
        &state.db,
        user.id,
        valid.clone(),
        state.config.lifetimes.code,
    )
    .await;
    match stored {
        Ok(code) => {
            let mut pairs = vec![("code", code.expose())];
            if let Some(s) = &valid.state {
                pairs.push(("state", s));
            }
            pairs.push(("iss", &issuer));
            redirect(&redirect_to(&valid.redirect_uri, &pairs))
        }
        Err(e) => error_response(&e, Format::Html),
    }
}
