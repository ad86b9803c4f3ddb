//! The use cases of the endpoints apps call with their client credentials (`/token`,
//! `/refreshToken`, `/revoke`, `/introspect`): which client calls, what it asks, and the one
//! transaction that answers. Protocol refusals are `OAuthError`s (RFC 6749 5.2); `AppError` is
//! left for the server's own failures.

use crate::core::context::Context;
use crate::core::ids::ClientId;
use std::collections::HashMap;

use crate::core::db::{Conn, Dialect};

use super::clients::Client;
use super::oidc::{IdToken, IdTokens};
use super::tokens::store::{self, Introspection};
use super::tokens::{self, Issued, Lifetimes, OAuthError};
use super::verified::{Caches, Verified};
use crate::core::error::AppError;
use crate::{core::db::Db, core::db::now};
use crate::{identity::scope, identity::scope::Scope};

/// Which endpoint was called.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    Token,
    /// The seed's `/refreshToken`: the refresh grant only, the token also as `Bearer`.
    Refresh,
    Revoke,
    Introspect,
}

/// A call as the HTTP layer read it.
#[derive(Debug, Clone)]
pub struct Request {
    pub endpoint: Endpoint,
    /// The body's fields (form-encoded or JSON).
    pub fields: HashMap<String, String>,
    /// `(client_id, secret)` from `Authorization: Basic`.
    pub basic: Option<(String, String)>,
    /// The token of `Authorization: Bearer`: seed clients send their refresh token so on
    /// `/refreshToken`.
    pub bearer: Option<String>,
}

/// The server's token settings (`--access-token-ttl` and the other lifetimes,
/// `--rotate-refresh-tokens`).
#[derive(Debug, Clone, Copy)]
pub struct Policy {
    pub lifetimes: Lifetimes,
    pub rotate_refresh_tokens: bool,
}

/// Tokens handed out by a grant.
#[derive(Debug)]
pub struct Tokens {
    pub issued: Issued,
    /// OpenID Connect: the ID token, when a code granted `openid`.
    pub id_token: Option<String>,
    /// The refresh token the client goes on using when none was issued: a refresh that does
    /// not rotate answers with the presented token (it is the client's own), so that every
    /// refresh answer carries `refresh_token`, as the scheduling service's clients expect.
    pub kept_refresh: Option<String>,
}

impl Tokens {
    /// The `refresh_token` of the answer, if it has one.
    pub fn refresh_token(&self) -> Option<&str> {
        self.issued
            .refresh
            .as_ref()
            .map(|r| r.expose())
            .or(self.kept_refresh.as_deref())
    }
}

/// A successful call.
#[derive(Debug)]
pub enum Answer {
    Tokens(Tokens),
    /// Revoked, or not this client's token to revoke (RFC 7009 2.2: the same answer).
    Revoked,
    /// What the client may learn about the token; `None`: not active.
    Introspected(Option<Introspection>),
}

/// The outer `Result` is a server failure; the inner one the protocol's answer (a refusal still
/// commits what it changed, such as the revocation that follows a reused code).
pub type Outcome = Result<Result<Answer, OAuthError>, AppError>;

/// What an authenticated client asks, checked for the parameters it needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ask {
    Code {
        code: String,
        redirect_uri: Option<String>,
        verifier: Option<String>,
    },
    Refresh {
        token: String,
        scopes: Option<scope::Spelled>,
        rotate: bool,
    },
    Revoke(String),
    Introspect(String),
}

/// Who signs ID tokens, and as which issuer.
#[derive(Clone)]
pub struct OpenId {
    pub tokens: std::sync::Arc<IdTokens>,
    pub issuer: String,
}

/// Answers `req`: authenticates the client (a point read), then runs what it asks:
/// introspection in the same read, the rest on the write side. A code redeemed for `openid`
/// also gets its ID token. `caches` is the server's memory of clients and introspections.
pub async fn answer(
    ctx: &Context,
    caches: &Caches,
    policy: Policy,
    openid: &OpenId,
    req: Request,
) -> Outcome {
    let (client_id, secret) = match client_credentials(req.basic.as_ref(), &req.fields) {
        Ok(c) => c,
        Err(e) => return Ok(Err(e)),
    };
    if req.endpoint == Endpoint::Introspect {
        return introspect(&ctx.db, caches, policy, client_id, secret, req).await;
    }
    let life = policy.lifetimes;
    let admitted = admitted(&ctx.db, caches, client_id, secret.as_deref(), &req, policy).await?;
    let (client, ask) = match admitted {
        Ok(admitted) => admitted,
        Err(e) => return Ok(Err(e)),
    };
    let row = client.row_id;
    let ask = match ask {
        // On PostgreSQL the commonest refresh (no rotation, no narrower scopes) is one
        // statement, committed on its own; a token it cannot use goes the whole way below,
        // which says why (and ends a grant whose rotated-out token came back).
        Ask::Refresh {
            token,
            scopes: None,
            rotate: false,
        } if ctx.db.dialect() == Dialect::Postgres => {
            if let Some(issued) = refresh_in_one(&ctx.db, row, &token, life, now()).await? {
                return Ok(Ok(Answer::Tokens(Tokens {
                    issued,
                    id_token: None,
                    kept_refresh: Some(token),
                })));
            }
            Ask::Refresh {
                token,
                scopes: None,
                rotate: false,
            }
        }
        other => other,
    };
    let outcome = ctx
        .db
        .write(move |tx| run(tx, row, ask, life, now()))
        .await?;
    match outcome {
        Ok(Answer::Tokens(mut t)) => {
            t.id_token = id_token(&ctx.db, openid, &client, &t.issued, life).await?;
            Ok(Ok(Answer::Tokens(t)))
        }
        other => Ok(other),
    }
}

