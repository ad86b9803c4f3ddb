//! `POST /documents/{id}/move` and `POST [/t/{slug}]/templates/{id}/move`: the "Move to a
//! team" forms of a personal document's page and of a template's page, through the same use
//! cases as the API (`signing::workspaces::moving`); the answer is the row's page in its new
//! team.

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::workspace::{Place, place};
use crate::core::error::AppError;
use crate::core::ids::{DocumentId, TemplateId};
use crate::http::reply::{self, redirect};
use crate::http::server::state::AppState;
use crate::http::session::{APP, SignedIn, form_csrf};
use crate::signing::documents::audit::Origin;
use crate::signing::workspaces::TeamRef;
use crate::signing::workspaces::moving::{self, Move};

const BACK: &str = "/";

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = {
        let state = state.clone();
        move || crate::http::with_state(state.clone())
    };
    let document = place()
        .and(warp::path!("documents" / DocumentId / "move"))
        .and(warp::post())
        .and(crate::http::origin())
        .and(s())
        .and(form_csrf(&state, APP, BACK))
        .then(document)
        .map(reply::answer);
    let template = place()
        .and(warp::path!("templates" / TemplateId / "move"))
        .and(warp::post())
        .and(s())
        .and(form_csrf(&state, APP, BACK))
        .then(template)
        .map(reply::answer);
    document.or(template).unify().boxed()
}

/// The form: the slug of the team chosen.
#[derive(Debug, Clone, Default, serde::Deserialize)]
struct Chosen {
    #[serde(default)]
    team: String,
}

impl Chosen {
    fn to(&self) -> Move {
        Move {
            to: TeamRef::Slug(self.team.clone()),
            visibility: None,
        }
    }
}

async fn document(
    at: Place,
    id: DocumentId,
    origin: Origin,
    state: AppState,
    (_, user): SignedIn,
    chosen: Chosen,
) -> Result<Response, AppError> {
    let who = at.principal(&user);
    let (_, team) = moving::document(&state.ctx(), &who, id, chosen.to(), origin).await?;
    Ok(redirect(
        &Place::Team(team.slug).link(&format!("/documents/{id}")),
    ))
}

async fn template(
    at: Place,
    id: TemplateId,
    state: AppState,
    (_, user): SignedIn,
    chosen: Chosen,
) -> Result<Response, AppError> {
    let who = at.principal(&user);
    let (_, team) = moving::template(&state.ctx(), &who, id, chosen.to()).await?;
    Ok(redirect(
        &Place::Team(team.slug).link(&format!("/templates/{id}")),
    ))
}
