//! `GET /documents/{id}/pages/{n}.png?w=<800|1200|1600>`: page `n` of the signed-in owner's
//! document, for the editor and the document page (another user's document is a 404, as in
//! the API); `GET /templates/{id}/pages/{n}.png` the same of a template; under `/t/{slug}` a
//! team's.

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::workspace::{Place, place};
use crate::core::error::AppError;
use crate::core::ids::{DocumentId, TemplateId};
use crate::http::pages::page_image::WidthQuery;
use crate::http::reply::{self, Format};
use crate::http::server::state::AppState;
use crate::http::session::optional;
use crate::signing::documents::preview;
use crate::signing::templates;

/// Whose page is asked for.
#[derive(Debug, Clone, Copy)]
enum Owner {
    Document(DocumentId),
    Template(TemplateId),
}

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let documents = warp::path!("documents" / DocumentId / "pages" / String)
        .map(|id, file| (Owner::Document(id), file));
    let templates = warp::path!("templates" / TemplateId / "pages" / String)
        .map(|id, file| (Owner::Template(id), file));
    place()
        .and(documents.or(templates).unify())
        .and(warp::get())
        .and(crate::http::body::query::<WidthQuery>())
        .and(optional(&state))
        .and(crate::http::with_state(state))
        .then(image)
        // The page's scripts load these images; a refusal is JSON, as the API's.
        .map(reply::answer_as(Format::Json))
        .boxed()
}

/// The page's image, for the signed-in owner only.
async fn image(
    at: Place,
    (owner, file): (Owner, String),
    query: WidthQuery,
    who: Option<crate::http::session::SignedIn>,
    state: AppState,
) -> Result<Response, AppError> {
    let (_, user) = who.ok_or_else(|| AppError::Unauthorized("sign in to see this page".into()))?;
    let (n, width) = crate::http::pages::page_image::parse(&file, &query)?;
    let (ctx, who) = (state.ctx(), at.principal(&user));
    let page = match owner {
        Owner::Document(id) => preview::page_source(&ctx, &who, id, n).await?,
        Owner::Template(id) => templates::manage::page_source(&ctx, &who, id, n).await?,
    };
    // A draft's file can be replaced: the browser asks again each time (the page cache on the
    // server keeps the image).
    crate::http::pages::page_image::reply(&state, &page, n, width, "private, no-cache").await
}
