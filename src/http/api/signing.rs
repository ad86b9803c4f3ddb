//! The signing link's JSON calls under `/sign/<token>/...`: the token is the
//! credential. The page itself and its rendered pages are in `signing_page.rs`; the use cases
//! in `signing::link`.
//!
//! The calls take JSON bodies only (`application/json`, checked by `body`: 415 otherwise, and
//! a browser's request must declare JSON even with no body), which a cross-site form cannot
//! send, so they need no CSRF token: another site can neither read the answers nor make a
//! browser send such a request without a CORS preflight, which docket never grants.
//!
//! Recipient authentication (`signing::auth`): the browser's session cookie names the signer's
//! account; finishing actions carry their proof in the body's `auth` member.

use crate::core::ids::FieldId;

use crate::core::lenient::OrDefault;
use crate::http::api::wire::link::{ActionRequest, FillRequest};
use crate::http::api::wire::passkeys::ChallengeRequest;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::error::AppError;
use crate::http::auth::{link_session, visit};
use crate::http::reply::json_result;
use crate::http::server::state::AppState;
use crate::http::with_state;
use crate::signing::workflow::auth::Proof;
use crate::signing::workflow::emailed_code;
use crate::signing::workflow::flow::Origin;
use crate::signing::workflow::link_answers::{
    CodeSent, Completion, FieldSaved, LinkState, PasskeyChallenge, Rejection,
};
use crate::{
    signing::workflow::link, signing::workflow::link::Call, signing::workflow::link::Visit,
};

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = || with_state(state.clone());
    let session = || link_session(&state);
    let state_call = warp::path!("sign" / String / "state")
        .and(warp::get())
        .and(session())
        .and(s())
        .then(link_state)
        .map(json_result);
    let fill = warp::path!("sign" / String / "fields" / FieldId)
        .and(warp::post())
        .and(crate::http::body::json::<OrDefault<FillRequest>>())
        .and(crate::http::origin())
        .and(session())
        .and(s())
        .then(fill)
        .map(json_result);
    let clear = warp::path!("sign" / String / "fields" / FieldId)
        .and(warp::delete())
        .and(crate::http::body::optional_json::<OrDefault<ActionRequest>>())
        .and(crate::http::origin())
        .and(session())
        .and(s())
        .then(clear)
        .map(json_result);
    let complete = warp::path!("sign" / String / "complete")
        .and(warp::post())
        .and(crate::http::body::optional_json::<OrDefault<ActionRequest>>())
        .and(crate::http::origin())
        .and(session())
        .and(s())
        .then(complete)
        .map(json_result);
    let reject = warp::path!("sign" / String / "reject")
        .and(warp::post())
        .and(crate::http::body::json::<OrDefault<ActionRequest>>())
        .and(crate::http::origin())
        .and(session())
        .and(s())
        .then(reject)
        .map(json_result);
    let challenge = warp::path!("sign" / String / "passkey-challenge")
        .and(warp::post())
        .and(crate::http::body::optional_json::<
            OrDefault<ChallengeRequest>,
        >())
        .and(session())
        .and(s())
        .then(passkey_challenge)
        .map(json_result);
    let email_code = warp::path!("sign" / String / "email-code")
        .and(warp::post())
        .and(crate::http::body::optional_json::<
            OrDefault<ChallengeRequest>,
        >())
        .and(session())
        .and(s())
        .then(email_code)
        .map(json_result);
    state_call
        .or(fill)
        .unify()
        .or(clear)
        .unify()
        .or(complete)
        .unify()
        .or(reject)
        .unify()
        .or(challenge)
        .unify()
        .or(email_code)
        .unify()
        .boxed()
}

/// `GET /sign/<token>/state`: what the signing page shows, with its CSRF token.
async fn link_state(
    token: String,
    session: Option<String>,
    state: AppState,
) -> Result<LinkState, AppError> {
    let v = visit(token, session);
    let csrf = crate::http::session::invite_csrf(&state, &v.token);
    link::state(&state.ctx(), v, csrf).await
}

/// `POST /sign/<token>/fields/<fieldId>`: a field's value.
async fn fill(
    token: String,
    field: FieldId,
    body: OrDefault<FillRequest>,
    origin: Origin,
    session: Option<String>,
    state: AppState,
) -> Result<FieldSaved, AppError> {
    let call = call(visit(token, session), origin, None);
    link::fill(&state.ctx(), &state.factors, call, field, body.0.filled()).await
}

/// `DELETE /sign/<token>/fields/<fieldId>`: the field emptied again (the body, if any, is read
/// and ignored).
async fn clear(
    token: String,
    field: FieldId,
    _body: OrDefault<ActionRequest>,
    origin: Origin,
    session: Option<String>,
    state: AppState,
) -> Result<FieldSaved, AppError> {
    let call = call(visit(token, session), origin, None);
    link::clear(&state.ctx(), &state.factors, call, field).await
}

/// `POST /sign/<token>/passkey-challenge`: a challenge for the recipient's passkey (the body,
/// if any, is read and ignored).
async fn passkey_challenge(
    token: String,
    _body: OrDefault<ChallengeRequest>,
    session: Option<String>,
    state: AppState,
) -> Result<PasskeyChallenge, AppError> {
    link::passkey_challenge(&state.ctx(), &state.factors, visit(token, session)).await
}

/// `POST /sign/<token>/email-code`: a six-digit code to finish with, e-mailed to the recipient
/// (the body, if any, is read and ignored); 429 with `Retry-After` when asked too often.
async fn email_code(
    token: String,
    _body: OrDefault<ChallengeRequest>,
    session: Option<String>,
    state: AppState,
) -> Result<CodeSent, AppError> {
    emailed_code::request(&state.ctx(), visit(token, session)).await
}

fn call(visit: Visit, origin: Origin, proof: Option<Proof>) -> Call {
    Call {
        visit,
        origin,
        proof,
    }
}

/// `POST /sign/<token>/complete`: signs (or approves, or views) with the proof asked for.
async fn complete(
    token: String,
    body: OrDefault<ActionRequest>,
    origin: Origin,
    session: Option<String>,
    state: AppState,
) -> Result<Completion, AppError> {
    let body = body.0;
    let call = call(visit(token, session), origin, body.proof()?);
    let checks = (&state.factors, &state.passwords);
    link::complete(&state.ctx(), checks, call).await
}

/// `POST /sign/<token>/reject` with the reason.
async fn reject(
    token: String,
    body: OrDefault<ActionRequest>,
    origin: Origin,
    session: Option<String>,
    state: AppState,
) -> Result<Rejection, AppError> {
    let body = body.0;
    let reason = body.reason();
    let call = call(visit(token, session), origin, body.proof()?);
    let checks = (&state.factors, &state.passwords);
    link::reject(&state.ctx(), checks, call, reason).await
}
