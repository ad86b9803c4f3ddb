//! SQL for `api_keys`.

use crate::core::db::{ToSql, params_from_iter};
use crate::core::ids::{TeamId, UserId};
use crate::core::owner::{Owner, Rows};
use crate::params;
use crate::{core::db::Conn, core::db::OptionalExtension};

use super::ApiKey;
use crate::core::crypto::SecretToken;
use crate::core::error::AppError;

const SELECT: &str = "SELECT k.id, k.user_id, u.email, k.name, k.key_prefix, k.created_at,
        k.expires_at, k.revoked_at, k.last_used_at, k.team_id, t.slug
   FROM api_keys k JOIN users u ON u.id = k.user_id LEFT JOIN teams t ON t.id = k.team_id";

fn from_row(r: &crate::core::db::Row<'_>) -> crate::core::db::Result<ApiKey> {
    Ok(ApiKey {
        id: r.get(0)?,
        user_id: r.get(1)?,
        user: r.get(2)?,
        name: r.get(3)?,
        prefix: r.get(4)?,
        created_at: r.get(5)?,
        expires_at: r.get(6)?,
        revoked_at: r.get(7)?,
        last_used_at: r.get(8)?,
        team_id: r.get(9)?,
        team: r.get(10)?,
    })
}

/// A new key of `owner`: made by its user, acting for its team when it has one.
pub fn insert(
    conn: &Conn,
    owner: &Owner,
    name: &str,
    key: &SecretToken,
    expires_at: Option<i64>,
    now: i64,
) -> Result<ApiKey, AppError> {
    let inserted_id = conn.insert(
        "INSERT INTO api_keys (user_id, name, key_hash, key_prefix, created_at, expires_at, team_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            owner.user(),
            name,
            key.hash(),
            super::display_prefix(key),
            now,
            expires_at,
            owner.team()
        ],
    )?;
    get(conn, inserted_id)?.ok_or_else(|| AppError::internal("inserted key vanished"))
}

pub fn get(conn: &Conn, id: i64) -> Result<Option<ApiKey>, AppError> {
    Ok(conn
        .query_row(&format!("{SELECT} WHERE k.id = ?1"), [id], from_row)
        .optional()?)
}

/// Which keys a list holds.
#[derive(Debug, Clone, Copy)]
pub enum Listed<'a> {
    /// Every key (the administrator's list).
    All,
    /// Those one user made, personal and for teams (the administrator's list of a user).
    MadeBy(UserId),
    /// Those of a workspace: a user's personal keys, or a team's.
    Of(&'a Owner),
}

