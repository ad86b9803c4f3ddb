//! Who a request acts for: a user, through an API key (every scope) or an access token (its
//! scopes), and the one place that turns a credential into that.

use crate::db::Conn;

use super::scope::Scope;
use crate::db::{Db, now};
use crate::error::AppError;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    ApiKey,
    /// An OAuth access token issued to this client (row id) under this grant (row id).
    AccessToken {
        client: i64,
        grant: i64,
    },
}

#[derive(Debug, Clone)]
pub struct Principal {
    pub user_id: i64,
    pub scopes: Vec<Scope>,
    pub via: Via,
}

impl Principal {
    /// Ok when the credential carries `scope`; else 403 `insufficient_scope`.
    pub fn require(&self, scope: Scope) -> Result<(), AppError> {
        if self.scopes.contains(&scope) {
            Ok(())
        } else {
            Err(AppError::InsufficientScope(scope.as_str()))
        }
    }

    /// The OAuth grant behind the credential; `None` for the user's own API key.
    pub fn grant(&self) -> Option<i64> {
        match self.via {
            Via::ApiKey => None,
            Via::AccessToken { grant, .. } => Some(grant),
        }
    }

    /// Whether the caller may see recipients' signing links (`token`, `signingUrl`). A link is
    /// the recipient's credential: the owner's API key sees it, a third-party app's
    /// access token never does, whatever its scopes.
    pub fn sees_signing_links(&self) -> bool {
        self.via == Via::ApiKey
    }

    /// Whether the caller may read documents and templates (READ_DOCUMENT; an API key has
    /// every scope). A caller that may only write gets receipts (`documents::receipt`).
    pub fn reads_documents(&self) -> bool {
        self.scopes.contains(&Scope::ReadDocument)
    }
}

/// A credential as presented: the `Authorization` header value, or an `apiKey` query parameter
/// where the endpoint accepts one.
#[derive(Debug, Clone, Default)]
pub struct Credentials {
    pub authorization: Option<String>,
    pub query_api_key: Option<String>,
}

impl Credentials {
    /// The secret presented: `Bearer <x>`, a bare `api_...` key, or the query key.
    pub fn secret(&self) -> Option<&str> {
        if let Some(h) = self.authorization.as_deref() {
            let h = h.trim();
            if let Some((scheme, rest)) = h.split_once(' ')
                && scheme.eq_ignore_ascii_case("bearer")
            {
                return Some(rest.trim());
            }
            if h.starts_with(crate::apikeys::PREFIX) {
                return Some(h);
            }
            return None;
        }
        self.query_api_key.as_deref().map(str::trim)
    }
}

/// A use of a credential that is due to be recorded (at most once a minute each).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Use {
    ApiKey(i64),
    Grant(i64),
}

impl Use {
    fn record(self, conn: &Conn, now: i64) -> Result<(), AppError> {
        match self {
            Use::ApiKey(id) => crate::apikeys::store::record_use(conn, id, now),
            Use::Grant(id) => super::tokens::store::record_grant_use(conn, id, now),
        }
    }
}

/// Resolves `creds` to a principal at `now`: a live API key or access token of an enabled user.
/// Reads only; a use that is due to be recorded comes back as well.
pub fn resolve(
    conn: &Conn,
    creds: &Credentials,
    now: i64,
) -> Result<(Principal, Option<Use>), AppError> {
    let unauthorized = |m: &str| AppError::Unauthorized(m.to_string());
    let secret = creds
        .secret()
        .filter(|s| !s.is_empty())
        .ok_or_else(|| unauthorized("missing credentials: send Authorization: Bearer <token>"))?;
    if secret.starts_with(crate::apikeys::PREFIX) {
        let key = crate::apikeys::store::find_live(conn, secret, now)?
            .ok_or_else(|| unauthorized("the API key is invalid, expired or revoked"))?;
        let principal = Principal {
            user_id: key.user_id,
            scopes: Scope::ALL.to_vec(),
            via: Via::ApiKey,
        };
        return Ok((principal, key.stale.then_some(Use::ApiKey(key.id))));
    }
    let access = super::tokens::store::authenticate_access(conn, secret, now)?
        .ok_or_else(|| unauthorized("the access token is invalid, expired or revoked"))?;
    let used = access.stale.then_some(Use::Grant(access.grant));
    let principal = Principal {
        user_id: access.user_id,
        scopes: access.scopes,
        via: Via::AccessToken {
            client: access.client,
            grant: access.grant,
        },
    };
    Ok((principal, used))
}

