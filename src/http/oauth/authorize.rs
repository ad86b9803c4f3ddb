//! `GET /auth/oauth2/authorize` (the consent page) and `POST /auth/oauth2/authorize` (Allow or
//! Deny). The checks, OpenID Connect's `prompt` and `max_age` (`oauth::prompt`) and the Allow
//! are in `oauth::consent`; this module keeps the page, the CSRF token and the redirects.

use askama::Template;
use http::{HeaderValue, header};
use serde::Deserialize;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::crypto::SecretToken;
use crate::core::error::AppError;
use crate::http::reply::{answer, redirect};
use crate::http::server::state::AppState;
use crate::http::session::current_session;
use crate::identity::users::User;
use crate::oauth::clients::Client;
use crate::oauth::login_mark;
use crate::oauth::prompt;
use crate::{identity::scope, identity::scope::Scope};
use crate::{identity::sessions::Session, identity::sessions::csrf};
use crate::{
    oauth::authorize::Invalid, oauth::authorize::LOGIN_SINCE, oauth::authorize::Params,
    oauth::authorize::Valid, oauth::authorize::error_redirect, oauth::authorize::redirect_to,
};
use crate::{oauth::consent, oauth::consent::Allower, oauth::consent::Next};

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let show = warp::path!("auth" / "oauth2" / "authorize")
        .and(warp::get())
        .and(crate::http::with_state(state.clone()))
        .and(crate::http::body::query::<Params>())
        .and(crate::http::session::cookies())
        .then(show)
        .map(answer);
    let decide = warp::path!("auth" / "oauth2" / "authorize")
        .and(warp::post())
        .and(crate::http::with_state(state))
        .and(crate::http::session::cookies())
        .and(crate::http::session::form::<ConsentForm>())
        .then(decide)
        .map(answer);
    show.or(decide).unify().boxed()
}

/// The Allow/Deny form: the request's parameters as the page carried them, its CSRF token and
/// the button pressed.
#[derive(Deserialize)]
struct ConsentForm {
    #[serde(flatten)]
    params: Params,
    csrf_token: Option<String>,
    decision: Option<String>,
}

/// How the user hears of an invalid request: the error page, or the redirect to the app.
fn invalid(state: &AppState, e: Invalid) -> Result<Response, AppError> {
    match e {
        Invalid::Page(msg) => Err(AppError::bad_request(msg)),
        Invalid::Redirect {
            redirect_uri,
            error,
            description,
            state: st,
        } => Ok(redirect(&error_redirect(
            &redirect_uri,
            error,
            &description,
            st.as_deref(),
            &state.issuer(),
        ))),
    }
}

/// To the login page, then back to this request; when it asks for a recent login, marked as
/// having signed in since `since` (so that `prompt=login` or `max_age=0` asks once, not
/// forever), with a mark only docket can make (`login_mark`). The form is filled with
/// `login_hint`.
fn login_redirect(state: &AppState, params: &Params, valid: &Valid, since: i64) -> Response {
    let pairs = params.pairs();
    let mut back = url::form_urlencoded::Serializer::new(String::new());
    back.extend_pairs(pairs.iter().filter(|(k, _)| *k != LOGIN_SINCE));
    if valid.interaction.wants_recent_login() {
        back.append_pair(LOGIN_SINCE, &login_mark::mark(&state.keys, params, since));
    }
    let query = back.finish();
    let next = format!("/auth/oauth2/authorize?{query}");
    let mut login = url::form_urlencoded::Serializer::new(String::new());
    login.append_pair("next", &next);
    if let Some(hint) = &valid.login_hint {
        login.append_pair("email", hint);
    }
    redirect(&format!("/auth/login?{}", login.finish()))
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

/// A request as sent, and as checked.
struct Request {
    params: Params,
    valid: Valid,
}

/// A request as sent, checked, with the browser's session if any (its cookie value and the
/// session).
type Admitted = (Request, Option<(String, Session)>);

/// What both the page and the form submission need: a valid request, and the browser's
/// session if any; or why the request is invalid.
async fn admit(
    state: &AppState,
    params: Params,
    cookies: Option<&str>,
) -> Result<Result<Admitted, Invalid>, AppError> {
    let valid = match consent::check(&state.ctx(), &state.keys, &params).await? {
        Ok(v) => v,
        Err(e) => return Ok(Err(e)),
    };
    let session = current_session(state, cookies).await?;
    Ok(Ok((Request { params, valid }, session)))
}

/// `GET /auth/oauth2/authorize` (RFC 6749 4.1.1): the consent page, the login on the way, or
/// the answer `prompt` asks for.
async fn show(
    state: AppState,
    params: Params,
    cookies: Option<String>,
) -> Result<Response, AppError> {
    let (req, session) = match admit(&state, params, cookies.as_deref()).await? {
        Ok(admitted) => admitted,
        Err(e) => return invalid(&state, e),
    };
    let (cookie, session) = match consent::next_step(&state.ctx(), &req.valid, session).await? {
        Next::Refuse(error) => {
            return invalid(&state, req.valid.refuse(error, prompt::describe(error)));
        }
        Next::Login { since } => return Ok(login_redirect(&state, &req.params, &req.valid, since)),
        Next::Silent(_, s) => return issue_silently(&state, Allower::of(&s), req.valid).await,
        Next::Consent(cookie, s) => (cookie, s),
    };
    let valid = req.valid;
    let token = consent_token(&state, &cookie, &valid);
    let page = ConsentPage {
        client: &valid.client,
        initial: initial(&valid.client.name),
        user: &session.user,
        scopes: &valid.scopes,
        params: req.params.pairs(),
        token: &token,
        redirect_uri: &valid.redirect_uri,
    };
    let mut resp = crate::http::reply::page(Ok(page));
    // The Allow/Deny form redirects to the app: allow its origin as a form target.
    if let Ok(v) = HeaderValue::from_str(&consent_csp(&valid.redirect_uri)) {
        resp.headers_mut()
            .insert(header::CONTENT_SECURITY_POLICY, v);
    }
    Ok(resp)
}

/// The consent page: who asks, for what, and the Allow/Deny form, which carries the request's
/// parameters to `decide`.
#[derive(Template)]
#[template(path = "consent.html")]
struct ConsentPage<'a> {
    client: &'a Client,
    /// Shown instead of the app's logo when it has none or it cannot load.
    initial: String,
    user: &'a User,
    scopes: &'a [Scope],
    params: Vec<(&'static str, &'a str)>,
    token: &'a str,
    redirect_uri: &'a str,
}

