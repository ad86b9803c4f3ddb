//! SQL for grants, codes and tokens. Every state change here runs inside the caller's
//! `BEGIN IMMEDIATE` transaction and checks its precondition in SQL.

use std::sync::LazyLock;

use crate::core::ids::{ClientId, GrantId, UserId};
use crate::params;
use crate::{core::db::Conn, core::db::OptionalExtension};

use super::{Issued, Lifetimes, OAuthError, new_access, new_refresh};
use crate::core::crypto::SecretToken;
use crate::core::error::AppError;
use crate::{identity::scope, identity::scope::Scope};

/// Stored scope text (canonical names or the app's aliases) as scopes.
fn parse_scopes(s: &str) -> Vec<Scope> {
    s.split(' ').filter_map(Scope::parse).collect()
}

/// The live grant of `user` to `client`, created or widened to include `scopes`.
pub fn upsert_grant(
    tx: &Conn,
    user: UserId,
    client: ClientId,
    scopes: &[Scope],
    now: i64,
) -> Result<GrantId, AppError> {
    // Read, then insert or widen: two consents at once (on two nodes) take turns, so neither
    // hits the one-live-grant index nor loses the other's scopes.
    tx.serialize_on(&format!("oauth-grant:{user}:{client}"))?;
    let existing: Option<(GrantId, String)> = tx
        .query_row(
            "SELECT id, scopes FROM oauth_grants WHERE user_id = ?1 AND client_id = ?2 AND revoked_at IS NULL",
            params![user, client],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    match existing {
        Some((id, old)) => {
            let mut all = parse_scopes(&old);
            all.extend_from_slice(scopes);
            all.sort();
            all.dedup();
            tx.execute(
                "UPDATE oauth_grants SET scopes = ?2 WHERE id = ?1",
                params![id, scope::join(&all)],
            )?;
            Ok(id)
        }
        None => {
            let inserted_id = tx.insert(
                "INSERT INTO oauth_grants (user_id, client_id, scopes, created_at) VALUES (?1, ?2, ?3, ?4)",
                params![user, client, scope::join(scopes), now],
            )?;
            Ok(GrantId::new(inserted_id))
        }
    }
}

/// Whether `user`'s live grant to `client` already holds every one of `scopes`.
pub fn grant_covers(
    conn: &Conn,
    user: UserId,
    client: ClientId,
    scopes: &[Scope],
) -> Result<bool, AppError> {
    let granted: Option<String> = conn
        .query_row(
            "SELECT scopes FROM oauth_grants WHERE user_id = ?1 AND client_id = ?2 AND revoked_at IS NULL",
            params![user, client],
            |r| r.get(0),
        )
        .optional()?;
    Ok(granted.is_some_and(|g| {
        let granted = parse_scopes(&g);
        scopes.iter().all(|s| granted.contains(s))
    }))
}

/// What a code is bound to.
pub struct NewCode<'a> {
    pub grant: GrantId,
    pub redirect_uri: &'a str,
    /// The scopes in the names the app asked with (`scope::Spelled::text`).
    pub scopes: &'a str,
    pub code_challenge: Option<&'a str>,
    pub nonce: Option<&'a str>,
    /// The authorization request named `redirect_uri` (the token request must repeat it).
    pub redirect_uri_sent: bool,
    /// When the user last signed in (password, and second factor if any): the ID token's
    /// `auth_time`.
    pub auth_time: Option<i64>,
}

pub fn insert_code(
    tx: &Conn,
    code: &SecretToken,
    new: &NewCode<'_>,
    now: i64,
    ttl: i64,
) -> Result<(), AppError> {
    tx.execute(
        "INSERT INTO oauth_codes (code_hash, grant_id, redirect_uri, scopes, code_challenge, created_at, expires_at, nonce, redirect_uri_sent, auth_time)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        params![
            code.hash(),
            new.grant,
            new.redirect_uri,
            new.scopes,
            new.code_challenge,
            now,
            now + ttl,
            new.nonce,
            new.redirect_uri_sent,
            new.auth_time
        ],
    )?;
    Ok(())
}

/// What a stored token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Access,
    Refresh,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Access => "access",
            Kind::Refresh => "refresh",
        }
    }

    pub fn parse(s: &str) -> Option<Kind> {
        [Kind::Access, Kind::Refresh]
            .into_iter()
            .find(|k| k.as_str() == s)
    }
}

crate::sql_text_enum!(Kind);

