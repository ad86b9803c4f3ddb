//! SQL for `recipients`, of documents and of templates alike (`Parent`), and their changes
//! while a document is signed, each guarded by a WHERE clause that re-checks its precondition.

use crate::core::ids::{DocumentId, RecipientId, UserId};
use crate::params;
use crate::{core::db::Conn, core::db::OptionalExtension, core::db::Row};

use super::Parent;
use crate::core::db::stored_json;
use crate::signing::documents::auth_options::{ActionAuth, RecipientAuth};
use crate::signing::documents::model::Recipient;
use crate::{core::db::conflict_on_unique, core::error::AppError};
use crate::{
    signing::documents::recipients::NewRecipient, signing::documents::recipients::SigningStatus,
    signing::documents::recipients::new_token,
};

const COLUMNS: &str = "id, email, name, role, signing_order, token, auth_options, read_status,
    signing_status, send_status, opened_at, signed_at, acted_ip, acted_user_agent, auth_method,
    auth_user_id, direct_link, expires_at, expiration_notified_at, reminders_sent, rejection_reason";

fn from_row(r: &Row<'_>) -> crate::core::db::Result<Recipient> {
    let auth: Option<String> = r.get(6)?;
    Ok(Recipient {
        id: r.get(0)?,
        email: r.get(1)?,
        name: r.get(2)?,
        role: r.get(3)?,
        signing_order: r.get(4)?,
        token: r.get(5)?,
        auth: match auth.as_deref() {
            None | Some("") => RecipientAuth::default(),
            Some(s) => stored_json(6, s)?,
        },
        read_status: r.get(7)?,
        signing_status: r.get(8)?,
        send_status: r.get(9)?,
        opened_at: r.get(10)?,
        signed_at: r.get(11)?,
        acted_ip: r.get(12)?,
        acted_user_agent: r.get(13)?,
        auth_method: r.get(14)?,
        auth_user_id: r.get(15)?,
        direct_link: r.get(16)?,
        expires_at: r.get(17)?,
        expiration_notified_at: r.get(18)?,
        reminders_sent: r.get(19)?,
        rejection_reason: r.get(20)?,
    })
}

