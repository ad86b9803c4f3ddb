//! `/settings/embedding` (`/t/{slug}/settings/embedding`: a team's, for its admins): the sites
//! allowed to frame the workspace's signing pages (`/embed/sign/...`, `/embed/direct/...`), one
//! origin a line, saved through `signing::workspaces::framing`. A refused origin is said next
//! to the box, every one at once; the page shows how to embed with the list as it is.

use askama::Template;
use http::StatusCode;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::nav::{Nav, Section};
use super::settings::{Done, Problems, Tab, notice, tabs};
use super::workspace::{Place, place};
use crate::core::error::AppError;
use crate::http::reply::{self, page_as, redirect};
use crate::http::server::state::AppState;
use crate::http::session::{APP, SignedIn, form_csrf, signed_in};
use crate::signing::workspaces::framing::{self, MAX_ORIGINS};

const BACK: &str = "/settings/embedding";

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = {
        let state = state.clone();
        move || crate::http::with_state(state.clone())
    };
    let show = place()
        .and(warp::path!("settings" / "embedding"))
        .and(warp::get())
        .and(s())
        .and(signed_in(&state, BACK))
        .and(crate::http::body::query::<Done>())
        .then(show)
        .map(reply::answer);
    let save = place()
        .and(warp::path!("settings" / "embedding"))
        .and(warp::post())
        .and(s())
        .and(form_csrf(&state, APP, BACK))
        .then(save)
        .map(reply::answer);
    show.or(save).unify().boxed()
}

/// The form as typed.
#[derive(Debug, Clone, Default, serde::Deserialize)]
struct Typed {
    #[serde(default)]
    origins: String,
}

/// `GET /settings/embedding`.
async fn show(at: Place, state: AppState, who: SignedIn, q: Done) -> Result<Response, AppError> {
    let origins = framing::read(&state.ctx(), &at.principal(&who.1)).await?;
    let view = View {
        origins: origins.lines(),
        saved: origins.iter().map(ToString::to_string).collect(),
        notice: notice(q.done.as_ref()),
        problems: Problems::default(),
    };
    render(&state, &at, who, StatusCode::OK, view).await
}

/// `POST /settings/embedding`: saved (back to the page), or the form with what to change.
async fn save(
    at: Place,
    state: AppState,
    who: SignedIn,
    typed: Typed,
) -> Result<Response, AppError> {
    let principal = at.principal(&who.1);
    match framing::update(&state.ctx(), &principal, &typed.origins).await {
        Ok(_) => Ok(redirect(&at.link("/settings/embedding?done=saved"))),
        Err(e) if e.status() == StatusCode::BAD_REQUEST => {
            let saved = framing::read(&state.ctx(), &principal).await?;
            let view = View {
                origins: typed.origins,
                saved: saved.iter().map(ToString::to_string).collect(),
                notice: None,
                problems: Problems::of(&e),
            };
            render(&state, &at, who, e.status(), view).await
        }
        Err(e) => Err(e),
    }
}

/// What a rendering shows: the box as typed (or saved), the origins in force, a save's notice,
/// a refusal's problems.
struct View {
    origins: String,
    saved: Vec<String>,
    notice: Option<&'static str>,
    problems: Problems,
}

#[derive(Template)]
#[template(path = "app/settings_embedding.html")]
struct EmbeddingPage {
    nav: Nav,
    tabs: Vec<Tab>,
    view: View,
    /// What the box takes, in a sentence.
    hint: String,
}

async fn render(
    state: &AppState,
    at: &Place,
    (session, user): SignedIn,
    status: StatusCode,
    view: View,
) -> Result<Response, AppError> {
    let nav = Nav::of(state, &session, &user, Section::Settings, at).await?;
    let page = EmbeddingPage {
        tabs: tabs(&nav, "Embedding"),
        nav,
        view,
        hint: format!(
            "One a line, such as https://app.example.com: the scheme, the host and a port if not \
             the usual one, with no path. Use https; http only for localhost or 127.0.0.1 while \
             you develop. At most {MAX_ORIGINS}; empty: no site."
        ),
    };
    Ok(page_as(status, Ok(page)))
}