/// `(grant, code)`: the grant a token belongs to and the code its line descends from.
type Line = (GrantId, Option<i64>);

fn insert_token(
    tx: &Conn,
    (grant, code): Line,
    kind: Kind,
    token: &SecretToken,
    scopes: &str,
    now: i64,
    ttl: i64,
) -> Result<(), AppError> {
    tx.execute(
        "INSERT INTO oauth_tokens (grant_id, code_id, kind, token_hash, scopes, created_at, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![grant, code, kind, token.hash(), scopes, now, now + ttl],
    )?;
    Ok(())
}

/// Issues an access token with `scopes` (and a refresh token with `refresh_scopes`, when given)
/// on `grant`, which was last used at `grant_used` when the caller read it (`None`: not read,
/// or never used).
#[allow(clippy::too_many_arguments)]
fn issue(
    tx: &Conn,
    grant: GrantId,
    code: Option<i64>,
    scopes: &str,
    refresh_scopes: Option<&str>,
    life: Lifetimes,
    now: i64,
    grant_used: Option<i64>,
) -> Result<Issued, AppError> {
    let access = new_access();
    insert_token(
        tx,
        (grant, code),
        Kind::Access,
        &access,
        scopes,
        now,
        life.access,
    )?;
    let refresh = if let Some(refresh_scopes) = refresh_scopes {
        let r = new_refresh();
        insert_token(
            tx,
            (grant, code),
            Kind::Refresh,
            &r,
            refresh_scopes,
            now,
            life.refresh,
        )?;
        Some(r)
    } else {
        None
    };
    // "Last used" at minute resolution, as for bearer reads: the statement is not even sent
    // when the grant was read as used within the minute (on PostgreSQL a round trip saved); its
    // own condition keeps a grant another request has just marked from being written again.
    if crate::core::db::last_use_is_stale(grant_used, now) {
        tx.execute(
            "UPDATE oauth_grants SET last_used_at = ?2
             WHERE id = ?1 AND (last_used_at IS NULL OR last_used_at < ?2 - 60)",
            params![grant, now],
        )?;
    }
    Ok(Issued {
        access,
        refresh,
        scopes: parse_scopes(scopes),
        scope_text: scopes.to_string(),
        expires_in: life.access,
        identity: None,
    })
}

/// What the token endpoint asks of a code.
pub struct Redemption<'a> {
    pub client: ClientId,
    pub code: &'a str,
    pub redirect_uri: Option<&'a str>,
    pub code_verifier: Option<&'a str>,
}

/// A stored code with its grant, as `redeem_code` checks it.
struct StoredCode {
    id: i64,
    grant: GrantId,
    client: ClientId,
    redirect_uri: String,
    scopes: String,
    challenge: Option<String>,
    expires_at: i64,
    used_at: Option<i64>,
    /// The grant is not revoked and its user not disabled.
    live: bool,
    user: UserId,
    nonce: Option<String>,
    redirect_uri_sent: bool,
    auth_time: Option<i64>,
}

fn find_code(tx: &Conn, hash: &str) -> Result<Option<StoredCode>, AppError> {
    Ok(tx
        .query_row(
            "SELECT c.id, c.grant_id, g.client_id, c.redirect_uri, c.scopes, c.code_challenge,
                    c.expires_at, c.used_at,
                    (g.revoked_at IS NULL AND u.disabled_at IS NULL), g.user_id, c.nonce,
                    c.redirect_uri_sent, c.auth_time
               FROM oauth_codes c
               JOIN oauth_grants g ON g.id = c.grant_id
               JOIN users u ON u.id = g.user_id
              WHERE c.code_hash = ?1",
            [hash],
            |r| {
                Ok(StoredCode {
                    id: r.get(0)?,
                    grant: r.get(1)?,
                    client: r.get(2)?,
                    redirect_uri: r.get(3)?,
                    scopes: r.get(4)?,
                    challenge: r.get(5)?,
                    expires_at: r.get(6)?,
                    used_at: r.get(7)?,
                    live: r.get(8)?,
                    user: r.get(9)?,
                    nonce: r.get(10)?,
                    redirect_uri_sent: r.get(11)?,
                    auth_time: r.get(12)?,
                })
            },
        )
        .optional()?)
}