/// The client `client_id` names when `secret` proves it, and what `req` asks of it (`admit`).
/// The client is a point read, off the write side, so that calls with wrong credentials never
/// reach it (on SQLite, never queue on the one writer thread). No read at all when the client
/// proved itself here within the last second and no revocation (a rotated secret, a removed
/// client) was committed here since (`verified::Caches::clients`); its secret is checked at every
/// request all the same, and nothing is remembered of a client that did not prove itself.
async fn admitted(
    db: &Db,
    caches: &Caches,
    client_id: String,
    secret: Option<&str>,
    req: &Request,
    policy: Policy,
) -> Result<Result<(Client, Ask), OAuthError>, AppError> {
    let key = super::verified::key(&client_id);
    if let Some(client) = caches.clients.get(&key, db.revocation_epoch(), now()) {
        return Ok(admit(Some(client), secret, req, policy));
    }
    let (since, epoch) = (std::time::Instant::now(), db.revocation_epoch());
    let client = db
        .point_read(move |c| super::clients::store::get(c, &client_id))
        .await?;
    let admitted = admit(client, secret, req, policy);
    if let Ok((client, _)) = &admitted {
        let fresh = Verified {
            value: client.clone(),
            expires_at: None,
            since,
            epoch,
        };
        caches.clients.put(key, fresh, db.revocation_epoch());
    }
    Ok(admitted)
}

/// Introspection: only reads. The client and the token in one query, one trip to the
/// database, or none when this process showed this client this live access token within the
/// last second and no revocation was committed here since (`verified::Caches::introspected`). Either
/// way the client proves itself (`admit`) before anything about the token is answered, and a
/// request without a token is refused there.
async fn introspect(
    db: &Db,
    caches: &Caches,
    policy: Policy,
    client_id: String,
    secret: Option<String>,
    req: Request,
) -> Outcome {
    let token = req.fields.get("token").cloned();
    let key = token.as_deref().map(super::verified::key);
    let t = now();
    let remembered = key
        .and_then(|k| caches.introspected.get(&k, db.revocation_epoch(), t))
        .filter(|(client, _)| client.client_id == client_id);
    if let Some((client, found)) = remembered {
        return Ok(admit(Some(client), secret.as_deref(), &req, policy)
            .map(|_| Answer::Introspected(Some(found))));
    }
    let (since, epoch) = (std::time::Instant::now(), db.revocation_epoch());
    let (client, found) = db
        .point_read(move |c| match &token {
            Some(tok) => Ok(store::client_and_introspection(c, &client_id, tok, t)?
                .map_or((None, None), |(client, found)| (Some(client), found))),
            None => Ok((super::clients::store::get(c, &client_id)?, None)),
        })
        .await?;
    let (client, _) = match admit(client, secret.as_deref(), &req, policy) {
        Ok(admitted) => admitted,
        Err(e) => return Ok(Err(e)),
    };
    if let (Some(key), Some(shown)) = (key, &found)
        && shown.kind == store::Kind::Access
    {
        let value = (client, shown.clone());
        let fresh = Verified {
            value,
            expires_at: Some(shown.expires_at),
            since,
            epoch,
        };
        caches.introspected.put(key, fresh, db.revocation_epoch());
    }
    Ok(Ok(Answer::Introspected(found)))
}

/// A refresh without rotation or narrower scopes on PostgreSQL: one statement, committed on its
/// own (`store::refresh_in_one_statement`), then the grant's use when a minute old. `None` when
/// the token cannot be used: nothing was written, and the whole refresh (`run`) says why.
pub(crate) async fn refresh_in_one(
    db: &Db,
    client: ClientId,
    token: &str,
    life: Lifetimes,
    t: i64,
) -> Result<Option<Issued>, AppError> {
    // Made once: the statement may be prepared and answered over two runs of the closure
    // (`Db::write_one`), which must ask the same both times.
    let (presented, access) = (token.to_string(), tokens::new_access().expose().to_string());
    let done = db
        .write_one(move |c| {
            store::refresh_in_one_statement(c, client, &presented, &access, life, t)
        })
        .await?;
    let Some(done) = done else { return Ok(None) };
    if crate::core::db::last_use_is_stale(done.grant_used, t) {
        let grant = done.grant;
        db.write_one(move |c| store::record_grant_use(c, grant, t))
            .await?;
    }
    Ok(Some(done.issued))
}