/// The principal behind `creds`: resolved on the read side, its use recorded (at most once a
/// minute) on the write side.
pub async fn authenticate(db: &Db, creds: Credentials) -> Result<Principal, AppError> {
    read_as(db, creds, |_, who| Ok(who.clone())).await
}

/// Resolves `creds` and runs `read` for that principal in the same trip to the database (the
/// hot paths of app integrations), then records the credential's use when due.
pub async fn read_as<T, F>(db: &Db, creds: Credentials, read: F) -> Result<T, AppError>
where
    F: FnOnce(&Conn, &Principal) -> Result<T, AppError> + Send + 'static,
    T: Send + 'static,
{
    let t = now();
    let (value, used) = db
        .read(move |c| {
            let (who, used) = resolve(c, &creds, t)?;
            Ok((read(c, &who)?, used))
        })
        .await?;
    if let Some(used) = used {
        db.write(move |c| used.record(c, t)).await?;
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn creds(h: Option<&str>, q: Option<&str>) -> Credentials {
        Credentials {
            authorization: h.map(String::from),
            query_api_key: q.map(String::from),
        }
    }

    /// An API key and an access token, each last used long ago, authenticated through the
    /// read side: their use is recorded through the write side.
    #[tokio::test]
    async fn stale_uses_are_recorded_on_the_write_side() {
        let tmp = tempfile::tempdir().unwrap();
        let db = Db::open(&tmp.path().join("t.db"), tmp.path(), 2).unwrap();
        let key = crate::apikeys::generate();
        let key_text = key.expose().to_string();
        let access = crate::crypto::SecretToken::generate("", 43);
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
            crate::apikeys::store::insert(c, 1, "k", &key, None, 0)?;
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
        let by_key = authenticate(&db, bearer(&key_text)).await.unwrap();
        assert_eq!((by_key.user_id, by_key.via), (1, Via::ApiKey));
        let by_token = authenticate(&db, bearer(&access_text)).await.unwrap();
        assert_eq!(by_token.grant(), Some(1));
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

    #[test]
    fn secrets_come_from_bearer_bare_keys_or_the_query() {
        assert_eq!(creds(Some("Bearer abc"), None).secret(), Some("abc"));
        assert_eq!(creds(Some("bearer  abc "), None).secret(), Some("abc"));
        assert_eq!(creds(Some("api_xyz"), None).secret(), Some("api_xyz"));
        assert_eq!(creds(Some("Basic Zm9v"), None).secret(), None);
        assert_eq!(creds(None, Some("api_q")).secret(), Some("api_q"));
        assert_eq!(creds(None, None).secret(), None);
    }

    #[test]
    fn scope_checks() {
        let p = Principal {
            user_id: 1,
            scopes: vec![Scope::ReadProfile],
            via: Via::AccessToken {
                client: 1,
                grant: 7,
            },
        };
        assert!(p.require(Scope::ReadProfile).is_ok());
        assert_eq!(p.grant(), Some(7));
        assert!(!p.sees_signing_links());
        let key = Principal {
            user_id: 1,
            scopes: Scope::ALL.to_vec(),
            via: Via::ApiKey,
        };
        assert_eq!(key.grant(), None);
        assert!(key.sees_signing_links());
        assert!(matches!(
            p.require(Scope::ReadBooking),
            Err(AppError::InsufficientScope("READ_BOOKING"))
        ));
    }
}
