//! Request bodies with a size cap that holds whether or not the client declared a length:
//! the body is read chunk by chunk and refused with 413 as soon as it passes the cap.
//!
//! JSON routes take a body only with a JSON `Content-Type` (`application/json` or a `+json`
//! type, parameters allowed), else 415 before the body is read. A cross-site page can send
//! a body without a CORS preflight only as a form (`application/x-www-form-urlencoded`,
//! `multipart/form-data`), as `text/plain`, or with no type at all; none of them reaches a
//! JSON route, whatever the browser's SameSite rules do with the cookies.

use bytes::{Buf, Bytes, BytesMut};
use futures_util::StreamExt;
use serde::de::DeserializeOwned;
use warp::{Filter, Rejection};

use crate::core::error::AppError;
use crate::core::lenient::Object;
use crate::http::reply::reject;

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

/// Whether a `Content-Type` says JSON: `application/json` or `application/<name>+json`, with
/// any parameters (`; charset=utf-8`).
pub fn is_json(content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or("").trim();
    let Some((kind, sub)) = essence.split_once('/') else {
        return false;
    };
    let sub = sub.to_ascii_lowercase();
    kind.eq_ignore_ascii_case("application")
        && (sub == "json" || (sub.len() > "+json".len() && sub.ends_with("+json")))
}

fn unsupported(declared: Option<&str>) -> Rejection {
    let what = match declared {
        Some(t) => format!("Content-Type {t:?}"),
        None => "no Content-Type".to_string(),
    };
    reject(AppError::UnsupportedMediaType(format!(
        "this call takes a JSON body sent as Content-Type: application/json, not {what}"
    )))
}

/// The request's `Content-Type`, which must say JSON (415 otherwise); `None` when absent and
/// `absent_ok`.
fn json_type(
    absent_ok: bool,
) -> impl Filter<Extract = (Option<String>,), Error = Rejection> + Clone {
    warp::header::optional::<String>("content-type").and_then(
        move |declared: Option<String>| async move {
            match declared {
                Some(t) if is_json(&t) => Ok(Some(t)),
                None if absent_ok => Ok(None),
                other => Err(unsupported(other.as_deref())),
            }
        },
    )
}

/// A JSON body of at most `JSON_LIMIT` bytes, parsed into `T`; bad JSON is a 400 that says where,
/// a body not declared as JSON a 415.
pub fn json<T: DeserializeOwned + Send>() -> impl Filter<Extract = (T,), Error = Rejection> + Clone
{
    read(|bytes| {
        serde_json::from_slice::<T>(bytes)
            .map_err(|e| AppError::bad_request(format!("invalid JSON body: {e}")))
    })
}

/// A JSON object read into the request shape `T` (`lenient`): what the shape refuses is a 400
/// naming its JSON path; otherwise as [`json`].
pub fn object<T: DeserializeOwned + Send>() -> impl Filter<Extract = (T,), Error = Rejection> + Clone
{
    shape::<Object<T>>().map(|o: Object<T>| o.0)
}

/// A JSON body read into the request shape `T`, an object or not (`lenient::from_slice`).
pub fn shape<T: DeserializeOwned + Send>() -> impl Filter<Extract = (T,), Error = Rejection> + Clone
{
    read(crate::core::lenient::from_slice::<T>)
}

fn read<T: Send>(
    parse: fn(&[u8]) -> Result<T, AppError>,
) -> impl Filter<Extract = (T,), Error = Rejection> + Clone {
    json_type(false)
        .and(capped_bytes(JSON_LIMIT))
        .and_then(move |_, bytes: Bytes| async move { parse(&bytes).map_err(reject) })
}

/// Like [`json`], but a body that is left out counts as `T::default()` (for calls whose body
/// is all optional). Left out means empty and sent with no `Content-Type`, by a client that
/// sends no cookies: a browser's request, which cookies may authenticate, must declare JSON
/// even when empty, since a cross-site page can send an empty, untyped POST too.
pub fn optional_json<T>() -> impl Filter<Extract = (T,), Error = Rejection> + Clone
where
    T: DeserializeOwned + Default + Send,
{
    optional_or(T::default)
}

