//! A team, its members and their roles, and what each role may do and see: plain functions of
//! values, so every page, API route and store asks the same rule.

use serde::Serialize;

use crate::core::error::{AppError, FieldError};
use crate::core::ids::{TeamId, UserId};

/// A member's role in a team, strongest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "UPPERCASE")]
#[schema(as = TeamMemberRole)]
pub enum TeamRole {
    Admin,
    Manager,
    Member,
}

impl TeamRole {
    pub const ALL: [TeamRole; 3] = [TeamRole::Admin, TeamRole::Manager, TeamRole::Member];

    pub fn as_str(self) -> &'static str {
        match self {
            TeamRole::Admin => "ADMIN",
            TeamRole::Manager => "MANAGER",
            TeamRole::Member => "MEMBER",
        }
    }

    /// Case-insensitive, as people type roles in either case.
    pub fn parse(s: &str) -> Option<TeamRole> {
        TeamRole::ALL
            .into_iter()
            .find(|r| r.as_str().eq_ignore_ascii_case(s.trim()))
    }

    /// As `parse`, with a 400 naming the accepted roles.
    pub fn require(s: &str) -> Result<TeamRole, AppError> {
        TeamRole::parse(s).ok_or_else(|| {
            AppError::validation(vec![FieldError::new(
                "role",
                format!("{:?} is not a role; use ADMIN, MANAGER or MEMBER", s.trim()),
            )])
        })
    }

    /// Whether a member with this role sees a team document or template of `visibility`.
    pub fn sees(self, visibility: Visibility) -> bool {
        match visibility {
            Visibility::Everyone => true,
            Visibility::ManagerAndAbove => matches!(self, TeamRole::Admin | TeamRole::Manager),
            Visibility::Admin => self == TeamRole::Admin,
        }
    }

    /// The visibilities this role sees, for a store's `visibility IN (...)`.
    pub fn seen(self) -> Vec<Visibility> {
        Visibility::ALL
            .into_iter()
            .filter(|v| self.sees(*v))
            .collect()
    }

    /// Whether this role deletes the team's documents and templates (managers and admins).
    pub fn may_delete(self) -> bool {
        matches!(self, TeamRole::Admin | TeamRole::Manager)
    }

    /// Whether this role manages the team: its members, roles and settings (admins).
    pub fn may_manage(self) -> bool {
        self == TeamRole::Admin
    }
}

crate::sql_text_enum!(TeamRole);

pub use crate::core::owner::Visibility;

/// Longest team name, in characters.
pub const NAME_MAX: usize = 100;

/// A team's name, trimmed: 1 to `NAME_MAX` characters, no control characters.
pub fn parse_name(raw: &str) -> Result<String, AppError> {
    let name = raw.trim();
    let why = if name.is_empty() {
        Some("a team needs a name".to_string())
    } else if name.chars().count() > NAME_MAX {
        Some(format!("a team's name has at most {NAME_MAX} characters"))
    } else if name.chars().any(char::is_control) {
        Some("a team's name cannot hold control characters".to_string())
    } else {
        None
    };
    match why {
        Some(message) => Err(AppError::validation(vec![FieldError::new("name", message)])),
        None => Ok(name.to_string()),
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Team {
    pub id: TeamId,
    pub name: String,
    pub slug: String,
    /// The sender name shown to recipients; `None`: the team's name.
    pub sender_name: Option<String>,
    pub created_at: i64,
    pub updated_at: i64,
}

/// One member of a team, as a list of members shows them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Member {
    pub user_id: UserId,
    pub email: String,
    pub name: String,
    pub role: TeamRole,
    /// When they joined.
    pub created_at: i64,
}

/// A team and the caller's role in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Membership {
    pub team: Team,
    pub role: TeamRole,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_role_sees_what_documenso_s_visibility_says() {
        use Visibility::{Everyone, ManagerAndAbove};
        assert_eq!(
            TeamRole::Admin.seen(),
            [Everyone, ManagerAndAbove, Visibility::Admin]
        );
        assert_eq!(TeamRole::Manager.seen(), [Everyone, ManagerAndAbove]);
        assert_eq!(TeamRole::Member.seen(), [Everyone]);
        assert!(!TeamRole::Member.sees(ManagerAndAbove));
        assert!(!TeamRole::Manager.sees(Visibility::Admin));
    }

    #[test]
    fn managers_and_admins_delete_and_only_admins_manage() {
        let rules: Vec<(bool, bool)> = TeamRole::ALL
            .iter()
            .map(|r| (r.may_delete(), r.may_manage()))
            .collect();
        assert_eq!(rules, [(true, true), (true, false), (false, false)]);
    }

    #[test]
    fn roles_and_visibilities_are_stored_as_their_names() {
        let c = crate::core::db::Conn::sqlite_memory();
        for role in TeamRole::ALL {
            let back: TeamRole = c.query_row("SELECT ?1", [role], |r| r.get(0)).unwrap();
            assert_eq!(back, role);
            assert_eq!(serde_json::to_value(role).unwrap(), role.as_str());
        }
        for v in Visibility::ALL {
            let back: Visibility = c.query_row("SELECT ?1", [v], |r| r.get(0)).unwrap();
            assert_eq!(back, v);
            assert_eq!(serde_json::to_value(v).unwrap(), v.as_str());
        }
        assert_eq!(TeamRole::parse(" manager "), Some(TeamRole::Manager));
        let e = TeamRole::require("owner").unwrap_err();
        assert_eq!(e.details()[0].path, "role");
        assert!(e.to_string().contains("ADMIN, MANAGER or MEMBER"), "{e}");
    }

    #[test]
    fn names_are_trimmed_and_bounded() {
        assert_eq!(parse_name("  Sales  ").unwrap(), "Sales");
        for bad in ["", "   ", &"n".repeat(NAME_MAX + 1), "a\u{7}b"] {
            let e = parse_name(bad).unwrap_err();
            assert_eq!(e.details()[0].path, "name", "{bad:?}");
        }
        assert!(parse_name(&"é".repeat(NAME_MAX)).is_ok());
    }
}