/// Redeems a code once. A second use revokes every token issued from it. The outer `Result` is
/// a database failure (roll back); the inner one a protocol answer (commit either way, so that
/// the revocation of a reused code sticks).
pub fn redeem_code(
    tx: &Conn,
    req: &Redemption<'_>,
    life: Lifetimes,
    now: i64,
) -> Result<Result<Issued, OAuthError>, AppError> {
    let hash = SecretToken::presented(req.code).hash();
    let bad = |d: &str| Ok(Err(OAuthError::invalid_grant(d)));
    let Some(code) = find_code(tx, &hash)? else {
        return bad("the authorization code is invalid");
    };
    if code.client != req.client {
        return bad("the authorization code was issued to another client");
    }
    if code.used_at.is_some() {
        revoke_code_tokens(tx, code.id, now)?;
        return bad("the authorization code was already used");
    }
    // Single use, checked in SQL: only one redemption can flip `used_at`.
    let flipped = tx.execute(
        "UPDATE oauth_codes SET used_at = ?2 WHERE id = ?1 AND used_at IS NULL",
        params![code.id, now],
    )?;
    if flipped != 1 {
        return bad("the authorization code was already used");
    }
    if code.expires_at <= now {
        return bad("the authorization code has expired");
    }
    if !code.live {
        return bad("the authorization was revoked or the user is disabled");
    }
    if let Err(e) = check_redemption(&code, req) {
        return Ok(Err(e));
    }
    let scopes = code.scopes.as_str();
    let mut issued = issue(
        tx,
        code.grant,
        Some(code.id),
        scopes,
        Some(scopes),
        life,
        now,
        None,
    )?;
    issued.identity = Some(super::Identity {
        user: code.user,
        nonce: code.nonce,
        auth_time: code.auth_time,
    });
    Ok(Ok(issued))
}

/// A reused code: every token issued from it is revoked.
fn revoke_code_tokens(tx: &Conn, code_id: i64, now: i64) -> Result<(), AppError> {
    tx.note_revocation();
    let n = tx.execute(
        "UPDATE oauth_tokens SET revoked_at = ?2 WHERE code_id = ?1 AND revoked_at IS NULL",
        params![code_id, now],
    )?;
    tracing::warn!(
        code_id,
        revoked = n,
        "authorization code reused; its tokens are revoked"
    );
    Ok(())
}

/// The request repeats the code's `redirect_uri` (needed when the authorization request named
/// it, RFC 6749 4.1.3) and proves its PKCE challenge, if any.
fn check_redemption(code: &StoredCode, req: &Redemption<'_>) -> Result<(), OAuthError> {
    let bad = |d: &str| Err(OAuthError::invalid_grant(d));
    match req.redirect_uri {
        Some(uri) if uri == code.redirect_uri => {}
        Some(_) => return bad("redirect_uri does not match the one used to get the code"),
        None if !code.redirect_uri_sent => {}
        None => return Err(OAuthError::invalid_request("redirect_uri is required")),
    }
    match (code.challenge.as_deref(), req.code_verifier) {
        (Some(ch), Some(v)) => {
            if !super::verifier_is_well_formed(v) || !super::pkce_matches(v, ch) {
                return bad("code_verifier does not match the code_challenge");
            }
        }
        (Some(_), None) => return bad("code_verifier is required: the code was issued with PKCE"),
        (None, Some(_)) => return bad("code_verifier given, but the code was issued without PKCE"),
        (None, None) => {}
    }
    Ok(())
}

/// What the refresh grant asks.
pub struct Refresh<'a> {
    pub client: ClientId,
    pub refresh_token: &'a str,
    /// Narrower scopes, when asked (RFC 6749 6).
    pub scopes: Option<scope::Spelled>,
    /// Issue a new refresh token and retire the presented one.
    pub rotate: bool,
}

/// A stored refresh token with its grant, as `refresh` checks it.
struct StoredRefresh {
    id: i64,
    grant: GrantId,
    code: Option<i64>,
    client: ClientId,
    scopes: String,
    revoked_at: Option<i64>,
    rotated_at: Option<i64>,
    /// The grant is not revoked and its user not disabled.
    live: bool,
    /// The grant's `last_used_at`.
    grant_used: Option<i64>,
    /// [`REFRESH_USABLE`]: it may be refreshed now, by this client.
    usable: bool,
}

