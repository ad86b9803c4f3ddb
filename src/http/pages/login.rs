//! `GET/POST /auth/login` and `POST /auth/logout`. An account with a second factor (TOTP or a
//! passkey) is not signed in by its password alone: the login waits (`sessions::pending`) for
//! the second step in `second_factor.rs`. The attempt itself is `sessions::login`.

use crate::http::reply::redirect;
use std::collections::HashMap;

use askama::Template;
use bytes::Bytes;
use http::{HeaderValue, StatusCode, header};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::crypto::SecretToken;
use crate::core::error::AppError;
use crate::http::reply::page_as;
use crate::http::server::state::AppState;
use crate::http::session::{
    cookie, cookies, current, local_next, safe_next, urlencode, with_query,
};
use crate::identity::accounts::access::Revoked;
use crate::signing::workflow::login_hint::{self, LoginHint};
use crate::{identity::sessions, identity::sessions::csrf};
use crate::{identity::sessions::login, identity::sessions::login::Passed};

fn login_cookie_name(tls: bool) -> &'static str {
    if tls {
        "__Host-docket_login"
    } else {
        "docket_login"
    }
}

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = move || crate::http::with_state(state.clone());
    let form = || {
        crate::http::body::capped_bytes(16 * 1024).map(|b: Bytes| -> HashMap<String, String> {
            url::form_urlencoded::parse(&b).into_owned().collect()
        })
    };
    let show = warp::path!("auth" / "login")
        .and(warp::get())
        .and(s())
        .and(warp::query::<HashMap<String, String>>())
        .and(cookies())
        .then(
            |st: AppState, q: HashMap<String, String>, c: Option<String>| async move {
                let form = Form {
                    next: q.get("next").map(String::as_str),
                    email: q.get("email").map(String::as_str),
                };
                let done = match q.get("done").map(String::as_str) {
                    Some("reset") => Some("Your password was changed. Sign in with the new one."),
                    _ => None,
                };
                // What the reset revoked with it, from the counts its redirect carries.
                let revoked = q.get("revoked").and_then(|r| Revoked::from_query(r));
                let done = done.map(|d| match revoked {
                    Some(r) => format!("{d} {}", r.sentence()),
                    None => d.to_string(),
                });
                match done {
                    Some(notice) => login_page_with(&st, form, c.as_deref(), &notice).await,
                    None => login_page(&st, form, c.as_deref(), None, StatusCode::OK).await,
                }
            },
        );
    let submit = warp::path!("auth" / "login")
        .and(warp::post())
        .and(s())
        .and(cookies())
        .and(crate::http::peer())
        .and(form())
        .then(|st, c, p, f| async move { submit(st, c, p, f).await });
    let logout = warp::path!("auth" / "logout")
        .and(warp::post())
        .and(s())
        .and(cookies())
        .and(form())
        .then(|st, c, f| async move { logout(st, c, f).await });
    show.or(submit).unify().or(logout).unify().boxed()
}

/// What the login form is filled with.
#[derive(Clone, Copy, Default)]
struct Form<'a> {
    next: Option<&'a str>,
    email: Option<&'a str>,
}

#[derive(Template)]
#[template(path = "login.html")]
struct LoginPage<'a> {
    error: Option<&'a str>,
    /// A change that sent the person here (a new password), as a sentence.
    done: Option<&'a str>,
    token: String,
    next: String,
    email: &'a str,
    /// Reached from a signing link: which document and why.
    hint: Option<LoginHint>,
    /// The signing link's "Create an account" form: its action and CSRF token.
    invite: Option<(String, String)>,
    /// "Forgot password?", with the e-mail when known.
    forgot: String,
}

/// The CSRF token of a form shown before any session (the login and "Forgot password?"
/// forms), bound to the pre-session cookie, and that cookie's `Set-Cookie` when the browser has
/// none yet.
pub(super) fn pre_session_token(
    state: &AppState,
    purpose: &str,
    cookie_header: Option<&str>,
) -> (String, Option<HeaderValue>) {
    let tls = state.tls();
    let (seed, fresh) = match cookie(cookie_header, login_cookie_name(tls)) {
        Some(v) => (v.to_string(), false),
        None => (crate::core::crypto::random_base62(32), true),
    };
    let token = csrf::token(&state.keys, purpose, &[&seed]);
    let set = fresh
        .then(|| {
            let c = format!(
                "{}={seed}; Path=/; HttpOnly; SameSite=Lax{}",
                login_cookie_name(tls),
                if tls { "; Secure" } else { "" }
            );
            HeaderValue::from_str(&c).ok()
        })
        .flatten();
    (token, set)
}

/// Whether `presented` is the pre-session form token of `purpose` for this browser's cookie.
pub(super) fn pre_session_ok(
    state: &AppState,
    purpose: &str,
    cookie_header: Option<&str>,
    presented: &str,
) -> bool {
    let seed = cookie(cookie_header, login_cookie_name(state.tls())).unwrap_or_default();
    !seed.is_empty() && csrf::verify(&state.keys, purpose, &[seed], presented)
}

/// The signing link's token when `next` is a signing page.
fn signing_token(next: &str) -> Option<&str> {
    let rest = next.strip_prefix("/sign/")?;
    let token = rest.split(['/', '?', '#']).next().unwrap_or_default();
    (!token.is_empty()).then_some(token)
}

/// The login form; sets the pre-session CSRF cookie when missing.
async fn login_page(
    state: &AppState,
    form: Form<'_>,
    cookie_header: Option<&str>,
    error: Option<&str>,
    status: StatusCode,
) -> Response {
    render(state, form, cookie_header, (error, None), status).await
}

