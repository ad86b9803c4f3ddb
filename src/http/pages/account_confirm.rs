//! "Confirm it is you" (`/account/confirm`): the page a signed-in user is sent to before a
//! change to how their account signs in, when their session has not confirmed within the last
//! few minutes. It asks for what the account has: a code from the authenticator app (or a
//! recovery code), a passkey, or the password for an account without a second factor. The use
//! case is `sessions::confirm`; back to `next` afterwards.

use askama::Template;
use http::StatusCode;
use serde_json::json;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::error::AppError;
use crate::core::lenient::OrDefault;
use crate::http::api::wire::passkeys::{ChallengeRequest, PasskeyProofRequest};
use crate::http::body::{json, optional_json};
use crate::http::reply::{self, Format, form_status, json_response, page_as, redirect};
use crate::http::server::state::AppState;
use crate::http::session::{FACTORS, NextQuery, SignedIn, call_csrf, csrf_token, form_csrf};
use crate::http::session::{safe_next, urlencode};
use crate::{
    identity::sessions::confirm, identity::sessions::confirm::Checks,
    identity::sessions::confirm::Proof,
};

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = {
        let state = state.clone();
        move || crate::http::with_state(state.clone())
    };
    let show = warp::path!("account" / "confirm")
        .and(warp::get())
        .and(s())
        .and(crate::http::session::optional(&state))
        .and(crate::http::body::query::<NextQuery>())
        .then(shown)
        .map(reply::answer);
    let submit = warp::path!("account" / "confirm")
        .and(warp::post())
        .and(s())
        .and(crate::http::peer())
        .and(form_csrf(&state, FACTORS, "/account"))
        .then(submit)
        .map(reply::answer);
    let options = warp::path!("account" / "confirm" / "passkey" / "options")
        .and(warp::post())
        .and(s())
        .and(call_csrf(
            &state,
            FACTORS,
            optional_json::<OrDefault<ChallengeRequest>>(),
        ))
        .then(passkey_options)
        .map(reply::answer_as(Format::Json));
    let passkey = warp::path!("account" / "confirm" / "passkey")
        .and(warp::post())
        .and(s())
        .and(call_csrf(
            &state,
            FACTORS,
            json::<OrDefault<PasskeyProofRequest>>(),
        ))
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

/// The confirmation form: one of a TOTP code, a recovery code or the password (the first
/// given, in that order), and where to go afterwards.
#[derive(serde::Deserialize)]
struct ProofForm {
    next: Option<String>,
    code: Option<String>,
    recovery_code: Option<String>,
    password: Option<String>,
}

/// `GET /account/confirm`.
async fn shown(
    state: AppState,
    signed_in: Option<SignedIn>,
    q: NextQuery,
) -> Result<Response, AppError> {
    show(&state, signed_in, q.next.as_deref(), None).await
}

/// The page: one form for each way the account can confirm.
async fn show(
    state: &AppState,
    signed_in: Option<SignedIn>,
    next: Option<&str>,
    error: Option<&str>,
) -> Result<Response, AppError> {
    let next = safe_next(next);
    let Some((session, user)) = signed_in else {
        let back = format!("/account/confirm?next={}", urlencode(&next));
        return Ok(redirect(&format!("/auth/login?next={}", urlencode(&back))));
    };
    let enrolled = confirm::asks(&state.ctx(), user.id).await?;
    let page = ConfirmPage {
        error,
        minutes: confirm::WINDOW / 60,
        csrf: csrf_token(state, FACTORS, &session),
        next: &next,
        passkey: enrolled.passkeys > 0 && state.factors.rp.is_some(),
        totp: enrolled.totp,
        password: !enrolled.any(),
        email: &user.email,
    };
    Ok(page_as(
        form_status(error, StatusCode::UNAUTHORIZED),
        Ok(page),
    ))
}

/// One form for each way the account can confirm: a passkey, a code, or (without a second
/// factor) the password.
#[derive(Template)]
#[template(path = "account/confirm.html")]
struct ConfirmPage<'a> {
    error: Option<&'a str>,
    minutes: i64,
    csrf: String,
    next: &'a str,
    passkey: bool,
    totp: bool,
    password: bool,
    /// The account's e-mail, for password managers.
    email: &'a str,
}

/// `POST /account/confirm`: back to `next`, or the page again with what was wrong.
async fn submit(
    state: AppState,
    peer: Option<std::net::SocketAddr>,
    signed_in: SignedIn,
    form: ProofForm,
) -> Result<Response, AppError> {
    let next = form.next.as_deref();
    let proof = match (&form.code, &form.recovery_code, &form.password) {
        (Some(c), _, _) => Proof::Totp(c.clone()),
        (None, Some(r), _) => Proof::RecoveryCode(r.clone()),
        (None, None, Some(p)) => Proof::Password(p.clone()),
        (None, None, None) => {
            return show(&state, Some(signed_in), next, Some("Enter a code.")).await;
        }
    };
    let checks = Checks {
        verifier: &state.factors,
        passwords: &state.passwords,
        address: peer.map(|p| p.ip()),
    };
    let (session, user) = &signed_in;
    match confirm::confirm(&state.ctx(), checks, session.clone(), user, proof).await {
        Ok(()) => Ok(redirect(&safe_next(next))),
        Err(e @ (AppError::AuthRequired { .. } | AppError::BadRequest { .. })) => {
            show(&state, Some(signed_in), next, Some(&e.public_message())).await
        }
        Err(e) => Err(e),
    }
}

/// `POST /account/confirm/passkey/options`: the challenge.
async fn passkey_options(
    state: AppState,
    (_, user): SignedIn,
    _asked: OrDefault<ChallengeRequest>,
) -> Result<Response, AppError> {
    let options = confirm::passkey_options(&state.ctx(), &state.factors, user.id).await?;
    Ok(json_response(
        StatusCode::OK,
        &json!({"publicKey": options}),
    ))
}

/// `{"credential": <AuthenticationResponseJSON>, "next": "/..."}` → `{"next": "/..."}`.
async fn passkey(
    state: AppState,
    (session, user): SignedIn,
    body: OrDefault<PasskeyProofRequest>,
) -> Result<Response, AppError> {
    let body = body.0;
    let next = safe_next(body.next());
    let proof = Proof::Passkey(body.answer()?);
    let checks = Checks {
        verifier: &state.factors,
        passwords: &state.passwords,
        address: None,
    };
    confirm::confirm(&state.ctx(), checks, session, &user, proof).await?;
    Ok(json_response(StatusCode::OK, &json!({"next": next})))
}
