//! SQL for `team_invitations`. A row is pending while `used_at IS NULL AND expires_at > now`
//! (`used_at` is when it was spent: accepted, replaced or revoked);
//! a token is kept only as its SHA-256 (`SecretToken::hash`). Using one up is one guarded
//! `UPDATE` whose WHERE is the whole precondition (live, and for the caller's address), so two
//! tabs or two nodes accepting at once cannot both succeed.

use crate::core::db::{Conn, OptionalExtension, Row};
use crate::core::error::AppError;
use crate::core::ids::{TeamId, UserId};
use crate::params;

use super::super::TeamRole;

/// A pending invitation, as its team's admins list it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Invitation {
    pub id: i64,
    pub team_id: TeamId,
    pub email: String,
    pub role: TeamRole,
    /// Who invited: `None` for the admin CLI, or an account deleted since.
    pub invited_by: Option<UserId>,
    pub inviter_name: Option<String>,
    pub created_at: i64,
    pub expires_at: i64,
}

const INVITATION: &str = "SELECT i.id, i.team_id, i.email, i.role, i.invited_by, u.name,
       i.created_at, i.expires_at
  FROM team_invitations i LEFT JOIN users u ON u.id = i.invited_by";

fn invitation(r: &Row<'_>) -> crate::core::db::Result<Invitation> {
    Ok(Invitation {
        id: r.get(0)?,
        team_id: r.get(1)?,
        email: r.get(2)?,
        role: r.get(3)?,
        invited_by: r.get(4)?,
        inviter_name: r.get(5)?,
        created_at: r.get(6)?,
        expires_at: r.get(7)?,
    })
}

/// What a new invitation holds.
pub struct NewInvitation<'a> {
    pub team: TeamId,
    pub email: &'a str,
    pub role: TeamRole,
    pub invited_by: Option<UserId>,
    pub token_hash: &'a str,
    pub expires_at: i64,
}

/// Stores `new`; returns its id.
pub fn insert(tx: &Conn, new: &NewInvitation<'_>, now: i64) -> Result<i64, AppError> {
    Ok(tx.insert(
        "INSERT INTO team_invitations
                (team_id, email, role, token_hash, invited_by, created_at, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            new.team,
            new.email,
            new.role,
            new.token_hash,
            new.invited_by,
            now,
            new.expires_at
        ],
    )?)
}

/// Whether an account with `email` (any case) is a member of `team`.
pub fn is_member(c: &Conn, team: TeamId, email: &str) -> Result<bool, AppError> {
    Ok(c.query_row(
        "SELECT EXISTS (SELECT 1 FROM team_members m JOIN users u ON u.id = m.user_id
                         WHERE m.team_id = ?1 AND lower(u.email) = lower(?2))",
        params![team, email],
        |r| r.get(0),
    )?)
}

