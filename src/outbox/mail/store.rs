//! SQL for `mail_queue`. Only `enqueue` runs inside other transactions; it only inserts.

use crate::core::ids::{DocumentId, RecipientId};
use crate::params;
use crate::{core::db::Conn, core::db::OptionalExtension, core::db::Row};
use serde::Serialize;

use super::{Kind, NewMail, Status};
use crate::core::error::AppError;
use crate::{core::timefmt::iso8601, core::timefmt::iso8601_opt};

/// Queues `m`, due now. Returns its id.
pub fn enqueue(conn: &Conn, m: &NewMail, now: i64) -> Result<i64, AppError> {
    let (blob, name) = match &m.attachment {
        Some((b, n)) => (Some(b.as_str()), Some(n.as_str())),
        None => (None, None),
    };
    let inserted_id = conn.insert(
        "INSERT INTO mail_queue (document_id, recipient_id, kind, to_addr, subject, body_text,
                                 body_html, attachment_blob, attachment_name, next_attempt_at, created_at,
                                 link_expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10, ?11)", params![
        m.document_id,
        m.recipient_id,
        m.kind,
        m.to,
        m.subject,
        m.text,
        m.html,
        blob,
        name,
        now,
        m.link_until
    ])?;
    Ok(inserted_id)
}

/// Whether a signing request was ever queued for `recipient`.
pub fn was_invited(conn: &Conn, recipient: RecipientId) -> Result<bool, AppError> {
    Ok(conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM mail_queue WHERE recipient_id = ?1 AND kind = 'SIGNING_REQUEST')",
        [recipient],
        |r| r.get(0),
    )?)
}

/// Fails the signing requests of `recipient` still waiting in the queue, with `reason` (their
/// link no longer works). Returns how many.
pub fn withdraw_signing_requests(
    conn: &Conn,
    recipient: RecipientId,
    reason: &str,
) -> Result<usize, AppError> {
    Ok(conn.execute(
        "UPDATE mail_queue SET status = 'FAILED', last_error = ?2
          WHERE recipient_id = ?1 AND kind = 'SIGNING_REQUEST' AND status = 'QUEUED'",
        params![recipient, reason],
    )?)
}

/// A queued message, whole.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Mail {
    pub id: i64,
    pub document_id: Option<DocumentId>,
    pub recipient_id: Option<RecipientId>,
    pub kind: Kind,
    pub to: String,
    pub subject: String,
    pub text: String,
    pub html: String,
    pub attachment_blob: Option<String>,
    pub attachment_name: Option<String>,
    pub status: Status,
    pub attempts: u32,
    #[serde(skip)]
    pub created: i64,
    #[serde(skip)]
    pub next_attempt: i64,
    pub created_at: String,
    pub next_attempt_at: String,
    pub sent_at: Option<String>,
    pub last_error: Option<String>,
}

const COLUMNS: &str = "id, document_id, recipient_id, kind, to_addr, subject, body_text, body_html,
    attachment_blob, attachment_name, status, attempts, created_at, next_attempt_at, sent_at, last_error";

fn mail(r: &Row<'_>) -> crate::core::db::Result<Mail> {
    let created: i64 = r.get(12)?;
    let next: i64 = r.get(13)?;
    Ok(Mail {
        id: r.get(0)?,
        document_id: r.get(1)?,
        recipient_id: r.get(2)?,
        kind: r.get(3)?,
        to: r.get(4)?,
        subject: r.get(5)?,
        text: r.get(6)?,
        html: r.get(7)?,
        attachment_blob: r.get(8)?,
        attachment_name: r.get(9)?,
        status: r.get(10)?,
        attempts: r.get(11)?,
        created,
        next_attempt: next,
        created_at: iso8601(created),
        next_attempt_at: iso8601(next),
        sent_at: iso8601_opt(r.get(14)?),
        last_error: r.get(15)?,
    })
}

/// Claims up to `limit` QUEUED messages due at `now`, oldest first, for sending: each one's
/// `next_attempt_at` moves to `lease_until`, so no other worker (of this node or another)
/// takes it while it is being sent; the outcome (`mark_done`, `mark_attempt_failed`) then
/// ends the lease. When the process dies mid-send, the lease runs out and another worker
/// sends it: nothing queued is lost.
pub fn claim(tx: &Conn, now: i64, lease_until: i64, limit: i64) -> Result<Vec<Mail>, AppError> {
    let mut stmt = tx.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM mail_queue WHERE status = 'QUEUED' AND next_attempt_at <= ?1
         ORDER BY next_attempt_at, id LIMIT ?2{}",
        tx.claim_clause(None)
    ))?;
    let due = stmt
        .query_map(params![now, limit], mail)?
        .collect::<Result<Vec<_>, _>>()?;
    let mut lease = tx.prepare_cached(
        "UPDATE mail_queue SET next_attempt_at = ?2 WHERE id = ?1 AND status = 'QUEUED'",
    )?;
    for m in &due {
        lease.execute(params![m.id, lease_until])?;
    }
    Ok(due)
}

/// One message, or a 404.
pub fn get(conn: &Conn, id: i64) -> Result<Mail, AppError> {
    conn.query_row(
        &format!("SELECT {COLUMNS} FROM mail_queue WHERE id = ?1"),
        [id],
        mail,
    )
    .optional()?
    .ok_or_else(|| AppError::not_found("message"))
}

