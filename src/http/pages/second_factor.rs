//! The second step of a login for an account with TOTP or a passkey (`sessions::pending`):
//! `GET/POST /auth/login/verify` take a TOTP code or a recovery code;
//! `POST /auth/login/passkey/options` and `POST /auth/login/passkey` take a passkey (JSON, driven
//! by `assets/js/passkey.js`). Success turns the pending login into a session and goes on to
//! `next` (the OAuth consent page, a signing page, the account page). The checks are
//! `sessions::second_step`; this module keeps the pages, the cookies and the redirects.

use askama::Template;
use http::{HeaderValue, StatusCode, header};
use serde_json::json;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::crypto::SecretToken;
use crate::core::error::AppError;
use crate::core::lenient::OrDefault;
use crate::http::api::wire::passkeys::{ChallengeRequest, PasskeyProofRequest};
use crate::http::reply::{self, Format, form_status, json_response, page_as, redirect};
use crate::http::server::state::AppState;
use crate::http::session::{NextQuery, cookie, cookies, landing, urlencode};
use crate::{identity::sessions, identity::sessions::csrf, identity::sessions::pending};
use crate::{
    identity::sessions::second_step, identity::sessions::second_step::Proof,
    identity::sessions::second_step::expired,
};

fn cookie_name(tls: bool) -> &'static str {
    if tls {
        "__Host-docket_pending"
    } else {
        "docket_pending"
    }
}

/// The `Set-Cookie` value that holds a pending login.
pub fn pending_cookie(token: &SecretToken, tls: bool) -> String {
    format!(
        "{}={}; Path=/; HttpOnly; SameSite=Lax; Max-Age={}{}",
        cookie_name(tls),
        token.expose(),
        pending::TTL,
        if tls { "; Secure" } else { "" }
    )
}

fn clear_pending(tls: bool) -> String {
    format!(
        "{}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0{}",
        cookie_name(tls),
        if tls { "; Secure" } else { "" }
    )
}

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = move || crate::http::with_state(state.clone());
    let show = warp::path!("auth" / "login" / "verify")
        .and(warp::get())
        .and(s())
        .and(crate::http::body::query::<NextQuery>())
        .and(cookies())
        .then(shown)
        .map(reply::answer);
    let submit = warp::path!("auth" / "login" / "verify")
        .and(warp::post())
        .and(s())
        .and(cookies())
        .and(crate::http::session::form::<CodeForm>())
        .then(submit)
        .map(reply::answer);
    let options = warp::path!("auth" / "login" / "passkey" / "options")
        .and(warp::post())
        .and(s())
        .and(cookies())
        .and(crate::http::body::optional_json::<
            OrDefault<ChallengeRequest>,
        >())
        .then(passkey_options)
        .map(reply::answer_as(Format::Json));
    let passkey = warp::path!("auth" / "login" / "passkey")
        .and(warp::post())
        .and(s())
        .and(cookies())
        .and(crate::http::body::json::<OrDefault<PasskeyProofRequest>>())
        .then(passkey)
        .map(reply::answer_as(Format::Json));
    show.or(submit)
        .unify()
        .or(options)
        .unify()
        .or(passkey)
        .unify()
        .boxed()
}

/// The second step's form: a TOTP code or a recovery code, and where to go afterwards.
#[derive(serde::Deserialize)]
struct CodeForm {
    next: Option<String>,
    csrf_token: Option<String>,
    code: Option<String>,
    recovery_code: Option<String>,
}

/// `GET /auth/login/verify`.
async fn shown(
    state: AppState,
    q: NextQuery,
    cookies: Option<String>,
) -> Result<Response, AppError> {
    show(&state, cookies.as_deref(), q.next.as_deref(), None).await
}

fn pending_token(state: &AppState, cookies: Option<&str>) -> Option<String> {
    cookie(cookies, cookie_name(state.tls())).map(str::to_string)
}

