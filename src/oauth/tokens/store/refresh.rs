//! The refresh grant: narrower scopes on request, rotation when asked, and a rotated token
//! presented again ends its whole grant (it was stolen, or the app lost track).
use super::*;

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
pub(super) struct StoredRefresh {
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
pub(super) const REFRESH_USABLE: &str =
    "g.client_id = ?2 AND t.rotated_at IS NULL AND t.revoked_at IS NULL
     AND g.revoked_at IS NULL AND u.disabled_at IS NULL AND t.expires_at > ?3";

/// The refresh token with hash `?1`, its grant `g` and the grant's user `u`.
pub(super) const REFRESH_ROW: &str = "oauth_tokens t
      JOIN oauth_grants g ON g.id = t.grant_id
      JOIN users u ON u.id = g.user_id
     WHERE t.token_hash = ?1 AND t.kind = 'refresh'";

pub(super) fn find_refresh(
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
pub(super) fn access_scopes(
    asked: Option<&scope::Spelled>,
    granted: &str,
) -> Result<String, OAuthError> {
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
