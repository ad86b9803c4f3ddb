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
use crate::identity::factors::request::ChallengeRequest;
use crate::signing::documents::fill_request::FillRequest;
use crate::signing::workflow::link_request::ActionRequest;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::error::AppError;
use crate::http::auth::{link_session, visit};
use crate::http::reply::json_result;
use crate::http::server::state::AppState;
use crate::http::with_state;
use crate::signing::workflow::auth::Proof;
use crate::signing::workflow::flow::Origin;
use crate::signing::workflow::link_answers::{Completion, Rejection};
use crate::{
    signing::workflow::link, signing::workflow::link::Call, signing::workflow::link::Visit,
};

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = {
        let state = state.clone();
        move || with_state(state.clone())
    };
    let origin = crate::http::origin;
    let session = || link_session(&state);
    let state_call = warp::path!("sign" / String / "state")
        .and(warp::get())
        .and(session())
        .and(s())
        .then(|t, c, st: AppState| async move {
            let v = visit(t, c);
            let csrf = crate::http::session::invite_csrf(&st, &v.token);
            json_result(link::state(&st.ctx(), v, csrf).await)
        });
    let fill = warp::path!("sign" / String / "fields" / FieldId)
        .and(warp::post())
        .and(crate::http::body::json::<OrDefault<FillRequest>>())
        .and(origin())
        .and(session())
        .and(s())
        .then(
            |t, f, b: OrDefault<FillRequest>, o, c, st: AppState| async move {
                let call = call(visit(t, c), o, None);
                json_result(link::fill(&st.ctx(), &st.factors, call, f, b.0).await)
            },
        );
    let complete = warp::path!("sign" / String / "complete")
        .and(warp::post())
        .and(crate::http::body::optional_json::<OrDefault<ActionRequest>>())
        .and(origin())
        .and(session())
        .and(s())
        .then(
            |t, body: OrDefault<ActionRequest>, o, c, st: AppState| async move {
                json_result(complete(&st, visit(t, c), body.0, o).await)
            },
        );
    let reject = warp::path!("sign" / String / "reject")
        .and(warp::post())
        .and(crate::http::body::json::<OrDefault<ActionRequest>>())
        .and(origin())
        .and(session())
        .and(s())
        .then(
            |t, body: OrDefault<ActionRequest>, o, c, st: AppState| async move {
                json_result(reject(&st, visit(t, c), body.0, o).await)
            },
        );
    let challenge = warp::path!("sign" / String / "passkey-challenge")
        .and(warp::post())
        .and(crate::http::body::optional_json::<
            OrDefault<ChallengeRequest>,
        >())
        .and(session())
        .and(s())
        .then(
            |t, _body: OrDefault<ChallengeRequest>, c, st: AppState| async move {
                json_result(link::passkey_challenge(&st.ctx(), &st.factors, visit(t, c)).await)
            },
        );
    state_call
        .or(fill)
        .unify()
        .or(complete)
        .unify()
        .or(reject)
        .unify()
        .or(challenge)
        .unify()
        .boxed()
}

fn call(visit: Visit, origin: Origin, proof: Option<Proof>) -> Call {
    Call {
        visit,
        origin,
        proof,
    }
}

async fn complete(
    state: &AppState,
    visit: Visit,
    body: ActionRequest,
    origin: Origin,
) -> Result<Completion, AppError> {
    let call = call(visit, origin, body.proof()?);
    let checks = (&state.factors, &state.passwords);
    link::complete(&state.ctx(), checks, call).await
}

async fn reject(
    state: &AppState,
    visit: Visit,
    body: ActionRequest,
    origin: Origin,
) -> Result<Rejection, AppError> {
    let reason = body.reason();
    let call = call(visit, origin, body.proof()?);
    let checks = (&state.factors, &state.passwords);
    link::reject(&state.ctx(), checks, call, reason).await
}
