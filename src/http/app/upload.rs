//! `GET /documents/new`: the upload page. The file goes to `POST /api/v1/documents/upload`
//! (`assets/js/upload.js`), which makes the draft only once the file is accepted; then the
//! editor (`/documents/{id}/edit`).

use askama::Template;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::nav::{Nav, Section};
use crate::http::reply::page;
use crate::http::session::signed_in;
use crate::http::state::AppState;

#[derive(Template)]
#[template(path = "app/new_document.html")]
struct NewDocumentPage {
    nav: Nav,
    /// `--max-upload-mb`, for the hint (the server is what refuses).
    max_mb: u64,
}

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    warp::path!("documents" / "new")
        .and(warp::get())
        .and(signed_in(&state, "/documents/new"))
        .and(crate::http::with_state(state))
        .map(
            |(session, user): crate::http::session::SignedIn, st: AppState| {
                page(Ok(NewDocumentPage {
                    nav: Nav::of(&st, &session, &user, Section::Documents),
                    max_mb: st.config.max_upload_bytes / (1024 * 1024),
                }))
            },
        )
        .boxed()
}
