//! The chrome of every page of the web application (`pages/app_layout.html`): who is signed
//! in, the sections, Sign out, and the CSRF token the page's scripts send with their calls.

use crate::core::crypto::SecretToken;
use crate::http::server::state::AppState;
use crate::http::session::{APP, csrf_token};
use crate::identity::sessions::csrf;
use crate::identity::users::User;

/// The section a page belongs to, marked as current in the navigation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    Documents,
    Templates,
    /// API tokens and webhooks: what connects other programs.
    Settings,
    Account,
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
}

impl Nav {
    /// The chrome for `user`, signed in with session `session`, on a page of `section`.
    pub fn of(state: &AppState, session: &str, user: &User, section: Section) -> Nav {
        let session_hash = SecretToken::presented(session).hash();
        Nav {
            name: user.name.clone(),
            email: user.email.clone(),
            section,
            csrf: csrf_token(state, APP, session),
            logout_csrf: csrf::token(&state.keys, "logout", &[&session_hash]),
        }
    }

    /// `aria-current="page"` for the current section's link.
    pub fn current(&self, section: &str) -> &'static str {
        let here = match self.section {
            Section::Documents => "documents",
            Section::Templates => "templates",
            Section::Settings => "settings",
            Section::Account => "account",
        };
        if here == section { "page" } else { "false" }
    }
}