fn optional_or<T>(absent: fn() -> T) -> impl Filter<Extract = (T,), Error = Rejection> + Clone
where
    T: DeserializeOwned + Send,
{
    json_type(true)
        .and(warp::header::optional::<String>("cookie"))
        .and(capped_bytes(JSON_LIMIT))
        .and_then(
            move |declared: Option<String>, cookie: Option<String>, bytes: Bytes| async move {
                let empty = bytes.iter().all(u8::is_ascii_whitespace);
                match (&declared, empty) {
                    (Some(_), true) => return Ok(absent()),
                    (None, true) if cookie.is_none() => return Ok(absent()),
                    (None, _) => return Err(unsupported(None)),
                    (Some(_), false) => {}
                }
                serde_json::from_slice::<T>(&bytes)
                    .map_err(|e| reject(AppError::bad_request(format!("invalid JSON body: {e}"))))
            },
        )
}

/// A query string read into `T` the way the pages always read it (into a map): the last of a
/// repeated parameter counts, parameters `T` does not name are ignored, none at all is an empty
/// query. Each value reaches `T` as a string (`Option<String>` members for what may be left
/// out); what it means is for the handler to say, as before.
pub fn query<T: DeserializeOwned + Send + 'static>()
-> impl Filter<Extract = (T,), Error = Rejection> + Clone {
    warp::query::raw()
        .or(warp::any().map(String::new))
        .unify()
        .and_then(|raw: String| async move { pairs::<T>(raw.as_bytes()).map_err(reject) })
}

/// Form-encoded pairs (a query string, or a form's body) read into `T`, by the rules of
/// [`query`]: the last of a repeated name counts, names `T` does not know are ignored, and what
/// `T` requires and misses is a 400 that names it.
pub fn pairs<T: DeserializeOwned>(raw: &[u8]) -> Result<T, AppError> {
    let mut last = std::collections::BTreeMap::new();
    for (k, v) in url::form_urlencoded::parse(raw) {
        last.insert(k.into_owned(), Part(v.into_owned()));
    }
    let de = serde::de::value::MapDeserializer::<_, serde::de::value::Error>::new(last.into_iter());
    T::deserialize(de).map_err(|e| AppError::bad_request(e.to_string()))
}

/// One value of a query string: a string, or `Some` string for an optional member.
struct Part(String);

impl<'de> serde::de::IntoDeserializer<'de, serde::de::value::Error> for Part {
    type Deserializer = Part;

    fn into_deserializer(self) -> Part {
        self
    }
}

