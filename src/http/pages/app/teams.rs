//! `/teams`: the teams the signed-in user belongs to (their role in each, its dashboard and
//! settings) and the form that creates one (`teams::manage::create`: the user becomes its
//! first admin, then lands on its members to invite the others).

use askama::Template;
use http::StatusCode;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::nav::{Nav, Section};
use super::settings::Problems;
use super::workspace::Place;
use crate::core::error::{AppError, FieldError};
use crate::http::reply::{self, page_as, redirect};
use crate::http::server::state::AppState;
use crate::http::session::{APP, SignedIn, form_csrf, signed_in};
use crate::identity::principal::Principal;
use crate::teams::slug::{MAX, MIN};
use crate::teams::{Membership, manage};

const BACK: &str = "/teams";

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = {
        let state = state.clone();
        move || crate::http::with_state(state.clone())
    };
    let show = warp::path!("teams")
        .and(warp::get())
        .and(s())
        .and(signed_in(&state, BACK))
        .and(crate::http::body::query::<super::settings::Done>())
        .then(show)
        .map(reply::answer);
    let create = warp::path!("teams")
        .and(warp::post())
        .and(s())
        .and(form_csrf(&state, APP, BACK))
        .then(create)
        .map(reply::answer);
    show.or(create).unify().boxed()
}

/// The creation form as typed.
#[derive(Debug, Default, serde::Deserialize)]
struct NewTeam {
    #[serde(default)]
    name: String,
    #[serde(default)]
    slug: String,
}

/// A team of the list.
struct Row {
    name: String,
    home: String,
    settings: String,
    role: &'static str,
}

#[derive(Template)]
#[template(path = "app/teams.html")]
struct TeamsPage {
    nav: Nav,
    rows: Vec<Row>,
    typed: NewTeam,
    problems: Problems,
    notice: Option<&'static str>,
    /// What the address box asks for, with where the team's pages will be.
    slug_hint: String,
}

/// `GET /teams`.
async fn show(
    state: AppState,
    who: SignedIn,
    q: super::settings::Done,
) -> Result<Response, AppError> {
    let notice = match q.done.as_deref() {
        Some("left") => Some("You left the team. Its documents stay with it."),
        Some("deleted") => Some("The team was deleted, with its documents and templates."),
        Some("deleted-mine") => {
            Some("The team was deleted; its documents and templates are now your personal ones.")
        }
        Some("deleted-moved") => {
            Some("The team was deleted; its documents and templates are in the team you chose.")
        }
        _ => None,
    };
    Ok(render(
        &state,
        who,
        StatusCode::OK,
        NewTeam::default(),
        None,
        notice,
    )
    .await)
}

/// `POST /teams`: the new team's members page, or the form with what to change.
async fn create(state: AppState, who: SignedIn, typed: NewTeam) -> Result<Response, AppError> {
    let caller = Principal::browser(who.1.id);
    match manage::create(&state.ctx(), &caller, &typed.name, &typed.slug).await {
        Ok(m) => {
            let members = Place::Team(m.team.slug).link("/settings/members?done=created");
            Ok(redirect(&members))
        }
        Err(e) if e.status() == StatusCode::CONFLICT => {
            // The slug is what is taken: said beside it.
            let beside = AppError::validation(vec![FieldError::new("slug", e.public_message())]);
            Ok(render(&state, who, e.status(), typed, Some(&beside), None).await)
        }
        Err(e) if e.status() == StatusCode::BAD_REQUEST => {
            Ok(render(&state, who, e.status(), typed, Some(&e), None).await)
        }
        Err(e) => Err(e),
    }
}

async fn render(
    state: &AppState,
    (session, user): SignedIn,
    status: StatusCode,
    typed: NewTeam,
    refused: Option<&AppError>,
    notice: Option<&'static str>,
) -> Response {
    let id = user.id;
    let result = async {
        let teams = state
            .db
            .read(move |c| crate::teams::store::memberships(c, id))
            .await?;
        let nav = Nav::with(
            state,
            &session,
            &user,
            Section::Teams,
            &Place::Personal,
            &teams,
        )?;
        Ok::<_, AppError>(TeamsPage {
            nav,
            rows: teams.iter().map(Row::of).collect(),
            typed,
            problems: refused.map(Problems::of).unwrap_or_default(),
            notice,
            slug_hint: format!(
                "The team's pages are at {}/t/<address>: {MIN} to {MAX} lower-case letters, \
                 digits and hyphens.",
                state.ctx().app
            ),
        })
    };
    page_as(status, result.await)
}

impl Row {
    fn of(m: &Membership) -> Row {
        let place = Place::Team(m.team.slug.clone());
        Row {
            name: m.team.name.clone(),
            home: place.link("/"),
            settings: place.link("/settings"),
            role: role_words(m.role),
        }
    }
}

/// A role as the pages name it.
pub fn role_words(role: crate::teams::TeamRole) -> &'static str {
    match role {
        crate::teams::TeamRole::Admin => "Admin",
        crate::teams::TeamRole::Manager => "Manager",
        crate::teams::TeamRole::Member => "Member",
    }
}
