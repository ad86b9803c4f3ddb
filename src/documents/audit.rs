//! The audit log of a document: one
//! row per event, written in the same transaction as the change it records, read oldest first.

use crate::db::Conn;
use crate::params;
use serde::Serialize;
use serde_json::Value;

use crate::error::AppError;
use crate::timefmt::iso8601;

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Event {
    Created,
    Uploaded,
    Sent,
    Emailed,
    Opened,
    FieldFilled,
    Signed,
    Approved,
    Viewed,
    Rejected,
    Completed,
    Downloaded,
    Cancelled,
    /// The owner gave a recipient a new e-mail address (and so a new signing link).
    RecipientChanged,
    /// An ASSISTANT finished (having filled in what they chose for those after them).
    Assisted,
}

impl Event {
    pub const ALL: [Event; 15] = [
        Event::Created,
        Event::Uploaded,
        Event::Sent,
        Event::Emailed,
        Event::Opened,
        Event::FieldFilled,
        Event::Signed,
        Event::Approved,
        Event::Viewed,
        Event::Rejected,
        Event::Completed,
        Event::Downloaded,
        Event::Cancelled,
        Event::RecipientChanged,
        Event::Assisted,
    ];

    pub fn parse(s: &str) -> Option<Event> {
        Self::ALL.into_iter().find(|e| e.as_str() == s)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Event::Created => "CREATED",
            Event::Uploaded => "UPLOADED",
            Event::Sent => "SENT",
            Event::Emailed => "EMAILED",
            Event::Opened => "OPENED",
            Event::FieldFilled => "FIELD_FILLED",
            Event::Signed => "SIGNED",
            Event::Approved => "APPROVED",
            Event::Viewed => "VIEWED",
            Event::Rejected => "REJECTED",
            Event::Completed => "COMPLETED",
            Event::Downloaded => "DOWNLOADED",
            Event::Cancelled => "CANCELLED",
            Event::RecipientChanged => "RECIPIENT_CHANGED",
            Event::Assisted => "ASSISTED",
        }
    }
}

crate::sql_text_enum!(Event);

/// Who did it, and from where (the request's client address and user agent, when a request
/// caused it).
#[derive(Debug, Clone, Default)]
pub struct Actor {
    /// The owner's or the recipient's e-mail address, or `system`.
    pub label: String,
    pub recipient_id: Option<i64>,
    pub ip: Option<String>,
    pub user_agent: Option<String>,
}

impl Actor {
    pub fn system() -> Actor {
        Actor {
            label: "system".into(),
            ..Actor::default()
        }
    }
}

/// Where a request came from, for the audit log.
#[derive(Debug, Clone, Default)]
pub struct Origin {
    pub ip: Option<String>,
    pub user_agent: Option<String>,
}

impl Origin {
    /// The actor `label` (an e-mail address), acting from here.
    pub fn actor(&self, label: &str, recipient: Option<i64>) -> Actor {
        Actor {
            label: label.to_string(),
            recipient_id: recipient,
            ip: self.ip.clone(),
            user_agent: self.user_agent.clone(),
        }
    }
}

/// The e-mail address of user `user`: how the audit log names a document's owner.
pub fn owner_email(conn: &Conn, user: i64) -> Result<String, AppError> {
    crate::users::store::get(conn, user)?
        .map(|u| u.email)
        .ok_or_else(|| AppError::internal(format!("user {user} is gone")))
}

/// Records `event` on document `doc`; `data` holds event details (a JSON object).
pub fn record(
    conn: &Conn,
    doc: i64,
    event: Event,
    actor: &Actor,
    data: &Value,
    now: i64,
) -> Result<(), AppError> {
    conn.prepare_cached(
        "INSERT INTO audit_events (document_id, at, type, actor, recipient_id, ip, user_agent, data)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?
    .execute(params![
        doc,
        now,
        event.as_str(),
        actor.label,
        actor.recipient_id,
        actor.ip,
        actor.user_agent,
        data.to_string()
    ])?;
    Ok(())
}

/// One event as the API shows it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditEvent {
    pub id: i64,
    #[serde(rename = "type")]
    pub kind: Event,
    pub created_at: String,
    pub actor: String,
    pub recipient_id: Option<i64>,
    pub ip_address: Option<String>,
    pub user_agent: Option<String>,
    pub data: Value,
}

/// The document's events, oldest first.
pub fn list(conn: &Conn, doc: i64) -> Result<Vec<AuditEvent>, AppError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, type, at, actor, recipient_id, ip, user_agent, data
         FROM audit_events WHERE document_id = ?1 ORDER BY id",
    )?;
    let rows = stmt.query_map([doc], |r| {
        let data: String = r.get(7)?;
        Ok(AuditEvent {
            id: r.get(0)?,
            kind: r.get(1)?,
            created_at: iso8601(r.get(2)?),
            actor: r.get(3)?,
            recipient_id: r.get(4)?,
            ip_address: r.get(5)?,
            user_agent: r.get(6)?,
            data: crate::db::stored_json(7, &data)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_come_back_oldest_first_with_their_actor() {
        let conn = crate::db::memory();
        conn.execute_batch(
            "INSERT INTO users (id, email, username, name, password_hash, created_at, updated_at) VALUES (1, 'o@e.com', 'o', 'O', 'x', 0, 0);
             INSERT INTO documents (id, user_id, title, document_data_id, created_at, updated_at) VALUES (7, 1, 'T', 'd', 0, 0);",
        )
        .unwrap();
        let owner = Actor {
            label: "o@e.com".into(),
            ip: Some("127.0.0.1".into()),
            ..Actor::default()
        };
        record(&conn, 7, Event::Created, &owner, &serde_json::json!({}), 10).unwrap();
        record(
            &conn,
            7,
            Event::Sent,
            &Actor::system(),
            &serde_json::json!({"n": 2}),
            20,
        )
        .unwrap();
        let events = list(&conn, 7).unwrap();
        assert_eq!(events.len(), 2);
        assert_eq!(events[0].kind.as_str(), "CREATED");
        assert_eq!(events[0].ip_address.as_deref(), Some("127.0.0.1"));
        assert_eq!(events[1].actor, "system");
        assert_eq!(events[1].data["n"], 2);
    }
}
