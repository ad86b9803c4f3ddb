//! The use cases of the endpoints apps call with their client credentials (`/token`,
//! `/refreshToken`, `/revoke`, `/introspect`): which client calls, what it asks, and the one
//! transaction that answers. Protocol refusals are `OAuthError`s (RFC 6749 5.2); `AppError` is
//! left for the server's own failures.

use crate::core::context::Context;
use crate::core::ids::ClientId;

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

/// The parameters the four endpoints read from a body (form-encoded or JSON), as sent. A
/// parameter sent twice keeps its last value, as the token endpoint always read them (not
/// RFC 6749 3.2's refusal: clients depend on it); names not listed are ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
pub struct Fields {
    pub grant_type: Option<String>,
    pub code: Option<String>,
    pub redirect_uri: Option<String>,
    pub code_verifier: Option<String>,
    pub refresh_token: Option<String>,
    pub scope: Option<String>,
    /// The token to revoke or introspect.
    pub token: Option<String>,
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
}

/// A call as the HTTP layer read it.
#[derive(Debug, Clone)]
pub struct Request {
    pub endpoint: Endpoint,
    /// The body's parameters.
    pub fields: Fields,
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
    let token = req.fields.token.clone();
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
    fields: &Fields,
) -> Result<(String, Option<String>), OAuthError> {
    match (
        basic,
        fields.client_id.as_ref(),
        fields.client_secret.as_ref(),
    ) {
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
    let grant_type = f.grant_type.as_deref();
    let rotate = client.public || policy.rotate_refresh_tokens;
    match req.endpoint {
        Endpoint::Token => match grant_type {
            Some("authorization_code") => {
                let code = f
                    .code
                    .clone()
                    .ok_or_else(|| OAuthError::invalid_request("code is required"))?;
                Ok(Ask::Code {
                    code,
                    redirect_uri: f.redirect_uri.clone(),
                    verifier: f.code_verifier.clone(),
                })
            }
            Some("refresh_token") => refresh(f, f.refresh_token.clone(), rotate),
            Some(other) => Err(OAuthError::new(
                "unsupported_grant_type",
                format!("grant_type {other:?} is not supported"),
            )),
            None => Err(OAuthError::invalid_request("grant_type is required")),
        },
        Endpoint::Refresh => match grant_type {
            Some("refresh_token") | None => {
                let presented = f.refresh_token.clone().or(req.bearer.clone());
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

fn token_field(f: &Fields) -> Result<String, OAuthError> {
    f.token
        .clone()
        .ok_or_else(|| OAuthError::invalid_request("token is required"))
}

/// The refresh grant's parameters: the token presented and the narrower scopes asked, if any.
fn refresh(f: &Fields, presented: Option<String>, rotate: bool) -> Result<Ask, OAuthError> {
    let token = presented
        .filter(|t| !t.is_empty())
        .ok_or_else(|| OAuthError::invalid_request("refresh_token is required"))?;
    let scopes = match f.scope.as_deref().map(scope::parse_spelled) {
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
#[path = "token_endpoint_tests.rs"]
mod tests;