/// The ID token for tokens that a code issued with `openid`; `None` otherwise.
async fn id_token(
    db: &Db,
    openid: &OpenId,
    client: &Client,
    issued: &Issued,
    life: Lifetimes,
) -> Result<Option<String>, AppError> {
    let Some(who) = issued.identity.clone() else {
        return Ok(None);
    };
    if !issued.scopes.contains(&Scope::OpenId) {
        return Ok(None);
    }
    let user = db
        .read(move |c| crate::identity::users::store::get(c, who.user))
        .await?
        .ok_or_else(|| AppError::internal("the code's user is gone"))?;
    let (openid, client_id, scopes) = (
        openid.clone(),
        client.client_id.clone(),
        issued.scopes.clone(),
    );
    tokio::task::spawn_blocking(move || {
        openid
            .tokens
            .issue(&IdToken {
                issuer: &openid.issuer,
                client_id: &client_id,
                user: &user,
                scopes: &scopes,
                nonce: who.nonce.as_deref(),
                auth_time: who.auth_time,
                now: now(),
                lifetime: life.access,
            })
            .map(Some)
    })
    .await
    .map_err(|e| AppError::internal(format!("ID token task failed: {e}")))?
}

/// The client `secret` proves, and what `req` asks of it.
fn admit(
    client: Option<Client>,
    secret: Option<&str>,
    req: &Request,
    policy: Policy,
) -> Result<(Client, Ask), OAuthError> {
    let client = authenticate_client(client, secret)?;
    let ask = ask(req, &client, policy)?;
    Ok((client, ask))
}

/// The client id and secret presented: by HTTP Basic or in the body, never both.
pub fn client_credentials(
    basic: Option<&(String, String)>,
    fields: &HashMap<String, String>,
) -> Result<(String, Option<String>), OAuthError> {
    match (basic, fields.get("client_id"), fields.get("client_secret")) {
        (Some(_), _, Some(_)) => Err(OAuthError::invalid_request(
            "use one client authentication method, not two",
        )),
        (Some((id, s)), body_id, None) => {
            if body_id.is_some_and(|b| b != id) {
                return Err(OAuthError::invalid_request(
                    "client_id differs from the Basic credentials",
                ));
            }
            Ok((id.clone(), Some(s.clone())))
        }
        (None, Some(id), s) => Ok((id.clone(), s.cloned())),
        (None, None, _) => Err(OAuthError::invalid_client(
            "client authentication is required",
        )),
    }
}

/// The client, when `secret` proves it: confidential clients need theirs, public ones have none.
pub fn authenticate_client(
    client: Option<Client>,
    secret: Option<&str>,
) -> Result<Client, OAuthError> {
    let bad = || OAuthError::invalid_client("unknown client or wrong client credentials");
    let client = client.ok_or_else(bad)?;
    match (client.public, secret) {
        (true, None) => Ok(client),
        (true, Some(_)) => Err(OAuthError::invalid_client(
            "this public client has no secret",
        )),
        (false, Some(s)) if client.secret_matches(s) => Ok(client),
        (false, _) => Err(bad()),
    }
}

/// What `req` asks of the endpoint, for `client` under `policy`.
pub fn ask(req: &Request, client: &Client, policy: Policy) -> Result<Ask, OAuthError> {
    let f = &req.fields;
    let grant_type = f.get("grant_type").map(String::as_str);
    let rotate = client.public || policy.rotate_refresh_tokens;
    match req.endpoint {
        Endpoint::Token => match grant_type {
            Some("authorization_code") => {
                let code = f
                    .get("code")
                    .cloned()
                    .ok_or_else(|| OAuthError::invalid_request("code is required"))?;
                Ok(Ask::Code {
                    code,
                    redirect_uri: f.get("redirect_uri").cloned(),
                    verifier: f.get("code_verifier").cloned(),
                })
            }
            Some("refresh_token") => refresh(f, f.get("refresh_token").cloned(), rotate),
            Some(other) => Err(OAuthError::new(
                "unsupported_grant_type",
                format!("grant_type {other:?} is not supported"),
            )),
            None => Err(OAuthError::invalid_request("grant_type is required")),
        },
        Endpoint::Refresh => match grant_type {
            Some("refresh_token") | None => {
                let presented = f.get("refresh_token").cloned().or(req.bearer.clone());
                refresh(f, presented, rotate)
            }
            Some(other) => Err(OAuthError::new(
                "unsupported_grant_type",
                format!("this endpoint takes grant_type=refresh_token, not {other:?}"),
            )),
        },
        Endpoint::Revoke => token_field(f).map(Ask::Revoke),
        Endpoint::Introspect => token_field(f).map(Ask::Introspect),
    }
}

