//! How an API request authenticates: one filter per way the credential travels, each counting
//! the request against the credential's budget first (`limits`), placed after the path and
//! method and before the body, so an anonymous, under-scoped or over-budget request is refused
//! (401, 403, 429) before its body is read.
//!
//! - `api(scope)`: an API key or OAuth access token in `Authorization`, holding `scope`
//!   (`/api/v1`); `api_all(scopes)` holding several; `query_key(scopes)` also takes the
//!   `apiKey` query parameter (the scheduling service's routes, as its integrations send it).
//! - `bearer()` / `bearer_or_query_key()`: the counted credential itself, for the use cases
//!   that check it in the same database trip as their read (`/api/auth/oauth/me`, `userinfo`,
//!   `/listBookings`).
//!
//! - `link_session()`: a signing link, `/sign/<token>/...`, whose token is the credential
//!   (checked by the use case), with the browser's session for recipient authentication.
//!
//! The pages' credential, the session cookie (with its CSRF token for forms and calls), is
//! `session`'s; with it, `X-Docket-Workspace` says which team's page is calling.

use serde::Deserialize;
use warp::Filter;

use crate::core::error::AppError;
use crate::http::server::rate_limits::per_credential;
use crate::http::server::state::AppState;
use crate::identity::principal::{ActsFor, Credentials, Principal};
use crate::identity::scope::Scope;
use crate::signing::workflow::link::Visit;

type Creds = (Credentials,);

/// The `Authorization` header only.
fn header() -> impl Filter<Extract = Creds, Error = warp::Rejection> + Clone {
    warp::header::optional::<String>("authorization").map(|authorization| Credentials {
        authorization,
        query_api_key: None,
    })
}

/// The `apiKey` query parameter (the last, if repeated); the route's other parameters are its
/// own.
#[derive(Deserialize)]
struct KeyQuery {
    #[serde(rename = "apiKey")]
    api_key: Option<String>,
}

/// The `Authorization` header, or the `apiKey` query parameter.
fn header_or_query() -> impl Filter<Extract = Creds, Error = warp::Rejection> + Clone {
    warp::header::optional::<String>("authorization")
        .and(crate::http::body::query::<KeyQuery>())
        .map(|authorization, q: KeyQuery| Credentials {
            authorization,
            query_api_key: q.api_key,
        })
}

/// The caller behind `Authorization`, holding `scope`.
pub fn api(
    state: &AppState,
    scope: Scope,
) -> impl Filter<Extract = (Principal,), Error = warp::Rejection> + Clone + use<> {
    holding(state, header(), vec![scope])
}

/// The caller behind `Authorization`, holding every one of `scopes`.
pub fn api_all(
    state: &AppState,
    scopes: &[Scope],
) -> impl Filter<Extract = (Principal,), Error = warp::Rejection> + Clone + use<> {
    holding(state, header(), scopes.to_vec())
}

/// The caller behind `Authorization` or `?apiKey=`, holding every one of `scopes`.
pub fn query_key(
    state: &AppState,
    scopes: &[Scope],
) -> impl Filter<Extract = (Principal,), Error = warp::Rejection> + Clone + use<> {
    holding(state, header_or_query(), scopes.to_vec())
}

/// `api`, then the state for the handler: what most API routes start with.
pub fn caller(
    state: &AppState,
    scope: Scope,
) -> impl Filter<Extract = (Principal, AppState), Error = warp::Rejection> + Clone + use<> {
    api(state, scope).and(crate::http::with_state(state.clone()))
}

/// The counted credential in `Authorization`, for a use case that checks it itself.
pub fn bearer(
    state: &AppState,
) -> impl Filter<Extract = Creds, Error = warp::Rejection> + Clone + use<> {
    per_credential(state, header())
}

/// The counted credential in `Authorization` or `?apiKey=`, for a use case that checks it
/// itself.
pub fn bearer_or_query_key(
    state: &AppState,
) -> impl Filter<Extract = Creds, Error = warp::Rejection> + Clone + use<> {
    per_credential(state, header_or_query())
}

/// The principal behind the credentials `source` collects, holding every one of `scopes`; or,
/// with neither `Authorization` nor `apiKey`, the owner's browser (`session::api_caller`).
fn holding<S>(
    state: &AppState,
    source: S,
    scopes: Vec<Scope>,
) -> impl Filter<Extract = (Principal,), Error = warp::Rejection> + Clone + use<S>
where
    S: Filter<Extract = Creds, Error = warp::Rejection> + Clone,
{
    let state = state.clone();
    source
        .and(crate::http::session::cookies())
        .and(warp::header::optional::<String>("x-csrf-token"))
        .and(warp::header::optional::<String>("x-docket-workspace"))
        .and_then(
            move |creds: Credentials,
                  cookies: Option<String>,
                  csrf: Option<String>,
                  workspace: Option<String>| {
                let (state, scopes) = (state.clone(), scopes.clone());
                async move {
                    let no_credential =
                        creds.authorization.is_none() && creds.query_api_key.is_none();
                    let browser = if no_credential {
                        crate::http::session::api_caller(
                            &state,
                            cookies.as_deref(),
                            csrf.as_deref(),
                        )
                        .await
                    } else {
                        Ok(None)
                    };
                    let who = match browser {
                        Ok(Some((session, user))) => {
                            crate::http::server::rate_limits::spend_session(&state, &session)
                                .await
                                .map(|()| {
                                    Principal::browser_session(user.id, &session)
                                        .acting_for(page_workspace(workspace))
                                })
                        }
                        Ok(None) => {
                            match crate::http::server::rate_limits::spend(&state, &creds).await {
                                Ok(()) => authenticate(&state, creds, &scopes).await,
                                Err(e) => Err(e),
                            }
                        }
                        Err(e) => Err(e),
                    };
                    who.map_err(crate::http::reply::reject)
                }
            },
        )
}

/// The workspace the owner's page acts in, as its scripts say (`X-Docket-Workspace`: a team's
/// slug; absent or empty, the personal one). Read only with the session and its token: an API
/// key or token acts for the workspace it was made in, never for one a header names. The team
/// is resolved, and membership checked, by the use case (`teams::access`).
fn page_workspace(header: Option<String>) -> ActsFor {
    match header.map(|h| h.trim().to_string()) {
        Some(slug) if !slug.is_empty() => ActsFor::Slug(slug),
        _ => ActsFor::Personal,
    }
}

/// The principal behind `creds` (checked off the async threads), holding every one of `scopes`
/// (403 otherwise).
async fn authenticate(
    state: &AppState,
    creds: Credentials,
    scopes: &[Scope],
) -> Result<Principal, AppError> {
    let who = crate::oauth::bearer::authenticate(&state.db, &state.verified, creds).await?;
    for s in scopes {
        who.require(*s)?;
    }
    Ok(who)
}

/// The session of a signing link's visitor, for recipient authentication. The link's token,
/// the credential, is the route's `/sign/<token>` segment (declared in its `warp::path!`, where
/// `redact` finds it) and is checked by the use case; `visit` joins the two.
pub fn link_session(
    state: &AppState,
) -> impl Filter<Extract = (Option<String>,), Error = warp::Rejection> + Clone + use<> {
    let state = state.clone();
    crate::http::session::cookies()
        .map(move |c: Option<String>| crate::http::session::session_token(&state, c.as_deref()))
}

/// A visit of link `token` by the browser whose session is `session`.
pub fn visit(token: String, session: Option<String>) -> Visit {
    Visit { session, token }
}
