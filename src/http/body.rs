//! Request bodies with a size cap that holds whether or not the client declared a length:
//! the body is read chunk by chunk and refused with 413 as soon as it passes the cap.

use bytes::{Buf, Bytes, BytesMut};
use futures_util::StreamExt;
use serde::de::DeserializeOwned;
use warp::{Filter, Rejection};

use super::reply::reject;
use crate::error::AppError;

/// Largest JSON body an API accepts (1 MiB).
pub const JSON_LIMIT: u64 = 1024 * 1024;

/// The whole body, at most `limit` bytes.
pub fn capped_bytes(limit: u64) -> impl Filter<Extract = (Bytes,), Error = Rejection> + Clone {
    warp::body::stream().and_then(move |stream| collect(stream, limit))
}

async fn collect<S, B>(stream: S, limit: u64) -> Result<Bytes, Rejection>
where
    S: futures_util::Stream<Item = Result<B, warp::Error>>,
    B: Buf,
{
    futures_util::pin_mut!(stream);
    let mut buf = BytesMut::new();
    while let Some(chunk) = stream.next().await {
        let mut chunk = chunk.map_err(|e| {
            reject(AppError::bad_request(format!(
                "reading the body failed: {e}"
            )))
        })?;
        if buf.len() as u64 + chunk.remaining() as u64 > limit {
            return Err(reject(AppError::PayloadTooLarge(format!(
                "the request body is larger than the {limit} bytes allowed"
            ))));
        }
        while chunk.has_remaining() {
            let part = chunk.chunk();
            let n = part.len();
            buf.extend_from_slice(part);
            chunk.advance(n);
        }
    }
    Ok(buf.freeze())
}

/// A JSON body of at most `JSON_LIMIT` bytes, parsed into `T`; bad JSON is a 400 that says where.
pub fn json<T: DeserializeOwned + Send>() -> impl Filter<Extract = (T,), Error = Rejection> + Clone
{
    capped_bytes(JSON_LIMIT).and_then(|bytes: Bytes| async move {
        serde_json::from_slice::<T>(&bytes)
            .map_err(|e| reject(AppError::bad_request(format!("invalid JSON body: {e}"))))
    })
}

/// Like [`json`], but an empty body counts as `{}` (for calls whose body is all optional).
pub fn json_or_empty() -> impl Filter<Extract = (serde_json::Value,), Error = Rejection> + Clone {
    capped_bytes(JSON_LIMIT).and_then(|bytes: Bytes| async move {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(serde_json::Value::Object(Default::default()));
        }
        serde_json::from_slice(&bytes)
            .map_err(|e| reject(AppError::bad_request(format!("invalid JSON body: {e}"))))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug)]
    struct Thing {
        n: u32,
    }

    #[tokio::test]
    async fn json_within_the_limit_parses() {
        let t: Thing = warp::test::request()
            .body(r#"{"n": 3}"#)
            .filter(&json::<Thing>())
            .await
            .unwrap();
        assert_eq!(t.n, 3);
    }

    #[tokio::test]
    async fn bad_json_and_large_bodies_are_refused() {
        let r = warp::test::request()
            .body("{nope")
            .filter(&json::<Thing>())
            .await
            .unwrap_err();
        assert_eq!(super::super::reply::rejection_error(&r).status(), 400);
        let big = vec![b' '; (JSON_LIMIT + 1) as usize];
        let r = warp::test::request()
            .body(big)
            .filter(&json::<Thing>())
            .await
            .unwrap_err();
        assert_eq!(super::super::reply::rejection_error(&r).status(), 413);
    }
}
