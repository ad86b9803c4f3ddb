//! Grants: what a user allowed an app, widened, listed and revoked with their tokens.
use super::*;

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

/// Ends a grant whose rotated-out refresh token came back: its tokens and the grant itself
/// are revoked.
pub(super) fn end_stolen_grant(tx: &Conn, grant: GrantId, now: i64) -> Result<(), AppError> {
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

pub(super) fn revoke_grant_tokens(tx: &Conn, grant: GrantId, now: i64) -> Result<usize, AppError> {
    tx.note_revocation();
    Ok(tx.execute(
        "UPDATE oauth_tokens SET revoked_at = ?2 WHERE grant_id = ?1 AND revoked_at IS NULL",
        params![grant, now],
    )?)
}

/// Records that `grant` was used at `now` (its "last used" on the account page).
pub fn record_grant_use(conn: &Conn, grant: GrantId, now: i64) -> Result<(), AppError> {
    conn.execute(
        "UPDATE oauth_grants SET last_used_at = ?2 WHERE id = ?1",
        params![grant, now],
    )?;
    Ok(())
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
