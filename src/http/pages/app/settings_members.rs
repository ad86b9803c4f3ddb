//! `/t/{slug}/settings/members`: a team's members, for every member to see; its admins invite
//! by e-mail (the pending invitations listed, each revocable), change roles and remove members,
//! and anyone leaves. The forms call `teams::manage` and `teams::invitations`, the use cases
//! the admin CLI's `docket team` shares: the last admin can neither leave nor be demoted (409,
//! shown over the list). The personal workspace has no members (404).

use askama::Template;
use http::StatusCode;
use serde::de::IgnoredAny;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::nav::{Nav, Section};
use super::settings::{Problems, Tab, tabs};
use super::teams::role_words;
use super::workspace::{Place, place};
use crate::core::error::AppError;
use crate::core::ids::UserId;
use crate::core::timefmt::{human, iso8601};
use crate::http::reply::{self, page_as, redirect};
use crate::http::server::state::AppState;
use crate::http::session::{APP, SignedIn, form_csrf, signed_in};
use crate::teams::invitations::{self, Invitation};
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
    let invite = place()
        .and(warp::path!("settings" / "members" / "invite"))
        .and(warp::post())
        .and(s())
        .and(form_csrf(&state, APP, BACK))
        .then(invite)
        .map(reply::answer);
    let withdraw = place()
        .and(warp::path!(
            "settings" / "members" / "invitations" / "revoke"
        ))
        .and(warp::post())
        .and(s())
        .and(form_csrf(&state, APP, BACK))
        .then(withdraw)
        .map(reply::answer);
    show.or(role)
        .unify()
        .or(remove)
        .unify()
        .or(invite)
        .unify()
        .or(withdraw)
        .unify()
        .boxed()
}

/// The invitation form as typed: an address and a role.
#[derive(Debug, Clone, serde::Deserialize)]
struct InviteForm {
    #[serde(default)]
    email: String,
    #[serde(default = "member")]
    role: String,
}

fn member() -> String {
    TeamRole::Member.as_str().to_string()
}

impl Default for InviteForm {
    fn default() -> InviteForm {
        InviteForm {
            email: String::new(),
            role: member(),
        }
    }
}

/// `POST /t/{slug}/settings/members/invite`: the invitation mailed (back to the list), or the
/// form with what to change.
async fn invite(
    at: Place,
    state: AppState,
    who: SignedIn,
    form: InviteForm,
) -> Result<Response, AppError> {
    let slug = team_of(&at)?;
    let sent = match TeamRole::require(&form.role) {
        Ok(role) => {
            let caller = at.principal(&who.1);
            invitations::invite(&state.ctx(), &caller, slug, &form.email, role)
                .await
                .map(|_| ())
        }
        Err(e) => Err(e),
    };
    match sent {
        Ok(()) => Ok(redirect(&at.link("/settings/members?done=invited"))),
        Err(e) if e.status().is_client_error() && e.status() != StatusCode::NOT_FOUND => {
            // A refusal of the address (taken, malformed, too many) is said beside its box.
            let problems = if e.details().is_empty() && e.status() != StatusCode::FORBIDDEN {
                Problems::of(&AppError::validation(vec![
                    crate::core::error::FieldError::new("email", e.public_message()),
                ]))
            } else {
                Problems::of(&e)
            };
            let view = View {
                invite: (form, problems),
                ..View::default()
            };
            let status = e.status();
            render(&state, &at, who, status, view).await
        }
        Err(e) => Err(e),
    }
}

/// `POST /t/{slug}/settings/members/invitations/revoke`: the pending invitation of `email`
/// withdrawn, its link dead.
async fn withdraw(
    at: Place,
    state: AppState,
    who: SignedIn,
    form: InviteForm,
) -> Result<Response, AppError> {
    let slug = team_of(&at)?;
    invitations::revoke(&state.ctx(), &at.principal(&who.1), slug, &form.email).await?;
    Ok(redirect(&at.link("/settings/members?done=withdrawn")))
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
        Some("created") => {
            Some("The team was created, with you as its admin. Invite the others below.")
        }
        Some("invited") => Some(
            "The invitation was sent. Its link works once, for 7 days; it is listed below until \
             then.",
        ),
        Some("withdrawn") => Some("The invitation was withdrawn: its link no longer works."),
        Some("role") => Some("The role was changed. It holds from the member's next click."),
        Some("removed") => Some(
            "The member was removed: they no longer reach the team's documents, and the \
             team's API tokens they made were revoked. What they made stays with the team.",
        ),
        _ => None,
    };
    let view = View {
        notice,
        ..View::default()
    };
    render(&state, &at, who, StatusCode::OK, view).await
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
            let view = View {
                refusal: Some(super::settings::sentence(&e.public_message())),
                ..View::default()
            };
            render(state, at, who, e.status(), view).await
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

/// A pending invitation as listed.
struct Pending {
    email: String,
    role: &'static str,
    by: String,
    expires: String,
    expires_iso: String,
}

impl Pending {
    fn of(i: &Invitation) -> Pending {
        Pending {
            email: i.email.clone(),
            role: role_words(i.role),
            by: i
                .inviter_name
                .clone()
                .unwrap_or_else(|| "an administrator".into()),
            expires: human(i.expires_at),
            expires_iso: iso8601(i.expires_at),
        }
    }
}

/// What a rendering shows besides the members: a notice, a refusal over the list, the
/// invitation form as typed with its problems.
#[derive(Default)]
struct View {
    notice: Option<&'static str>,
    refusal: Option<String>,
    invite: (InviteForm, Problems),
}

#[derive(Template)]
#[template(path = "app/settings_members.html")]
struct MembersPage {
    nav: Nav,
    tabs: Vec<Tab>,
    rows: Vec<Row>,
    roles: Vec<(&'static str, &'static str)>,
    /// The pending invitations (its admins only see them).
    pending: Vec<Pending>,
    view: View,
}

impl MembersPage {
    /// Whether the invitation form's role list shows `value` as chosen.
    fn invites_as(&self, value: &&str) -> bool {
        self.view.invite.0.role.eq_ignore_ascii_case(value)
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
    let nav = Nav::of(state, &session, &user, Section::Settings, at).await?;
    let (ctx, who) = (state.ctx(), at.principal(&user));
    let (_, members) = manage::members(&ctx, &who, slug).await?;
    let pending = match nav.team_admin() {
        true => invitations::pending(&ctx, &who, slug).await?.1,
        false => Vec::new(),
    };
    let me = user.id;
    let page = MembersPage {
        tabs: tabs(&nav, "Members"),
        nav,
        rows: members.iter().map(|m| Row::of(m, me)).collect(),
        roles: TeamRole::ALL
            .into_iter()
            .map(|r| (r.as_str(), role_words(r)))
            .collect(),
        pending: pending.iter().map(Pending::of).collect(),
        view,
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