/// The refresh token `t` (of grant `g`, of user `u`) may be refreshed by client `?2` at `?3`:
/// not rotated out, revoked or expired, its grant not revoked, its user not disabled. The one
/// statement of every rule a refresh is checked by; both ways of refreshing use it.
const REFRESH_USABLE: &str = "g.client_id = ?2 AND t.rotated_at IS NULL AND t.revoked_at IS NULL
     AND g.revoked_at IS NULL AND u.disabled_at IS NULL AND t.expires_at > ?3";

/// The refresh token with hash `?1`, its grant `g` and the grant's user `u`.
const REFRESH_ROW: &str = "oauth_tokens t
      JOIN oauth_grants g ON g.id = t.grant_id
      JOIN users u ON u.id = g.user_id
     WHERE t.token_hash = ?1 AND t.kind = 'refresh'";

fn find_refresh(
    tx: &Conn,
    hash: &str,
    client: ClientId,
    now: i64,
) -> Result<Option<StoredRefresh>, AppError> {
    static SQL: LazyLock<String> = LazyLock::new(|| {
        format!(
            "SELECT t.id, t.grant_id, t.code_id, g.client_id, t.scopes, t.revoked_at,
                    t.rotated_at, (g.revoked_at IS NULL AND u.disabled_at IS NULL),
                    g.last_used_at, ({REFRESH_USABLE})
               FROM {REFRESH_ROW}"
        )
    });
    Ok(tx
        .query_row(SQL.as_str(), params![hash, client, now], |r| {
            Ok(StoredRefresh {
                id: r.get(0)?,
                grant: r.get(1)?,
                code: r.get(2)?,
                client: r.get(3)?,
                scopes: r.get(4)?,
                revoked_at: r.get(5)?,
                rotated_at: r.get(6)?,
                live: r.get(7)?,
                grant_used: r.get(8)?,
                usable: r.get(9)?,
            })
        })
        .optional()?)
}

/// What the one-statement refresh issued, with the grant's last use as it read it.
pub struct RefreshedInOne {
    pub issued: Issued,
    pub grant: GrantId,
    /// Write the grant's use (`record_grant_use`) when this is stale (`last_use_is_stale`).
    pub grant_used: Option<i64>,
}

/// The commonest refresh in one statement, for PostgreSQL, where a statement is its own
/// transaction (`Db::write_one`): the access token `access` (made by the caller, outside the
/// closure `write_one` may run twice: `new_access`) with the refresh token's scopes, no new
/// refresh token. `None` when the token is not [`REFRESH_USABLE`] (then nothing was written,
/// and [`refresh`] says why, ending the grant if the token was rotated out). The grant's last
/// use, written at most once a minute, is left to the caller: as a part of this statement it
/// cost every refresh the setting up of an UPDATE that almost never changes a row.
pub fn refresh_in_one_statement(
    conn: &Conn,
    client: ClientId,
    refresh_token: &str,
    access: &str,
    life: Lifetimes,
    now: i64,
) -> Result<Option<RefreshedInOne>, AppError> {
    if conn.dialect() != crate::core::db::Dialect::Postgres {
        return Err(AppError::internal(
            "a refresh in one statement needs PostgreSQL",
        ));
    }
    static SQL: LazyLock<String> = LazyLock::new(|| {
        format!(
            "WITH r AS (
               SELECT t.grant_id, t.code_id, t.scopes, g.last_used_at
                 FROM {REFRESH_ROW} AND ({REFRESH_USABLE})
             ), issued AS (
               INSERT INTO oauth_tokens
                      (grant_id, code_id, kind, token_hash, scopes, created_at, expires_at)
               SELECT grant_id, code_id, 'access', ?4, scopes, ?3, ?3 + ?5 FROM r
             )
             SELECT scopes, grant_id, last_used_at FROM r"
        )
    });
    let access = SecretToken::presented(access);
    let hash = SecretToken::presented(refresh_token).hash();
    let row: Option<(String, GrantId, Option<i64>)> = conn
        .query_row(
            SQL.as_str(),
            params![hash, client, now, access.hash(), life.access],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?;
    Ok(row.map(|(scopes, grant, grant_used)| RefreshedInOne {
        issued: Issued {
            access,
            refresh: None,
            scopes: parse_scopes(&scopes),
            scope_text: scopes,
            expires_in: life.access,
            identity: None,
        },
        grant,
        grant_used,
    }))
}

