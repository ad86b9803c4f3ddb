//! The one place that turns a request's credential into the principal it acts for: a live API
//! key (every scope) or an OAuth access token (its scopes) of an enabled user.

use super::verified::{self, Caches};
use crate::core::error::AppError;
use crate::core::ids::GrantId;
use crate::identity::scope::Scope;
use crate::{core::db::Conn, core::db::Db, core::db::now};
use crate::{
    identity::principal::ActsFor, identity::principal::Credentials, identity::principal::Principal,
    identity::principal::Via,
};
use std::time::Instant;

/// A use of a credential that is due to be recorded (at most once a minute each).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Use {
    ApiKey(i64),
    Grant(GrantId),
}

impl Use {
    fn record(self, conn: &Conn, now: i64) -> Result<(), AppError> {
        match self {
            Use::ApiKey(id) => crate::identity::apikeys::store::record_use(conn, id, now),
            Use::Grant(id) => super::tokens::store::record_grant_use(conn, id, now),
        }
    }
}

/// What `resolve` found: the principal, when its credential expires (unix seconds; `None` for
/// an API key that does not), and a use that is due to be recorded.
pub struct Resolved {
    pub who: Principal,
    pub expires_at: Option<i64>,
    pub used: Option<Use>,
}

/// Resolves `creds` to a principal at `now`: a live API key or access token of an enabled user.
/// Reads only.
pub fn resolve(conn: &Conn, creds: &Credentials, now: i64) -> Result<Resolved, AppError> {
    let secret = presented(creds)?;
    if secret.starts_with(crate::identity::apikeys::PREFIX) {
        let key = crate::identity::apikeys::store::find_live(conn, secret, now)?
            .ok_or_else(|| unauthorized("the API key is invalid, expired or revoked"))?;
        let who = Principal {
            user_id: key.user_id,
            scopes: Scope::ALL.to_vec(),
            via: Via::ApiKey,
            acts_for: key.team_id.map_or(ActsFor::Personal, ActsFor::Team),
        };
        return Ok(Resolved {
            who,
            expires_at: key.expires_at,
            used: key.stale.then_some(Use::ApiKey(key.id)),
        });
    }
    let access = super::tokens::store::authenticate_access(conn, secret, now)?
        .ok_or_else(|| unauthorized("the access token is invalid, expired or revoked"))?;
    let used = access.stale.then_some(Use::Grant(access.grant));
    let who = Principal {
        user_id: access.user_id,
        scopes: access.scopes,
        via: Via::AccessToken {
            client: access.client,
            grant: access.grant,
        },
        // An OAuth app acts for its user's own account: bookings and documents are theirs.
        acts_for: ActsFor::Personal,
    };
    Ok(Resolved {
        who,
        expires_at: Some(access.expires_at),
        used,
    })
}

fn unauthorized(m: &str) -> AppError {
    AppError::Unauthorized(m.to_string())
}

fn presented(creds: &Credentials) -> Result<&str, AppError> {
    creds
        .secret()
        .filter(|s| !s.is_empty())
        .ok_or_else(|| unauthorized("missing credentials: send Authorization: Bearer <token>"))
}

/// The principal behind `creds` when this process verified it within the last second and no
/// revocation was committed here since (`verified`), without touching the database.
fn remembered(db: &Db, caches: &Caches, creds: &Credentials, now: i64) -> Option<Principal> {
    let key = verified::key(presented(creds).ok()?);
    caches.bearers.get(&key, db.revocation_epoch(), now)
}

/// The principal behind `creds`: remembered (`verified`), or resolved on the read side, its
/// use recorded (at most once a minute) on the write side.
pub async fn authenticate(
    db: &Db,
    caches: &Caches,
    creds: Credentials,
) -> Result<Principal, AppError> {
    if let Some(who) = remembered(db, caches, &creds, now()) {
        return Ok(who);
    }
    read_as(db, caches, creds, |_, who| Ok(who.clone())).await
}

