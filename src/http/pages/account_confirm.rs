//! "Confirm it is you" (`/account/confirm`): the page a signed-in user is sent to before a
//! change to how their account signs in, when their session has not confirmed within the last
//! few minutes. It asks for what the account has: a code from the authenticator app (or a
//! recovery code), a passkey, or the password for an account without a second factor. The use
//! case is `sessions::confirm`; back to `next` afterwards.

use std::collections::HashMap;

use askama::Template;
use http::StatusCode;
use serde_json::json;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::error::AppError;
use crate::core::lenient::OrDefault;
use crate::http::reply::redirect;
use crate::http::reply::{Format, error_response, form_status, json_response, page_as};
use crate::http::server::state::AppState;
use crate::http::session::{FACTORS, Form, SignedIn, call_csrf, csrf_token, form_csrf};
use crate::http::session::{safe_next, urlencode};
use crate::identity::factors::request::{ChallengeRequest, PasskeyProofRequest};
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
        .and(warp::query::<HashMap<String, String>>())
        .then(
            |st: AppState, u: Option<SignedIn>, q: HashMap<String, String>| async move {
                show(&st, u, q.get("next").map(String::as_str), None).await
            },
        );
    let submit = warp::path!("account" / "confirm")
        .and(warp::post())
        .and(s())
        .and(crate::http::peer())
        .and(form_csrf(&state, FACTORS, "/account"))
        .then(|st, p, u, f| async move { submit(st, p, u, f).await });
    let options = warp::path!("account" / "confirm" / "passkey" / "options")
        .and(warp::post())
        .and(s())
        .and(call_csrf(
            &state,
            FACTORS,
            crate::http::body::optional_json::<OrDefault<ChallengeRequest>>(),
        ))
        .then(|st, u, _b: OrDefault<ChallengeRequest>| async move { passkey_options(st, u).await });
    let passkey = warp::path!("account" / "confirm" / "passkey")
        .and(warp::post())
        .and(s())
        .and(call_csrf(
            &state,
            FACTORS,
            crate::http::body::json::<OrDefault<PasskeyProofRequest>>(),
        ))
        .then(|st, u, b: OrDefault<PasskeyProofRequest>| async move { passkey(st, u, b.0).await });
    show.or(submit)
        .unify()
        .or(options)
        .unify()
        .or(passkey)
        .unify()
        .boxed()
}

/// The page: one form for each way the account can confirm.
async fn show(
    state: &AppState,
    signed_in: Option<SignedIn>,
    next: Option<&str>,
    error: Option<&str>,
) -> Response {
    let next = safe_next(next);
    let Some((session, user)) = signed_in else {
        let back = format!("/account/confirm?next={}", urlencode(&next));
        return redirect(&format!("/auth/login?next={}", urlencode(&back)));
    };
    let enrolled = match confirm::asks(&state.ctx(), user.id).await {
        Ok(e) => e,
        Err(e) => return error_response(&e, Format::Html),
    };
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
    page_as(form_status(error, StatusCode::UNAUTHORIZED), Ok(page))
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

async fn submit(
    state: AppState,
    peer: Option<std::net::SocketAddr>,
    signed_in: SignedIn,
    form: Form,
) -> Response {
    let next = form.get("next").map(String::as_str);
    let proof = match (
        form.get("code"),
        form.get("recovery_code"),
        form.get("password"),
    ) {
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
        Ok(()) => redirect(&safe_next(next)),
        Err(e @ (AppError::AuthRequired { .. } | AppError::BadRequest { .. })) => {
            show(&state, Some(signed_in), next, Some(&e.public_message())).await
        }
        Err(e) => error_response(&e, Format::Html),
    }
}

async fn passkey_options(state: AppState, (_, user): SignedIn) -> Response {
    match confirm::passkey_options(&state.ctx(), &state.factors, user.id).await {
        Ok(options) => json_response(StatusCode::OK, &json!({"publicKey": options})),
        Err(e) => error_response(&e, Format::Json),
    }
}

/// `{"credential": <AuthenticationResponseJSON>, "next": "/..."}` → `{"next": "/..."}`.
async fn passkey(
    state: AppState,
    (session, user): SignedIn,
    body: PasskeyProofRequest,
) -> Response {
    let next = safe_next(body.next());
    let answer = match body.answer() {
        Ok(a) => a,
        Err(e) => return error_response(&e, Format::Json),
    };
    let proof = Proof::Passkey(answer);
    let checks = Checks {
        verifier: &state.factors,
        passwords: &state.passwords,
        address: None,
    };
    match confirm::confirm(&state.ctx(), checks, session, &user, proof).await {
        Ok(()) => json_response(StatusCode::OK, &json!({"next": next})),
        Err(e) => error_response(&e, Format::Json),
    }
}