/// Messages newest first, optionally only those with `status`.
pub fn list(conn: &Conn, status: Option<Status>, limit: i64) -> Result<Vec<Mail>, AppError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM mail_queue WHERE status = ?1 OR ?1 IS NULL ORDER BY id DESC LIMIT ?2"
    ))?;
    let rows = stmt.query_map(params![status, limit], mail)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// What is left of the body of a message that held a one-time link, once it has gone.
pub const SCRUBBED: &str = "(This message held a one-time link. Docket keeps such links only as \
hashes, so the message's text was removed once it was sent, given up, or its link expired.)";

/// The body columns' new values and the marker cleared, for a statement whose `?{n}` is
/// [`SCRUBBED`] and which applies them where `cond` holds.
fn scrub_columns(cond: &str, n: u8) -> String {
    format!(
        "body_text = CASE WHEN {cond} THEN ?{n} ELSE body_text END,
         body_html = CASE WHEN {cond} THEN ?{n} ELSE body_html END,
         link_expires_at = CASE WHEN {cond} THEN NULL ELSE link_expires_at END"
    )
}

/// The message left the building: `SENT` (through SMTP) or `OUTBOX` (filed, no SMTP). A sent
/// message's one-time link leaves the database with it; one filed in the outbox is read there
/// by the operator, so its link stays until it expires (`scrub`).
pub fn mark_done(conn: &Conn, id: i64, status: Status, now: i64) -> Result<(), AppError> {
    let sent = "(?2 = 'SENT' AND link_expires_at IS NOT NULL)";
    conn.execute(
        &format!(
            "UPDATE mail_queue SET status = ?2, attempts = attempts + 1, sent_at = ?3, last_error = NULL,
               {}
             WHERE id = ?1 AND status = 'QUEUED'",
            scrub_columns(sent, 4)
        ),
        params![id, status, now, SCRUBBED],
    )?;
    Ok(())
}

/// Removes the one-time links from the bodies of messages that no longer need them: sent or
/// given up, or filed in the outbox with their link expired at `now`. Returns how many.
pub fn scrub(conn: &Conn, now: i64) -> Result<usize, AppError> {
    Ok(conn.execute(
        "UPDATE mail_queue SET body_text = ?2, body_html = ?2, link_expires_at = NULL
         WHERE link_expires_at IS NOT NULL
           AND (status IN ('SENT', 'FAILED') OR (status = 'OUTBOX' AND link_expires_at <= ?1))",
        params![now, SCRUBBED],
    )?)
}

/// Deletes the messages that left (or were given up) before `before`. A signing request of a
/// document still being signed stays: it is the record that its recipient was asked
/// (`was_invited`). Returns how many.
pub fn delete_old(conn: &Conn, before: i64) -> Result<usize, AppError> {
    Ok(conn.execute(
        "DELETE FROM mail_queue
         WHERE status <> 'QUEUED' AND COALESCE(sent_at, created_at) < ?1
           AND NOT (kind = 'SIGNING_REQUEST' AND document_id IN
                    (SELECT id FROM documents WHERE status = 'PENDING'))",
        params![before],
    )?)
}

/// A failed attempt: retried at `next` (unix seconds), or `FAILED` when `next` is `None`.
pub fn mark_attempt_failed(
    conn: &Conn,
    id: i64,
    error: &str,
    next: Option<i64>,
) -> Result<(), AppError> {
    match next {
        Some(at) => conn.execute(
            "UPDATE mail_queue SET attempts = attempts + 1, last_error = ?2, next_attempt_at = ?3
             WHERE id = ?1 AND status = 'QUEUED'",
            params![id, error, at],
        )?,
        None => conn.execute(
            &format!(
                "UPDATE mail_queue SET attempts = attempts + 1, last_error = ?2, status = 'FAILED',
                   {}
                 WHERE id = ?1 AND status = 'QUEUED'",
                scrub_columns("link_expires_at IS NOT NULL", 3)
            ),
            params![id, error, SCRUBBED],
        )?,
    };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{outbox::mail::Kind, outbox::mail::NewMail, outbox::mail::compose::Composed};

    fn queued(c: &Conn, to: &str) -> i64 {
        let content = Composed {
            subject: "s".into(),
            text: "t".into(),
            html: "h".into(),
        };
        enqueue(c, &NewMail::new(Kind::SigningRequest, to, content), 100).unwrap()
    }

    #[test]
    fn a_claimed_message_is_not_claimed_again_until_its_lease_runs_out() {
        let c = crate::core::db::memory();
        let (a, b) = (queued(&c, "a@x.org"), queued(&c, "b@x.org"));
        let first: Vec<i64> = claim(&c, 100, 400, 1)
            .unwrap()
            .iter()
            .map(|m| m.id)
            .collect();
        assert_eq!(first, [a]);
        // Another worker, at once: only what is not leased.
        let second: Vec<i64> = claim(&c, 101, 401, 5)
            .unwrap()
            .iter()
            .map(|m| m.id)
            .collect();
        assert_eq!(second, [b]);
        assert!(claim(&c, 102, 402, 5).unwrap().is_empty());
        // The first worker died: after the lease, the message is claimed again, not lost.
        let retaken: Vec<i64> = claim(&c, 400, 700, 5)
            .unwrap()
            .iter()
            .map(|m| m.id)
            .collect();
        assert_eq!(retaken, [a]);
        // Once sent, it is never claimed again.
        mark_done(&c, a, Status::Sent, 450).unwrap();
        assert!(
            claim(&c, 10_000, 10_300, 5)
                .unwrap()
                .iter()
                .all(|m| m.id != a)
        );
    }
}
