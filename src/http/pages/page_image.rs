//! A page of a stored PDF as a PNG, for the pages that show documents (the signing page, the
//! owner's editor and document page): the file name and width a request asks for, and the
//! answer from the page cache.

use warp::reply::Response;

use crate::core::error::AppError;
use crate::http::server::state::AppState;
use crate::signing::documents::preview::PageSource;
use crate::signing::pdf::{PageWidth, RETRY_AFTER_SECS, RenderError};

/// The query of a page's image: its width in pixels, as typed (`?w=`).
#[derive(Debug, Default, serde::Deserialize)]
pub struct WidthQuery {
    w: Option<String>,
}

/// Page `n` (1-based) from `<n>.png`, and the width from `?w=` (800, 1200 or 1600; default
/// 1200).
pub fn parse(file: &str, query: &WidthQuery) -> Result<(usize, PageWidth), AppError> {
    let n: usize = file
        .strip_suffix(".png")
        .and_then(|n| n.parse().ok())
        .filter(|n| *n >= 1)
        .ok_or_else(|| AppError::not_found("page"))?;
    let width = match &query.w {
        None => PageWidth::parse(1200),
        Some(w) => w.parse().ok().and_then(PageWidth::parse),
    }
    .ok_or_else(|| AppError::bad_request(format!("w must be one of {:?}", PageWidth::ALLOWED)))?;
    Ok((n, width))
}

/// Page `n` of `page`'s blob rendered at `width`, from the page cache (which reads the next
/// page ahead); a placeholder image (with `X-Docket-Page: placeholder`) for a page that cannot be
/// drawn; 503 with Retry-After when every renderer stays busy. `cache` is the answer's
/// `Cache-Control`.
pub async fn reply(
    state: &AppState,
    page: &PageSource,
    n: usize,
    width: PageWidth,
    cache: &'static str,
) -> Result<Response, AppError> {
    let path = state
        .blobs
        .local_path_async(&page.blob)
        .await
        .map_err(AppError::from)?;
    // A client that leaves drops this future, and with it its share of the render.
    let image = state
        .pages
        .get_or_render(&page.blob, &path, n - 1, width, page.size, page.next)
        .await
        .map_err(|e| match e {
            RenderError::Busy => AppError::Overloaded {
                message: e.to_string(),
                retry_after: RETRY_AFTER_SECS,
            },
            RenderError::NoSuchPage(_) => AppError::not_found("page"),
            RenderError::Failed(cause) => {
                AppError::internal(format!("rendering page {n} failed: {cause}"))
            }
        })?;
    let mut resp = Response::new(image.png.into());
    let h = resp.headers_mut();
    h.insert("content-type", "image/png".parse().expect("static"));
    if image.placeholder {
        // The page cannot be drawn: the image says so; this header tells programs.
        h.insert("x-docket-page", "placeholder".parse().expect("static"));
    }
    h.insert("cache-control", cache.parse().expect("static"));
    Ok(resp)
}
