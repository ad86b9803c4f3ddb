//! `/t/{slug}/settings/delete`: ending a team, for its admins (others: 403, outsiders 404).
//! The page says what the team holds; while a document waits for signatures it explains why
//! the team cannot end yet instead of offering the form. The form asks what becomes of the
//! documents and templates (the admin's own, another team they run, or deleted) and for the
//! team's address, typed, as the confirmation; the use case is `signing::workspaces::team_end`.

use askama::Template;
use http::StatusCode;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::nav::{Nav, Section};
use super::settings::{Problems, Tab, tabs};
use super::workspace::{Place, place};
use crate::core::error::{AppError, FieldError};
use crate::http::reply::{self, page_as, redirect};
use crate::http::server::state::AppState;
use crate::http::session::{APP, SignedIn, form_csrf, signed_in};
use crate::signing::documents::audit::Origin;
use crate::signing::workspaces::TeamRef;
use crate::signing::workspaces::team_end::{self, Fate, Holdings};
use crate::teams::{Membership, Team};

const BACK: &str = "/teams";

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = {
        let state = state.clone();
        move || crate::http::with_state(state.clone())
    };
    let show = place()
        .and(warp::path!("settings" / "delete"))
        .and(warp::get())
        .and(s())
        .and(signed_in(&state, BACK))
        .then(show)
        .map(reply::answer);
    let end = place()
        .and(warp::path!("settings" / "delete"))
        .and(warp::post())
        .and(crate::http::origin())
        .and(s())
        .and(form_csrf(&state, APP, BACK))
        .then(end)
        .map(reply::answer);
    show.or(end).unify().boxed()
}

/// The form as sent.
#[derive(Debug, Clone, Default, serde::Deserialize)]
struct Typed {
    /// `mine`, `team` or `delete`.
    #[serde(default)]
    fate: String,
    /// The heir's slug, with `team`.
    #[serde(default)]
    heir: String,
    /// The team's address, typed to confirm.
    #[serde(default)]
    confirm: String,
}

impl Typed {
    /// The fate asked for, once the confirmation matches `slug`; 400 with the box to correct.
    fn fate(&self, slug: &str) -> Result<Fate, AppError> {
        let mut problems = Vec::new();
        let fate = match self.fate.as_str() {
            "mine" => Some(Fate::Mine),
            "delete" => Some(Fate::Delete),
            "team" if !self.heir.trim().is_empty() => {
                Some(Fate::Team(TeamRef::Slug(self.heir.clone())))
            }
            "team" => {
                problems.push(FieldError::new("heir", "choose the team they go to"));
                None
            }
            _ => {
                problems.push(FieldError::new(
                    "fate",
                    "choose what becomes of the team's documents and templates",
                ));
                None
            }
        };
        if !self.confirm.trim().eq_ignore_ascii_case(slug) {
            problems.push(FieldError::new(
                "confirm",
                format!("type {slug} to confirm"),
            ));
        }
        match fate {
            Some(f) if problems.is_empty() => Ok(f),
            _ => Err(AppError::validation(problems)),
        }
    }
}

fn team_of(at: &Place) -> Result<&str, AppError> {
    at.slug().ok_or_else(|| AppError::not_found("page"))
}

/// `GET /t/{slug}/settings/delete`.
async fn show(at: Place, state: AppState, who: SignedIn) -> Result<Response, AppError> {
    let view = View {
        typed: Typed::default(),
        problems: Problems::default(),
    };
    render(&state, &at, who, StatusCode::OK, view).await
}

/// `POST /t/{slug}/settings/delete`: the team ended (to `/teams`), or the form with what to
/// change.
async fn end(
    at: Place,
    origin: Origin,
    state: AppState,
    who: SignedIn,
    typed: Typed,
) -> Result<Response, AppError> {
    let slug = team_of(&at)?;
    let principal = at.principal(&who.1);
    let ended = match typed.fate(slug) {
        Ok(fate) => team_end::end(&state.ctx(), &principal, slug, fate, origin).await,
        Err(e) => Err(e),
    };
    match ended {
        Ok(e) => {
            let done = match (&e.heir, typed.fate.as_str()) {
                (Some(_), _) => "deleted-moved",
                (None, "mine") => "deleted-mine",
                _ => "deleted",
            };
            Ok(redirect(&format!("{BACK}?done={done}")))
        }
        Err(e) if matches!(e.status(), StatusCode::BAD_REQUEST | StatusCode::CONFLICT) => {
            let status = e.status();
            let view = View {
                problems: Problems::of(&e),
                typed,
            };
            render(&state, &at, who, status, view).await
        }
        Err(e) => Err(e),
    }
}

struct View {
    typed: Typed,
    problems: Problems,
}

#[derive(Template)]
#[template(path = "app/settings_delete.html")]
struct DeletePage {
    nav: Nav,
    tabs: Vec<Tab>,
    team: Team,
    held: Holdings,
    /// The other teams the admin runs: where the rows may go.
    heirs: Vec<Membership>,
    view: View,
}

impl DeletePage {
    fn chosen(&self, fate: &str) -> bool {
        self.view.typed.fate == fate
    }

    /// What to type, and where the user has seen it.
    fn confirm_hint(&self) -> String {
        let slug = &self.team.slug;
        format!("Its address is {slug}, as in its pages' /t/{slug}.")
    }
}

async fn render(
    state: &AppState,
    at: &Place,
    (session, user): SignedIn,
    status: StatusCode,
    view: View,
) -> Result<Response, AppError> {
    let slug = team_of(at)?;
    let (team, held) = team_end::holdings(&state.ctx(), &at.principal(&user), slug).await?;
    let nav = Nav::of(state, &session, &user, Section::Settings, at).await?;
    let heirs = nav.move_targets(true).into_iter().cloned().collect();
    let page = DeletePage {
        tabs: tabs(&nav, "General"),
        nav,
        team,
        held,
        heirs,
        view,
    };
    Ok(page_as(status, Ok(page)))
}
