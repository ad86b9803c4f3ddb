//! Access tokens as the APIs check them, introspection and revocation by the app.
use super::*;

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
pub(super) const INTROSPECTED: &str =
    "SELECT g.client_id AS client_row, t.kind, t.scopes, u.id AS user_id,
        u.username, t.created_at, t.expires_at
   FROM oauth_tokens t
   JOIN oauth_grants g ON g.id = t.grant_id
   JOIN users u ON u.id = g.user_id
  WHERE t.token_hash = ?2 AND t.revoked_at IS NULL AND t.rotated_at IS NULL
    AND t.expires_at > ?3 AND g.revoked_at IS NULL AND u.disabled_at IS NULL";

/// `INTROSPECTED`'s columns from index `at` on, with `client_id` the client's public id;
/// `None` when they are NULL (no such token in a `LEFT JOIN`).
pub(super) fn introspection(
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
