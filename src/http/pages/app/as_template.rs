//! `POST [/t/{slug}]/documents/{id}/template`: the document page's "Save as template" form,
//! through the API's own use case (`signing::templates::from_document`); the answer is the new
//! template's page in the same workspace, which says where it came from. A refusal is the
//! error page with the use case's words (another's document: 404).

use serde::de::IgnoredAny;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::workspace::{Place, place};
use crate::core::error::AppError;
use crate::core::ids::DocumentId;
use crate::http::reply::{self, redirect};
use crate::http::server::state::AppState;
use crate::http::session::{APP, SignedIn, form_csrf};
use crate::signing::templates::from_document;

const BACK: &str = "/";

/// The query the template's page reads to say it was saved from a document.
pub const SAVED: &str = "saved=document";

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    place()
        .and(warp::path!("documents" / DocumentId / "template"))
        .and(warp::post())
        .and(crate::http::with_state(state.clone()))
        .and(form_csrf(&state, APP, BACK))
        .then(save)
        .map(reply::answer)
        .boxed()
}

async fn save(
    at: Place,
    id: DocumentId,
    state: AppState,
    (_, user): SignedIn,
    _form: IgnoredAny,
) -> Result<Response, AppError> {
    let made = from_document::save(&state.ctx(), &at.principal(&user), id).await?;
    Ok(redirect(
        &at.link(&format!("/templates/{}?{SAVED}", made.id)),
    ))
}
