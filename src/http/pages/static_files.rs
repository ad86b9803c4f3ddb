//! `GET /assets/<path>`: the embedded files, with MIME type, ETag (304 on a match) and caching:
//! a year for versioned URLs (`?v=<version>`, or `/assets/v/<version>/<path>` for the script
//! modules, whose relative imports keep it; see `assets::url`), revalidation otherwise. A client
//! whose `Accept-Encoding` takes gzip gets the embedded gzip bytes (`Content-Encoding: gzip`),
//! any other the file inflated; the two representations have their own ETags.

use http::{HeaderValue, StatusCode, header};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::assets;

/// `?v=`: the version a page asked the asset for.
#[derive(serde::Deserialize)]
struct Version {
    v: Option<String>,
}

pub fn routes() -> BoxedFilter<(Response,)> {
    warp::path("assets")
        .and(warp::path::tail())
        .and(warp::get().or(warp::head()).unify())
        .and(warp::header::optional::<String>("if-none-match"))
        .and(warp::header::optional::<String>("accept-encoding"))
        .and(crate::http::body::query::<Version>())
        .and_then(asset)
        .boxed()
}

/// The asset at `tail`, or no route at all (the 404 of any other path).
async fn asset(
    tail: warp::path::Tail,
    if_none_match: Option<String>,
    encodings: Option<String>,
    q: Version,
) -> Result<Response, warp::Rejection> {
    let gzip = encodings.as_deref().is_some_and(accepts_gzip);
    let (path, version) = named(tail.as_str(), q.v.as_deref());
    serve(path, if_none_match.as_deref(), gzip, version).ok_or_else(warp::reject::not_found)
}

/// The file a request names and the version its URL carries: `v/<version>/<path>` (how
/// `assets::url` writes a script module's) or `<path>` with `?v=<version>`.
fn named<'a>(tail: &'a str, query: Option<&'a str>) -> (&'a str, Option<&'a str>) {
    match tail
        .strip_prefix("v/")
        .and_then(|rest| rest.split_once('/'))
    {
        Some((version, path)) => (path, Some(version)),
        None => (tail, query),
    }
}

/// Whether an `Accept-Encoding` value takes gzip: `gzip` (or `x-gzip`) listed with a weight
/// above zero, or else `*` so listed (RFC 9110, 12.5.3).
fn accepts_gzip(header: &str) -> bool {
    let mut star = false;
    for item in header.split(',') {
        let mut parts = item.split(';');
        let name = parts.next().unwrap_or("").trim();
        let weight = parts
            .filter_map(|p| p.trim().split_once('='))
            .find(|(k, _)| k.trim().eq_ignore_ascii_case("q"))
            .map_or(Some(1.0), |(_, v)| v.trim().parse::<f32>().ok());
        let wanted = weight.is_some_and(|w| w > 0.0);
        if name.eq_ignore_ascii_case("gzip") || name.eq_ignore_ascii_case("x-gzip") {
            return wanted;
        }
        if name == "*" {
            star = wanted;
        }
    }
    star
}

fn serve(
    path: &str,
    if_none_match: Option<&str>,
    gzip: bool,
    version: Option<&str>,
) -> Option<Response> {
    let asset: &'static assets::Asset = assets::get(path)?;
    let etag = if gzip { &asset.etag_gzip } else { &asset.etag };
    let cache = if version.is_some() && version == assets::version(path) {
        "public, max-age=31536000, immutable"
    } else {
        "public, no-cache"
    };
    let matches = if_none_match.is_some_and(|v| {
        v.split(',')
            .any(|t| [&asset.etag, &asset.etag_gzip, "*"].contains(&t.trim()))
    });
    let mut resp = if matches {
        let mut r = Response::new(Default::default());
        *r.status_mut() = StatusCode::NOT_MODIFIED;
        r
    } else {
        let body: &'static [u8] = if gzip {
            asset.gzip
        } else {
            asset.plain().ok()?
        };
        let mut r = Response::new(body.into());
        r.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_str(&asset.mime).ok()?,
        );
        if gzip {
            r.headers_mut()
                .insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
        }
        r
    };
    let h = resp.headers_mut();
    h.insert(header::ETAG, HeaderValue::from_str(etag).ok()?);
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    h.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    Some(resp)
}

#[cfg(test)]
mod tests {
    use super::{accepts_gzip, named};

    #[test]
    fn a_version_is_read_from_the_path_or_the_query() {
        assert_eq!(
            named("v/0123abcd/js/editor/main.js", None),
            ("js/editor/main.js", Some("0123abcd"))
        );
        assert_eq!(
            named("css/docket.css", Some("0123abcd")),
            ("css/docket.css", Some("0123abcd"))
        );
        assert_eq!(named("js/sign.js", None), ("js/sign.js", None));
        assert_eq!(named("v/only", None), ("v/only", None));
    }

    #[test]
    fn gzip_is_taken_when_listed_with_a_weight_above_zero() {
        for yes in [
            "gzip",
            "gzip, deflate, br, zstd",
            "br;q=1.0, GZIP;q=0.5",
            "x-gzip",
            "*",
            "identity, *;q=0.1",
            "gzip;q=0.001",
        ] {
            assert!(accepts_gzip(yes), "{yes}");
        }
        for no in [
            "",
            "identity",
            "br, deflate",
            "gzip;q=0",
            "gzip; q=0.000",
            "*, gzip;q=0",
            "gzip;q=nonsense",
            "gzipx",
        ] {
            assert!(!accepts_gzip(no), "{no}");
        }
    }
}
