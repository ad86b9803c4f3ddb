//! `GET /assets/<path>`: the embedded files, with MIME type, ETag (304 on a match) and caching:
//! a year for versioned URLs (`?v=<etag>`, see `assets::url`), revalidation otherwise.

use std::collections::HashMap;

use http::{HeaderValue, StatusCode, header};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::assets;

pub fn routes() -> BoxedFilter<(Response,)> {
    warp::path("assets")
        .and(warp::path::tail())
        .and(warp::get().or(warp::head()).unify())
        .and(warp::header::optional::<String>("if-none-match"))
        .and(warp::query::<HashMap<String, String>>())
        .and_then(
            |tail: warp::path::Tail, inm: Option<String>, q: HashMap<String, String>| async move {
                serve(
                    tail.as_str(),
                    inm.as_deref(),
                    q.get("v").map(String::as_str),
                )
                .ok_or_else(warp::reject::not_found)
            },
        )
        .boxed()
}

fn serve(path: &str, if_none_match: Option<&str>, version: Option<&str>) -> Option<Response> {
    let asset = assets::get(path)?;
    let cache = if version == Some(asset.etag.trim_matches('"')) {
        "public, max-age=31536000, immutable"
    } else {
        "public, no-cache"
    };
    let matches = if_none_match.is_some_and(|v| {
        v.split(',')
            .any(|t| t.trim() == asset.etag || t.trim() == "*")
    });
    let mut resp = if matches {
        let mut r = Response::new(Default::default());
        *r.status_mut() = StatusCode::NOT_MODIFIED;
        r
    } else {
        let mut r = Response::new(asset.body.into());
        r.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_str(&asset.mime).ok()?,
        );
        r
    };
    let h = resp.headers_mut();
    h.insert(header::ETAG, HeaderValue::from_str(&asset.etag).ok()?);
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    Some(resp)
}
