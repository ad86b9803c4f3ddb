//! Accounts created from a signing link: a recipient whose document asks for a Docket account
//! and who has none gets a one-time link by e-mail (SQL for `account_invites`). Following it,
//! they choose a name and a password; the account's e-mail is the invited address, so the link
//! proves they receive mail there.

use rusqlite::{Connection, OptionalExtension, params};

use crate::crypto::SecretToken;
use crate::error::AppError;

/// How long a link works.
pub const TTL: i64 = 60 * 60;
/// Links mailed to one address in an hour, at most.
pub const PER_HOUR: i64 = 3;

/// An invitation being redeemed.
#[derive(Debug, Clone)]
pub struct Invite {
    pub id: i64,
    pub email: String,
    pub recipient_id: Option<i64>,
}

fn invite_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Invite> {
    Ok(Invite {
        id: r.get(0)?,
        email: r.get(1)?,
        recipient_id: r.get(2)?,
    })
}

/// A new link for `email` (from recipient `recipient`'s signing page). 409 when the address
/// has an account already, 429 past `PER_HOUR` links an hour.
pub fn create(
    tx: &Connection,
    email: &str,
    recipient: i64,
    now: i64,
) -> Result<SecretToken, AppError> {
    if super::store::find_by_email(tx, email)?.is_some() {
        return Err(AppError::Conflict(format!(
            "{email} has a Docket account already: sign in instead"
        )));
    }
    let (recent, oldest): (i64, Option<i64>) = tx.query_row(
        "SELECT count(*), min(created_at) FROM account_invites WHERE email = ?1 AND created_at > ?2",
        params![email, now - 3600],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    if recent >= PER_HOUR {
        return Err(AppError::TooManyRequests {
            retry_after: (oldest.unwrap_or(now) + 3600 - now).max(1) as u64,
            limit: 0,
        });
    }
    let token = SecretToken::generate("", 43);
    tx.execute(
        "INSERT INTO account_invites (email, token_hash, recipient_id, created_at, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![email, token.hash(), recipient, now, now + TTL],
    )?;
    Ok(token)
}

/// The unused, unexpired invitation behind `token`.
pub fn find(conn: &Connection, token: &str, now: i64) -> Result<Option<Invite>, AppError> {
    Ok(conn
        .query_row(
            "SELECT id, email, recipient_id FROM account_invites
              WHERE token_hash = ?1 AND used_at IS NULL AND expires_at > ?2",
            params![SecretToken::presented(token).hash(), now],
            invite_row,
        )
        .optional()?)
}

/// Uses the invitation behind `token` up, once: `None` when it was used, expired or unknown.
/// Every other link for the same address stops working too.
pub fn redeem(tx: &Connection, token: &str, now: i64) -> Result<Option<Invite>, AppError> {
    let invite = tx
        .query_row(
            "UPDATE account_invites SET used_at = ?2
              WHERE token_hash = ?1 AND used_at IS NULL AND expires_at > ?2
             RETURNING id, email, recipient_id",
            params![SecretToken::presented(token).hash(), now],
            invite_row,
        )
        .optional()?;
    if let Some(i) = &invite {
        tx.execute(
            "UPDATE account_invites SET used_at = ?2 WHERE email = ?1 AND used_at IS NULL",
            params![i.email, now],
        )?;
    }
    Ok(invite)
}

/// Redeems invitation `code` into a new standard-tier account named `name` with the password
/// hash `phc`, signed in with `session`, in one transaction. Returns where to go next: the
/// document's link when it is still this address's, else the account page; `None` when the
/// invitation was used, expired or unknown.
pub async fn create_account(
    db: &crate::db::Db,
    code: String,
    name: String,
    phc: String,
    session: SecretToken,
) -> Result<Option<String>, AppError> {
    let now = crate::db::now;
    db.write(move |tx| {
        let Some(invite) = redeem(tx, &code, now())? else {
            return Ok(None);
        };
        let email = super::Email::parse(&invite.email)?;
        let user = super::store::insert(
            tx,
            &super::store::NewUser {
                email: &email,
                name: &name,
                username: None,
                tier: super::Tier::Standard,
                password_hash: &phc,
            },
            now(),
        )?;
        crate::sessions::store::create(tx, user.id, &session, now())?;
        let back = match invite.recipient_id {
            Some(r) => crate::signing::store::token_for(tx, r, &invite.email)?,
            None => None,
        };
        Ok(Some(back.map_or_else(
            || "/account".to_string(),
            |t| format!("/sign/{t}"),
        )))
    })
    .await
}