fn token_field(f: &HashMap<String, String>) -> Result<String, OAuthError> {
    f.get("token")
        .cloned()
        .ok_or_else(|| OAuthError::invalid_request("token is required"))
}

/// The refresh grant's parameters: the token presented and the narrower scopes asked, if any.
fn refresh(
    f: &HashMap<String, String>,
    presented: Option<String>,
    rotate: bool,
) -> Result<Ask, OAuthError> {
    let token = presented
        .filter(|t| !t.is_empty())
        .ok_or_else(|| OAuthError::invalid_request("refresh_token is required"))?;
    let scopes = match f.get("scope").map(|s| scope::parse_spelled(s)) {
        None => None,
        Some(Ok(s)) => Some(s),
        Some(Err(e)) => return Err(OAuthError::invalid_scope(e.public_message())),
    };
    Ok(Ask::Refresh {
        token,
        scopes,
        rotate,
    })
}

/// Runs `ask` for client `client` (row id) at `now`, inside the caller's transaction.
pub fn run(conn: &Conn, client: ClientId, ask: Ask, life: Lifetimes, now: i64) -> Outcome {
    match ask {
        Ask::Code {
            code,
            redirect_uri,
            verifier,
        } => {
            let redemption = store::Redemption {
                client,
                code: &code,
                redirect_uri: redirect_uri.as_deref(),
                code_verifier: verifier.as_deref(),
            };
            let issued = store::redeem_code(conn, &redemption, life, now)?;
            Ok(issued.map(|issued| {
                Answer::Tokens(Tokens {
                    issued,
                    id_token: None,
                    kept_refresh: None,
                })
            }))
        }
        Ask::Refresh {
            token,
            scopes,
            rotate,
        } => {
            let req = store::Refresh {
                client,
                refresh_token: &token,
                scopes,
                rotate,
            };
            let issued = store::refresh(conn, &req, life, now)?;
            Ok(issued.map(|issued| {
                Answer::Tokens(Tokens {
                    issued,
                    id_token: None,
                    kept_refresh: (!rotate).then_some(token),
                })
            }))
        }
        Ask::Revoke(token) => {
            store::revoke_token(conn, client, &token, now)?;
            Ok(Ok(Answer::Revoked))
        }
        Ask::Introspect(token) => Ok(Ok(Answer::Introspected(store::introspect(
            conn, client, &token, now,
        )?))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::ids::UserId;
    use crate::oauth::clients::Registration;
    use crate::{oauth::tokens, oauth::tokens::store::NewCode};

    const LIFE: Lifetimes = Lifetimes {
        access: 3600,
        refresh: 86_400,
        code: 600,
    };
    const REDIRECT: &str = "https://app.example/cb";

    fn fields(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn request(endpoint: Endpoint, pairs: &[(&str, &str)]) -> Request {
        Request {
            endpoint,
            fields: fields(pairs),
            basic: None,
            bearer: None,
        }
    }

    /// A user, a confidential client and a code the user allowed it: `(client row, code)`.
    fn allowed(c: &Conn) -> (ClientId, String) {
        allowed_at(c, 0)
    }

    /// `allowed`, the code made at `at`.
    fn allowed_at(c: &Conn, at: i64) -> (ClientId, String) {
        c.execute_batch(
            "INSERT INTO users (id, email, username, name, password_hash, created_at, updated_at)
             VALUES (1, 'a@x.org', 'a', 'A', 'x', 0, 0);",
        )
        .unwrap();
        let reg =
            Registration::validate("App", &[REDIRECT.to_string()], None, None, false, &[]).unwrap();
        let (client, _) = crate::oauth::clients::store::insert(c, &reg, 0).unwrap();
        let scopes = [Scope::ReadProfile];
        let grant = store::upsert_grant(c, UserId::new(1), client.row_id, &scopes, at).unwrap();
        let code = tokens::new_code();
        let new = NewCode {
            grant,
            redirect_uri: REDIRECT,
            scopes: &scope::join(&scopes),
            code_challenge: None,
            nonce: None,
            redirect_uri_sent: true,
            auth_time: Some(0),
        };
        store::insert_code(c, &code, &new, at, LIFE.code).unwrap();
        (client.row_id, code.expose().to_string())
    }

    fn redeem(code: &str) -> Ask {
        Ask::Code {
            code: code.to_string(),
            redirect_uri: Some(REDIRECT.to_string()),
            verifier: None,
        }
    }

    /// Rotates `client_id`'s secret as the CLI does (a revocation): the new secret.
    async fn rotated(db: &Db, client_id: &str) -> String {
        let id = client_id.to_string();
        db.write(move |c| {
            Ok(crate::oauth::clients::store::rotate_secret(c, &id, now())?
                .expose()
                .to_string())
        })
        .await
        .unwrap()
    }

    fn issued_tokens(outcome: Outcome) -> Tokens {
        match outcome.unwrap() {
            Ok(Answer::Tokens(t)) => t,
            other => panic!("expected tokens, got {other:?}"),
        }
    }

    fn refused(outcome: Outcome) -> OAuthError {
        match outcome.unwrap() {
            Err(e) => e,
            Ok(other) => panic!("expected a refusal, got {other:?}"),
        }
    }

    fn is_live(c: &Conn, access: &str) -> bool {
        store::authenticate_access(c, access, 10).unwrap().is_some()
    }

    #[test]
    fn a_reused_code_is_refused_and_revokes_what_it_issued() {
        let c = crate::core::db::memory();
        let (client, code) = allowed(&c);
        let first = issued_tokens(run(&c, client, redeem(&code), LIFE, 1));
        let access = first.issued.access.expose().to_string();
        assert!(first.refresh_token().is_some());
        assert!(is_live(&c, &access));
        let again = refused(run(&c, client, redeem(&code), LIFE, 2));
        assert_eq!(again.error, "invalid_grant");
        assert!(!is_live(&c, &access), "the replay revoked the first tokens");
    }

    #[test]
    fn a_rotated_refresh_token_presented_again_ends_the_grant() {
        let c = crate::core::db::memory();
        let (client, code) = allowed(&c);
        let first = issued_tokens(run(&c, client, redeem(&code), LIFE, 1));
        let old = first.refresh_token().unwrap().to_string();
        let refresh = |token: &str| Ask::Refresh {
            token: token.to_string(),
            scopes: None,
            rotate: true,
        };
        let second = issued_tokens(run(&c, client, refresh(&old), LIFE, 2));
        let new = second.refresh_token().unwrap().to_string();
        assert_ne!(new, old, "rotation issues a new refresh token");
        assert!(second.kept_refresh.is_none());
        let access = second.issued.access.expose().to_string();
        assert!(is_live(&c, &access));
        assert_eq!(
            refused(run(&c, client, refresh(&old), LIFE, 3)).error,
            "invalid_grant"
        );
        assert!(!is_live(&c, &access), "the grant's tokens are revoked");
        assert_eq!(
            refused(run(&c, client, refresh(&new), LIFE, 4)).error,
            "invalid_grant",
            "the new refresh token died with the grant"
        );
    }

    /// The statements that update `oauth_grants` while `f` runs: every statement is compiled
    /// again once the authorizer is set, and the authorizer sees what each one writes.
    fn grant_updates(c: &Conn, f: impl FnOnce()) -> usize {
        use rusqlite::hooks::{AuthAction, AuthContext, Authorization};
        use std::sync::atomic::{AtomicUsize, Ordering};
        let seen = std::sync::Arc::new(AtomicUsize::new(0));
        let counter = seen.clone();
        let sqlite = c.as_sqlite().unwrap();
        sqlite
            .authorizer(Some(move |ctx: AuthContext<'_>| {
                if let AuthAction::Update {
                    table_name: "oauth_grants",
                    ..
                } = ctx.action
                {
                    counter.fetch_add(1, Ordering::Relaxed);
                }
                Authorization::Allow
            }))
            .unwrap();
        f();
        sqlite
            .authorizer(None::<fn(AuthContext<'_>) -> Authorization>)
            .unwrap();
        seen.load(Ordering::Relaxed)
    }

    #[test]
    fn a_refresh_within_a_minute_of_the_grants_last_use_sends_no_update_of_the_grant() {
        let c = crate::core::db::memory();
        let (client, code) = allowed(&c);
        let first = issued_tokens(run(&c, client, redeem(&code), LIFE, 1));
        let refresh = Ask::Refresh {
            token: first.refresh_token().unwrap().to_string(),
            scopes: None,
            rotate: false,
        };
        let last_used = |c: &Conn| -> i64 {
            c.query_row("SELECT last_used_at FROM oauth_grants", [], |r| r.get(0))
                .unwrap()
        };
        assert_eq!(last_used(&c), 1);
        let within = grant_updates(&c, || {
            issued_tokens(run(&c, client, refresh.clone(), LIFE, 61));
        });
        assert_eq!(within, 0, "used at 1, refreshed at 61: nothing to write");
        assert_eq!(last_used(&c), 1);
        let after = grant_updates(&c, || {
            issued_tokens(run(&c, client, refresh.clone(), LIFE, 62));
        });
        assert_eq!(after, 1, "a minute and more since its last use");
        assert_eq!(last_used(&c), 62);
    }

    #[test]
    fn without_rotation_a_refresh_answers_with_the_presented_refresh_token() {
        let c = crate::core::db::memory();
        let (client, code) = allowed(&c);
        let first = issued_tokens(run(&c, client, redeem(&code), LIFE, 1));
        let presented = first.refresh_token().unwrap().to_string();
        let refresh = Ask::Refresh {
            token: presented.clone(),
            scopes: Some(scope::parse_spelled("READ_PROFILE").unwrap()),
            rotate: false,
        };
        let echoed = issued_tokens(run(&c, client, refresh.clone(), LIFE, 2));
        assert_eq!(echoed.refresh_token(), Some(presented.as_str()));
        assert!(echoed.issued.refresh.is_none(), "no new refresh token");
        let again = issued_tokens(run(&c, client, refresh, LIFE, 3));
        assert_eq!(
            again.refresh_token(),
            Some(presented.as_str()),
            "still good"
        );
    }

    #[test]
    fn revocation_and_introspection_see_only_the_callers_tokens() {
        let c = crate::core::db::memory();
        let (client, code) = allowed(&c);
        let t = issued_tokens(run(&c, client, redeem(&code), LIFE, 1));
        let access = t.issued.access.expose().to_string();
        let look = |who| match run(&c, who, Ask::Introspect(access.clone()), LIFE, 2) {
            Ok(Ok(Answer::Introspected(i))) => i,
            other => panic!("{other:?}"),
        };
        assert!(
            look(ClientId::new(client.get() + 1)).is_none(),
            "another client learns nothing"
        );
        assert_eq!(look(client).unwrap().kind, store::Kind::Access);
        let revoke = |who| run(&c, who, Ask::Revoke(access.clone()), LIFE, 3).unwrap();
        assert!(matches!(
            revoke(ClientId::new(client.get() + 1)),
            Ok(Answer::Revoked)
        ));
        assert!(is_live(&c, &access), "another client cannot revoke it");
        assert!(matches!(revoke(client), Ok(Answer::Revoked)));
        assert!(look(client).is_none());
    }

    /// Introspection of a live access token is remembered for a second (`verified::Caches::introspected`):
    /// a change this process did not note (another node's, simulated by deleting the row) shows
    /// only after that second, while a revocation, a rotated client secret or a wrong secret is
    /// refused at once, and another client is never answered from what was shown to this one.
    #[tokio::test]
    async fn introspection_is_remembered_for_a_second_and_forgotten_at_a_revocation() {
        let db = Db::memory();
        let caches = Caches::new();
        let other =
            Registration::validate("Other", &[REDIRECT.to_string()], None, None, false, &[])
                .unwrap();
        let (own_client, own_secret, other_client, other_secret, access, refresh) = db
            .write(move |c| {
                let (client, code) = allowed_at(c, now());
                let own = crate::oauth::clients::store::list(c)?[0].clone();
                let t = issued_tokens(run(c, client, redeem(&code), LIFE, now()));
                let (other, other_secret) = crate::oauth::clients::store::insert(c, &other, 0)?;
                // `allowed` made the first client; its secret is set here, so the test knows it.
                let secret = crate::oauth::clients::store::rotate_secret(c, &own.client_id, 0)?;
                Ok((
                    own.client_id,
                    secret.expose().to_string(),
                    other.client_id,
                    other_secret.unwrap().expose().to_string(),
                    t.issued.access.expose().to_string(),
                    t.refresh_token().unwrap().to_string(),
                ))
            })
            .await
            .unwrap();
        let policy = Policy {
            lifetimes: LIFE,
            rotate_refresh_tokens: false,
        };
        let ask = |client: &str, secret: &str, token: &str| {
            let mut req = request(Endpoint::Introspect, &[("token", token)]);
            req.basic = Some((client.to_string(), secret.to_string()));
            introspect(
                &db,
                &caches,
                policy,
                client.to_string(),
                Some(secret.to_string()),
                req,
            )
        };
        let shown = |outcome: Outcome| match outcome.unwrap() {
            Ok(Answer::Introspected(i)) => i,
            other => panic!("{other:?}"),
        };
        assert!(shown(ask(&own_client, &own_secret, &access).await).is_some());
        let forget = |token: String| async {
            db.write(move |c| {
                let hash = crate::core::crypto::SecretToken::presented(&token).hash();
                c.execute("DELETE FROM oauth_tokens WHERE token_hash = ?1", [hash])?;
                Ok(())
            })
            .await
            .unwrap()
        };
        forget(access.clone()).await;
        assert!(
            shown(ask(&own_client, &own_secret, &access).await).is_some(),
            "remembered: the deletion was not noted as a revocation"
        );
        assert_eq!(
            refused(ask(&own_client, "wrong", &access).await).error,
            "invalid_client",
            "the client proves itself at every request"
        );
        assert!(
            shown(ask(&other_client, &other_secret, &access).await).is_none(),
            "another client is answered by the database"
        );
        tokio::time::sleep(super::super::verified::TRUST_FOR).await;
        assert!(
            shown(ask(&own_client, &own_secret, &access).await).is_none(),
            "after its second"
        );

        // A token revoked here, or a secret rotated here, is refused at once.
        async fn refreshed(db: &Db, refresh: &str) -> (ClientId, String) {
            let refresh = refresh.to_string();
            db.write(move |c| {
                let client_row = crate::oauth::clients::store::list(c)?[0].row_id;
                let ask = Ask::Refresh {
                    token: refresh,
                    scopes: None,
                    rotate: false,
                };
                let t = issued_tokens(run(c, client_row, ask, LIFE, now()));
                Ok((client_row, t.issued.access.expose().to_string()))
            })
            .await
            .unwrap()
        }
        let (row, second) = refreshed(&db, &refresh).await;
        assert!(shown(ask(&own_client, &own_secret, &second).await).is_some());
        let revoked = second.clone();
        db.write(move |c| Ok(run(c, row, Ask::Revoke(revoked), LIFE, now())))
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        assert!(shown(ask(&own_client, &own_secret, &second).await).is_none());
        let (_, third) = refreshed(&db, &refresh).await;
        assert!(shown(ask(&own_client, &own_secret, &third).await).is_some());
        let new_secret = rotated(&db, &own_client).await;
        assert_eq!(
            refused(ask(&own_client, &own_secret, &third).await).error,
            "invalid_client",
            "the old secret, at once"
        );
        assert!(shown(ask(&own_client, &new_secret, &third).await).is_some());
    }

    /// A client that proved itself at the token endpoint is remembered for a second
    /// (`verified::Caches::clients`): its removal by another node (simulated by deleting the row
    /// unnoted) shows only after that second, while a wrong secret is refused at every request
    /// and a secret rotated or a client removed here is seen at once.
    #[tokio::test]
    async fn a_client_is_remembered_for_a_second_and_forgotten_when_its_secret_changes() {
        let db = Db::memory();
        let caches = Caches::new();
        let (client_id, secret) = db
            .write(move |c| {
                allowed_at(c, now());
                let own = crate::oauth::clients::store::list(c)?[0].clone();
                let secret = crate::oauth::clients::store::rotate_secret(c, &own.client_id, 0)?;
                Ok((own.client_id, secret.expose().to_string()))
            })
            .await
            .unwrap();
        let policy = Policy {
            lifetimes: LIFE,
            rotate_refresh_tokens: false,
        };
        let req = request(
            Endpoint::Token,
            &[("grant_type", "refresh_token"), ("refresh_token", "r")],
        );
        let admits = |secret: &str| {
            let (db, caches, id, secret, req) =
                (&db, &caches, client_id.clone(), secret.to_string(), &req);
            async move {
                match admitted(db, caches, id, Some(&secret), req, policy)
                    .await
                    .unwrap()
                {
                    Ok((client, _)) => Ok(client.client_id),
                    Err(e) => Err(e.error),
                }
            }
        };
        let removed_unnoted = || {
            let id = client_id.clone();
            db.write(move |c| {
                c.execute("DELETE FROM oauth_clients WHERE client_id = ?1", [id])?;
                Ok(())
            })
        };
        assert_eq!(admits(&secret).await, Ok(client_id.clone()));
        assert_eq!(
            admits("wrong").await,
            Err("invalid_client"),
            "the secret is checked at every request"
        );

        // A secret rotated here: the old one is refused at once.
        let new_secret = rotated(&db, &client_id).await;
        assert_eq!(admits(&secret).await, Err("invalid_client"), "at once");
        assert_eq!(admits(&new_secret).await, Ok(client_id.clone()));

        // Removed without a note (another node): remembered until its second ends.
        removed_unnoted().await.unwrap();
        assert_eq!(
            admits(&new_secret).await,
            Ok(client_id.clone()),
            "remembered: the removal was not noted as a revocation"
        );
        tokio::time::sleep(super::super::verified::TRUST_FOR).await;
        assert_eq!(
            admits(&new_secret).await,
            Err("invalid_client"),
            "after its second"
        );

        // Removed here: refused at once, though it proved itself a moment before.
        let other =
            Registration::validate("Other", &[REDIRECT.to_string()], None, None, false, &[])
                .unwrap();
        let again = db
            .write(move |c| {
                let (other, secret) = crate::oauth::clients::store::insert(c, &other, 0)?;
                Ok((other.client_id, secret.unwrap().expose().to_string()))
            })
            .await
            .unwrap();
        let ask = |secret: &str| {
            let (db, caches, id, secret, req) =
                (&db, &caches, again.0.clone(), secret.to_string(), &req);
            async move {
                admitted(db, caches, id, Some(&secret), req, policy)
                    .await
                    .unwrap()
                    .is_ok()
            }
        };
        assert!(ask(&again.1).await);
        let id = again.0.clone();
        db.write(move |c| crate::oauth::clients::store::remove(c, &id).map(drop))
            .await
            .unwrap();
        assert!(!ask(&again.1).await, "at once");
    }

    #[test]
    fn one_query_reads_the_client_with_its_uris_and_what_introspection_shows_it() {
        let c = crate::core::db::memory();
        let (client, code) = allowed(&c);
        let access = issued_tokens(run(&c, client, redeem(&code), LIFE, 1))
            .issued
            .access
            .expose()
            .to_string();
        let uris = [
            "https://b.example/2".to_string(),
            "https://a.example/1".into(),
        ];
        let reg = Registration::validate("Other", &uris, None, None, false, &[]).unwrap();
        let (other, _) = crate::oauth::clients::store::insert(&c, &reg, 0).unwrap();
        let unknown = crate::oauth::clients::store::get(&c, "x").unwrap();
        assert!(unknown.is_none(), "no such client");
        let own_id = crate::oauth::clients::store::list(&c).unwrap()[0]
            .client_id
            .clone();
        let (found, shown) = store::client_and_introspection(&c, &own_id, &access, 2)
            .unwrap()
            .unwrap();
        assert_eq!(
            (found.row_id, found.redirect_uris),
            (client, vec![REDIRECT.to_string()])
        );
        let shown = shown.expect("the client's own live token");
        assert_eq!(
            (shown.kind, shown.client_id),
            (store::Kind::Access, own_id.clone())
        );
        assert!(
            store::client_and_introspection(&c, &own_id, &access, LIFE.access + 1)
                .unwrap()
                .unwrap()
                .1
                .is_none(),
            "an expired token shows nothing"
        );
        let (found, shown) = store::client_and_introspection(&c, &other.client_id, &access, 2)
            .unwrap()
            .unwrap();
        assert_eq!(found.redirect_uris, uris, "every URI, in order");
        assert!(shown.is_none(), "another client's token shows nothing");
        assert!(
            store::client_and_introspection(&c, "nobody", &access, 2)
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn client_credentials_come_one_way_only() {
        let basic = ("id".to_string(), "s".to_string());
        let f = fields(&[("client_secret", "s")]);
        assert_eq!(
            client_credentials(Some(&basic), &f).unwrap_err().error,
            "invalid_request"
        );
        let f = fields(&[("client_id", "other")]);
        assert!(client_credentials(Some(&basic), &f).is_err());
        let f = fields(&[("client_id", "id")]);
        assert_eq!(
            client_credentials(Some(&basic), &f).unwrap(),
            ("id".to_string(), Some("s".to_string()))
        );
        assert_eq!(
            client_credentials(None, &f).unwrap(),
            ("id".to_string(), None)
        );
        assert_eq!(
            client_credentials(None, &fields(&[])).unwrap_err().error,
            "invalid_client"
        );
    }

    #[test]
    fn asks_name_their_grant_and_parameters() {
        let client = |public| Client {
            row_id: ClientId::new(1),
            client_id: "c".into(),
            name: "C".into(),
            redirect_uris: vec![REDIRECT.into()],
            logo_url: None,
            app_url: None,
            public,
            allowed_scopes: None,
            created_at: 0,
            secret_hash: None,
        };
        let policy = Policy {
            lifetimes: LIFE,
            rotate_refresh_tokens: false,
        };
        let code = request(
            Endpoint::Token,
            &[("grant_type", "authorization_code"), ("code", "x")],
        );
        assert!(matches!(
            ask(&code, &client(false), policy),
            Ok(Ask::Code { .. })
        ));
        let mut seed = request(Endpoint::Refresh, &[]);
        seed.bearer = Some("dkr_x".into());
        assert_eq!(
            ask(&seed, &client(true), policy).unwrap(),
            Ask::Refresh {
                token: "dkr_x".into(),
                scopes: None,
                rotate: true,
            },
            "public clients always rotate"
        );
        let wrong = request(Endpoint::Token, &[("grant_type", "password")]);
        assert_eq!(
            ask(&wrong, &client(false), policy).unwrap_err().error,
            "unsupported_grant_type"
        );
        let scope = request(
            Endpoint::Token,
            &[
                ("grant_type", "refresh_token"),
                ("refresh_token", "r"),
                ("scope", "NOPE"),
            ],
        );
        assert_eq!(
            ask(&scope, &client(false), policy).unwrap_err().error,
            "invalid_scope"
        );
        let revoke = request(Endpoint::Revoke, &[]);
        assert_eq!(
            ask(&revoke, &client(false), policy)
                .unwrap_err()
                .description,
            "token is required"
        );
    }
}