/// The second-step page: a code field when the account has TOTP, a passkey button when it has
/// passkeys. Without a live pending login, back to the password.
async fn show(
    state: &AppState,
    cookies: Option<&str>,
    next: Option<&str>,
    error: Option<&str>,
) -> Result<Response, AppError> {
    let next = landing(next);
    let Some(token) = pending_token(state, cookies) else {
        return Ok(redirect(&format!("/auth/login?next={}", urlencode(&next))));
    };
    let Some(enrolled) = second_step::waiting(&state.ctx(), token.clone()).await? else {
        return Ok(redirect(&format!("/auth/login?next={}", urlencode(&next))));
    };
    let csrf = csrf::token(
        &state.keys,
        "second-factor",
        &[&SecretToken::presented(&token).hash()],
    );
    let page = SecondFactorPage {
        error,
        csrf,
        next: &next,
        passkey: enrolled.passkeys > 0 && state.factors.rp.is_some(),
        totp: enrolled.totp,
    };
    Ok(page_as(
        form_status(error, StatusCode::UNAUTHORIZED),
        Ok(page),
    ))
}

/// The second step: a passkey button, the code forms, or both.
#[derive(Template)]
#[template(path = "second_factor.html")]
struct SecondFactorPage<'a> {
    error: Option<&'a str>,
    csrf: String,
    next: &'a str,
    passkey: bool,
    totp: bool,
}

/// Signed in: the session cookie set, the pending one cleared.
fn signed_in(mut resp: Response, session: &SecretToken, tls: bool) -> Response {
    for c in [sessions::set_cookie(session, tls), clear_pending(tls)] {
        if let Ok(v) = HeaderValue::from_str(&c) {
            resp.headers_mut().append(header::SET_COOKIE, v);
        }
    }
    resp
}

async fn submit(
    state: AppState,
    cookies: Option<String>,
    form: CodeForm,
) -> Result<Response, AppError> {
    let next = form.next.as_deref();
    let Some(token) = pending_token(&state, cookies.as_deref()) else {
        return Ok(redirect(&format!(
            "/auth/login?next={}",
            urlencode(&landing(next))
        )));
    };
    let presented = form.csrf_token.as_deref().unwrap_or("");
    let hash = SecretToken::presented(&token).hash();
    if !csrf::verify(&state.keys, "second-factor", &[&hash], presented) {
        return show(
            &state,
            cookies.as_deref(),
            next,
            Some("The form expired; try again."),
        )
        .await;
    }
    let proof = match (&form.code, &form.recovery_code) {
        (Some(c), _) => Some(Proof::Totp(c.clone())),
        (None, Some(r)) => Some(Proof::RecoveryCode(r.clone())),
        (None, None) => None,
    };
    match second_step::finish(&state.ctx(), &state.factors, token, proof).await {
        Ok(session) => Ok(signed_in(redirect(&landing(next)), &session, state.tls())),
        Err(e) if e.code() == "login_expired" => Ok(redirect(&format!(
            "/auth/login?next={}",
            urlencode(&landing(next))
        ))),
        Err(e @ (AppError::AuthRequired { .. } | AppError::BadRequest { .. })) => {
            show(&state, cookies.as_deref(), next, Some(&e.public_message())).await
        }
        Err(e) => Err(e),
    }
}

async fn passkey_options(
    state: AppState,
    cookies: Option<String>,
    _asked: OrDefault<ChallengeRequest>,
) -> Result<Response, AppError> {
    let token = pending_token(&state, cookies.as_deref()).ok_or_else(expired)?;
    let options = second_step::passkey_options(&state.ctx(), &state.factors, token).await?;
    Ok(json_response(
        StatusCode::OK,
        &json!({"publicKey": options}),
    ))
}

/// `{"credential": <AuthenticationResponseJSON>, "next": "/..."}` → `{"next": "/..."}` with the
/// session cookie.
async fn passkey(
    state: AppState,
    cookies: Option<String>,
    body: OrDefault<PasskeyProofRequest>,
) -> Result<Response, AppError> {
    let body = body.0;
    let token = pending_token(&state, cookies.as_deref()).ok_or_else(expired)?;
    let next = landing(body.next());
    let proof = Proof::Passkey(body.answer()?);
    let session = second_step::finish(&state.ctx(), &state.factors, token, Some(proof)).await?;
    Ok(signed_in(
        json_response(StatusCode::OK, &json!({"next": next})),
        &session,
        state.tls(),
    ))
}
