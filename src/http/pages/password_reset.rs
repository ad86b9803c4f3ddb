//! "Forgot password?": `GET/POST /auth/forgot` asks for the address and mails a link (the same
//! answer whether or not it has an account: 303 to `/auth/forgot/sent`, which names the address
//! once, brought across in the sealed cookie of `shown_once` bound to this browser's
//! pre-session cookie, so a reload sends no second mail); `GET/POST /auth/reset/{token}` is the link's page,
//! which sets the new password, ends every session of the account (and, unless the person
//! unticks it, revokes every API token, webhook and connected app), and sends the person to
//! sign in with it, the login page saying what was revoked. The use cases are `accounts::recovery`. A `next` (a path of this site, such as
//! the signing page the login was reached from) is carried through the form, the mailed link's
//! query and the link's page, checked at each step (`session::local_next`), to the login that
//! follows: the person is one sign-in away from where they were going.

use askama::Template;
use http::{HeaderValue, StatusCode, header};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::crypto::SecretToken;
use crate::core::error::AppError;
use crate::http::pages::login::{pre_session_ok, pre_session_seed, pre_session_token};
use crate::http::reply::{self, page, page_as, redirect};
use crate::http::server::state::AppState;
use crate::http::session::{cookies, local_next, with_query};
use crate::http::shown_once;
use crate::identity::accounts::access::{RevokeAll, Revoked};
use crate::identity::accounts::{profile, recovery};
use crate::identity::sessions::csrf;
use crate::identity::users::{Email, password};

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = move || crate::http::with_state(state.clone());
    let ask = warp::path!("auth" / "forgot")
        .and(warp::get())
        .and(s())
        .and(cookies())
        .and(crate::http::body::query::<Asked>())
        .map(ask);
    let send = warp::path!("auth" / "forgot")
        .and(warp::post())
        .and(s())
        .and(cookies())
        .and(crate::http::peer())
        .and(crate::http::session::form::<Asked>())
        .then(send)
        .map(reply::answer);
    let sent = warp::path!("auth" / "forgot" / "sent")
        .and(warp::get())
        .and(s())
        .and(cookies())
        .and(crate::http::body::query::<Asked>())
        .map(sent);
    let show = warp::path!("auth" / "reset" / String)
        .and(warp::get())
        .and(s())
        .and(crate::http::body::query::<Asked>())
        .then(show)
        .map(reply::answer);
    let reset = warp::path!("auth" / "reset" / String)
        .and(warp::post())
        .and(s())
        .and(crate::http::session::form::<NewPassword>())
        .then(reset)
        .map(reply::answer);
    ask.or(send)
        .unify()
        .or(sent)
        .unify()
        .or(show)
        .unify()
        .or(reset)
        .unify()
        .boxed()
}

/// The query of the reset pages and the form that asks for a link: the address to fill in,
/// where to go afterwards, and (posted) the form's token.
#[derive(serde::Deserialize)]
struct Asked {
    email: Option<String>,
    next: Option<String>,
    csrf_token: Option<String>,
}

/// The link's form: the new password twice, whether to revoke what the account made (`revoke`
/// sent at all: ticked), where to go afterwards, and the form's token.
#[derive(serde::Deserialize)]
struct NewPassword {
    #[serde(default)]
    password: String,
    #[serde(default)]
    password2: String,
    revoke: Option<String>,
    next: Option<String>,
    #[serde(default)]
    csrf_token: String,
}

/// `GET /auth/forgot`: the form, filled with the address and `next` of the query.
fn ask(state: AppState, cookie_header: Option<String>, q: Asked) -> Response {
    let email = q.email.as_deref().unwrap_or_default();
    let next = local_next(q.next.as_deref());
    let asked = (email, next.as_deref());
    forgot_page(
        &state,
        cookie_header.as_deref(),
        asked,
        None,
        StatusCode::OK,
    )
}

/// `GET /auth/reset/{token}`: the link's page.
async fn show(token: String, state: AppState, q: Asked) -> Result<Response, AppError> {
    reset_page(state, token, local_next(q.next.as_deref()), None).await
}

/// The form that asks for the address.
#[derive(Template)]
#[template(path = "auth/forgot.html")]
struct ForgotPage<'a> {
    error: Option<&'a str>,
    csrf: String,
    email: &'a str,
    next: Option<&'a str>,
    /// "Back to sign in", with the `next`.
    login: String,
}

/// "Check your e-mail": the same page whether or not the address has an account.
#[derive(Template)]
#[template(path = "auth/forgot_sent.html")]
struct Sent<'a> {
    /// The address typed, when the form's answer brought it (not after a reload).
    email: Option<&'a str>,
    minutes: i64,
    login: String,
}

/// The link's page: the new password, twice.
#[derive(Template)]
#[template(path = "auth/reset.html")]
struct ResetPage<'a> {
    error: Option<&'a str>,
    email: &'a str,
    token: &'a str,
    next: Option<String>,
    csrf: String,
    min_len: usize,
    password_hint: String,
}

/// The link was used, or its hour is over: a new one (for the same `next`), or sign in.
#[derive(Template)]
#[template(path = "auth/reset_expired.html")]
struct Expired {
    forgot: String,
    login: String,
}

impl Expired {
    fn page(next: Option<&str>) -> Response {
        let expired = Expired {
            forgot: with_query("/auth/forgot", &[("next", next)]),
            login: with_query("/auth/login", &[("next", next)]),
        };
        page_as(StatusCode::GONE, Ok(expired))
    }
}

