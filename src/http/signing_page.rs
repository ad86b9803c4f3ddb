//! `GET {app_url}/sign/<token>`: the signing page (spec signing.md), and the rendered pages of
//! the PDF it shows. The page is a shell filled by `assets/js/sign.js` from `/sign/<token>/state`.
//! Unknown links get 404, cancelled ones 410, finished ones 409, each as a page that says so.

use http::StatusCode;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::reply::{html_response, html_result};
use super::signing::link;
use super::with_state;
use crate::app::AppState;
use crate::assets::{escape, page, url};
use crate::db::now;
use crate::error::AppError;
use crate::pdf::{PageWidth, RETRY_AFTER_SECS, RenderError};
use crate::signing::flow::{self, Origin};

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = move || with_state(state.clone());
    let image = warp::path!("sign" / String / "pages" / String)
        .and(warp::get())
        .and(warp::query::<std::collections::HashMap<String, String>>())
        .and(s())
        .then(|token: String, file: String, q, st| async move {
            match page_image(st, token, file, q).await {
                Ok(r) => r,
                Err(e) => super::reply::error_response(&e, super::reply::Format::Json),
            }
        });
    let shown = warp::path!("sign" / String)
        .and(warp::get())
        .and(super::origin())
        .and(s())
        .then(
            |token: String, origin, st| async move { html_result(show(st, token, origin).await) },
        );
    image.or(shown).unify().boxed()
}

/// `GET /sign/<token>/pages/<n>.png?w=<800|1200|1600>`: page `n` (1-based) rendered at that
/// width (default 1200), from the page cache; a placeholder image (with `X-Docket-Page:
/// placeholder`) for a page that cannot be drawn; 503 with Retry-After when every renderer
/// stays busy.
async fn page_image(
    state: AppState,
    token: String,
    file: String,
    query: std::collections::HashMap<String, String>,
) -> Result<Response, AppError> {
    let n: usize = file
        .strip_suffix(".png")
        .and_then(|n| n.parse().ok())
        .filter(|n| *n >= 1)
        .ok_or_else(|| AppError::not_found("page"))?;
    let width = match query.get("w") {
        None => PageWidth::parse(1200),
        Some(w) => w.parse().ok().and_then(PageWidth::parse),
    }
    .ok_or_else(|| AppError::bad_request(format!("w must be one of {:?}", PageWidth::ALLOWED)))?;
    let (blob, size) = state
        .db
        .call(move |c| {
            let l = link(c, &token)?;
            if l.document.status == "DRAFT" {
                return Err(AppError::not_found("signing link"));
            }
            if l.document.status == "CANCELLED" {
                return Err(AppError::Gone("this document was cancelled".into()));
            }
            let Some(&[w, h]) = l.document.page_sizes.get(n - 1) else {
                return Err(AppError::not_found("page"));
            };
            let blob = l
                .document
                .blob_id
                .and_then(|b| crate::blob::BlobId::parse(&b))
                .ok_or_else(|| AppError::not_found("page"))?;
            Ok((blob, (w as f32, h as f32)))
        })
        .await?;
    let path = state.blobs.path(&blob);
    // A client that leaves drops this future, and with it its share of the render.
    let image = state
        .pages
        .get_or_render(&blob, &path, n - 1, width, size)
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
    // The link is a credential: no shared caches, but the browser may keep it a while.
    h.insert(
        "cache-control",
        "private, max-age=3600".parse().expect("static"),
    );
    Ok(resp)
}

async fn show(state: AppState, token: String, origin: Origin) -> Result<Response, AppError> {
    let t = token.clone();
    let app = state.app_base();
    let (title, status, role) = state
        .db
        .write(move |tx| {
            let l = link(tx, &t)?;
            if l.document.status == "DRAFT" {
                return Err(AppError::not_found("signing link"));
            }
            // A finished recipient may come back to see what they did; the page says so.
            if l.document.status == "PENDING" && flow::open(tx, &l, &origin, now())? {
                crate::signing::notify::event(tx, l.document.id, "DOCUMENT_OPENED", &app, now())?;
            }
            Ok((l.document.title, l.document.status, l.role))
        })
        .await?;
    match status.as_str() {
        "CANCELLED" => {
            return Ok(notice(
                StatusCode::GONE,
                &title,
                "This document was cancelled by its sender. There is nothing left to do.",
            ));
        }
        "COMPLETED" | "REJECTED" if role != "CC" => {
            let what = if status == "COMPLETED" {
                "Everyone has finished: this document is complete. The signed copy was sent by e-mail."
            } else {
                "This document was rejected and can no longer be signed."
            };
            return Ok(notice(StatusCode::CONFLICT, &title, what));
        }
        _ => {}
    }
    let main = format!(
        r#"<section class="signing" id="signing" data-token="{token}" aria-live="polite">
  <h1>{title}</h1>
  <p class="muted" id="signing-status">Loading the document…</p>
  <noscript><p class="notice">Signing needs JavaScript; please turn it on for this page.</p></noscript>
</section>
<script src="{script}" defer></script>"#,
        token = escape(&token),
        title = escape(&title),
        script = url("js/sign.js"),
    );
    Ok(html_response(StatusCode::OK, &page(&title, &main)))
}

fn notice(status: StatusCode, title: &str, text: &str) -> Response {
    let main = format!(
        r#"<section class="card narrow stack"><h1>{}</h1><p>{}</p></section>"#,
        escape(title),
        escape(text)
    );
    html_response(status, &page(title, &main))
}