/// The keys `which` names, oldest first.
pub fn list(conn: &Conn, which: Listed<'_>) -> Result<Vec<ApiKey>, AppError> {
    let mut args = Vec::new();
    let filter = match which {
        Listed::All => "1 = 1".to_string(),
        Listed::MadeBy(user) => {
            args.push(user.to_sql());
            "k.user_id = ?1".to_string()
        }
        Listed::Of(owner) => owner.clause("k", Rows::WithoutVisibility, &mut args),
    };
    let mut stmt = conn.prepare(&format!("{SELECT} WHERE {filter} ORDER BY k.id"))?;
    let rows = stmt.query_map(params_from_iter(args), from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Revokes a key (when `owner` is given, only one it reaches: another user's or another
/// team's is a 404); revoking twice is a 409.
pub fn revoke(conn: &Conn, id: i64, owner: Option<&Owner>, now: i64) -> Result<ApiKey, AppError> {
    let mut args = vec![id.to_sql()];
    let reached = match owner {
        Some(owner) => owner.clause("k", Rows::WithoutVisibility, &mut args),
        None => "1 = 1".to_string(),
    };
    let key = conn
        .query_row(
            &format!("{SELECT} WHERE k.id = ?1 AND {reached}"),
            params_from_iter(args),
            from_row,
        )
        .optional()?
        .ok_or_else(|| AppError::NotFound(format!("no API key with id {id}")))?;
    conn.note_revocation();
    let n = conn.execute(
        "UPDATE api_keys SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL",
        params![id, now],
    )?;
    let key = match n {
        0 => key,
        _ => get(conn, id)?.ok_or_else(|| AppError::internal("revoked key vanished"))?,
    };
    if n == 0 {
        return Err(AppError::Conflict(format!(
            "API key {id} is already revoked"
        )));
    }
    Ok(key)
}

/// Revokes the live keys `user` made for `team` at `now` (they left it); how many.
pub fn revoke_made_for(
    conn: &Conn,
    team: TeamId,
    user: UserId,
    now: i64,
) -> Result<usize, AppError> {
    conn.note_revocation();
    Ok(conn.execute(
        "UPDATE api_keys SET revoked_at = ?3
          WHERE team_id = ?1 AND user_id = ?2 AND revoked_at IS NULL",
        params![team, user, now],
    )?)
}

/// Deletes every key made for `team` (it ends); how many.
pub fn delete_of_team(conn: &Conn, team: TeamId) -> Result<usize, AppError> {
    conn.note_revocation();
    Ok(conn.execute("DELETE FROM api_keys WHERE team_id = ?1", [team])?)
}

/// Revokes every key `user` made (personal and for teams: they act as `user`) not revoked
/// yet at `now`; how many.
pub fn revoke_all(conn: &Conn, user: UserId, now: i64) -> Result<usize, AppError> {
    conn.note_revocation();
    Ok(conn.execute(
        "UPDATE api_keys SET revoked_at = ?2 WHERE user_id = ?1 AND revoked_at IS NULL",
        params![user, now],
    )?)
}

/// A live key of an enabled user, as presented.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Presented {
    pub id: i64,
    pub user_id: UserId,
    /// The team it was made in: it acts on the team's documents, templates and webhooks.
    pub team_id: Option<TeamId>,
    /// When the key expires (unix seconds), if it does.
    pub expires_at: Option<i64>,
    /// Its last use is older than a minute: `record_use` is due.
    pub stale: bool,
}

/// The key `presented` when it is live and its user enabled (read only).
pub fn find_live(conn: &Conn, presented: &str, now: i64) -> Result<Option<Presented>, AppError> {
    let hash = SecretToken::presented(presented).hash();
    let mut stmt = conn.prepare_cached(
        "SELECT k.id, k.user_id, k.last_used_at, k.expires_at, k.team_id
           FROM api_keys k JOIN users u ON u.id = k.user_id
          WHERE k.key_hash = ?1 AND k.revoked_at IS NULL
            AND (k.expires_at IS NULL OR k.expires_at > ?2) AND u.disabled_at IS NULL",
    )?;
    Ok(stmt
        .query_row(params![hash, now], |r| {
            let last_used: Option<i64> = r.get(2)?;
            Ok(Presented {
                id: r.get(0)?,
                user_id: r.get(1)?,
                team_id: r.get(4)?,
                expires_at: r.get(3)?,
                stale: crate::core::db::last_use_is_stale(last_used, now),
            })
        })
        .optional()?)
}

/// Records that key `id` was used at `now`.
pub fn record_use(conn: &Conn, id: i64, now: i64) -> Result<(), AppError> {
    conn.execute(
        "UPDATE api_keys SET last_used_at = ?2 WHERE id = ?1",
        params![id, now],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (Conn<'static>, UserId) {
        let c = crate::core::db::memory();
        let user = c
            .insert(
                "INSERT INTO users (email, username, name, password_hash, created_at, updated_at)
             VALUES ('a@x.org', 'a', 'A', 'x', 0, 0)",
                [],
            )
            .unwrap();
        (c, UserId::new(user))
    }

    fn owner(c: &Conn, presented: &str, now: i64) -> Option<UserId> {
        find_live(c, presented, now).unwrap().map(|k| k.user_id)
    }

    #[test]
    fn live_keys_authenticate_others_do_not() {
        let (c, user) = setup();
        let live = super::super::generate();
        insert(&c, &Owner::Personal(user), "live", &live, None, 100).unwrap();
        let found = find_live(&c, live.expose(), 200).unwrap().unwrap();
        assert_eq!((found.user_id, found.stale), (user, true));
        record_use(&c, found.id, 200).unwrap();
        assert!(
            get(&c, 1).unwrap().unwrap().last_used_at.is_some(),
            "use is recorded"
        );
        assert!(!find_live(&c, live.expose(), 230).unwrap().unwrap().stale);
        assert!(find_live(&c, live.expose(), 261).unwrap().unwrap().stale);
        assert_eq!(owner(&c, "api_wrong", 200), None);

        let expiring = super::super::generate();
        insert(&c, &Owner::Personal(user), "exp", &expiring, Some(150), 100).unwrap();
        assert_eq!(owner(&c, expiring.expose(), 149), Some(user));
        assert_eq!(owner(&c, expiring.expose(), 150), None);

        revoke(&c, 1, None, 300).unwrap();
        assert_eq!(owner(&c, live.expose(), 301), None);
    }

    #[test]
    fn a_disabled_users_keys_stop_at_once() {
        let (c, user) = setup();
        let key = super::super::generate();
        insert(&c, &Owner::Personal(user), "k", &key, None, 100).unwrap();
        crate::identity::users::store::set_disabled(&c, user, true, 110).unwrap();
        assert_eq!(owner(&c, key.expose(), 120), None);
        crate::identity::users::store::set_disabled(&c, user, false, 130).unwrap();
        assert_eq!(owner(&c, key.expose(), 140), Some(user));
    }
}