/// The form, filled with what was `asked` (the address typed, the checked `next`).
fn forgot_page(
    state: &AppState,
    cookie_header: Option<&str>,
    (email, next): (&str, Option<&str>),
    error: Option<&str>,
    status: StatusCode,
) -> Response {
    let (csrf, set_cookie) = pre_session_token(state, "forgot", cookie_header);
    let login = with_query("/auth/login", &[("next", next)]);
    let shown = ForgotPage {
        error,
        csrf,
        email,
        next,
        login,
    };
    let mut resp = page_as(status, Ok(shown));
    if let Some(v) = set_cookie {
        resp.headers_mut().append(header::SET_COOKIE, v);
    }
    resp
}

/// `POST /auth/forgot`: "Check your e-mail", or the form again with what to change.
async fn send(
    state: AppState,
    cookie_header: Option<String>,
    peer: Option<std::net::SocketAddr>,
    form: Asked,
) -> Result<Response, AppError> {
    let typed = form.email.as_deref().unwrap_or_default().trim();
    let c = cookie_header.as_deref();
    let next = local_next(form.next.as_deref());
    let asked = (typed, next.as_deref());
    let token = form.csrf_token.as_deref().unwrap_or_default();
    if !pre_session_ok(&state, "forgot", c, token) {
        let why = "The form expired. Please try again.";
        return Ok(forgot_page(
            &state,
            c,
            asked,
            Some(why),
            StatusCode::FORBIDDEN,
        ));
    }
    let Ok(email) = Email::check(typed) else {
        let why = "Enter your e-mail address, such as name@example.com.";
        return Ok(forgot_page(
            &state,
            c,
            asked,
            Some(why),
            StatusCode::UNPROCESSABLE_ENTITY,
        ));
    };
    let client = peer.map(|p| p.ip());
    match recovery::request(&state.ctx(), &email, client, next.as_deref()).await {
        Ok(()) => {
            let to = with_query(SENT, &[("next", next.as_deref())]);
            let seed = pre_session_seed(&state, c).unwrap_or_default();
            Ok(shown_once::redirect(&state, seed, &to, email.as_str()))
        }
        Err(AppError::TooManyRequests { retry_after, .. }) => {
            let why = "Too many links were asked for. Wait an hour, then try again; a link sent earlier still works.";
            let mut resp = forgot_page(&state, c, asked, Some(why), StatusCode::TOO_MANY_REQUESTS);
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(retry_after));
            Ok(resp)
        }
        Err(e) => Err(e),
    }
}

/// "Check your e-mail".
const SENT: &str = "/auth/forgot/sent";

/// `GET /auth/forgot/sent`: "Check your e-mail", naming the address the form's answer brought
/// (once); a reload says the same without it, and sends nothing.
fn sent(state: AppState, cookie_header: Option<String>, q: Asked) -> Response {
    let c = cookie_header.as_deref();
    let seed = pre_session_seed(&state, c).unwrap_or_default();
    let taken = shown_once::take(&state, c, seed, SENT);
    let next = local_next(q.next.as_deref());
    taken.finish(page(Ok(Sent {
        email: taken.secret.as_deref(),
        minutes: crate::identity::accounts::links::TTL / 60,
        login: with_query("/auth/login", &[("next", next.as_deref())]),
    })))
}

fn reset_csrf(state: &AppState, token: &str) -> String {
    let hash = SecretToken::presented(token).hash();
    csrf::token(&state.keys, "reset", &[&hash])
}

async fn reset_page(
    state: AppState,
    token: String,
    next: Option<String>,
    error: Option<&str>,
) -> Result<Response, AppError> {
    let Some(email) = recovery::target(&state.ctx(), token.clone()).await? else {
        return Ok(Expired::page(next.as_deref()));
    };
    let shown = ResetPage {
        error,
        email: &email,
        csrf: reset_csrf(&state, &token),
        token: &token,
        next,
        min_len: password::MIN_LEN,
        password_hint: format!("At least {} characters.", password::MIN_LEN),
    };
    let status = crate::http::reply::form_status(error, StatusCode::UNPROCESSABLE_ENTITY);
    Ok(page_as(status, Ok(shown)))
}

/// `POST /auth/reset/{token}`: the new password set, on to sign in with it.
async fn reset(token: String, state: AppState, form: NewPassword) -> Result<Response, AppError> {
    let next = local_next(form.next.as_deref());
    let hash = SecretToken::presented(&token).hash();
    if !csrf::verify(&state.keys, "reset", &[&hash], &form.csrf_token) {
        return Err(AppError::Forbidden(
            "the form expired; reload the page".into(),
        ));
    }
    let (new, again) = (form.password.as_str(), form.password2.as_str());
    if let Err(e) = profile::check_new_password(new, again) {
        let why = match &e {
            AppError::BadRequest { details, .. } if !details.is_empty() => {
                let d = &details[0];
                if d.path == "password2" {
                    "The two passwords differ.".to_string()
                } else {
                    format!("The password {}.", d.message)
                }
            }
            other => other.public_message(),
        };
        return reset_page(state, token, next, Some(&why)).await;
    }
    // Ticked by default on the page: after a reset the person may not know who else had the
    // old password, and what it let them make lives on without it.
    let revoke = form
        .revoke
        .is_some()
        .then_some(crate::integrations::access::revoke_all as RevokeAll);
    let ctx = state.ctx();
    Ok(
        match recovery::reset(&ctx, &state.passwords, token, new.into(), revoke).await? {
            Some((email, revoked)) => redirect(&with_query(
                "/auth/login",
                &[
                    ("done", Some("reset")),
                    ("revoked", revoked.map(Revoked::to_query).as_deref()),
                    ("email", Some(&email)),
                    ("next", next.as_deref()),
                ],
            )),
            None => Expired::page(next.as_deref()),
        },
    )
}