/// The recipients of `parent`, by id.
pub fn of(conn: &Conn, parent: Parent) -> Result<Vec<Recipient>, AppError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM recipients WHERE {} = ?1 ORDER BY id",
        parent.column()
    ))?;
    let rows = stmt.query_map([parent.id()], from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The recipients of each of `parents` (all documents or all templates), by id, in one query:
/// one list a parent, in the order of `parents`.
pub fn of_each(conn: &Conn, parents: &[Parent]) -> Result<Vec<Vec<Recipient>>, AppError> {
    super::of_each(conn, parents, "recipients", COLUMNS, from_row)
}

/// Recipient `id` of `parent`, or a 404.
pub fn one(conn: &Conn, parent: Parent, id: RecipientId) -> Result<Recipient, AppError> {
    conn.query_row(
        &format!(
            "SELECT {COLUMNS} FROM recipients WHERE {} = ?1 AND id = ?2",
            parent.column()
        ),
        params![parent.id(), id],
        from_row,
    )
    .optional()?
    .ok_or_else(|| AppError::not_found("recipient"))
}

fn auth_text(r: &NewRecipient) -> Option<String> {
    (!r.auth.is_empty()).then(|| serde_json::to_string(&r.auth).unwrap_or_default())
}

/// The same e-mail twice on one parent: 400 on a document (the signing service's API v1
/// answers "Recipient already exists" so), 409 on a template (docket's own route).
fn taken(parent: Parent, email: &str) -> AppError {
    let message = format!("{email} is already a recipient of this {}", parent.noun());
    match parent {
        Parent::Document(_) => AppError::wrong_state(message),
        Parent::Template(_) => AppError::Conflict(message),
    }
}

/// A unique-index violation on the recipient's address (a concurrent insert) as `taken`.
fn on_unique(e: crate::core::db::Error, parent: Parent, email: &str) -> AppError {
    match conflict_on_unique(e, "") {
        AppError::Conflict(_) => taken(parent, email),
        other => other,
    }
}

/// Adds a recipient with a fresh token; the same e-mail twice on one parent is refused (a
/// document generated from a template could not hold both).
pub fn insert(
    tx: &Conn,
    parent: Parent,
    r: &NewRecipient,
    now: i64,
) -> Result<RecipientId, AppError> {
    let exists: bool = tx.query_row(
        &format!(
            "SELECT EXISTS (SELECT 1 FROM recipients WHERE {} = ?1 AND email = ?2)",
            parent.column()
        ),
        params![parent.id(), r.email],
        |row| row.get(0),
    )?;
    if exists {
        return Err(taken(parent, &r.email));
    }
    let inserted_id = tx.insert(
        &format!(
            "INSERT INTO recipients ({}, email, name, role, signing_order, token, auth_options, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            parent.column()
        ),
        params![
            parent.id(),
            r.email,
            r.name,
            r.role,
            r.signing_order,
            new_token(),
            auth_text(r),
            now
        ],
    )
    .map_err(|e| on_unique(e, parent, &r.email))?;
    Ok(RecipientId::new(inserted_id))
}

/// Changes a recipient of `parent` (a document's: one that has not acted yet); the other
/// recipients stay as they are. A new e-mail address is a new person: the recipient gets a new signing token (the old
/// link then answers like an unknown one), is again unsent and unopened, and loses values
/// entered through the old link. Returns the previous address when it changed.
pub fn update(
    tx: &Conn,
    parent: Parent,
    id: RecipientId,
    r: &NewRecipient,
) -> Result<Option<String>, AppError> {
    let old = one(tx, parent, id)?.email;
    let readdressed = old != r.email;
    // A template's addresses have no unique index (placeholders are numbered instead): the
    // same check as `insert`.
    let exists: bool = tx.query_row(
        &format!(
            "SELECT EXISTS (SELECT 1 FROM recipients WHERE {} = ?1 AND email = ?2 AND id <> ?3)",
            parent.column()
        ),
        params![parent.id(), r.email, id],
        |row| row.get(0),
    )?;
    if exists {
        return Err(taken(parent, &r.email));
    }
    let n = tx
        .execute(
            &format!(
                "UPDATE recipients SET email = ?3, name = ?4, role = ?5, signing_order = ?6, auth_options = ?7
                  WHERE {} = ?1 AND id = ?2 AND signing_status = 'NOT_SIGNED'",
                parent.column()
            ),
            params![parent.id(), id, r.email, r.name, r.role, r.signing_order, auth_text(r)],
        )
        .map_err(|e| on_unique(e, parent, &r.email))?;
    if n == 0 {
        return Err(AppError::wrong_state(
            "the recipient has already acted and cannot be changed",
        ));
    }
    if !readdressed {
        return Ok(None);
    }
    tx.execute(
        "UPDATE recipients SET token = ?2, send_status = 'NOT_SENT', sent_at = NULL,
                read_status = 'NOT_OPENED', opened_at = NULL
          WHERE id = ?1",
        params![id, new_token()],
    )?;
    super::fields::clear_values(tx, id)?;
    Ok(Some(old))
}

/// Deletes a recipient of `parent` that has not acted, and its fields. A template's direct
/// link that made visitors this recipient is turned off with it.
pub fn delete(tx: &Conn, parent: Parent, id: RecipientId) -> Result<(), AppError> {
    if let Parent::Template(t) = parent {
        tx.execute(
            "UPDATE templates SET direct_link_recipient_id = NULL, direct_link_enabled = 0
              WHERE id = ?1 AND direct_link_recipient_id = ?2",
            params![t, id],
        )?;
    }
    let n = tx.execute(
        &format!(
            "DELETE FROM recipients WHERE {} = ?1 AND id = ?2 AND signing_status = 'NOT_SIGNED'",
            parent.column()
        ),
        params![parent.id(), id],
    )?;
    if n == 0 {
        one(tx, parent, id)?;
        return Err(AppError::wrong_state(
            "the recipient has already acted and cannot be removed",
        ));
    }
    Ok(())
}

/// The document and recipient a signing token names; `None` for an unknown token (also a
/// template's recipient) and while the document's owner is disabled: nothing of a disabled
/// account acts, so its links answer as unknown ones until it is enabled again.
pub fn by_token(conn: &Conn, token: &str) -> Result<Option<(DocumentId, RecipientId)>, AppError> {
    Ok(conn
        .query_row(
            "SELECT r.document_id, r.id FROM recipients r
               JOIN documents d ON d.id = r.document_id
               JOIN users u ON u.id = d.user_id
              WHERE r.token = ?1 AND u.disabled_at IS NULL",
            [token],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?)
}

/// Recipient `recipient`'s signing token, while its address is still `email`.
pub fn token_for(
    conn: &Conn,
    recipient: RecipientId,
    email: &str,
) -> Result<Option<String>, AppError> {
    Ok(conn
        .query_row(
            "SELECT token FROM recipients WHERE id = ?1 AND email = ?2 AND document_id IS NOT NULL",
            params![recipient, email],
            |r| r.get(0),
        )
        .optional()?)
}

/// Marks document `doc`'s recipient with address `email` as come through a template's direct
/// link (`direct_link`: they act first, alone); answers its id and signing token.
pub fn mark_direct(
    tx: &Conn,
    doc: DocumentId,
    email: &str,
) -> Result<(RecipientId, String), AppError> {
    tx.query_row(
        "UPDATE recipients SET direct_link = 1 WHERE document_id = ?1 AND email = ?2
         RETURNING id, token",
        params![doc, email],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )
    .optional()?
    .ok_or_else(|| AppError::internal("the visitor is not a recipient of the new document"))
}

/// The recipient's signing request was handed to the mail system: `sendStatus` SENT, and
/// `sent_at` the first time.
pub fn mark_sent(tx: &Conn, recipient: RecipientId, now: i64) -> Result<(), AppError> {
    tx.execute(
        "UPDATE recipients SET send_status = 'SENT', sent_at = COALESCE(sent_at, ?2) WHERE id = ?1",
        params![recipient, now],
    )?;
    Ok(())
}

/// First visit: OPENED (and SENT, the link having reached them). True when this was the first.
pub fn mark_opened(tx: &Conn, recipient: RecipientId, now: i64) -> Result<bool, AppError> {
    let n = tx.execute(
        "UPDATE recipients SET read_status = 'OPENED', opened_at = ?2,
                send_status = 'SENT', sent_at = COALESCE(sent_at, ?2)
         WHERE id = ?1 AND read_status = 'NOT_OPENED'",
        params![recipient, now],
    )?;
    Ok(n == 1)
}

/// How a recipient finished: their new status, the reason of a rejection, and where from.
#[derive(Debug, Clone, Copy)]
pub struct Finish<'a> {
    pub status: SigningStatus,
    pub reason: Option<&'a str>,
    pub ip: Option<&'a str>,
    pub user_agent: Option<&'a str>,
}

/// The recipient finishes (SIGNED: signed, approved or viewed) or rejects, if it has not yet
/// and the document is PENDING. Returns false when that no longer holds.
pub fn finish(
    tx: &Conn,
    recipient: RecipientId,
    f: Finish<'_>,
    now: i64,
) -> Result<bool, AppError> {
    let n = tx.execute(
        "UPDATE recipients SET signing_status = ?2, signed_at = ?3, rejection_reason = ?4,
                acted_ip = ?5, acted_user_agent = ?6
         WHERE id = ?1 AND signing_status = 'NOT_SIGNED'
           AND (SELECT status FROM documents WHERE id = recipients.document_id) = 'PENDING'",
        params![recipient, f.status, now, f.reason, f.ip, f.user_agent],
    )?;
    Ok(n == 1)
}

/// Records what the recipient proved when they finished: the method (`None`: the link alone)
/// and the account.
pub fn record_auth(
    tx: &Conn,
    recipient: RecipientId,
    method: Option<ActionAuth>,
    user: Option<UserId>,
) -> Result<(), AppError> {
    tx.execute(
        "UPDATE recipients SET auth_method = ?2, auth_user_id = ?3 WHERE id = ?1",
        params![recipient, method, user],
    )?;
    Ok(())
}