/// Issues new tokens for a refresh token. A rotated-out one coming back ends its grant. The
/// `Result`s are those of `redeem_code`.
pub fn refresh(
    tx: &Conn,
    req: &Refresh<'_>,
    life: Lifetimes,
    now: i64,
) -> Result<Result<Issued, OAuthError>, AppError> {
    let hash = SecretToken::presented(req.refresh_token).hash();
    let bad = |d: &str| Ok(Err(OAuthError::invalid_grant(d)));
    let Some(token) = find_refresh(tx, &hash, req.client, now)? else {
        return bad("the refresh token is invalid");
    };
    // Whether it may be used is `REFRESH_USABLE`'s to say; these only tell the client why not.
    if !token.usable {
        if token.client != req.client {
            return bad("the refresh token was issued to another client");
        }
        if token.rotated_at.is_some() {
            // A retired refresh token came back: it may be stolen. End the whole grant.
            end_stolen_grant(tx, token.grant, now)?;
            return bad("the refresh token was already used");
        }
        if token.revoked_at.is_some() || !token.live {
            return bad("the refresh token was revoked");
        }
        return bad("the refresh token has expired");
    }
    let access_scopes = match access_scopes(req.scopes.as_ref(), &token.scopes) {
        Ok(s) => s,
        Err(e) => return Ok(Err(e)),
    };
    if req.rotate {
        let n = tx.execute(
            "UPDATE oauth_tokens SET rotated_at = ?2 WHERE id = ?1 AND rotated_at IS NULL",
            params![token.id, now],
        )?;
        if n != 1 {
            // Another node rotated it since it was read: the same reuse as above (what one
            // node's serialized writes would have seen).
            end_stolen_grant(tx, token.grant, now)?;
            return bad("the refresh token was already used");
        }
    }
    // RFC 6749 6: a new refresh token keeps the presented one's scope, even when the access
    // token asked for less.
    let refresh_scopes = req.rotate.then_some(token.scopes.as_str());
    Ok(Ok(issue(
        tx,
        token.grant,
        token.code,
        &access_scopes,
        refresh_scopes,
        life,
        now,
        token.grant_used,
    )?))
}

/// The new access token's scopes: the asked ones (all of them granted), or all granted when
/// none were asked; in the names the app used.
fn access_scopes(asked: Option<&scope::Spelled>, granted: &str) -> Result<String, OAuthError> {
    let granted_list = parse_scopes(granted);
    match asked {
        Some(asked) if asked.scopes.iter().all(|s| granted_list.contains(s)) => {
            Ok(asked.text.clone())
        }
        Some(_) => Err(OAuthError::invalid_scope(
            "a refresh can only ask for scopes already granted",
        )),
        None => Ok(granted.to_string()),
    }
}

/// Ends a grant whose rotated-out refresh token came back: its tokens and the grant itself
/// are revoked.
fn end_stolen_grant(tx: &Conn, grant: GrantId, now: i64) -> Result<(), AppError> {
    tx.note_revocation();
    revoke_grant_tokens(tx, grant, now)?;
    tx.execute(
        "UPDATE oauth_grants SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL",
        params![grant, now],
    )?;
    tracing::warn!(
        grant = grant.get(),
        "rotated-out refresh token presented; the grant is revoked"
    );
    Ok(())
}

fn revoke_grant_tokens(tx: &Conn, grant: GrantId, now: i64) -> Result<usize, AppError> {
    tx.note_revocation();
    Ok(tx.execute(
        "UPDATE oauth_tokens SET revoked_at = ?2 WHERE grant_id = ?1 AND revoked_at IS NULL",
        params![grant, now],
    )?)
}

/// A live access token, as the APIs see it.
#[derive(Debug, Clone)]
pub struct AccessInfo {
    pub user_id: UserId,
    pub client: ClientId,
    pub grant: GrantId,
    pub scopes: Vec<Scope>,
    /// When the token expires (unix seconds).
    pub expires_at: i64,
    /// The grant's last use is older than a minute: `record_grant_use` is due.
    pub stale: bool,
}

