//! The HTTP layer's rate limits, applied in one place: each API credential's per-minute budget
//! (429 with `Retry-After` when spent), counted by `per_credential` before the credential is
//! checked. Every filter of `auth` that reads an API key or a Bearer token starts with it.
//!
//! The other limits belong to the use cases, which know what they count: the login throttle per
//! account and address (`identity::throttle`), the bound on concurrent password checks
//! (`users::checks`), the busy page renderer (`signing::pdf`).

use warp::Filter;

use crate::core::error::AppError;
use crate::http::server::state::AppState;
use crate::identity::principal::Credentials;

/// The credentials `source` collects, once the request is counted against their budget.
pub fn per_credential<S>(
    state: &AppState,
    source: S,
) -> impl Filter<Extract = (Credentials,), Error = warp::Rejection> + Clone + use<S>
where
    S: Filter<Extract = (Credentials,), Error = warp::Rejection> + Clone,
{
    let state = state.clone();
    source.and_then(move |creds: Credentials| {
        let state = state.clone();
        async move {
            spend(&state, &creds)
                .await
                .map_err(crate::http::reply::reject)?;
            Ok::<_, warp::Rejection>(creds)
        }
    })
}

/// Counts a call of the owner's browser (`session::api_caller`) against its session's
/// per-minute budget, the same budget an API key has.
pub async fn spend_session(state: &AppState, session: &str) -> Result<(), AppError> {
    let key = crate::core::crypto::sha256_hex(format!("session {session}"));
    state.limiter.check(&key, crate::core::db::now()).await
}

/// Counts the request against its credential's per-minute budget; on PostgreSQL the count is a
/// database write, run off the async threads. A request without a credential is not counted.
pub async fn spend(state: &AppState, creds: &Credentials) -> Result<(), AppError> {
    match creds.secret() {
        Some(secret) if !secret.is_empty() => {
            let key = crate::core::crypto::sha256_hex(secret);
            state.limiter.check(&key, crate::core::db::now()).await
        }
        _ => Ok(()),
    }
}
