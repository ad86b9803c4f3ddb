//! The audit log of a document: one
//! row per event, written in the same transaction as the change it records, read oldest first.

use crate::core::db::Conn;
use crate::core::ids::{DocumentId, RecipientId, UserId};
use crate::params;
use serde::Serialize;
use serde_json::Value;

use crate::core::error::AppError;
use crate::core::timefmt::iso8601;

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[schema(as = AuditEventType)]
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
    pub recipient_id: Option<RecipientId>,
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
    pub fn actor(&self, label: &str, recipient: Option<RecipientId>) -> Actor {
        Actor {
            label: label.to_string(),
            recipient_id: recipient,
            ip: self.ip.clone(),
            user_agent: self.user_agent.clone(),
        }
    }
}

/// The e-mail address of user `user`: how the audit log names a document's owner.
pub fn owner_email(conn: &Conn, user: UserId) -> Result<String, AppError> {
    crate::identity::users::store::get(conn, user)?
        .map(|u| u.email)
        .ok_or_else(|| AppError::internal(format!("user {user} is gone")))
}

/// Records `event` on document `doc`; `data` holds event details (a JSON object).
pub fn record(
    conn: &Conn,
    doc: DocumentId,
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

/// Records a fill of one field (`data` holds its `fieldId`) by `actor`. A signing link may fill
/// a field any number of times, so fills are coalesced: the first fill of a field by an actor
/// is a row of its own (its time and address are the first fill's), and each later one updates
/// that row's `fills` (the count), `lastFilledAt` and `lastIpAddress` instead of adding a row.
/// A link's FIELD_FILLED rows are so bounded by the fields it may fill.
pub fn record_fill(
    conn: &Conn,
    doc: DocumentId,
    actor: &Actor,
    data: &Value,
    now: i64,
) -> Result<(), AppError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, data FROM audit_events
         WHERE document_id = ?1 AND type = 'FIELD_FILLED' AND recipient_id = ?2 AND actor = ?3
         ORDER BY id",
    )?;
    let rows = stmt.query_map(params![doc, actor.recipient_id, actor.label], |r| {
        let (id, data): (i64, String) = (r.get(0)?, r.get(1)?);
        Ok((id, crate::core::db::stored_json(1, &data)?))
    })?;
    let earlier = rows
        .collect::<Result<Vec<(i64, Value)>, _>>()?
        .into_iter()
        .find(|(_, d)| d.get("fieldId") == data.get("fieldId"));
    let Some((id, mut kept)) = earlier else {
        let mut first = data.clone();
        first["fills"] = 1.into();
        return record(conn, doc, Event::FieldFilled, actor, &first, now);
    };
    let fills = kept.get("fills").and_then(Value::as_i64).unwrap_or(1);
    kept["fills"] = (fills.saturating_add(1)).into();
    kept["lastFilledAt"] = iso8601(now).into();
    kept["lastIpAddress"] = actor.ip.clone().into();
    conn.prepare_cached("UPDATE audit_events SET data = ?2 WHERE id = ?1")?
        .execute(params![id, kept.to_string()])?;
    Ok(())
}

/// One event as the API shows it.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuditEvent {
    pub id: i64,
    #[serde(rename = "type")]
    pub kind: Event,
    #[schema(format = DateTime)]
    pub created_at: String,
    pub actor: String,
    #[schema(required = true)]
    pub recipient_id: Option<RecipientId>,
    #[schema(required = true)]
    pub ip_address: Option<String>,
    #[schema(required = true)]
    pub user_agent: Option<String>,
    #[schema(value_type = Object)]
    pub data: Value,
}

/// The document's events, oldest first.
pub fn list(conn: &Conn, doc: DocumentId) -> Result<Vec<AuditEvent>, AppError> {
    page(conn, doc, i64::MAX, 0)
}

