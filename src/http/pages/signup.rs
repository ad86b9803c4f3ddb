//! Accounts for recipients (recipient authentication, `signing::auth`): from a signing link
//! whose document asks for a Docket account, `POST /sign/<token>/account` mails a one-time link
//! to the recipient's address; `GET/POST /auth/signup/<code>` lets them choose a name and a
//! password, signs them in and takes them back to the document. The use cases are
//! `signing::link::request_account` and `users::invites`.

use std::collections::HashMap;

use askama::Template;
use bytes::Bytes;
use http::{HeaderValue, StatusCode, header};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::crypto::SecretToken;
use crate::core::error::AppError;
use crate::http::reply::{form_status, html_result, page, page_as};
use crate::http::server::state::AppState;
use crate::identity::sessions::csrf;
use crate::identity::users::password;
use crate::{
    signing::workflow::invites, signing::workflow::invites::SignedUp,
    signing::workflow::invites::Signup,
};

fn form() -> impl Filter<Extract = (HashMap<String, String>,), Error = warp::Rejection> + Clone {
    crate::http::body::capped_bytes(16 * 1024).map(|b: Bytes| -> HashMap<String, String> {
        url::form_urlencoded::parse(&b).into_owned().collect()
    })
}

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = move || crate::http::with_state(state.clone());
    let invite = warp::path!("sign" / String / "account")
        .and(warp::post())
        .and(s())
        .and(form())
        .then(|t, st, f| async move { html_result(invite(st, t, f).await) });
    let show = warp::path!("auth" / "signup" / String)
        .and(warp::get())
        .and(s())
        .then(|code, st| async move { html_result(show(st, code, None).await) });
    let submit = warp::path!("auth" / "signup" / String)
        .and(warp::post())
        .and(s())
        .and(form())
        .then(|code, st, f| async move { html_result(submit(st, code, f).await) });
    invite.or(show).unify().or(submit).unify().boxed()
}

/// "Check your e-mail": the link to create an account is on its way.
#[derive(Template)]
#[template(path = "signup/sent.html")]
struct Sent {
    email: String,
}

/// The form that creates the account.
#[derive(Template)]
#[template(path = "signup/form.html")]
struct SignupForm<'a> {
    error: Option<&'a str>,
    email: &'a str,
    code: &'a str,
    csrf: String,
    min_len: usize,
    password_hint: String,
}

/// The link was used, or its hour is over.
#[derive(Template)]
#[template(path = "signup/expired.html")]
struct Expired;

async fn invite(
    state: AppState,
    token: String,
    form: HashMap<String, String>,
) -> Result<Response, AppError> {
    let presented = form.get("csrf_token").map(String::as_str).unwrap_or("");
    if !csrf::verify(&state.keys, "invite", &[&token], presented) {
        return Err(AppError::Forbidden(
            "the form expired; reload the page".into(),
        ));
    }
    let email = crate::signing::workflow::link::request_account(&state.ctx(), token).await?;
    Ok(page(Ok(Sent { email })))
}

async fn show(state: AppState, code: String, error: Option<&str>) -> Result<Response, AppError> {
    let Some(invite) = invites::live(&state.ctx(), code.clone()).await? else {
        return Ok(gone());
    };
    let hash = SecretToken::presented(&code).hash();
    let csrf = csrf::token(&state.keys, "signup", &[&hash]);
    let form = SignupForm {
        error,
        email: &invite.email,
        code: &code,
        csrf,
        min_len: password::MIN_LEN,
        password_hint: format!("At least {} characters.", password::MIN_LEN),
    };
    Ok(page_as(
        form_status(error, StatusCode::BAD_REQUEST),
        Ok(form),
    ))
}

fn gone() -> Response {
    page_as(StatusCode::GONE, Ok(Expired))
}

async fn submit(
    state: AppState,
    code: String,
    form: HashMap<String, String>,
) -> Result<Response, AppError> {
    let get = |k: &str| form.get(k).map(String::as_str).unwrap_or_default();
    let hash = SecretToken::presented(&code).hash();
    if !csrf::verify(&state.keys, "signup", &[&hash], get("csrf_token")) {
        return Err(AppError::Forbidden(
            "the form expired; reload the page".into(),
        ));
    }
    let signup = match Signup::check(get("name"), get("password"), get("password2")) {
        Ok(f) => f,
        Err(why) => return show(state, code, Some(&why)).await,
    };
    let Some(SignedUp { next, session }) =
        invites::sign_up(&state.ctx(), &state.passwords, code, signup).await?
    else {
        return Ok(gone());
    };
    let mut resp = crate::http::reply::redirect(&next);
    if let Ok(v) = HeaderValue::from_str(&crate::identity::sessions::set_cookie(
        &session,
        state.tls(),
    )) {
        resp.headers_mut().append(header::SET_COOKIE, v);
    }
    Ok(resp)
}