/// `team`'s pending invitations, newest first.
pub fn pending(c: &Conn, team: TeamId, now: i64) -> Result<Vec<Invitation>, AppError> {
    let mut stmt = c.prepare(&format!(
        "{INVITATION} WHERE i.team_id = ?1 AND i.used_at IS NULL AND i.expires_at > ?2
          ORDER BY i.created_at DESC, i.id DESC"
    ))?;
    let rows = stmt.query_map(params![team, now], invitation)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// How many invitations of `team` are pending.
pub fn count_pending(c: &Conn, team: TeamId, now: i64) -> Result<i64, AppError> {
    Ok(c.query_row(
        "SELECT count(*) FROM team_invitations
          WHERE team_id = ?1 AND used_at IS NULL AND expires_at > ?2",
        params![team, now],
        |r| r.get(0),
    )?)
}

/// Spends `team`'s pending invitation for `email` (any case), replaced or revoked: its link
/// stops working, and the row stays a while to count in `made_since`. Whether there was one.
pub fn retire_pending(tx: &Conn, team: TeamId, email: &str, now: i64) -> Result<bool, AppError> {
    Ok(tx.execute(
        "UPDATE team_invitations SET used_at = ?3
          WHERE team_id = ?1 AND lower(email) = lower(?2) AND used_at IS NULL AND expires_at > ?3",
        params![team, email, now],
    )? > 0)
}

/// Invitations of `team` made for `email` (any case) after `since`, whatever became of them:
/// how many, and when the oldest of them was made.
pub fn made_since(
    c: &Conn,
    team: TeamId,
    email: &str,
    since: i64,
) -> Result<(i64, Option<i64>), AppError> {
    Ok(c.query_row(
        "SELECT count(*), min(created_at) FROM team_invitations
          WHERE team_id = ?1 AND lower(email) = lower(?2) AND created_at > ?3",
        params![team, email, since],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?)
}

/// Deletes `team`'s invitations that were used or expired before `before`: of no use to
/// anyone, they go while an admin is here.
pub fn delete_spent(tx: &Conn, team: TeamId, before: i64) -> Result<(), AppError> {
    tx.execute(
        "DELETE FROM team_invitations
          WHERE team_id = ?1 AND (used_at < ?2 OR (used_at IS NULL AND expires_at < ?2))",
        params![team, before],
    )?;
    Ok(())
}

/// The pending invitation whose token hashes to `token_hash`.
pub fn live(c: &Conn, token_hash: &str, now: i64) -> Result<Option<Invitation>, AppError> {
    Ok(c.query_row(
        &format!(
            "{INVITATION} WHERE i.token_hash = ?1 AND i.used_at IS NULL AND i.expires_at > ?2"
        ),
        params![token_hash, now],
        invitation,
    )
    .optional()?)
}

/// Uses up the pending invitation whose token hashes to `token_hash` when it is for `email`
/// (any case): its team and role, or `None` when no row met all of that.
pub fn use_up(
    tx: &Conn,
    token_hash: &str,
    email: &str,
    now: i64,
) -> Result<Option<(TeamId, TeamRole)>, AppError> {
    Ok(tx
        .query_row(
            "UPDATE team_invitations SET used_at = ?3
              WHERE token_hash = ?1 AND used_at IS NULL AND expires_at > ?3
                AND lower(email) = lower(?2)
             RETURNING team_id, role",
            params![token_hash, email, now],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::db::memory;

    #[test]
    fn a_token_is_used_once_by_its_address_while_it_lives() {
        let c = memory();
        c.execute(
            "INSERT INTO teams (id, name, slug, created_at, updated_at) VALUES (1, 'S', 'sss', 0, 0)",
            [],
        )
        .unwrap();
        let team = TeamId::new(1);
        let new = NewInvitation {
            team,
            email: "Bo@x.org",
            role: TeamRole::Manager,
            invited_by: None,
            token_hash: "h1",
            expires_at: 100,
        };
        insert(&c, &new, 10).unwrap();
        assert_eq!(count_pending(&c, team, 50).unwrap(), 1);
        assert_eq!(count_pending(&c, team, 100).unwrap(), 0, "expired at 100");
        assert!(
            use_up(&c, "h1", "cy@x.org", 50).unwrap().is_none(),
            "another address"
        );
        assert!(
            use_up(&c, "h1", "bo@x.org", 100).unwrap().is_none(),
            "expired"
        );
        assert_eq!(
            use_up(&c, "h1", "BO@x.org", 50).unwrap(),
            Some((team, TeamRole::Manager))
        );
        assert!(use_up(&c, "h1", "bo@x.org", 51).unwrap().is_none(), "used");
        assert!(live(&c, "h1", 51).unwrap().is_none());
        assert!(
            !retire_pending(&c, team, "bo@x.org", 51).unwrap(),
            "used is not pending"
        );
        assert_eq!(made_since(&c, team, "BO@x.org", 9).unwrap(), (1, Some(10)));
        assert_eq!(made_since(&c, team, "bo@x.org", 10).unwrap(), (0, None));
        delete_spent(&c, team, 60).unwrap();
        let left: i64 = c
            .query_row("SELECT count(*) FROM team_invitations", [], |r| r.get(0))
            .unwrap();
        assert_eq!(left, 0);
    }
}