/// The access token's owner and scopes when it is live: not expired or revoked, its grant not
/// revoked, its client not removed, its user not disabled.
pub fn authenticate_access(
    conn: &Conn,
    token: &str,
    now: i64,
) -> Result<Option<AccessInfo>, AppError> {
    let hash = SecretToken::presented(token).hash();
    let mut stmt = conn.prepare_cached(
        "SELECT g.user_id, g.client_id, g.id, t.scopes, g.last_used_at, t.expires_at
           FROM oauth_tokens t
           JOIN oauth_grants g ON g.id = t.grant_id
           JOIN users u ON u.id = g.user_id
          WHERE t.token_hash = ?1 AND t.kind = 'access' AND t.revoked_at IS NULL
            AND t.expires_at > ?2 AND g.revoked_at IS NULL AND u.disabled_at IS NULL",
    )?;
    let found = stmt
        .query_row(params![hash, now], |r| {
            Ok((
                AccessInfo {
                    user_id: r.get(0)?,
                    client: r.get(1)?,
                    grant: r.get(2)?,
                    scopes: parse_scopes(&r.get::<_, String>(3)?),
                    expires_at: r.get(5)?,
                    stale: false,
                },
                r.get::<_, Option<i64>>(4)?,
            ))
        })
        .optional()?;
    Ok(found.map(|(info, last_used)| AccessInfo {
        stale: crate::core::db::last_use_is_stale(last_used, now),
        ..info
    }))
}

/// Records that `grant` was used at `now` (its "last used" on the account page).
pub fn record_grant_use(conn: &Conn, grant: GrantId, now: i64) -> Result<(), AppError> {
    conn.execute(
        "UPDATE oauth_grants SET last_used_at = ?2 WHERE id = ?1",
        params![grant, now],
    )?;
    Ok(())
}

