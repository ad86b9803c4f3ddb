//! What a caller reaches, resolved inside the transaction that uses it: the workspace its
//! credential or page names (`Principal::acts_for`), the membership and the role read there
//! and then, never cached, so that a removal or a demotion holds for the very next request on
//! every node. Every use case on documents, templates, team API tokens and webhooks starts
//! with `resolve` and hands the stores `Access::owner`: that is the ownership rule, in one
//! place.

use crate::core::db::Conn;
use crate::core::error::{AppError, FieldError};
use crate::core::ids::UserId;
use crate::core::owner::{Owner, Visibility};
use crate::identity::principal::{ActsFor, Principal};

use super::{Team, TeamRole, store};

/// The caller, in the workspace it acts in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    Personal(UserId),
    Team {
        user: UserId,
        team: Team,
        role: TeamRole,
    },
}

/// What a team API token is told once its maker has left the team (`teams::manage` revokes
/// such tokens; this is the guard should one remain).
pub const MAKER_LEFT: &str = "the API token's maker is no longer a member of its team";

/// `who` in the workspace it names: personal as is; a team by id (a team's API token) or by
/// slug (a team's page) when `who` belongs to it. A team the caller is not in is a 404, as
/// one that does not exist; a team token whose maker left it is a 401.
pub fn resolve(c: &Conn, who: &Principal) -> Result<Access, AppError> {
    let user = who.user_id;
    let (team, role) = match &who.acts_for {
        ActsFor::Personal => return Ok(Access::Personal(user)),
        ActsFor::Team(id) => {
            let m = store::membership_in(c, *id, user)?
                .ok_or_else(|| AppError::Unauthorized(MAKER_LEFT.into()))?;
            (m.team, m.role)
        }
        ActsFor::Slug(slug) => {
            let m = super::manage::membership(c, user, slug)?;
            (m.team, m.role)
        }
    };
    Ok(Access::Team { user, team, role })
}

/// The rows `who` reaches in the workspace it acts in (`resolve`, then `Access::owner`).
pub fn owner(c: &Conn, who: &Principal) -> Result<Owner, AppError> {
    Ok(resolve(c, who)?.owner())
}

/// Whose a new row of `who` is (documents: "documents"; templates: "templates"), once `who`
/// may give it `visibility`, if one is asked (`Access::may_give`).
pub fn owner_giving(
    c: &Conn,
    who: &Principal,
    visibility: Option<Visibility>,
    what: &str,
) -> Result<Owner, AppError> {
    let access = resolve(c, who)?;
    if let Some(v) = visibility {
        access.may_give(v, what)?;
    }
    Ok(access.owner())
}

impl Access {
    /// The rows this caller reaches, and whose its new rows are.
    pub fn owner(&self) -> Owner {
        match self {
            Access::Personal(user) => Owner::Personal(*user),
            Access::Team { user, team, role } => Owner::Team {
                team: team.id,
                user: *user,
                seen: role.seen(),
            },
        }
    }

    /// The user acting.
    pub fn user(&self) -> UserId {
        match self {
            Access::Personal(user) | Access::Team { user, .. } => *user,
        }
    }

    /// The team acted for; `None` in the personal workspace.
    pub fn team(&self) -> Option<&Team> {
        match self {
            Access::Personal(_) => None,
            Access::Team { team, .. } => Some(team),
        }
    }

    /// Ok when this caller may delete what it sees: always in the personal workspace, a
    /// team's managers and admins in a team (403 for a member).
    pub fn require_delete(&self, what: &str) -> Result<(), AppError> {
        match self {
            Access::Team { role, .. } if !role.may_delete() => Err(AppError::Forbidden(format!(
                "only the team's managers and admins delete its {what}"
            ))),
            _ => Ok(()),
        }
    }

    /// Ok when this caller may give one of its rows (`what`: "documents") `visibility`: only
    /// a team's rows have one (400 for a personal row), and a role gives only a visibility it
    /// sees itself (403), so that no one hides a row from themselves.
    pub fn may_give(&self, visibility: Visibility, what: &str) -> Result<(), AppError> {
        match self {
            Access::Personal(_) => Err(AppError::validation(vec![FieldError::new(
                "visibility",
                format!("only a team's {what} have a visibility"),
            )])),
            Access::Team { role, .. } if !role.sees(visibility) => {
                Err(AppError::Forbidden(format!(
                    "a {} of the team cannot give {what} the visibility {}",
                    role.as_str(),
                    visibility.as_str()
                )))
            }
            Access::Team { .. } => Ok(()),
        }
    }