/// Resolves `creds` and runs `read` for that principal (the hot paths of app integrations):
/// with a remembered credential, `read` alone; otherwise in the same trip to the database,
/// after which the credential is remembered and its use recorded when due. Both are point
/// reads (`Db::point_read`): on SQLite they run without leaving the async thread.
pub async fn read_as<T, F>(
    db: &Db,
    caches: &Caches,
    creds: Credentials,
    read: F,
) -> Result<T, AppError>
where
    F: Fn(&Conn, &Principal) -> Result<T, AppError> + Send + 'static,
    T: Send + 'static,
{
    let t = now();
    if let Some(who) = remembered(db, caches, &creds, t) {
        return db.point_read(move |c| read(c, &who)).await;
    }
    let key = presented(&creds).ok().map(verified::key);
    let (since, epoch) = (Instant::now(), db.revocation_epoch());
    let (found, value) = db
        .point_read(move |c| {
            let found = resolve(c, &creds, t)?;
            let value = read(c, &found.who);
            Ok((found, value))
        })
        .await?;
    let Resolved {
        who,
        expires_at,
        used,
    } = found;
    if let Some(key) = key {
        let fresh = verified::Verified {
            value: who,
            expires_at,
            since,
            epoch,
        };
        caches.bearers.put(key, fresh, db.revocation_epoch());
    }
    if let Some(used) = used {
        db.write(move |c| used.record(c, t)).await?;
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::ids::UserId;

    /// An API key and an access token, each last used long ago, authenticated through the
    /// read side: their use is recorded through the write side.
    #[tokio::test]
    async fn stale_uses_are_recorded_on_the_write_side() {
        let tmp = tempfile::tempdir().unwrap();
        let db = Db::open(&tmp.path().join("t.db"), tmp.path(), 2).unwrap();
        let caches = Caches::new();
        let key = crate::identity::apikeys::generate();
        let key_text = key.expose().to_string();
        let access = crate::core::crypto::SecretToken::generate("", 43);
        let access_text = access.expose().to_string();
        let access_hash = access.hash();
        db.write(move |c| {
            c.execute_batch(
                "INSERT INTO users (id, email, username, name, password_hash, created_at, updated_at)
                 VALUES (1, 'a@x.org', 'a', 'A', 'x', 0, 0);
                 INSERT INTO oauth_clients (id, client_id, name, created_at) VALUES (1, 'c', 'C', 0);
                 INSERT INTO oauth_grants (id, user_id, client_id, scopes, created_at, last_used_at)
                 VALUES (1, 1, 1, 'READ_PROFILE', 0, 0);",
            )?;
            crate::identity::apikeys::store::insert(c, &crate::core::owner::Owner::Personal(UserId::new(1)), "k", &key, None, 0)?;
            c.execute(
                "INSERT INTO oauth_tokens (grant_id, kind, token_hash, scopes, created_at, expires_at)
                 VALUES (1, 'access', ?1, 'READ_PROFILE', 0, 9999999999)",
                [access_hash],
            )?;
            Ok(())
        })
        .await
        .unwrap();
        let bearer = |t: &str| Credentials {
            authorization: Some(format!("Bearer {t}")),
            query_api_key: None,
        };
        let by_key = authenticate(&db, &caches, bearer(&key_text)).await.unwrap();
        assert_eq!((by_key.user_id, by_key.via), (UserId::new(1), Via::ApiKey));
        let by_token = authenticate(&db, &caches, bearer(&access_text))
            .await
            .unwrap();
        assert_eq!(by_token.grant(), Some(GrantId::new(1)));
        let (key_used, grant_used): (Option<i64>, Option<i64>) = db
            .read(|c| {
                Ok((
                    c.query_row("SELECT last_used_at FROM api_keys", [], |r| r.get(0))?,
                    c.query_row("SELECT last_used_at FROM oauth_grants", [], |r| r.get(0))?,
                ))
            })
            .await
            .unwrap();
        assert!(key_used.is_some_and(|t| t > 60), "{key_used:?}");
        assert!(grant_used.is_some_and(|t| t > 60), "{grant_used:?}");
    }
}
