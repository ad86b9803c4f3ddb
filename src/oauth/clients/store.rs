//! SQL for `oauth_clients` and their redirect URIs.

use crate::core::db::Conn;
use crate::params;

use super::{Client, Registration};
use crate::core::crypto::SecretToken;
use crate::core::error::AppError;
use crate::{identity::scope, identity::scope::Scope};

/// A client id: 24 base62 characters, public.
fn new_client_id() -> String {
    crate::core::crypto::random_base62(24)
}

/// A client secret: 48 base62 characters (about 285 bits), shown once.
fn new_secret() -> SecretToken {
    SecretToken::generate("", 48)
}

/// Registers a client; returns it with its secret (`None` for public clients).
pub fn insert(
    tx: &Conn,
    reg: &Registration,
    now: i64,
) -> Result<(Client, Option<SecretToken>), AppError> {
    let secret = (!reg.public).then(new_secret);
    let client_id = new_client_id();
    let inserted_id = tx.insert(
        "INSERT INTO oauth_clients (client_id, name, secret_hash, logo_url, app_url, is_public, allowed_scopes, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            client_id,
            reg.name,
            secret.as_ref().map(SecretToken::hash),
            reg.logo_url,
            reg.app_url,
            reg.public,
            reg.allowed_scopes.as_deref().map(scope::join),
            now
        ],
    )?;
    let row_id = inserted_id;
    for (i, uri) in reg.redirect_uris.iter().enumerate() {
        tx.execute(
            "INSERT INTO oauth_client_redirect_uris (client_id, position, uri) VALUES (?1, ?2, ?3)",
            params![row_id, i as i64, uri],
        )?;
    }
    let client =
        get(tx, &client_id)?.ok_or_else(|| AppError::internal("inserted client vanished"))?;
    Ok((client, secret))
}

fn from_row(r: &crate::core::db::Row<'_>) -> crate::core::db::Result<Client> {
    let scopes: Option<String> = r.get(7)?;
    Ok(Client {
        row_id: r.get(0)?,
        client_id: r.get(1)?,
        name: r.get(2)?,
        secret_hash: r.get(3)?,
        logo_url: r.get(4)?,
        app_url: r.get(5)?,
        public: r.get(6)?,
        allowed_scopes: scopes.map(|s| s.split(' ').filter_map(Scope::parse).collect()),
        created_at: r.get(8)?,
        redirect_uris: Vec::new(),
    })
}

pub fn get(conn: &Conn, client_id: &str) -> Result<Option<Client>, AppError> {
    let sql = format!(
        "SELECT {WITH_URIS} FROM {WITH_URIS_FROM} WHERE c.client_id = ?1 {WITH_URIS_ORDER}"
    );
    Ok(read_with_uris(conn, &sql, params![client_id], |_| Ok(()))?.map(|(c, ())| c))
}

/// A client's columns (as `c`) and then one redirect URI (`r.uri`, NULL when it has none):
/// with `WITH_URIS_FROM` and `WITH_URIS_ORDER`, one row per URI, in order, so that a client
/// is one query (one round trip on PostgreSQL). Queries that read more beside the client put
/// their columns after these, from index `WITH_URIS_LEN`.
pub(in crate::oauth) const WITH_URIS: &str = "c.id, c.client_id, c.name, c.secret_hash, c.logo_url, c.app_url, c.is_public, c.allowed_scopes, c.created_at, r.uri";
pub(in crate::oauth) const WITH_URIS_LEN: usize = 10;
pub(in crate::oauth) const WITH_URIS_FROM: &str =
    "oauth_clients c LEFT JOIN oauth_client_redirect_uris r ON r.client_id = c.id";
pub(in crate::oauth) const WITH_URIS_ORDER: &str = "ORDER BY r.position";

/// Runs `sql` (a `SELECT` of `WITH_URIS`, then whatever `more` reads) and gathers its rows:
/// the client with its redirect URIs, and what `more` read from the first row.
pub(in crate::oauth) fn read_with_uris<T>(
    conn: &Conn,
    sql: &str,
    params: &[&dyn crate::core::db::ToSql],
    more: impl Fn(&crate::core::db::Row<'_>) -> crate::core::db::Result<T>,
) -> Result<Option<(Client, T)>, AppError> {
    Ok(gather(conn, sql, params, more)?.into_iter().next())
}

/// The clients of `sql`'s rows (see `read_with_uris`), each with its redirect URIs from its
/// consecutive rows, and what `more` read from its first row.
fn gather<T>(
    conn: &Conn,
    sql: &str,
    params: &[&dyn crate::core::db::ToSql],
    more: impl Fn(&crate::core::db::Row<'_>) -> crate::core::db::Result<T>,
) -> Result<Vec<(Client, T)>, AppError> {
    let mut stmt = conn.prepare_cached(sql)?;
    let rows = stmt.query_map(params, |r| {
        Ok((from_row(r)?, r.get::<_, Option<String>>(9)?, more(r)?))
    })?;
    let mut found: Vec<(Client, T)> = Vec::new();
    for row in rows {
        let (client, uri, extra) = row?;
        if found.last().is_none_or(|(c, _)| c.row_id != client.row_id) {
            found.push((client, extra));
        }
        if let Some((c, _)) = found.last_mut() {
            c.redirect_uris.extend(uri);
        }
    }
    Ok(found)
}

pub fn require(conn: &Conn, client_id: &str) -> Result<Client, AppError> {
    get(conn, client_id)?
        .ok_or_else(|| AppError::NotFound(format!("no client with id {client_id}")))
}

pub fn list(conn: &Conn) -> Result<Vec<Client>, AppError> {
    let sql = format!("SELECT {WITH_URIS} FROM {WITH_URIS_FROM} ORDER BY c.id, r.position");
    let clients = gather(conn, &sql, params![], |_| Ok(()))?;
    Ok(clients.into_iter().map(|(c, ())| c).collect())
}

/// Replaces a confidential client's secret; the old one stops working at once in this process
/// and within a second in every other (a server remembers an introspecting client for that
/// long, `oauth::verified::Caches::introspected`; this moves its revocation epoch on).
pub fn rotate_secret(conn: &Conn, client_id: &str, now: i64) -> Result<SecretToken, AppError> {
    let client = require(conn, client_id)?;
    if client.public {
        return Err(AppError::Conflict(format!(
            "client {client_id} is public and has no secret"
        )));
    }
    conn.note_revocation();
    let secret = new_secret();
    conn.execute(
        "UPDATE oauth_clients SET secret_hash = ?2, secret_rotated_at = ?3 WHERE id = ?1",
        params![client.row_id, secret.hash(), now],
    )?;
    Ok(secret)
}

/// Deletes a client; its redirect URIs, grants and tokens go with it (ON DELETE CASCADE).
pub fn remove(conn: &Conn, client_id: &str) -> Result<Client, AppError> {
    let client = require(conn, client_id)?;
    conn.note_revocation();
    conn.execute("DELETE FROM oauth_clients WHERE id = ?1", [client.row_id])?;
    Ok(client)
}
