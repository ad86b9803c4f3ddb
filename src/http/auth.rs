//! Credentials for the APIs: filters that collect them (never reject), the `principal` filter
//! that authenticates them before the body is read, and `authenticate` for handlers that must
//! decide later.

use std::collections::HashMap;

use warp::Filter;

use crate::core::error::AppError;
use crate::http::state::AppState;
use crate::{identity::principal::Credentials, identity::principal::Principal};

/// The `Authorization` header only.
pub fn credentials() -> impl Filter<Extract = (Credentials,), Error = warp::Rejection> + Clone {
    warp::header::optional::<String>("authorization").map(|authorization| Credentials {
        authorization,
        query_api_key: None,
    })
}

/// The `Authorization` header, or the `apiKey` query parameter (bookings endpoints only, as
/// scheduling integrations send it so).
pub fn credentials_or_query_key()
-> impl Filter<Extract = (Credentials,), Error = warp::Rejection> + Clone {
    warp::header::optional::<String>("authorization")
        .and(
            warp::query::<HashMap<String, String>>()
                .or(warp::any().map(HashMap::new))
                .unify(),
        )
        .map(
            |authorization, mut q: HashMap<String, String>| Credentials {
                authorization,
                query_api_key: q.remove("apiKey"),
            },
        )
}

/// Counts the request against its credential's per-minute budget (429 when spent); on
/// PostgreSQL the count is a database write, run off the async threads.
pub async fn rate_limit(state: &AppState, creds: &Credentials) -> Result<(), AppError> {
    match creds.secret() {
        Some(secret) if !secret.is_empty() => {
            let key = crate::core::crypto::sha256_hex(secret);
            state.limiter.check(&key, crate::core::db::now()).await
        }
        _ => Ok(()),
    }
}

/// The principal behind `creds`, checked in the database off the async threads, after the
/// rate limit.
pub async fn authenticate(state: &AppState, creds: Credentials) -> Result<Principal, AppError> {
    rate_limit(state, &creds).await?;
    crate::oauth::bearer::authenticate(&state.db, creds).await
}

/// The principal behind the `Authorization` header, which must carry `scope`. Placed after the
/// path and method and before the body: an anonymous or under-scoped request is refused (401,
/// 403, or 429 past the rate limit) before its body is read or parsed.
pub fn principal(
    state: AppState,
    scope: crate::identity::scope::Scope,
) -> impl Filter<Extract = (Principal,), Error = warp::Rejection> + Clone {
    credentials().and_then(move |creds| {
        let state = state.clone();
        async move {
            authenticate_for(&state, creds, scope)
                .await
                .map_err(super::reply::reject)
        }
    })
}

/// `principal`, then the state for the handler: what most API routes start with.
pub fn caller(
    state: &AppState,
    scope: crate::identity::scope::Scope,
) -> impl Filter<Extract = (Principal, AppState), Error = warp::Rejection> + Clone + use<> {
    principal(state.clone(), scope).and(super::with_state(state.clone()))
}

/// The principal behind `creds`, which must carry `scope` (403 otherwise).
pub async fn authenticate_for(
    state: &AppState,
    creds: Credentials,
    scope: crate::identity::scope::Scope,
) -> Result<Principal, AppError> {
    let who = authenticate(state, creds).await?;
    who.require(scope)?;
    Ok(who)
}
