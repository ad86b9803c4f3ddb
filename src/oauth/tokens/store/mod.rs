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

mod access;
mod codes;
mod grants;
mod refresh;
pub use access::*;
pub use codes::*;
pub use grants::*;
pub use refresh::*;

/// Stored scope text (canonical names or the app's aliases) as scopes.
fn parse_scopes(s: &str) -> Vec<Scope> {
    s.split(' ').filter_map(Scope::parse).collect()
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

#[cfg(test)]
mod tests;