impl<'de> serde::Deserializer<'de> for Part {
    type Error = serde::de::value::Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, v: V) -> Result<V::Value, Self::Error> {
        v.visit_string(self.0)
    }

    fn deserialize_option<V: serde::de::Visitor<'de>>(self, v: V) -> Result<V::Value, Self::Error> {
        v.visit_some(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug, Default, PartialEq)]
    struct Thing {
        n: u32,
    }

    /// The optional body of the tests: `Thing::default()` when left out.
    fn optional() -> impl Filter<Extract = (Thing,), Error = Rejection> + Clone {
        optional_json::<Thing>()
    }

    fn typed(ct: &str) -> warp::test::RequestBuilder {
        warp::test::request().header("content-type", ct)
    }

    fn status(r: &Rejection) -> u16 {
        crate::http::reply::rejection_error(r).status().as_u16()
    }

    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Asked {
        done: Option<String>,
        step: Option<String>,
    }

    async fn asked(path: &str) -> Asked {
        warp::test::request()
            .path(path)
            .filter(&query::<Asked>())
            .await
            .unwrap()
    }

    /// A typed query reads as the map the pages read before: the last of a repeated parameter
    /// counts, unknown ones are ignored, none (or no query string at all) is `None`.
    #[tokio::test]
    async fn a_typed_query_reads_as_the_map_did() {
        let none = Asked {
            done: None,
            step: None,
        };
        assert_eq!(asked("/x").await, none);
        assert_eq!(asked("/x?").await, none);
        assert_eq!(asked("/x?other=1&&=").await, none);
        let read = asked("/x?done=a&step=fields&done=b%20c&step=").await;
        assert_eq!(read.done.as_deref(), Some("b c"));
        assert_eq!(read.step.as_deref(), Some(""));
        assert_eq!(asked("/x?done=%FF").await.done.as_deref(), Some("\u{FFFD}"));
    }

    #[test]
    fn json_types_are_application_json_and_plus_json_with_parameters() {
        for t in [
            "application/json",
            "application/json; charset=utf-8",
            "Application/JSON;charset=UTF-8",
            " application/json ",
            "application/merge-patch+json",
            "application/vnd.api+json; charset=utf-8",
        ] {
            assert!(is_json(t), "{t}");
        }
        for t in [
            "",
            "text/plain",
            "text/plain; charset=utf-8",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
            "text/json",
            "application/jsonx",
            "application/+json",
            "application/json-seq",
            "json",
        ] {
            assert!(!is_json(t), "{t}");
        }
    }

    #[tokio::test]
    async fn bodies_not_declared_as_json_are_415() {
        for ct in [
            Some("text/plain"),
            Some("application/x-www-form-urlencoded"),
            Some("multipart/form-data; boundary=x"),
            None,
        ] {
            let req = match ct {
                Some(ct) => typed(ct),
                None => warp::test::request(),
            };
            let r = req
                .body(r#"{"n": 3}"#)
                .filter(&json::<Thing>())
                .await
                .unwrap_err();
            assert_eq!(status(&r), 415, "{ct:?}");
            let req = match ct {
                Some(ct) => typed(ct),
                None => warp::test::request().header("cookie", "s=1"),
            };
            let r = req
                .body(r#"{"n": 3}"#)
                .filter(&optional())
                .await
                .unwrap_err();
            assert_eq!(status(&r), 415, "{ct:?}");
        }
    }

    #[tokio::test]
    async fn an_optional_body_may_be_left_out_only_without_cookies() {
        let v = warp::test::request().filter(&optional()).await.unwrap();
        assert_eq!(v, Thing::default());
        let v = typed("application/json")
            .header("cookie", "s=1")
            .filter(&optional())
            .await
            .unwrap();
        assert_eq!(v, Thing::default());
        // An empty, untyped POST is what a cross-site page can send with the browser's cookies.
        let r = warp::test::request()
            .header("cookie", "s=1")
            .filter(&optional())
            .await
            .unwrap_err();
        assert_eq!(status(&r), 415);
        let r = typed("text/plain").filter(&optional()).await.unwrap_err();
        assert_eq!(status(&r), 415);
    }

    #[tokio::test]
    async fn json_within_the_limit_parses() {
        let t: Thing = typed("application/json; charset=utf-8")
            .body(r#"{"n": 3}"#)
            .filter(&json::<Thing>())
            .await
            .unwrap();
        assert_eq!(t.n, 3);
    }

    #[tokio::test]
    async fn bad_json_and_large_bodies_are_refused() {
        let r = typed("application/json")
            .body("{nope")
            .filter(&json::<Thing>())
            .await
            .unwrap_err();
        assert_eq!(crate::http::reply::rejection_error(&r).status(), 400);
        let big = vec![b' '; (JSON_LIMIT + 1) as usize];
        let r = typed("application/json")
            .body(big)
            .filter(&json::<Thing>())
            .await
            .unwrap_err();
        assert_eq!(crate::http::reply::rejection_error(&r).status(), 413);
    }
}