/// At most `limit` of the document's events, oldest first, after the first `offset`.
pub fn page(
    conn: &Conn,
    doc: DocumentId,
    limit: i64,
    offset: i64,
) -> Result<Vec<AuditEvent>, AppError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, type, at, actor, recipient_id, ip, user_agent, data
         FROM audit_events WHERE document_id = ?1 ORDER BY id LIMIT ?2 OFFSET ?3",
    )?;
    let rows = stmt.query_map(params![doc, limit, offset], |r| {
        let data: String = r.get(7)?;
        Ok(AuditEvent {
            id: r.get(0)?,
            kind: r.get(1)?,
            created_at: iso8601(r.get(2)?),
            actor: r.get(3)?,
            recipient_id: r.get(4)?,
            ip_address: r.get(5)?,
            user_agent: r.get(6)?,
            data: crate::core::db::stored_json(7, &data)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// How many events the document has.
pub fn count(conn: &Conn, doc: DocumentId) -> Result<i64, AppError> {
    Ok(conn.query_row(
        "SELECT COUNT(*) FROM audit_events WHERE document_id = ?1",
        [doc],
        |r| r.get(0),
    )?)
}

/// `events` with the FIELD_FILLED rows of one field by one actor folded into the first of them
/// (`fills` summed, the last one's time and address kept), as `record_fill` stores them: rows
/// stored before fills were coalesced are summarised the same way.
pub fn coalesce_fills(events: Vec<AuditEvent>) -> Vec<AuditEvent> {
    let mut out: Vec<AuditEvent> = Vec::with_capacity(events.len());
    let mut firsts: std::collections::HashMap<(Option<RecipientId>, String, String), usize> =
        std::collections::HashMap::new();
    for e in events {
        if e.kind != Event::FieldFilled {
            out.push(e);
            continue;
        }
        let key = (
            e.recipient_id,
            e.actor.clone(),
            e.data["fieldId"].to_string(),
        );
        let Some(&at) = firsts.get(&key) else {
            firsts.insert(key, out.len());
            out.push(e);
            continue;
        };
        let first = &mut out[at].data;
        let fills = |d: &Value| d.get("fills").and_then(Value::as_i64).unwrap_or(1);
        let total = fills(first).saturating_add(fills(&e.data));
        first["fills"] = total.into();
        first["lastFilledAt"] = e
            .data
            .get("lastFilledAt")
            .cloned()
            .unwrap_or_else(|| e.created_at.clone().into());
        first["lastIpAddress"] = match e.data.get("lastIpAddress") {
            Some(ip) => ip.clone(),
            None => e.ip_address.clone().into(),
        };
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_come_back_oldest_first_with_their_actor() {
        let conn = crate::core::db::memory();
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
        record(
            &conn,
            DocumentId::new(7),
            Event::Created,
            &owner,
            &serde_json::json!({}),
            10,
        )
        .unwrap();
        record(
            &conn,
            DocumentId::new(7),
            Event::Sent,
            &Actor::system(),
            &serde_json::json!({"n": 2}),
            20,
        )
        .unwrap();
        let events = list(&conn, DocumentId::new(7)).unwrap();
        assert_eq!(events.len(), 2);
        assert_eq!(events[0].kind.as_str(), "CREATED");
        assert_eq!(events[0].ip_address.as_deref(), Some("127.0.0.1"));
        assert_eq!(events[1].actor, "system");
        assert_eq!(events[1].data["n"], 2);
    }

    #[test]
    fn repeated_fills_of_a_field_are_one_row_with_a_count() {
        let conn = crate::core::db::memory();
        conn.execute_batch(
            "INSERT INTO users (id, email, username, name, password_hash, created_at, updated_at) VALUES (1, 'o@e.com', 'o', 'O', 'x', 0, 0);
             INSERT INTO documents (id, user_id, title, document_data_id, created_at, updated_at) VALUES (7, 1, 'T', 'd', 0, 0);",
        )
        .unwrap();
        let ann = |ip: &str| Actor {
            label: "ann@e.com".into(),
            recipient_id: Some(RecipientId::new(3)),
            ip: Some(ip.into()),
            user_agent: None,
        };
        let field = |id: i64| serde_json::json!({"fieldId": id, "type": "TEXT"});
        for t in 0..50 {
            record_fill(
                &conn,
                DocumentId::new(7),
                &ann("10.0.0.1"),
                &field(1),
                100 + t,
            )
            .unwrap();
        }
        record_fill(&conn, DocumentId::new(7), &ann("10.0.0.2"), &field(2), 200).unwrap();
        record_fill(&conn, DocumentId::new(7), &ann("10.0.0.3"), &field(1), 300).unwrap();
        let events = list(&conn, DocumentId::new(7)).unwrap();
        assert_eq!(events.len(), 2, "{events:?}");
        assert_eq!(count(&conn, DocumentId::new(7)).unwrap(), 2);
        let first = &events[0].data;
        assert_eq!(first["fills"], 51);
        assert_eq!(events[0].created_at, iso8601(100));
        assert_eq!(events[0].ip_address.as_deref(), Some("10.0.0.1"));
        assert_eq!(first["lastFilledAt"], iso8601(300));
        assert_eq!(first["lastIpAddress"], "10.0.0.3");
        assert_eq!(events[1].data["fills"], 1);
        assert!(events[1].data.get("lastFilledAt").is_none());
        assert_eq!(
            page(&conn, DocumentId::new(7), 1, 1).unwrap()[0].id,
            events[1].id
        );
    }

    #[test]
    fn rows_stored_one_per_fill_are_summarised_alike() {
        let fill = |id: i64, at: i64, field: i64| AuditEvent {
            id,
            kind: Event::FieldFilled,
            created_at: iso8601(at),
            actor: "ann@e.com".into(),
            recipient_id: Some(RecipientId::new(3)),
            ip_address: Some(format!("10.0.0.{id}")),
            user_agent: None,
            data: serde_json::json!({"fieldId": field, "type": "TEXT"}),
        };
        let mut signed = fill(9, 90, 0);
        signed.kind = Event::Signed;
        let events = vec![
            fill(1, 10, 5),
            fill(2, 20, 6),
            fill(3, 30, 5),
            signed,
            fill(4, 40, 5),
        ];
        let folded = coalesce_fills(events);
        let ids: Vec<i64> = folded.iter().map(|e| e.id).collect();
        assert_eq!(ids, [1, 2, 9]);
        assert_eq!(folded[0].data["fills"], 3);
        assert_eq!(folded[0].data["lastFilledAt"], iso8601(40));
        assert_eq!(folded[0].data["lastIpAddress"], "10.0.0.4");
        assert!(folded[1].data.get("fills").is_none());
    }
}
