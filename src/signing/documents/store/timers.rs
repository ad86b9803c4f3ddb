//! SQL for what is due per recipient (`recipient_timers`, v30): the report of a deadline that
//! passed (`EXPIRE`) and the next automatic reminder (`REMIND`), with the recipients' own
//! `expires_at`, `expiration_notified_at` and `reminders_sent`. The scan reads only due rows
//! through `recipient_timers_due`; whoever takes a row off or moves it on (a statement guarded
//! by the row's due time) handles it, once, on any number of nodes.

use crate::core::db::{Conn, OptionalExtension};
use crate::core::error::AppError;
use crate::core::ids::{DocumentId, RecipientId};
use crate::params;

/// What a timer is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Report that the recipient's deadline passed.
    Expire,
    /// Send the recipient an automatic reminder.
    Remind,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Expire => "EXPIRE",
            Kind::Remind => "REMIND",
        }
    }

    pub fn parse(s: &str) -> Option<Kind> {
        [Kind::Expire, Kind::Remind]
            .into_iter()
            .find(|k| k.as_str() == s)
    }
}

crate::sql_text_enum!(Kind);

/// A row that is due.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Due {
    pub recipient: RecipientId,
    pub kind: Kind,
    pub at: i64,
}

/// Sets recipient `r`'s deadline (`None`: none) and clears the mark that the owner was told
/// of an earlier one; the report is due at the deadline.
pub fn set_deadline(tx: &Conn, r: RecipientId, at: Option<i64>) -> Result<(), AppError> {
    tx.execute(
        "UPDATE recipients SET expires_at = ?2, expiration_notified_at = NULL WHERE id = ?1",
        params![r, at],
    )?;
    match at {
        Some(at) => set(tx, r, Kind::Expire, at),
        None => clear(tx, r, Kind::Expire),
    }
}

/// Schedules `kind` for `r` at `at` (replacing one scheduled before).
pub fn set(tx: &Conn, r: RecipientId, kind: Kind, at: i64) -> Result<(), AppError> {
    tx.execute(
        "INSERT INTO recipient_timers (recipient_id, kind, due_at) VALUES (?1, ?2, ?3)
         ON CONFLICT (recipient_id, kind) DO UPDATE SET due_at = excluded.due_at",
        params![r, kind, at],
    )?;
    Ok(())
}

/// Unschedules `kind` for `r`.
pub fn clear(tx: &Conn, r: RecipientId, kind: Kind) -> Result<(), AppError> {
    tx.execute(
        "DELETE FROM recipient_timers WHERE recipient_id = ?1 AND kind = ?2",
        params![r, kind],
    )?;
    Ok(())
}

/// Up to `limit` rows due at `now`, earliest first; on PostgreSQL locked for this transaction
/// and passed over while another node's holds them.
pub fn due(conn: &Conn, now: i64, limit: i64) -> Result<Vec<Due>, AppError> {
    let sql = format!(
        "SELECT recipient_id, kind, due_at FROM recipient_timers
          WHERE due_at <= ?1 ORDER BY due_at LIMIT ?2{}",
        conn.claim_clause(None)
    );
    Ok(conn
        .prepare_cached(&sql)?
        .query_map(params![now, limit], |r| {
            Ok(Due {
                recipient: r.get(0)?,
                kind: r.get(1)?,
                at: r.get(2)?,
            })
        })?
        .collect::<crate::core::db::Result<_>>()?)
}

/// Takes `due` off if it is still as read; answers whether this call did (and so handles it).
pub fn take(tx: &Conn, due: Due) -> Result<bool, AppError> {
    let n = tx.execute(
        "DELETE FROM recipient_timers WHERE recipient_id = ?1 AND kind = ?2 AND due_at = ?3",
        params![due.recipient, due.kind, due.at],
    )?;
    Ok(n == 1)
}

/// Moves `due` on to `next` if it is still as read; answers whether this call did.
pub fn move_on(tx: &Conn, due: Due, next: i64) -> Result<bool, AppError> {
    let n = tx.execute(
        "UPDATE recipient_timers SET due_at = ?4
          WHERE recipient_id = ?1 AND kind = ?2 AND due_at = ?3",
        params![due.recipient, due.kind, due.at, next],
    )?;
    Ok(n == 1)
}

/// Marks that the owner was told `r`'s deadline passed, unless they were or `r` finished;
/// answers whether it did.
pub fn mark_expired(tx: &Conn, r: RecipientId, now: i64) -> Result<bool, AppError> {
    let n = tx.execute(
        "UPDATE recipients SET expiration_notified_at = ?2
          WHERE id = ?1 AND expiration_notified_at IS NULL AND signing_status = 'NOT_SIGNED'
            AND expires_at IS NOT NULL AND expires_at <= ?2",
        params![r, now],
    )?;
    Ok(n == 1)
}

/// Counts an automatic reminder sent to `r`.
pub fn count_reminder(tx: &Conn, r: RecipientId) -> Result<(), AppError> {
    tx.execute(
        "UPDATE recipients SET reminders_sent = reminders_sent + 1 WHERE id = ?1",
        [r],
    )?;
    Ok(())
}

/// When each recipient of `doc` with a reminder scheduled gets it.
pub fn reminders_of(conn: &Conn, doc: DocumentId) -> Result<Vec<(RecipientId, i64)>, AppError> {
    Ok(conn
        .prepare_cached(
            "SELECT t.recipient_id, t.due_at FROM recipient_timers t
               JOIN recipients r ON r.id = t.recipient_id
              WHERE r.document_id = ?1 AND t.kind = 'REMIND' ORDER BY t.recipient_id",
        )?
        .query_map([doc], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<crate::core::db::Result<_>>()?)
}

/// Unschedules every reminder of `doc`'s recipients; answers how many there were.
pub fn stop_reminders(tx: &Conn, doc: DocumentId) -> Result<usize, AppError> {
    Ok(tx.execute(
        "DELETE FROM recipient_timers WHERE kind = 'REMIND'
            AND recipient_id IN (SELECT id FROM recipients WHERE document_id = ?1)",
        [doc],
    )?)
}

/// When the document `doc` was sent (for the reminders' window).
pub fn sent_at(conn: &Conn, doc: DocumentId) -> Result<Option<i64>, AppError> {
    Ok(conn
        .query_row("SELECT sent_at FROM documents WHERE id = ?1", [doc], |r| {
            r.get::<_, Option<i64>>(0)
        })
        .optional()?
        .flatten())
}

/// The document recipient `r` belongs to (`None`: a template's, or gone).
pub fn document_of(conn: &Conn, r: RecipientId) -> Result<Option<DocumentId>, AppError> {
    Ok(conn
        .query_row(
            "SELECT document_id FROM recipients WHERE id = ?1",
            [r],
            |row| row.get::<_, Option<DocumentId>>(0),
        )
        .optional()?
        .flatten())
}
