//! SQL for `teams` and `team_members`. A change that could leave a team without an admin is
//! one statement whose WHERE refuses it, taken in turn per team (`serialize_on`), so that two
//! admins demoting each other at once on PostgreSQL cannot both succeed.

use crate::core::db::conflict_on_unique;
use crate::core::db::{Conn, OptionalExtension, Row, ToSql};
use crate::core::error::AppError;
use crate::core::ids::{TeamId, UserId};
use crate::params;

use super::{Member, Membership, Team, TeamRole};

/// What a team's last admin is told when a change would leave it without one.
pub const LAST_ADMIN: &str = "the last admin cannot leave or be demoted";

const TEAM: &str = "t.id, t.name, t.slug, t.sender_name, t.created_at, t.updated_at";

fn team_at(r: &Row<'_>, from: usize) -> crate::core::db::Result<Team> {
    Ok(Team {
        id: r.get(from)?,
        name: r.get(from + 1)?,
        slug: r.get(from + 2)?,
        sender_name: r.get(from + 3)?,
        created_at: r.get(from + 4)?,
        updated_at: r.get(from + 5)?,
    })
}

fn team(r: &Row<'_>) -> crate::core::db::Result<Team> {
    team_at(r, 0)
}

/// A new team; 409 when its slug is taken.
pub fn insert(tx: &Conn, name: &str, slug: &str, now: i64) -> Result<Team, AppError> {
    let id = tx
        .insert(
            "INSERT INTO teams (name, slug, created_at, updated_at) VALUES (?1, ?2, ?3, ?3)",
            params![name, slug, now],
        )
        .map_err(|e| conflict_on_unique(e, &format!("the slug {slug:?} is taken")))?;
    get(tx, TeamId::new(id))?.ok_or_else(|| AppError::internal("inserted team vanished"))
}

pub fn get(c: &Conn, id: TeamId) -> Result<Option<Team>, AppError> {
    Ok(c.query_row(
        &format!("SELECT {TEAM} FROM teams t WHERE t.id = ?1"),
        [id],
        team,
    )
    .optional()?)
}

pub fn by_slug(c: &Conn, slug: &str) -> Result<Option<Team>, AppError> {
    Ok(c.query_row(
        &format!("SELECT {TEAM} FROM teams t WHERE t.slug = ?1"),
        [slug.trim().to_lowercase()],
        team,
    )
    .optional()?)
}

/// The team with `slug`, or a 404 naming it.
pub fn require_by_slug(c: &Conn, slug: &str) -> Result<Team, AppError> {
    by_slug(c, slug)?
        .ok_or_else(|| AppError::NotFound(format!("no team with slug {}", slug.trim())))
}

