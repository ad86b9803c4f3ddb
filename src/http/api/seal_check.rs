//! `POST /api/v1/verify`: the public check of a sealed PDF, without a credential. The file comes
//! as the raw body or as the `file` part of `multipart/form-data` (the check page's form posts
//! the same way), bounded as an upload is (`--max-upload-mb`), counted per client address
//! (`--check-rate-limit`) and checked within the bound on checks at once; it is held in memory
//! only and dropped with the answer. The use case is `signing::workflow::seal_check`.

use bytes::Buf;
use futures_util::{Stream, StreamExt};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::error::AppError;
use crate::http::api::uploads::{body_of, within};
use crate::http::reply::json_result;
use crate::http::server::state::AppState;
use crate::signing::workflow::seal_check::{self, SealCheck, Verified};

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    warp::path!("api" / "v1" / "verify")
        .and(warp::post())
        .and(crate::http::with_state(state))
        .and(sent())
        .and(warp::body::stream())
        .then(verify)
        .map(json_result)
        .boxed()
}

/// What a check's request declares besides its body: the client's address, the content type
/// and length.
pub type Sent = (Option<std::net::SocketAddr>, Option<String>, Option<u64>);

/// The filter of [`Sent`].
pub fn sent() -> impl Filter<Extract = (Sent,), Error = warp::Rejection> + Clone {
    crate::http::peer()
        .and(warp::header::optional::<String>("content-type"))
        .and(warp::header::optional::<u64>("content-length"))
        .map(|peer, ct, len| (peer, ct, len))
}

/// `POST /api/v1/verify`: the check's answer.
async fn verify<S, B>(state: AppState, sent: Sent, body: S) -> Result<Verified, AppError>
where
    S: Stream<Item = Result<B, warp::Error>> + Send + 'static,
    B: Buf + Send + 'static,
{
    Ok(Verified::of(&checked(&state, sent, body).await?))
}

/// Counts the request against its client address, waits for a turn, reads the file (413 past
/// `--max-upload-mb`) and checks it.
pub async fn checked<S, B>(
    state: &AppState,
    (peer, content_type, length): Sent,
    body: S,
) -> Result<SealCheck, AppError>
where
    S: Stream<Item = Result<B, warp::Error>> + Send + 'static,
    B: Buf + Send + 'static,
{
    let client = crate::core::client_address::client_key_of(peer.map(|p| p.ip()));
    let key = crate::core::crypto::sha256_hex(format!("seal check {client}"));
    state
        .seal_checks
        .per_client
        .check(&key, crate::core::db::now())
        .await?;
    let max = state.config.max_upload_bytes;
    within(content_type.as_deref(), length, max)?;
    let _turn = state.seal_checks.at_once.turn().await?;
    let mut stream = body_of(content_type.as_deref(), body, max)?;
    let mut pdf = Vec::new();
    while let Some(piece) = stream.next().await {
        let piece = piece?;
        if (pdf.len() + piece.len()) as u64 > max {
            return Err(crate::signing::uploads::too_large(max));
        }
        pdf.extend_from_slice(&piece);
    }
    seal_check::check(&state.ctx(), state.seal.clone(), pdf).await
}
