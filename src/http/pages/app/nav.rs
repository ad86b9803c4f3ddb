//! The chrome of every page of the web application (`pages/app_layout.html`): who is signed
//! in, the workspace the page is in with the switcher to the others, the sections, Sign out,
//! and the CSRF token the page's scripts send with their calls.

use super::workspace::Place;
use crate::core::crypto::SecretToken;
use crate::core::error::AppError;
use crate::http::server::state::AppState;
use crate::http::session::{APP, csrf_token};
use crate::identity::sessions::csrf;
use crate::identity::users::User;
use crate::teams::{Membership, TeamRole, store};

/// The section a page belongs to, marked as current in the navigation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    Documents,
    Templates,
    /// API tokens and webhooks: what connects other programs (and a team's members).
    Settings,
    Account,
    /// The user's teams (`/teams`), reached from the workspace switcher.
    Teams,
    /// None of them (an error page).
    Elsewhere,
}

/// A workspace in the switcher: its name, its dashboard and whether the page is in it.
#[derive(Debug, Clone)]
pub struct Workspace {
    pub label: String,
    pub href: String,
    pub current: bool,
}

/// What the layout of an application page shows besides the page itself.
#[derive(Debug, Clone)]
pub struct Nav {
    pub name: String,
    pub email: String,
    pub section: Section,
    /// The `X-CSRF-Token` of the page's calls to `/api/v1` and of its forms (`session::APP`).
    pub csrf: String,
    /// The token of the Sign out form.
    pub logout_csrf: String,
    /// The page's workspace: every link of the page is made in it (`link`).
    pub place: Place,
    /// The workspace's name ("Personal" or the team's).
    pub here: String,
    /// The user's role in the page's team (`None` on personal pages).
    pub role: Option<TeamRole>,
    /// The switcher: the personal workspace, then each of the user's teams.
    pub workspaces: Vec<Workspace>,
    /// The user's teams with their role in each, by name.
    pub teams: Vec<Membership>,
}

impl Nav {
    /// The chrome for `user`, signed in with session `session`, on a page of `section` in
    /// `place`; a 404 for a team the user is not in (as its objects are).
    pub async fn of(
        state: &AppState,
        session: &str,
        user: &User,
        section: Section,
        place: &Place,
    ) -> Result<Nav, AppError> {
        let id = user.id;
        let teams = state.db.read(move |c| store::memberships(c, id)).await?;
        Nav::with(state, session, user, section, place, &teams)
    }

    /// As `of`, with the user's teams already read.
    pub fn with(
        state: &AppState,
        session: &str,
        user: &User,
        section: Section,
        place: &Place,
        teams: &[Membership],
    ) -> Result<Nav, AppError> {
        let session_hash = SecretToken::presented(session).hash();
        let mine = place
            .slug()
            .map(|slug| teams.iter().find(|m| m.team.slug == slug))
            .map(|m| m.ok_or_else(|| AppError::not_found("team")))
            .transpose()?;
        let mut workspaces = vec![Workspace {
            label: "Personal".into(),
            href: "/".into(),
            current: mine.is_none(),
        }];
        workspaces.extend(teams.iter().map(|m| Workspace {
            label: m.team.name.clone(),
            href: Place::Team(m.team.slug.clone()).link("/"),
            current: mine.is_some_and(|mine| mine.team.id == m.team.id),
        }));
        Ok(Nav {
            name: user.name.clone(),
            email: user.email.clone(),
            section,
            csrf: csrf_token(state, APP, session),
            logout_csrf: csrf::token(&state.keys, "logout", &[&session_hash]),
            place: place.clone(),
            here: mine.map_or_else(|| "Personal".into(), |m| m.team.name.clone()),
            role: mine.map(|m| m.role),
            workspaces,
            teams: teams.to_vec(),
        })
    }

    /// `aria-current="page"` for the current section's link.
    pub fn current(&self, section: &str) -> &'static str {
        let here = match self.section {
            Section::Documents => "documents",
            Section::Templates => "templates",
            Section::Settings => "settings",
            Section::Account => "account",
            Section::Teams => "teams",
            Section::Elsewhere => "",
        };
        if here == section { "page" } else { "false" }
    }

    /// `path` (from `/`) in the page's workspace: `/t/{slug}{path}` on a team's pages.
    pub fn link(&self, path: &str) -> String {
        self.place.link(path)
    }

    /// What every link of the page starts with: nothing, or `/t/{slug}` on a team's pages.
    pub fn base(&self) -> String {
        self.place.base()
    }

    /// The team's slug for the pages' scripts (`X-Docket-Workspace`), empty on personal pages.
    pub fn workspace(&self) -> &str {
        self.place.slug().unwrap_or_default()
    }

    /// The teams a row of this page's workspace can move into: from the personal workspace,
    /// each of the user's teams; from a team (`admins_only`: a template), the other teams the
    /// user administers, when they administer this one.
    pub fn move_targets(&self, admins_only: bool) -> Vec<&Membership> {
        match self.place.slug() {
            None => self.teams.iter().collect(),
            Some(_) if !admins_only || !self.team_admin() => Vec::new(),
            Some(here) => self
                .teams
                .iter()
                .filter(|m| m.team.slug != here && m.role.may_manage())
                .collect(),
        }
    }

    /// Whether the user administers the page's team (`false` on personal pages).
    pub fn team_admin(&self) -> bool {
        self.role.is_some_and(TeamRole::may_manage)
    }
}