/// Every team with its number of members, oldest first.
pub fn list(c: &Conn) -> Result<Vec<(Team, i64)>, AppError> {
    let mut stmt = c.prepare(&format!(
        "SELECT {TEAM}, (SELECT count(*) FROM team_members m WHERE m.team_id = t.id)
           FROM teams t ORDER BY t.id"
    ))?;
    let rows = stmt.query_map([], |r| Ok((team(r)?, r.get(6)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The teams `user` belongs to, with their role in each, by name.
pub fn memberships(c: &Conn, user: UserId) -> Result<Vec<Membership>, AppError> {
    let mut stmt = c.prepare(&format!(
        "SELECT {TEAM}, m.role FROM team_members m JOIN teams t ON t.id = m.team_id
          WHERE m.user_id = ?1 ORDER BY t.name, t.id"
    ))?;
    let rows = stmt.query_map([user], |r| {
        Ok(Membership {
            team: team(r)?,
            role: r.get(6)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The team `id` with `user`'s role in it, in one statement (every request of a team's API
/// token resolves it, and on PostgreSQL each statement is a round trip); `None` when there is
/// no such team or `user` is not in it.
pub fn membership_in(c: &Conn, id: TeamId, user: UserId) -> Result<Option<Membership>, AppError> {
    membership_where(c, "t.id = ?1", &id, user)
}

/// The team at `slug` with `user`'s role in it, in one statement (every team page resolves
/// it); `None` when there is no such team or `user` is not in it.
pub fn membership_at(c: &Conn, slug: &str, user: UserId) -> Result<Option<Membership>, AppError> {
    membership_where(c, "t.slug = ?1", &slug.trim().to_lowercase(), user)
}

fn membership_where(
    c: &Conn,
    team_is: &str,
    key: &dyn ToSql,
    user: UserId,
) -> Result<Option<Membership>, AppError> {
    Ok(c.query_row(
        &format!(
            "SELECT {TEAM}, m.role FROM teams t
               JOIN team_members m ON m.team_id = t.id AND m.user_id = ?2
              WHERE {team_is}"
        ),
        &[key, &user as &dyn ToSql] as &[&dyn ToSql],
        |r| {
            Ok(Membership {
                team: team(r)?,
                role: r.get(6)?,
            })
        },
    )
    .optional()?)
}

/// `user`'s role in `team`, or `None` when they are not a member.
pub fn role_of(c: &Conn, team: TeamId, user: UserId) -> Result<Option<TeamRole>, AppError> {
    Ok(c.query_row(
        "SELECT role FROM team_members WHERE team_id = ?1 AND user_id = ?2",
        params![team, user],
        |r| r.get(0),
    )
    .optional()?)
}

const MEMBER: &str = "SELECT m.user_id, u.email, u.name, m.role, m.created_at
   FROM team_members m JOIN users u ON u.id = m.user_id";

fn member(r: &Row<'_>) -> crate::core::db::Result<Member> {
    Ok(Member {
        user_id: r.get(0)?,
        email: r.get(1)?,
        name: r.get(2)?,
        role: r.get(3)?,
        created_at: r.get(4)?,
    })
}

/// `team`'s members, admins first, then managers, then members, each by e-mail.
pub fn members(c: &Conn, team: TeamId) -> Result<Vec<Member>, AppError> {
    let mut stmt = c.prepare(&format!(
        "{MEMBER} WHERE m.team_id = ?1
          ORDER BY CASE m.role WHEN 'ADMIN' THEN 0 WHEN 'MANAGER' THEN 1 ELSE 2 END, u.email"
    ))?;
    let rows = stmt.query_map([team], member)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub fn member_of(c: &Conn, team: TeamId, user: UserId) -> Result<Option<Member>, AppError> {
    Ok(c.query_row(
        &format!("{MEMBER} WHERE m.team_id = ?1 AND m.user_id = ?2"),
        params![team, user],
        member,
    )
    .optional()?)
}

/// Adds `user` to `team` with `role`; 409 when they already belong to it.
pub fn add_member(
    tx: &Conn,
    team: TeamId,
    user: UserId,
    role: TeamRole,
    now: i64,
) -> Result<Member, AppError> {
    tx.execute(
        "INSERT INTO team_members (team_id, user_id, role, created_at) VALUES (?1, ?2, ?3, ?4)",
        params![team, user, role, now],
    )
    .map_err(|e| conflict_on_unique(e, "already a member of the team"))?;
    member_of(tx, team, user)?.ok_or_else(|| AppError::internal("added member vanished"))
}

/// Why a guarded change found no row to change: not a member (404), or the last admin (409).
fn refusal(tx: &Conn, team: TeamId, user: UserId) -> Result<AppError, AppError> {
    Ok(match role_of(tx, team, user)? {
        None => AppError::not_found("team member"),
        Some(_) => AppError::Conflict(LAST_ADMIN.into()),
    })
}

/// The condition, on the row `team_members` being changed, that leaves the team an admin:
/// the row is not an admin's, or another admin remains.
const ANOTHER_ADMIN_REMAINS: &str = "(role <> 'ADMIN' OR EXISTS (
        SELECT 1 FROM team_members o
         WHERE o.team_id = ?1 AND o.role = 'ADMIN' AND o.user_id <> ?2))";

/// Gives `user` the role `role` in `team`: 404 when not a member, 409 (`LAST_ADMIN`) when
/// they are its only admin and `role` is not ADMIN. Returns the member as they are now.
pub fn set_role(tx: &Conn, team: TeamId, user: UserId, role: TeamRole) -> Result<Member, AppError> {
    tx.serialize_on(&format!("team-admins:{team}"))?;
    let guard = if role == TeamRole::Admin {
        ""
    } else {
        ANOTHER_ADMIN_REMAINS
    };
    let changed = tx.execute(
        &format!(
            "UPDATE team_members SET role = ?3 WHERE team_id = ?1 AND user_id = ?2{}",
            if guard.is_empty() {
                String::new()
            } else {
                format!(" AND {guard}")
            }
        ),
        params![team, user, role],
    )?;
    if changed == 0 {
        return Err(refusal(tx, team, user)?);
    }
    member_of(tx, team, user)?.ok_or_else(|| AppError::internal("changed member vanished"))
}

/// Takes `user` out of `team`: 404 when not a member, 409 (`LAST_ADMIN`) when they are its
/// only admin. What they made with the team stays the team's; the API tokens they made for
/// it are revoked.
pub fn remove_member(tx: &Conn, team: TeamId, user: UserId) -> Result<(), AppError> {
    tx.serialize_on(&format!("team-admins:{team}"))?;
    let removed = tx.execute(
        &format!(
            "DELETE FROM team_members WHERE team_id = ?1 AND user_id = ?2 AND {ANOTHER_ADMIN_REMAINS}"
        ),
        params![team, user],
    )?;
    if removed == 0 {
        return Err(refusal(tx, team, user)?);
    }
    // The team tokens they made act with their role in the team, which they no longer have.
    crate::identity::apikeys::store::revoke_made_for(tx, team, user, crate::core::db::now())?;
    Ok(())
}

/// Deletes `team` with its members, invitations and counts; the rows that name it otherwise
/// (documents, templates, API keys, webhooks) must be gone or handed on first.
pub fn delete(tx: &Conn, team: TeamId) -> Result<(), AppError> {
    tx.execute("DELETE FROM teams WHERE id = ?1", [team])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::db::memory;

    fn users(c: &Conn, n: i64) {
        for i in 1..=n {
            c.execute(
                "INSERT INTO users (id, email, username, name, password_hash, created_at, updated_at)
                 VALUES (?1, ?2, ?2, ?2, 'x', 0, 0)",
                params![i, format!("u{i}@x.org")],
            )
            .unwrap();
        }
    }

    #[test]
    fn a_team_keeps_at_least_one_admin_whatever_is_asked() {
        let c = memory();
        users(&c, 3);
        let t = insert(&c, "Sales", "sales", 1).unwrap();
        let (a, b, m) = (UserId::new(1), UserId::new(2), UserId::new(3));
        add_member(&c, t.id, a, TeamRole::Admin, 1).unwrap();
        add_member(&c, t.id, m, TeamRole::Member, 1).unwrap();

        for refused in [
            set_role(&c, t.id, a, TeamRole::Manager).map(|_| ()),
            remove_member(&c, t.id, a),
        ] {
            let e = refused.unwrap_err();
            assert_eq!((e.code(), e.to_string()), ("conflict", LAST_ADMIN.into()));
        }
        assert_eq!(role_of(&c, t.id, a).unwrap(), Some(TeamRole::Admin));
        // Re-affirming the only admin's role is no demotion.
        assert_eq!(
            set_role(&c, t.id, a, TeamRole::Admin).unwrap().role,
            TeamRole::Admin
        );

        add_member(&c, t.id, b, TeamRole::Admin, 1).unwrap();
        assert_eq!(
            set_role(&c, t.id, a, TeamRole::Member).unwrap().role,
            TeamRole::Member
        );
        assert_eq!(
            remove_member(&c, t.id, b).unwrap_err().to_string(),
            LAST_ADMIN,
            "b is the only admin now"
        );
        remove_member(&c, t.id, m).unwrap();
        assert_eq!(remove_member(&c, t.id, m).unwrap_err().code(), "not_found");
        assert_eq!(
            set_role(&c, t.id, m, TeamRole::Admin).unwrap_err().code(),
            "not_found"
        );
        let left: Vec<(UserId, TeamRole)> = members(&c, t.id)
            .unwrap()
            .into_iter()
            .map(|x| (x.user_id, x.role))
            .collect();
        assert_eq!(left, [(b, TeamRole::Admin), (a, TeamRole::Member)]);
    }

    #[test]
    fn slugs_are_unique_and_members_join_once() {
        let c = memory();
        users(&c, 1);
        let t = insert(&c, "Sales", "sales", 1).unwrap();
        let e = insert(&c, "Other", "sales", 2).unwrap_err();
        assert_eq!(
            (e.code(), e.to_string()),
            ("conflict", "the slug \"sales\" is taken".into())
        );
        add_member(&c, t.id, UserId::new(1), TeamRole::Member, 1).unwrap();
        let again = add_member(&c, t.id, UserId::new(1), TeamRole::Admin, 1).unwrap_err();
        assert_eq!(again.code(), "conflict");
        assert_eq!(by_slug(&c, " SALES ").unwrap().unwrap().id, t.id);
        assert_eq!(list(&c).unwrap(), vec![(t.clone(), 1)]);
        let mine = memberships(&c, UserId::new(1)).unwrap();
        assert_eq!(
            mine,
            vec![Membership {
                team: t,
                role: TeamRole::Member
            }]
        );
    }
}
