//! `/t/{slug}/settings/members`: a team's members, for every member to see; its admins change
//! roles and remove members, and anyone leaves. The forms call `teams::manage`, the use cases
//! the admin CLI's `docket team` shares: the last admin can neither leave nor be demoted (409,
//! shown over the list). The personal workspace has no members (404).

use askama::Template;
use http::StatusCode;
use serde::de::IgnoredAny;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::nav::{Nav, Section};
use super::settings::{Tab, tabs};
use super::teams::role_words;
use super::workspace::{Place, place};
use crate::core::error::AppError;
use crate::core::ids::UserId;
use crate::core::timefmt::{human, iso8601};
use crate::http::reply::{self, page_as, redirect};
use crate::http::server::state::AppState;
use crate::http::session::{APP, SignedIn, form_csrf, signed_in};
use crate::teams::{Member, TeamRole, manage};

const BACK: &str = "/teams";

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = {
        let state = state.clone();
        move || crate::http::with_state(state.clone())
    };
    let show = place()
        .and(warp::path!("settings" / "members"))
        .and(warp::get())
        .and(s())
        .and(signed_in(&state, BACK))
        .and(crate::http::body::query::<super::settings::Done>())
        .then(show)
        .map(reply::answer);
    let role = place()
        .and(warp::path!("settings" / "members" / UserId / "role"))
        .and(warp::post())
        .and(s())
        .and(form_csrf(&state, APP, BACK))
        .then(change_role)
        .map(reply::answer);
    let remove = place()
        .and(warp::path!("settings" / "members" / UserId / "remove"))
        .and(warp::post())
        .and(s())
        .and(form_csrf(&state, APP, BACK))
        .then(remove)
        .map(reply::answer);
    show.or(role).unify().or(remove).unify().boxed()
}

/// The role form: the new role, as the select sends it.
#[derive(serde::Deserialize)]
struct RoleForm {
    #[serde(default)]
    role: String,
}

/// The team's slug of a members page; the personal workspace has none.
fn team_of(at: &Place) -> Result<&str, AppError> {
    at.slug().ok_or_else(|| AppError::not_found("page"))
}

/// `GET /t/{slug}/settings/members`.
async fn show(
    at: Place,
    state: AppState,
    who: SignedIn,
    q: super::settings::Done,
) -> Result<Response, AppError> {
    let notice = match q.done.as_deref() {
        Some("created") => Some("The team was created, with you as its admin."),
        Some("role") => Some("The role was changed. It holds from the member's next click."),
        Some("removed") => Some(
            "The member was removed: they no longer reach the team's documents, and the \
             team's API tokens they made were revoked. What they made stays with the team.",
        ),
        _ => None,
    };
    render(&state, &at, who, StatusCode::OK, notice, None).await
}

/// `POST /t/{slug}/settings/members/{user}/role`.
async fn change_role(
    at: Place,
    member: UserId,
    state: AppState,
    who: SignedIn,
    form: RoleForm,
) -> Result<Response, AppError> {
    let slug = team_of(&at)?;
    let changed = match TeamRole::require(&form.role) {
        Ok(role) => manage::change_role(&state.ctx(), &at.principal(&who.1), slug, member, role)
            .await
            .map(|_| ()),
        Err(e) => Err(e),
    };
    after(&state, &at, who, changed, "role").await
}

/// `POST /t/{slug}/settings/members/{user}/remove`: a member removed, or the caller leaving.
async fn remove(
    at: Place,
    member: UserId,
    state: AppState,
    who: SignedIn,
    _form: IgnoredAny,
) -> Result<Response, AppError> {
    let slug = team_of(&at)?;
    let leaving = member == who.1.id;
    let removed = manage::remove(&state.ctx(), &at.principal(&who.1), slug, member).await;
    if leaving && removed.is_ok() {
        return Ok(redirect("/teams?done=left"));
    }
    after(&state, &at, who, removed, "removed").await
}

/// Back to the list with the notice of what was done, or the list with the refusal over it (a
/// 409 for the last admin, a 400 for a role that is none).
async fn after(
    state: &AppState,
    at: &Place,
    who: SignedIn,
    result: Result<(), AppError>,
    done: &str,
) -> Result<Response, AppError> {
    match result {
        Ok(()) => Ok(redirect(
            &at.link(&format!("/settings/members?done={done}")),
        )),
        Err(e) if matches!(e.status(), StatusCode::BAD_REQUEST | StatusCode::CONFLICT) => {
            let refusal = super::settings::sentence(&e.public_message());
            render(state, at, who, e.status(), None, Some(refusal)).await
        }
        Err(e) => Err(e),
    }
}

/// A member as listed.
struct Row {
    id: UserId,
    name: String,
    email: String,
    role: TeamRole,
    role_words: &'static str,
    joined: String,
    joined_iso: String,
    me: bool,
}

#[derive(Template)]
#[template(path = "app/settings_members.html")]
struct MembersPage {
    nav: Nav,
    tabs: Vec<Tab>,
    rows: Vec<Row>,
    roles: Vec<(&'static str, &'static str)>,
    notice: Option<&'static str>,
    refusal: Option<String>,
}

async fn render(
    state: &AppState,
    at: &Place,
    (session, user): SignedIn,
    status: StatusCode,
    notice: Option<&'static str>,
    refusal: Option<String>,
) -> Result<Response, AppError> {
    let slug = team_of(at)?;
    let nav = Nav::of(state, &session, &user, Section::Settings, at).await?;
    let (_, members) = manage::members(&state.ctx(), &at.principal(&user), slug).await?;
    let me = user.id;
    let page = MembersPage {
        tabs: tabs(&nav, "Members"),
        nav,
        rows: members.iter().map(|m| Row::of(m, me)).collect(),
        roles: TeamRole::ALL
            .into_iter()
            .map(|r| (r.as_str(), role_words(r)))
            .collect(),
        notice,
        refusal,
    };
    Ok(page_as(status, Ok(page)))
}

impl Row {
    fn of(m: &Member, me: UserId) -> Row {
        Row {
            id: m.user_id,
            name: m.name.clone(),
            email: m.email.clone(),
            role: m.role,
            role_words: role_words(m.role),
            joined: human(m.created_at),
            joined_iso: iso8601(m.created_at),
            me: m.user_id == me,
        }
    }

    /// Whether the role select shows `value` (`ADMIN`, ...) as chosen.
    fn has(&self, value: &&str) -> bool {
        self.role.as_str() == *value
    }
}