    /// Ok when this caller may manage the workspace's settings (API tokens, webhooks,
    /// members): always in the personal workspace, a team's admins in a team (403 for others).
    pub fn require_manage(&self, what: &str) -> Result<(), AppError> {
        match self {
            Access::Team { role, .. } if !role.may_manage() => Err(AppError::Forbidden(format!(
                "only the team's admins manage its {what}"
            ))),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::db::{memory, params};
    use crate::core::ids::TeamId;
    use crate::core::owner::Visibility;

    fn setup(c: &Conn) -> Team {
        for i in 1..=3 {
            c.execute(
                "INSERT INTO users (id, email, username, name, password_hash, created_at, updated_at)
                 VALUES (?1, ?2, ?2, ?2, 'x', 0, 0)",
                params![i, format!("u{i}@x.org")],
            )
            .unwrap();
        }
        let t = store::insert(c, "Sales", "sales", 1).unwrap();
        store::add_member(c, t.id, UserId::new(1), TeamRole::Admin, 1).unwrap();
        store::add_member(c, t.id, UserId::new(2), TeamRole::Member, 1).unwrap();
        t
    }

    fn who(user: i64, acts_for: ActsFor) -> Principal {
        Principal::browser(UserId::new(user)).acting_for(acts_for)
    }

    /// Every request of a team's API token or page resolves its team and role: one statement
    /// (on PostgreSQL, one round trip), whether it finds them or not.
    #[test]
    fn a_team_and_its_role_are_resolved_in_one_statement() {
        let c = memory();
        let t = setup(&c);
        let statements = |who: Principal| {
            let before = crate::core::db::statements_run(&c);
            let found = resolve(&c, &who).is_ok();
            (found, crate::core::db::statements_run(&c) - before)
        };
        assert_eq!(statements(who(2, ActsFor::Team(t.id))), (true, 1));
        assert_eq!(statements(who(2, ActsFor::Slug("sales".into()))), (true, 1));
        assert_eq!(statements(who(3, ActsFor::Team(t.id))), (false, 1));
        assert_eq!(statements(who(3, ActsFor::Slug("nope".into()))), (false, 1));
        assert_eq!(statements(who(3, ActsFor::Personal)), (true, 0));
    }

    #[test]
    fn a_workspace_is_reached_by_its_members_only_with_the_role_read_each_time() {
        let c = memory();
        let t = setup(&c);
        let u = UserId::new;
        assert_eq!(
            resolve(&c, &who(3, ActsFor::Personal)).unwrap(),
            Access::Personal(u(3))
        );
        let member = resolve(&c, &who(2, ActsFor::Slug("SALES".into()))).unwrap();
        assert_eq!(
            member.owner(),
            Owner::Team {
                team: t.id,
                user: u(2),
                seen: vec![Visibility::Everyone]
            }
        );
        assert_eq!(
            member.require_delete("documents").unwrap_err().code(),
            "forbidden"
        );
        assert_eq!(
            member.require_manage("webhooks").unwrap_err().code(),
            "forbidden"
        );

        // Not a member, and no such team: the same 404. A team key whose maker is out: 401.
        for slug in ["sales", "nope"] {
            let e = resolve(&c, &who(3, ActsFor::Slug(slug.into()))).unwrap_err();
            assert_eq!(
                (e.code(), e.to_string()),
                ("not_found", "team not found".into())
            );
        }
        let e = resolve(&c, &who(3, ActsFor::Team(t.id))).unwrap_err();
        assert_eq!(
            (e.code(), e.to_string()),
            ("unauthorized", MAKER_LEFT.into())
        );
        let e = resolve(&c, &who(1, ActsFor::Team(TeamId::new(99)))).unwrap_err();
        assert_eq!(e.code(), "unauthorized");

        // A promotion is seen at the next resolve; so is a removal.
        store::set_role(&c, t.id, u(2), TeamRole::Manager).unwrap();
        let manager = resolve(&c, &who(2, ActsFor::Team(t.id))).unwrap();
        assert!(manager.require_delete("documents").is_ok());
        assert!(manager.require_manage("webhooks").is_err());
        store::remove_member(&c, t.id, u(2)).unwrap();
        assert!(resolve(&c, &who(2, ActsFor::Slug("sales".into()))).is_err());

        let admin = resolve(&c, &who(1, ActsFor::Team(t.id))).unwrap();
        assert!(admin.require_manage("webhooks").is_ok());
        assert_eq!(admin.team().map(|t| t.slug.as_str()), Some("sales"));
        assert_eq!(Owner::of_row(u(2), Some(t.id)), {
            let Owner::Team { seen, .. } = admin.owner() else {
                unreachable!()
            };
            Owner::Team {
                team: t.id,
                user: u(2),
                seen,
            }
        });
    }
}
