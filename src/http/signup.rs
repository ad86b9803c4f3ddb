//! Accounts for recipients (recipient authentication, `signing::auth`): from a signing link
//! whose document asks for a Docket account, `POST /sign/<token>/account` mails a one-time link
//! to the recipient's address; `GET/POST /auth/signup/<code>` lets them choose a name and a
//! password, signs them in and takes them back to the document. The use cases are
//! `signing::link::request_account` and `users::invites`.

use std::collections::HashMap;

use bytes::Bytes;
use http::{HeaderValue, StatusCode, header};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::reply::{html_response, html_result};
use crate::core::crypto::SecretToken;
use crate::core::error::AppError;
use crate::http::state::AppState;
use crate::identity::sessions::csrf;
use crate::identity::users::password;
use crate::{core::assets::escape, core::assets::page};
use crate::{
    signing::workflow::invites, signing::workflow::invites::SignedUp,
    signing::workflow::invites::Signup,
};

fn form() -> impl Filter<Extract = (HashMap<String, String>,), Error = warp::Rejection> + Clone {
    super::body::capped_bytes(16 * 1024).map(|b: Bytes| -> HashMap<String, String> {
        url::form_urlencoded::parse(&b).into_owned().collect()
    })
}

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = move || super::with_state(state.clone());
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

/// The CSRF token of the "create an account" form on link `token`'s page.
pub fn invite_csrf(state: &AppState, token: &str) -> String {
    csrf::token(&state.keys, "invite", &[token])
}

fn card(title: &str, inner: &str) -> String {
    page(
        title,
        &format!(
            r#"<section class="narrow"><div class="card stack"><h1>{}</h1>{inner}</div></section>"#,
            escape(title)
        ),
    )
}

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
    let email =
        crate::signing::workflow::link::request_account(&state.db, token, state.app_base()).await?;
    state.workers.mail.wake();
    let inner = format!(
        r#"<p>We sent a link to <strong>{}</strong>. Open it to create your account; it works once, for an hour.</p>
<p class="muted">You can close this page.</p>"#,
        escape(&email)
    );
    Ok(html_response(
        StatusCode::OK,
        &card("Check your e-mail", &inner),
    ))
}

async fn show(state: AppState, code: String, error: Option<&str>) -> Result<Response, AppError> {
    let Some(invite) = invites::live(&state.db, code.clone()).await? else {
        return Ok(gone());
    };
    let hash = SecretToken::presented(&code).hash();
    let csrf = csrf::token(&state.keys, "signup", &[&hash]);
    let alert = crate::core::assets::error_alert(error);
    let inner = format!(
        r#"{alert}<p>Your account's e-mail is <strong>{email}</strong>.</p>
<form method="post" action="/auth/signup/{code}" class="stack">
  <input type="hidden" name="csrf_token" value="{csrf}">
  <div class="field"><label for="name">Your name</label>
    <input type="text" id="name" name="name" autocomplete="name" maxlength="100" required autofocus></div>
  <div class="field"><label for="password">Password</label>
    <input id="password" name="password" type="password" autocomplete="new-password" minlength="{min}" required>
    <p class="small muted">At least {min} characters.</p></div>
  <div class="field"><label for="password2">Password again</label>
    <input id="password2" name="password2" type="password" autocomplete="new-password" required></div>
  <div class="form-actions"><button class="button primary block" type="submit">Create account</button></div>
</form>"#,
        email = escape(&invite.email),
        code = escape(&code),
        min = password::MIN_LEN,
    );
    let status = if error.is_some() {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    };
    Ok(html_response(status, &card("Create your account", &inner)))
}

fn gone() -> Response {
    html_response(
        StatusCode::GONE,
        &card(
            "This link has expired",
            "<p>Links to create an account work once, for an hour. Open the document's link again to get a new one.</p>",
        ),
    )
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
        invites::sign_up(&state.db, &state.passwords, code, signup).await?
    else {
        return Ok(gone());
    };
    let mut resp = super::login::redirect(&next);
    if let Ok(v) = HeaderValue::from_str(&crate::identity::sessions::set_cookie(
        &session,
        state.tls(),
    )) {
        resp.headers_mut().append(header::SET_COOKIE, v);
    }
    Ok(resp)
}