/// The login form with a notice of what just changed.
async fn login_page_with(
    state: &AppState,
    form: Form<'_>,
    cookie_header: Option<&str>,
    done: &str,
) -> Response {
    render(
        state,
        form,
        cookie_header,
        (None, Some(done)),
        StatusCode::OK,
    )
    .await
}

async fn render(
    state: &AppState,
    form: Form<'_>,
    cookie_header: Option<&str>,
    (error, done): (Option<&str>, Option<&str>),
    status: StatusCode,
) -> Response {
    let (token, set_cookie) = pre_session_token(state, "login", cookie_header);
    let next = safe_next(form.next);
    let link = signing_token(&next).map(str::to_string);
    let hint = match &link {
        // A lookup that fails only loses the hint, never the form.
        Some(t) => login_hint::for_link(&state.ctx(), t.clone())
            .await
            .ok()
            .flatten(),
        None => None,
    };
    let invite = match (&link, &hint) {
        (Some(t), Some(h)) if h.can_sign_up => Some((
            format!("/sign/{t}/account"),
            crate::http::session::invite_csrf(state, t),
        )),
        _ => None,
    };
    let email = form.email.unwrap_or_default();
    // "Forgot password?" keeps the address and the way back (checked again on its page).
    let typed = Some(email.trim()).filter(|e| !e.is_empty());
    let back = local_next(form.next);
    let forgot = with_query(
        "/auth/forgot",
        &[("email", typed), ("next", back.as_deref())],
    );
    let page = LoginPage {
        error,
        done,
        token,
        next,
        email,
        hint,
        invite,
        forgot,
    };
    let mut resp = page_as(status, Ok(page));
    if let Some(v) = set_cookie {
        resp.headers_mut().append(header::SET_COOKIE, v);
    }
    resp
}

async fn submit(
    state: AppState,
    cookie_header: Option<String>,
    peer: Option<std::net::SocketAddr>,
    form: HashMap<String, String>,
) -> Response {
    let next = form.get("next").map(String::as_str);
    let get = |k: &str| form.get(k).map(String::as_str).unwrap_or_default();
    let again = Form {
        next,
        email: form.get("email").map(String::as_str),
    };
    if !pre_session_ok(&state, "login", cookie_header.as_deref(), get("csrf_token")) {
        return login_page(
            &state,
            again,
            cookie_header.as_deref(),
            Some("The form expired. Please sign in again."),
            StatusCode::FORBIDDEN,
        )
        .await;
    }
    let (email, password) = (get("email"), get("password"));
    let address = peer.map(|p| p.ip());
    match login::attempt(&state.ctx(), &state.passwords, email, password, address).await {
        Ok(Some(passed)) => signed_in(&state, next, passed),
        Ok(None) => {
            login_page(
                &state,
                again,
                cookie_header.as_deref(),
                Some("Wrong e-mail or password."),
                StatusCode::UNAUTHORIZED,
            )
            .await
        }
        Err(AppError::TooManyRequests { retry_after, .. }) => {
            let mut resp = login_page(
                &state,
                again,
                cookie_header.as_deref(),
                Some("Too many failed sign-ins. Wait a while, then try again."),
                StatusCode::TOO_MANY_REQUESTS,
            )
            .await;
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(retry_after));
            resp
        }
        Err(AppError::Overloaded { retry_after, .. }) => {
            let mut resp = login_page(
                &state,
                again,
                cookie_header.as_deref(),
                Some("Too many sign-ins at once. Try again in a moment."),
                StatusCode::SERVICE_UNAVAILABLE,
            )
            .await;
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(retry_after));
            resp
        }
        Err(e) => crate::http::reply::error_response(&e, crate::http::reply::Format::Html),
    }
}

/// Past the password: a session, or the second step with the pending login's cookie.
fn signed_in(state: &AppState, next: Option<&str>, passed: Passed) -> Response {
    let (target, cookie) = match passed {
        Passed::Session(token) => (safe_next(next), sessions::set_cookie(&token, state.tls())),
        Passed::SecondFactor(token) => (
            format!("/auth/login/verify?next={}", urlencode(&safe_next(next))),
            crate::http::pages::second_factor::pending_cookie(&token, state.tls()),
        ),
    };
    let mut resp = redirect(&target);
    if let Ok(v) = HeaderValue::from_str(&cookie) {
        resp.headers_mut().append(header::SET_COOKIE, v);
    }
    resp
}

async fn logout(
    state: AppState,
    cookie_header: Option<String>,
    form: HashMap<String, String>,
) -> Response {
    if let Ok(Some((token, _))) = current(&state, cookie_header.as_deref()).await {
        let hash = SecretToken::presented(&token).hash();
        let ok = form
            .get("csrf_token")
            .is_some_and(|t| csrf::verify(&state.keys, "logout", &[&hash], t));
        if !ok {
            return crate::http::reply::error_response(
                &AppError::Forbidden("the form expired; reload the page".into()),
                crate::http::reply::Format::Html,
            );
        }
        let _ = login::logout(&state.ctx(), token).await;
    }
    // Back to the login, and from there to `next` (a signing page asking for another account).
    let target = match form.get("next") {
        Some(n) => format!("/auth/login?next={}", urlencode(&safe_next(Some(n)))),
        None => "/auth/login".to_string(),
    };
    let mut resp = redirect(&target);
    if let Ok(v) = HeaderValue::from_str(&sessions::clear_cookie(state.tls())) {
        resp.headers_mut().append(header::SET_COOKIE, v);
    }
    resp
}
