//! Accounts for recipients (recipient authentication, `signing::auth`): from a signing link
//! whose document asks for a Docket account, `POST /sign/<token>/account` mails a one-time link
//! to the recipient's address and answers 303 to the same address, whose GET says so once (a
//! reload goes back to the signing page, sending nothing); `GET/POST /auth/signup/<code>` lets them choose a name and a
//! password, signs them in and takes them back to the document. The use cases are
//! `signing::link::request_account` and `users::invites`.

use askama::Template;
use http::{HeaderValue, StatusCode, header};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::crypto::SecretToken;
use crate::core::error::AppError;
use crate::http::reply::{self, Format, form_status, page, page_as, redirect};
use crate::http::server::state::AppState;
use crate::http::session::TokenForm;
use crate::http::shown_once;
use crate::identity::sessions::csrf;
use crate::identity::users::password;
use crate::{
    signing::workflow::invites, signing::workflow::invites::SignedUp,
    signing::workflow::invites::Signup,
};

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = move || crate::http::with_state(state.clone());
    // Under `/sign/<token>/` a refusal is JSON by its path; this form's is the HTML page.
    let invite = warp::path!("sign" / String / "account")
        .and(warp::post())
        .and(s())
        .and(crate::http::session::form::<TokenForm>())
        .then(invite)
        .map(reply::answer_as(Format::Html));
    let show = warp::path!("auth" / "signup" / String)
        .and(warp::get())
        .and(s())
        .then(shown)
        .map(reply::answer);
    let submit = warp::path!("auth" / "signup" / String)
        .and(warp::post())
        .and(s())
        .and(crate::http::session::form::<SignupFields>())
        .then(submit)
        .map(reply::answer);
    let sent = warp::path!("sign" / String / "account")
        .and(warp::get())
        .and(s())
        .and(crate::http::session::cookies())
        .map(sent)
        .map(reply::answer_as(Format::Html));
    invite
        .or(sent)
        .unify()
        .or(show)
        .unify()
        .or(submit)
        .unify()
        .boxed()
}

/// The form that creates the account, as posted.
#[derive(serde::Deserialize)]
struct SignupFields {
    #[serde(default)]
    name: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    password2: String,
    #[serde(default)]
    csrf_token: String,
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

/// `POST /sign/<token>/account`: a link to create the account, mailed.
async fn invite(token: String, state: AppState, form: TokenForm) -> Result<Response, AppError> {
    let presented = form.csrf_token.unwrap_or_default();
    if !csrf::verify(&state.keys, "invite", &[&token], &presented) {
        return Err(AppError::Forbidden(
            "the form expired; reload the page".into(),
        ));
    }
    let email =
        crate::signing::workflow::link::request_account(&state.ctx(), token.clone()).await?;
    let here = format!("/sign/{token}/account");
    Ok(shown_once::redirect(&state, &token, &here, &email))
}

/// `GET /sign/<token>/account`: "Check your e-mail", naming the address the form's answer
/// brought across (once, `shown_once`); otherwise (a reload) back to the signing page, which
/// offers the form again.
fn sent(token: String, state: AppState, cookies: Option<String>) -> Result<Response, AppError> {
    let here = format!("/sign/{token}/account");
    let taken = shown_once::take(&state, cookies.as_deref(), &token, &here);
    Ok(taken.finish(match taken.secret.clone() {
        Some(email) => page(Ok(Sent { email })),
        None => redirect(&format!("/sign/{token}")),
    }))
}

/// `GET /auth/signup/<code>`.
async fn shown(code: String, state: AppState) -> Result<Response, AppError> {
    show(state, code, None).await
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

/// `POST /auth/signup/<code>`: signed in, back to the document.
async fn submit(code: String, state: AppState, form: SignupFields) -> Result<Response, AppError> {
    let hash = SecretToken::presented(&code).hash();
    if !csrf::verify(&state.keys, "signup", &[&hash], &form.csrf_token) {
        return Err(AppError::Forbidden(
            "the form expired; reload the page".into(),
        ));
    }
    let signup = match Signup::check(&form.name, &form.password, &form.password2) {
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
