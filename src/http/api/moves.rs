//! `POST /api/v1/documents/{id}/move` and `POST /api/v1/templates/{id}/move` (docket's own):
//! a personal document or template into one of the caller's teams, a team's template into
//! another team its admin runs, over `signing::workspaces::moving`. The answer is the row as
//! it now is, carrying the team's `teamId`.

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::error::AppError;
use crate::core::ids::{DocumentId, TemplateId};
use crate::http::api::wire::moves::MoveRequest;
use crate::http::auth::caller;
use crate::http::body::object;
use crate::http::reply::{answer, written};
use crate::http::server::state::AppState;
use crate::identity::principal::Principal;
use crate::identity::scope::Scope;
use crate::signing::documents::audit::Origin;
use crate::signing::workspaces::moving;

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let write = Scope::WriteDocument;
    let document = warp::path!("api" / "v1" / "documents" / DocumentId / "move")
        .and(warp::post())
        .and(caller(&state, write))
        .and(object::<MoveRequest>())
        .and(crate::http::origin())
        .then(document)
        .map(answer);
    let template = warp::path!("api" / "v1" / "templates" / TemplateId / "move")
        .and(warp::post())
        .and(caller(&state, write))
        .and(object::<MoveRequest>())
        .then(template)
        .map(answer);
    document.or(template).unify().boxed()
}

async fn document(
    id: DocumentId,
    who: Principal,
    state: AppState,
    body: MoveRequest,
    origin: Origin,
) -> Result<Response, AppError> {
    let asked = body.validate()?;
    let (view, _) = moving::document(&state.ctx(), &who, id, asked, origin).await?;
    written(&who, view)
}

async fn template(
    id: TemplateId,
    who: Principal,
    state: AppState,
    body: MoveRequest,
) -> Result<Response, AppError> {
    let asked = body.validate()?;
    let (view, _) = moving::template(&state.ctx(), &who, id, asked).await?;
    written(&who, view)
}
