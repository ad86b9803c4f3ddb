//! `GET/POST /auth/login` and `POST /auth/logout`. An account with a second factor (TOTP or a
//! passkey) is not signed in by its password alone: the login waits (`sessions::pending`) for
//! the second step in `second_factor.rs`. The attempt itself is `sessions::login`.

use askama::Template;
use http::{HeaderValue, StatusCode, header};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::crypto::SecretToken;
use crate::core::error::AppError;
use crate::http::reply::{self, page_as, redirect};
use crate::http::server::state::AppState;
use crate::http::session::{cookie, cookies, current, landing, local_next, urlencode, with_query};
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
    let show = warp::path!("auth" / "login")
        .and(warp::get())
        .and(s())
        .and(crate::http::body::query::<LoginQuery>())
        .and(cookies())
        .then(show)
        .map(reply::answer);
    let submit = warp::path!("auth" / "login")
        .and(warp::post())
        .and(s())
        .and(cookies())
        .and(crate::http::peer())
        .and(crate::http::session::form::<Posted>())
        .then(submit)
        .map(reply::answer);
    let logout = warp::path!("auth" / "logout")
        .and(warp::post())
        .and(s())
        .and(cookies())
        .and(crate::http::session::form::<LogoutForm>())
        .then(logout)
        .map(reply::answer);
    show.or(submit).unify().or(logout).unify().boxed()
}

/// The login page's query: the form's `next` and `email`, and what sent the person here
/// (`done=reset`, with what the reset `revoked`).
#[derive(serde::Deserialize)]
struct LoginQuery {
    next: Option<String>,
    email: Option<String>,
    done: Option<String>,
    revoked: Option<String>,
}

/// The login form as posted.
#[derive(serde::Deserialize)]
struct Posted {
    next: Option<String>,
    email: Option<String>,
    password: Option<String>,
    csrf_token: Option<String>,
}

/// The sign-out form: its token, and where to go after signing in again.
#[derive(serde::Deserialize)]
struct LogoutForm {
    csrf_token: Option<String>,
    next: Option<String>,
}

/// `GET /auth/login`: the form, with a notice of what just changed when a reset sent the
/// person here.
async fn show(
    state: AppState,
    q: LoginQuery,
    cookie_header: Option<String>,
) -> Result<Response, AppError> {
    let form = Form {
        next: q.next.as_deref(),
        email: q.email.as_deref(),
    };
    let done = match q.done.as_deref() {
        Some("reset") => Some("Your password was changed. Sign in with the new one."),
        _ => None,
    };
    // What the reset revoked with it, from the counts its redirect carries.
    let revoked = q.revoked.as_deref().and_then(Revoked::from_query);
    let done = done.map(|d| match revoked {
        Some(r) => format!("{d} {}", r.sentence()),
        None => d.to_string(),
    });
    let c = cookie_header.as_deref();
    Ok(match done {
        Some(notice) => login_page_with(&state, form, c, &notice).await,
        None => login_page(&state, form, c, None, StatusCode::OK).await,
    })
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
    let seed = pre_session_seed(state, cookie_header).unwrap_or_default();
    !seed.is_empty() && csrf::verify(&state.keys, purpose, &[seed], presented)
}

/// This browser's pre-session cookie, which binds its signed-out forms.
pub(super) fn pre_session_seed<'a>(
    state: &AppState,
    cookie_header: Option<&'a str>,
) -> Option<&'a str> {
    cookie(cookie_header, login_cookie_name(state.tls())).filter(|s| !s.is_empty())
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
    let next = landing(form.next);
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
    form: Posted,
) -> Result<Response, AppError> {
    let next = form.next.as_deref();
    let again = Form {
        next,
        email: form.email.as_deref(),
    };
    let token = form.csrf_token.as_deref().unwrap_or_default();
    if !pre_session_ok(&state, "login", cookie_header.as_deref(), token) {
        return Ok(login_page(
            &state,
            again,
            cookie_header.as_deref(),
            Some("The form expired. Please sign in again."),
            StatusCode::FORBIDDEN,
        )
        .await);
    }
    let email = form.email.as_deref().unwrap_or_default();
    let password = form.password.as_deref().unwrap_or_default();
    let address = peer.map(|p| p.ip());
    Ok(
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
            Err(e) => return Err(e),
        },
    )
}

/// Past the password: a session, or the second step with the pending login's cookie.
fn signed_in(state: &AppState, next: Option<&str>, passed: Passed) -> Response {
    let (target, cookie) = match passed {
        Passed::Session(token) => (landing(next), sessions::set_cookie(&token, state.tls())),
        Passed::SecondFactor(token) => (
            format!("/auth/login/verify?next={}", urlencode(&landing(next))),
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
    form: LogoutForm,
) -> Result<Response, AppError> {
    if let Ok(Some((token, _))) = current(&state, cookie_header.as_deref()).await {
        let hash = SecretToken::presented(&token).hash();
        let ok = form
            .csrf_token
            .is_some_and(|t| csrf::verify(&state.keys, "logout", &[&hash], &t));
        if !ok {
            return Err(AppError::Forbidden(
                "the form expired; reload the page".into(),
            ));
        }
        let _ = login::logout(&state.ctx(), token).await;
    }
    // Back to the login, and from there to `next` (a signing page asking for another account).
    let target = match form.next {
        Some(n) => format!("/auth/login?next={}", urlencode(&landing(Some(&n)))),
        None => "/auth/login".to_string(),
    };
    let mut resp = redirect(&target);
    if let Ok(v) = HeaderValue::from_str(&sessions::clear_cookie(state.tls())) {
        resp.headers_mut().append(header::SET_COOKIE, v);
    }
    Ok(resp)
}
