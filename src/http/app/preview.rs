//! `GET /documents/{id}/pages/{n}.png?w=<800|1200|1600>`: page `n` of the signed-in owner's
//! document, for the editor and the document page (another user's document is a 404, as in
//! the API).

use std::collections::HashMap;

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::error::AppError;
use crate::core::ids::DocumentId;
use crate::http::reply::{Format, error_response};
use crate::http::session::optional;
use crate::http::state::AppState;
use crate::identity::principal::Principal;
use crate::signing::documents::preview;

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    warp::path!("documents" / DocumentId / "pages" / String)
        .and(warp::get())
        .and(warp::query::<HashMap<String, String>>())
        .and(optional(&state))
        .and(crate::http::with_state(state))
        .then(|id, file: String, q, who, st| async move {
            match image(st, who, id, file, q).await {
                Ok(r) => r,
                Err(e) => error_response(&e, Format::Json),
            }
        })
        .boxed()
}

async fn image(
    state: AppState,
    who: Option<crate::http::session::SignedIn>,
    id: DocumentId,
    file: String,
    query: HashMap<String, String>,
) -> Result<Response, AppError> {
    let (_, user) = who.ok_or_else(|| AppError::Unauthorized("sign in to see this page".into()))?;
    let (n, width) = crate::http::page_image::parse(&file, &query)?;
    let who = Principal::browser(user.id);
    let (blob, size) = preview::page_source(&state.ctx(), &who, id, n).await?;
    // A draft's file can be replaced: the browser asks again each time (the page cache on the
    // server keeps the image).
    crate::http::page_image::reply(&state, &blob, size, n, width, "private, no-cache").await
}
