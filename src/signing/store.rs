//! SQL for signing: a recipient's link, the document behind it, field values, and the state
//! changes, each guarded by a WHERE clause that re-checks its precondition.

use rusqlite::{Connection, OptionalExtension, params};

use super::Party;
use super::values::Stored;
use crate::db::stored_json;
use crate::documents::Status;
use crate::documents::fields::FieldType;
use crate::documents::meta::Meta;
use crate::documents::recipients::{ReadStatus, Role, SigningStatus};
use crate::error::AppError;

/// The recipient a signing token names, with its document.
#[derive(Debug, Clone)]
pub struct Link {
    pub recipient_id: i64,
    pub email: String,
    pub name: String,
    pub role: Role,
    pub read_status: ReadStatus,
    pub signing_status: SigningStatus,
    /// The recipient's `authOptions` as stored (JSON), if any.
    pub auth_options: Option<String>,
    pub document: LinkedDocument,
}

impl Link {
    /// What this recipient must prove besides holding the link (`signing::auth`). A stored
    /// value that cannot be read is an error, never "nothing to prove".
    pub fn requirement(&self) -> Result<super::auth::Requirement, AppError> {
        let damaged = |e: serde_json::Error| AppError::internal(format!("stored authOptions: {e}"));
        let doc: crate::documents::meta::AuthOptions = match self.document.auth_options.as_deref() {
            None | Some("") => Default::default(),
            Some(s) => serde_json::from_str(s).map_err(damaged)?,
        };
        let mine: crate::documents::meta::RecipientAuth = match self.auth_options.as_deref() {
            None | Some("") => Default::default(),
            Some(s) => serde_json::from_str(s).map_err(damaged)?,
        };
        super::auth::Requirement::of(
            doc.global_access_auth.as_deref(),
            doc.global_action_auth.as_deref(),
            mine.access_auth.as_deref(),
            mine.action_auth.as_deref(),
        )
    }
}

#[derive(Debug, Clone)]
pub struct LinkedDocument {
    pub id: i64,
    pub user_id: i64,
    pub title: String,
    pub status: Status,
    pub meta: Meta,
    pub blob_id: Option<String>,
    /// `[[width, height], ...]` in points, one per page.
    pub page_sizes: Vec<[f64; 2]>,
    pub sender_name: String,
    pub sender_email: String,
    /// The document's `authOptions` as stored (JSON).
    pub auth_options: Option<String>,
}

/// The link for `token`; `None` for an unknown token (also a template's recipient).
pub fn by_token(conn: &Connection, token: &str) -> Result<Option<Link>, AppError> {
    Ok(conn
        .query_row(
            "SELECT r.id, r.email, r.name, r.role, r.read_status, r.signing_status,
                    d.id, d.user_id, d.title, d.status, d.meta, d.blob_id, d.page_sizes, u.name, u.email,
                    r.auth_options, d.auth_options
             FROM recipients r JOIN documents d ON d.id = r.document_id JOIN users u ON u.id = d.user_id
             WHERE r.token = ?1",
            [token],
            |r| {
                let meta: String = r.get(10)?;
                let sizes: Option<String> = r.get(12)?;
                Ok(Link {
                    recipient_id: r.get(0)?,
                    email: r.get(1)?,
                    name: r.get(2)?,
                    role: r.get(3)?,
                    read_status: r.get(4)?,
                    signing_status: r.get(5)?,
                    auth_options: r.get(15)?,
                    document: LinkedDocument {
                        id: r.get(6)?,
                        user_id: r.get(7)?,
                        title: r.get(8)?,
                        status: r.get(9)?,
                        meta: stored_json(10, &meta)?,
                        blob_id: r.get(11)?,
                        page_sizes: match sizes {
                            Some(s) => stored_json(12, &s)?,
                            None => Vec::new(),
                        },
                        sender_name: r.get(13)?,
                        sender_email: r.get(14)?,
                        auth_options: r.get(16)?,
                    },
                })
            },
        )
        .optional()?)
}