/// The first letter of an app's name, as its logo stand-in.
fn initial(name: &str) -> String {
    name.chars()
        .next()
        .unwrap_or('?')
        .to_uppercase()
        .to_string()
}

fn consent_csp(redirect_uri: &str) -> String {
    let target = match url::Url::parse(redirect_uri) {
        Ok(u) if u.scheme() == "http" || u.scheme() == "https" => u.origin().ascii_serialization(),
        Ok(u) => format!("{}:", u.scheme()),
        Err(_) => String::new(),
    };
    crate::http::server::middleware::PAGE_CSP.replace(
        "form-action 'self'",
        &format!("form-action 'self' {target}"),
    )
}

/// `POST /auth/oauth2/authorize`: Allow (the code, to the app) or Deny (`access_denied`).
async fn decide(
    state: AppState,
    cookies: Option<String>,
    form: ConsentForm,
) -> Result<Response, AppError> {
    let (req, session) = match admit(&state, form.params, cookies.as_deref()).await? {
        Ok(admitted) => admitted,
        Err(e) => return invalid(&state, e),
    };
    let (session, user) = match consent::decider(&req.valid, session) {
        Ok(signed_in) => signed_in,
        Err(since) => return Ok(login_redirect(&state, &req.params, &req.valid, since)),
    };
    let valid = req.valid;
    let presented = form.csrf_token.as_deref().unwrap_or_default();
    if !crate::core::crypto::ct_eq(
        consent_token(&state, &session, &valid).as_bytes(),
        presented.as_bytes(),
    ) {
        return Err(AppError::Forbidden(
            "This form expired or was not sent from this site. Go back to the app and start again."
                .into(),
        ));
    }
    let issuer = state.issuer();
    if form.decision.as_deref() != Some("allow") {
        return Ok(redirect(&error_redirect(
            &valid.redirect_uri,
            "access_denied",
            "the user denied the request",
            valid.state.as_deref(),
            &issuer,
        )));
    }
    issue(&state, Allower::of(&user), &valid).await
}

/// Issues the code `who` allowed and redirects to the app with it.
async fn issue(state: &AppState, who: Allower, valid: &Valid) -> Result<Response, AppError> {
    let ttl = state.config.lifetimes.code;
    let code = consent::allow(&state.ctx(), who, valid.clone(), ttl).await?;
    Ok(code_redirect(state, valid, &code))
}

/// `prompt=none`: the code for what `who` already allowed, or `consent_required` when that
/// changed in the meantime.
async fn issue_silently(
    state: &AppState,
    who: Allower,
    valid: Valid,
) -> Result<Response, AppError> {
    let ttl = state.config.lifetimes.code;
    match consent::allow_silently(&state.ctx(), who, valid.clone(), ttl).await? {
        Some(code) => Ok(code_redirect(state, &valid, &code)),
        None => {
            let error = "consent_required";
            invalid(state, valid.refuse(error, prompt::describe(error)))
        }
    }
}

/// To the app with `code` (and `state`, `iss`).
fn code_redirect(state: &AppState, valid: &Valid, code: &SecretToken) -> Response {
    let issuer = state.issuer();
    let mut pairs = vec![("code", code.expose())];
    if let Some(s) = &valid.state {
        pairs.push(("state", s));
    }
    pairs.push(("iss", &issuer));
    redirect(&redirect_to(&valid.redirect_uri, &pairs))
}