/// RFC 7009: revokes `token` if it belongs to `client`; a refresh token takes the access tokens
/// of its line with it. Unknown tokens are not an error.
pub fn revoke_token(tx: &Conn, client: ClientId, token: &str, now: i64) -> Result<(), AppError> {
    let hash = SecretToken::presented(token).hash();
    let row: Option<(i64, Kind, GrantId, Option<i64>)> = tx
        .query_row(
            "SELECT t.id, t.kind, t.grant_id, t.code_id FROM oauth_tokens t
               JOIN oauth_grants g ON g.id = t.grant_id
              WHERE t.token_hash = ?1 AND g.client_id = ?2",
            params![hash, client],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .optional()?;
    let Some((id, kind, grant, code)) = row else {
        return Ok(());
    };
    tx.note_revocation();
    tx.execute(
        "UPDATE oauth_tokens SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL",
        params![id, now],
    )?;
    if kind == Kind::Refresh {
        tx.execute(
            "UPDATE oauth_tokens SET revoked_at = ?3
              WHERE grant_id = ?1 AND code_id IS NOT DISTINCT FROM ?2 AND kind = 'access' AND revoked_at IS NULL",
            params![grant, code, now],
        )?;
    }
    Ok(())
}

/// RFC 7662: what `client` may learn about `token` (only its own tokens are ever active).
#[derive(Debug, Clone)]
pub struct Introspection {
    pub kind: Kind,
    pub scopes: Vec<Scope>,
    pub client_id: String,
    pub user_id: UserId,
    pub username: String,
    pub issued_at: i64,
    pub expires_at: i64,
}

/// A live token's introspection columns and the client its grant is for (`client_row`), with
/// `?2` the token's hash and `?3` now: the one statement of which tokens introspection shows.
const INTROSPECTED: &str = "SELECT g.client_id AS client_row, t.kind, t.scopes, u.id AS user_id,
        u.username, t.created_at, t.expires_at
   FROM oauth_tokens t
   JOIN oauth_grants g ON g.id = t.grant_id
   JOIN users u ON u.id = g.user_id
  WHERE t.token_hash = ?2 AND t.revoked_at IS NULL AND t.rotated_at IS NULL
    AND t.expires_at > ?3 AND g.revoked_at IS NULL AND u.disabled_at IS NULL";

/// `INTROSPECTED`'s columns from index `at` on, with `client_id` the client's public id;
/// `None` when they are NULL (no such token in a `LEFT JOIN`).
fn introspection(
    r: &crate::core::db::Row<'_>,
    at: usize,
    client_id: String,
) -> crate::core::db::Result<Option<Introspection>> {
    let Some(kind) = r.get::<_, Option<Kind>>(at)? else {
        return Ok(None);
    };
    Ok(Some(Introspection {
        kind,
        scopes: parse_scopes(&r.get::<_, String>(at + 1)?),
        client_id,
        user_id: r.get(at + 2)?,
        username: r.get(at + 3)?,
        issued_at: r.get(at + 4)?,
        expires_at: r.get(at + 5)?,
    }))
}

pub fn introspect(
    conn: &Conn,
    client: ClientId,
    token: &str,
    now: i64,
) -> Result<Option<Introspection>, AppError> {
    let hash = SecretToken::presented(token).hash();
    let found = conn
        .query_row(
            &format!(
                "SELECT c.client_id, i.kind, i.scopes, i.user_id, i.username, i.created_at, i.expires_at
                   FROM ({INTROSPECTED}) i JOIN oauth_clients c ON c.id = i.client_row
                  WHERE i.client_row = ?1"
            ),
            params![client, hash, now],
            |r| introspection(r, 1, r.get(0)?),
        )
        .optional()?;
    Ok(found.flatten())
}

/// The client `client_id` (with its redirect URIs) and what introspecting `token` shows it,
/// in one query: the introspection endpoint's client check and token lookup cost one trip to
/// the database. The caller authenticates the client before it uses the introspection.
pub fn client_and_introspection(
    conn: &Conn,
    client_id: &str,
    token: &str,
    now: i64,
) -> Result<Option<(crate::oauth::clients::Client, Option<Introspection>)>, AppError> {
    use crate::oauth::clients::store::{WITH_URIS, WITH_URIS_FROM, WITH_URIS_LEN, WITH_URIS_ORDER};
    let hash = SecretToken::presented(token).hash();
    let sql = format!(
        "SELECT {WITH_URIS}, i.kind, i.scopes, i.user_id, i.username, i.created_at, i.expires_at
           FROM {WITH_URIS_FROM} LEFT JOIN ({INTROSPECTED}) i ON i.client_row = c.id
          WHERE c.client_id = ?1 {WITH_URIS_ORDER}"
    );
    crate::oauth::clients::store::read_with_uris(conn, &sql, params![client_id, hash, now], |r| {
        introspection(r, WITH_URIS_LEN, r.get(1)?)
    })
}

/// A connected app on the account page.
#[derive(Debug, Clone)]
pub struct GrantView {
    pub id: GrantId,
    pub client_name: String,
    pub client_logo: Option<String>,
    pub client_url: Option<String>,
    pub scopes: Vec<Scope>,
    pub created_at: i64,
    pub last_used_at: Option<i64>,
}

pub fn live_grants(conn: &Conn, user: UserId) -> Result<Vec<GrantView>, AppError> {
    let mut stmt = conn.prepare(
        "SELECT g.id, c.name, c.logo_url, c.app_url, g.scopes, g.created_at, g.last_used_at
           FROM oauth_grants g JOIN oauth_clients c ON c.id = g.client_id
          WHERE g.user_id = ?1 AND g.revoked_at IS NULL ORDER BY g.created_at DESC, g.id DESC",
    )?;
    let rows = stmt.query_map([user], |r| {
        Ok(GrantView {
            id: r.get(0)?,
            client_name: r.get(1)?,
            client_logo: r.get(2)?,
            client_url: r.get(3)?,
            scopes: parse_scopes(&r.get::<_, String>(4)?),
            created_at: r.get(5)?,
            last_used_at: r.get(6)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Revokes `user`'s grant `grant` and every token of it; another user's grant is a 404.
pub fn revoke_grant(tx: &Conn, user: UserId, grant: GrantId, now: i64) -> Result<(), AppError> {
    tx.note_revocation();
    let n = tx.execute(
        "UPDATE oauth_grants SET revoked_at = ?3 WHERE id = ?1 AND user_id = ?2 AND revoked_at IS NULL",
        params![grant, user, now],
    )?;
    if n == 0 {
        return Err(AppError::not_found("connected app"));
    }
    revoke_grant_tokens(tx, grant, now)?;
    Ok(())
}

/// Revokes every live grant of `user` and every token of them (their webhooks go by the
/// schema's trigger); how many grants.
pub fn revoke_all_grants(tx: &Conn, user: UserId, now: i64) -> Result<usize, AppError> {
    tx.note_revocation();
    let live: Vec<GrantId> = {
        let mut stmt =
            tx.prepare("SELECT id FROM oauth_grants WHERE user_id = ?1 AND revoked_at IS NULL")?;
        let rows = stmt.query_map([user], |r| r.get(0))?;
        rows.collect::<Result<_, _>>()?
    };
    for grant in &live {
        tx.execute(
            "UPDATE oauth_grants SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL",
            params![grant, now],
        )?;
        revoke_grant_tokens(tx, *grant, now)?;
    }
    Ok(live.len())
}

#[cfg(test)]
#[path = "store_tests.rs"]
mod tests;