/// The document's recipients as the turn rules see them.
pub fn parties(conn: &Connection, doc: i64) -> Result<Vec<Party>, AppError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, role, signing_order, signing_status FROM recipients WHERE document_id = ?1 ORDER BY id",
    )?;
    let rows = stmt.query_map([doc], |r| {
        Ok(Party {
            id: r.get(0)?,
            role: r.get(1)?,
            signing_order: r.get(2)?,
            signing_status: r.get(3)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Who to e-mail: id, name, e-mail, role, token.
#[derive(Debug, Clone)]
pub struct Addressee {
    pub id: i64,
    pub name: String,
    pub email: String,
    pub role: Role,
    pub token: String,
}

pub fn addressees(conn: &Connection, doc: i64) -> Result<Vec<Addressee>, AppError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, name, email, role, token FROM recipients WHERE document_id = ?1 ORDER BY id",
    )?;
    let rows = stmt.query_map([doc], |r| {
        Ok(Addressee {
            id: r.get(0)?,
            name: r.get(1)?,
            email: r.get(2)?,
            role: r.get(3)?,
            token: r.get(4)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// One of a recipient's fields, with whether it holds a value.
#[derive(Debug, Clone)]
pub struct MyField {
    pub id: i64,
    pub kind: FieldType,
    pub page: i64,
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    pub meta: Option<serde_json::Value>,
    pub text: Option<String>,
    pub drawn: bool,
    pub inserted: bool,
}

pub fn fields_of(conn: &Connection, doc: i64, recipient: i64) -> Result<Vec<MyField>, AppError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, type, page_number, page_x, page_y, page_width, page_height, field_meta, custom_text,
                signature_png IS NOT NULL, inserted
         FROM fields WHERE document_id = ?1 AND recipient_id = ?2 ORDER BY page_number, page_y, page_x, id",
    )?;
    let rows = stmt.query_map(params![doc, recipient], |r| {
        let meta: Option<String> = r.get(7)?;
        Ok(MyField {
            id: r.get(0)?,
            kind: r.get(1)?,
            page: r.get(2)?,
            x: r.get(3)?,
            y: r.get(4)?,
            width: r.get(5)?,
            height: r.get(6)?,
            meta: meta.and_then(|m| serde_json::from_str(&m).ok()),
            text: r.get(8)?,
            drawn: r.get(9)?,
            inserted: r.get(10)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The PNG drawn into `field`, one of `recipient`'s fields on `doc`.
pub fn signature_png(
    conn: &Connection,
    doc: i64,
    recipient: i64,
    field: i64,
) -> Result<Option<Vec<u8>>, AppError> {
    Ok(conn
        .query_row(
            "SELECT signature_png FROM fields
              WHERE id = ?1 AND document_id = ?2 AND recipient_id = ?3 AND signature_png IS NOT NULL",
            params![field, doc, recipient],
            |r| r.get(0),
        )
        .optional()?)
}

/// First visit: OPENED (and SENT, the link having reached them). True when this was the first.
pub fn mark_opened(tx: &Connection, recipient: i64, now: i64) -> Result<bool, AppError> {
    let n = tx.execute(
        "UPDATE recipients SET read_status = 'OPENED', opened_at = ?2,
                send_status = 'SENT', sent_at = COALESCE(sent_at, ?2)
         WHERE id = ?1 AND read_status = 'NOT_OPENED'",
        params![recipient, now],
    )?;
    Ok(n == 1)
}

/// Stores a field's value while the document is PENDING and its recipient has not finished.
/// Returns false when that no longer holds.
pub fn save_value(
    tx: &Connection,
    field: i64,
    recipient: i64,
    value: &Stored,
    now: i64,
) -> Result<bool, AppError> {
    let (text, png): (Option<&str>, Option<&[u8]>) = match value {
        Stored::Text(t) => (Some(t), None),
        Stored::Drawn(p) => (None, Some(p)),
    };
    let n = tx.execute(
        "UPDATE fields SET custom_text = ?3, signature_png = ?4, inserted = 1, filled_at = ?5
         WHERE id = ?1 AND recipient_id = ?2
           AND EXISTS (SELECT 1 FROM recipients r JOIN documents d ON d.id = r.document_id
                       WHERE r.id = ?2 AND r.signing_status = 'NOT_SIGNED' AND d.status = 'PENDING')",
        params![field, recipient, text, png, now],
    )?;
    Ok(n == 1)
}

/// The recipient finishes (SIGNED: signed, approved or viewed) or rejects, if it has not yet
/// and the document is PENDING. Returns false when that no longer holds.
pub fn finish(
    tx: &Connection,
    recipient: i64,
    status: SigningStatus,
    reason: Option<&str>,
    ip: Option<&str>,
    user_agent: Option<&str>,
    now: i64,
) -> Result<bool, AppError> {
    let n = tx.execute(
        "UPDATE recipients SET signing_status = ?2, signed_at = ?3, rejection_reason = ?4,
                acted_ip = ?5, acted_user_agent = ?6
         WHERE id = ?1 AND signing_status = 'NOT_SIGNED'
           AND (SELECT status FROM documents WHERE id = recipients.document_id) = 'PENDING'",
        params![recipient, status, now, reason, ip, user_agent],
    )?;
    Ok(n == 1)
}

/// Recipient `recipient`'s signing token, while its address is still `email`.
pub fn token_for(
    conn: &Connection,
    recipient: i64,
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

/// Records what the recipient proved when they finished.
pub fn record_auth(
    tx: &Connection,
    recipient: i64,
    proved: &super::auth::Proved,
) -> Result<(), AppError> {
    tx.execute(
        "UPDATE recipients SET auth_method = ?2, auth_user_id = ?3 WHERE id = ?1",
        params![recipient, proved.method, proved.user_id],
    )?;
    Ok(())
}

/// Moves the document from `from` to `to`; false when it was no longer `from`.
pub fn set_status(
    tx: &Connection,
    doc: i64,
    from: Status,
    to: Status,
    now: i64,
) -> Result<bool, AppError> {
    let n = tx.execute(
        "UPDATE documents SET status = ?3, updated_at = ?4,
                sent_at = CASE WHEN ?3 = 'PENDING' THEN ?4 ELSE sent_at END
         WHERE id = ?1 AND status = ?2",
        params![doc, from, to, now],
    )?;
    Ok(n == 1)
}

/// Records the sealed file and completes the document, if it is still PENDING with every
/// acting recipient finished. False otherwise (e.g. cancelled while sealing).
pub fn complete(tx: &Connection, doc: i64, sealed: &str, now: i64) -> Result<bool, AppError> {
    let n = tx.execute(
        "UPDATE documents SET status = 'COMPLETED', sealed_blob_id = ?2, completed_at = ?3, updated_at = ?3,
                seal_next_at = NULL
         WHERE id = ?1 AND status = 'PENDING'
           AND NOT EXISTS (SELECT 1 FROM recipients WHERE document_id = ?1 AND role <> 'CC' AND signing_status <> 'SIGNED')",
        params![doc, sealed, now],
    )?;
    Ok(n == 1)
}

/// Sets the value of every DATE field of `recipient` (at completion).
pub fn fill_dates(tx: &Connection, recipient: i64, text: &str, now: i64) -> Result<(), AppError> {
    tx.execute(
        "UPDATE fields SET custom_text = ?2, inserted = 1, filled_at = ?3
         WHERE recipient_id = ?1 AND type = 'DATE'",
        params![recipient, text, now],
    )?;
    Ok(())
}

/// PENDING documents whose acting recipients have all finished but that are not sealed yet,
/// with when their next sealing attempt is due (`None`: at once; a time after a failure).
pub fn awaiting_seal(conn: &Connection) -> Result<Vec<(i64, Option<i64>)>, AppError> {
    let mut stmt = conn.prepare(
        "SELECT d.id, d.seal_next_at FROM documents d WHERE d.status = 'PENDING'
           AND EXISTS (SELECT 1 FROM recipients WHERE document_id = d.id AND role <> 'CC')
           AND NOT EXISTS (SELECT 1 FROM recipients WHERE document_id = d.id AND role <> 'CC' AND signing_status <> 'SIGNED')",
    )?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Records a failed sealing attempt on a PENDING document: one more failure, its `error`, and
/// the next attempt at `next(failures)`. Returns (failures, next attempt), or `None` when the
/// document is no longer PENDING.
pub fn record_seal_failure(
    tx: &Connection,
    doc: i64,
    error: &str,
    next: impl Fn(u32) -> i64,
    now: i64,
) -> Result<Option<(u32, i64)>, AppError> {
    let before: Option<i64> = tx
        .query_row(
            "SELECT seal_failures FROM documents WHERE id = ?1 AND status = 'PENDING'",
            [doc],
            |r| r.get(0),
        )
        .optional()?;
    let Some(before) = before else {
        return Ok(None);
    };
    let failures = u32::try_from(before).unwrap_or(0).saturating_add(1);
    let at = next(failures);
    tx.execute(
        "UPDATE documents SET seal_failures = ?2, seal_error = ?3, seal_next_at = ?4, updated_at = ?5
         WHERE id = ?1 AND status = 'PENDING'",
        params![doc, failures, error, at, now],
    )?;
    Ok(Some((failures, at)))
}

/// The file a document is sealed from: its title, blob id and SHA-256.
pub struct SealSource {
    pub title: String,
    pub blob: String,
    pub sha256: String,
}

pub fn seal_source(conn: &Connection, doc: i64) -> Result<SealSource, AppError> {
    Ok(conn.query_row(
        "SELECT d.title, d.blob_id, b.sha256 FROM documents d JOIN blobs b ON b.id = d.blob_id WHERE d.id = ?1",
        [doc],
        |r| {
            Ok(SealSource {
                title: r.get(0)?,
                blob: r.get(1)?,
                sha256: r.get(2)?,
            })
        },
    )?)
}

/// A filled field as sealing burns it in.
pub struct FilledRow {
    pub page: i64,
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    pub kind: FieldType,
    pub text: Option<String>,
    pub png: Option<Vec<u8>>,
    pub recipient: i64,
}

/// The document's filled fields, in the order they were placed.
pub fn filled_fields(conn: &Connection, doc: i64) -> Result<Vec<FilledRow>, AppError> {
    let mut stmt = conn.prepare_cached(
        "SELECT page_number, page_x, page_y, page_width, page_height, type, custom_text, signature_png, recipient_id
         FROM fields WHERE document_id = ?1 AND inserted = 1 ORDER BY id",
    )?;
    let rows = stmt.query_map([doc], |r| {
        Ok(FilledRow {
            page: r.get(0)?,
            x: r.get(1)?,
            y: r.get(2)?,
            width: r.get(3)?,
            height: r.get(4)?,
            kind: r.get(5)?,
            text: r.get(6)?,
            png: r.get(7)?,
            recipient: r.get(8)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// What a recipient did, for the audit certificate.
pub struct Acted {
    pub id: i64,
    pub name: String,
    pub email: String,
    pub role: Role,
    pub ip: Option<String>,
    pub user_agent: Option<String>,
    pub opened_at: Option<i64>,
    pub signed_at: Option<i64>,
    pub status: SigningStatus,
    /// How they authenticated (`recipients.auth_method`) and as which account.
    pub auth_method: Option<String>,
    pub auth_account: Option<String>,
}

/// Every recipient of the document with what they did, by id.
pub fn acted(conn: &Connection, doc: i64) -> Result<Vec<Acted>, AppError> {
    let mut stmt = conn.prepare_cached(
        "SELECT r.id, r.name, r.email, r.role, r.acted_ip, r.acted_user_agent, r.opened_at,
                r.signed_at, r.signing_status, r.auth_method, u.email
         FROM recipients r LEFT JOIN users u ON u.id = r.auth_user_id
         WHERE r.document_id = ?1 ORDER BY r.id",
    )?;
    let rows = stmt.query_map([doc], |r| {
        Ok(Acted {
            id: r.get(0)?,
            name: r.get(1)?,
            email: r.get(2)?,
            role: r.get(3)?,
            ip: r.get(4)?,
            user_agent: r.get(5)?,
            opened_at: r.get(6)?,
            signed_at: r.get(7)?,
            status: r.get(8)?,
            auth_method: r.get(9)?,
            auth_account: r.get(10)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}
