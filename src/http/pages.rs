//! The start page at `/`.

use http::StatusCode;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::reply::html_response;
use crate::core::assets;

pub fn routes() -> BoxedFilter<(Response,)> {
    warp::path::end()
        .and(warp::get())
        .map(|| html_response(StatusCode::OK, &home()))
        .boxed()
}

fn home() -> String {
    let main = r#"<section class="card narrow stack">
  <h1>Docket</h1>
  <p>This Docket appliance is running.</p>
  <p class="muted">Apps connect to it through OAuth 2; documents are signed through its API under
  <code>/api/v1</code>. Health: <a href="/healthz">/healthz</a>.</p>
</section>"#;
    assets::page("Docket", main)
}
