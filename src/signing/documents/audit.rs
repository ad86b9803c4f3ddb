//! The audit log of a document: one
//! row per event, written in the same transaction as the change it records, read oldest first.

use crate::core::db::Conn;
use crate::core::ids::{DocumentId, FieldId, RecipientId, TeamId, UserId};
use crate::params;
use serde::Serialize;

pub use super::audit_data::{Expired, Filled, Happened, LastFill, Moved, ProofUsed};

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
    /// The document changed workspace: moved into a team, or handed on when its team ended.
    Moved,
    /// A recipient's time to act passed before they finished (`meta.envelopeExpirationPeriod`).
    #[serde(rename = "RECIPIENT_EXPIRED")]
    Expired,
    /// A recipient emptied a field they had filled, before finishing (the embedded signing
    /// page's `field-unsigned`); repeated clears of a field are one row, as fills are.
    FieldCleared,
}

impl Event {
    pub const ALL: [Event; 18] = [
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
        Event::Moved,
        Event::Expired,
        Event::FieldCleared,
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
            Event::Moved => "MOVED",
            Event::Expired => "RECIPIENT_EXPIRED",
            Event::FieldCleared => "FIELD_CLEARED",
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

/// Records what happened on every document of `team`, by `actor` (before they leave it).
pub fn record_each_of_team(
    conn: &Conn,
    team: TeamId,
    actor: &Actor,
    happened: &Happened,
    now: i64,
) -> Result<usize, AppError> {
    Ok(conn.execute(
        "INSERT INTO audit_events (document_id, at, type, actor, recipient_id, ip, user_agent, data)
         SELECT id, CAST(?2 AS BIGINT), CAST(?3 AS TEXT), CAST(?4 AS TEXT), NULL,
                CAST(?5 AS TEXT), CAST(?6 AS TEXT), CAST(?7 AS TEXT) FROM documents
          WHERE team_id = ?1 AND status <> 'PENDING'",
        params![
            team,
            now,
            happened.kind().as_str(),
            actor.label,
            actor.ip,
            actor.user_agent,
            happened.to_json()
        ],
    )?)
}

/// Records what happened on document `doc`, by `actor`.
pub fn record(
    conn: &Conn,
    doc: DocumentId,
    actor: &Actor,
    happened: &Happened,
    now: i64,
) -> Result<(), AppError> {
    conn.prepare_cached(
        "INSERT INTO audit_events (document_id, at, type, actor, recipient_id, ip, user_agent, data)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?
    .execute(params![
        doc,
        now,
        happened.kind().as_str(),
        actor.label,
        actor.recipient_id,
        actor.ip,
        actor.user_agent,
        happened.to_json()
    ])?;
    Ok(())
}

/// Records a fill of one field by `actor`. A signing link may fill a field any number of
/// times, so fills are coalesced: the first fill of a field by an actor is a row of its own
/// (its time and address are the first fill's), and each later one updates that row's `fills`
/// (the count), `lastFilledAt` and `lastIpAddress` instead of adding a row. A link's
/// FIELD_FILLED rows are so bounded by the fields it may fill.
pub fn record_fill(
    conn: &Conn,
    doc: DocumentId,
    actor: &Actor,
    fill: Filled,
    now: i64,
) -> Result<(), AppError> {
    record_counted(conn, doc, actor, Event::FieldFilled, fill, now)
}

/// Records that `actor` emptied a field (`fill` names it, as a fill would), coalesced as fills
/// are: one FIELD_CLEARED row per field and actor, `fills` counting the clears.
pub fn record_clear(
    conn: &Conn,
    doc: DocumentId,
    actor: &Actor,
    fill: Filled,
    now: i64,
) -> Result<(), AppError> {
    record_counted(conn, doc, actor, Event::FieldCleared, fill, now)
}

/// A FIELD_FILLED or FIELD_CLEARED row: the first of its field and actor, or a count more on
/// that one.
fn record_counted(
    conn: &Conn,
    doc: DocumentId,
    actor: &Actor,
    kind: Event,
    fill: Filled,
    now: i64,
) -> Result<(), AppError> {
    let wrap = |f: Filled| match kind {
        Event::FieldCleared => Happened::FieldCleared(f),
        _ => Happened::FieldFilled(f),
    };
    let mut stmt = conn.prepare_cached(
        "SELECT id, data FROM audit_events
         WHERE document_id = ?1 AND type = ?4 AND recipient_id = ?2 AND actor = ?3
         ORDER BY id",
    )?;
    let rows = stmt.query_map(
        params![doc, actor.recipient_id, actor.label, kind.as_str()],
        |r| {
            let (id, data): (i64, String) = (r.get(0)?, r.get(1)?);
            Ok((id, crate::core::db::stored_json::<Filled>(1, &data)?))
        },
    )?;
    let earlier = rows
        .collect::<Result<Vec<(i64, Filled)>, _>>()?
        .into_iter()
        .find(|(_, d)| d.field_id == fill.field_id);
    let Some((id, mut kept)) = earlier else {
        return record(conn, doc, actor, &wrap(fill), now);
    };
    kept.fills = Some(kept.count().saturating_add(1));
    kept.last = Some(LastFill {
        last_filled_at: iso8601(now),
        last_ip_address: actor.ip.clone(),
    });
    let data = wrap(kept).to_json();
    conn.prepare_cached("UPDATE audit_events SET data = ?2 WHERE id = ?1")?
        .execute(params![id, data])?;
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
    pub data: Happened,
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
        let (kind, data): (Event, String) = (r.get(1)?, r.get(7)?);
        Ok(AuditEvent {
            id: r.get(0)?,
            kind,
            created_at: iso8601(r.get(2)?),
            actor: r.get(3)?,
            recipient_id: r.get(4)?,
            ip_address: r.get(5)?,
            user_agent: r.get(6)?,
            data: Happened::read(kind, &data).map_err(|e| crate::core::db::Error::Conversion {
                col: 7,
                message: e.to_string(),
            })?,
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
    let mut firsts: std::collections::HashMap<(Option<RecipientId>, String, FieldId), usize> =
        std::collections::HashMap::new();
    for e in events {
        let Happened::FieldFilled(fill) = &e.data else {
            out.push(e);
            continue;
        };
        let key = (e.recipient_id, e.actor.clone(), fill.field_id);
        let Some(&at) = firsts.get(&key) else {
            firsts.insert(key, out.len());
            out.push(e);
            continue;
        };
        if let Happened::FieldFilled(first) = &mut out[at].data {
            first.fills = Some(first.count().saturating_add(fill.count()));
            first.last = Some(fill.last.clone().unwrap_or_else(|| LastFill {
                last_filled_at: e.created_at.clone(),
                last_ip_address: e.ip_address.clone(),
            }));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signing::documents::fields::FieldType;

    fn fill_of(e: &AuditEvent) -> &Filled {
        match &e.data {
            Happened::FieldFilled(f) => f,
            other => panic!("not a fill: {other:?}"),
        }
    }

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
        let created = Happened::Created(super::super::audit_data::Created { title: "T".into() });
        record(&conn, DocumentId::new(7), &owner, &created, 10).unwrap();
        let sent = Happened::Sent(super::super::audit_data::Sent {
            direct_link: Some(super::super::audit_data::DirectLink {
                template_id: crate::core::ids::TemplateId::new(2),
            }),
            form_values: None,
        });
        record(&conn, DocumentId::new(7), &Actor::system(), &sent, 20).unwrap();
        let events = list(&conn, DocumentId::new(7)).unwrap();
        assert_eq!(events.len(), 2);
        assert_eq!(events[0].kind.as_str(), "CREATED");
        assert_eq!(events[0].ip_address.as_deref(), Some("127.0.0.1"));
        assert_eq!(events[1].actor, "system");
        assert_eq!(events[1].data, sent);
        assert_eq!(events[0].data, created);
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
        let field = |id: i64| Filled::first(FieldId::new(id), FieldType::Text, None);
        for t in 0..50 {
            record_fill(
                &conn,
                DocumentId::new(7),
                &ann("10.0.0.1"),
                field(1),
                100 + t,
            )
            .unwrap();
        }
        record_fill(&conn, DocumentId::new(7), &ann("10.0.0.2"), field(2), 200).unwrap();
        record_fill(&conn, DocumentId::new(7), &ann("10.0.0.3"), field(1), 300).unwrap();
        let events = list(&conn, DocumentId::new(7)).unwrap();
        assert_eq!(events.len(), 2, "{events:?}");
        assert_eq!(count(&conn, DocumentId::new(7)).unwrap(), 2);
        let (first, second) = (fill_of(&events[0]), fill_of(&events[1]));
        assert_eq!(first.fills, Some(51));
        assert_eq!(events[0].created_at, iso8601(100));
        assert_eq!(events[0].ip_address.as_deref(), Some("10.0.0.1"));
        let last = first.last.as_ref().unwrap();
        assert_eq!(last.last_filled_at, iso8601(300));
        assert_eq!(last.last_ip_address.as_deref(), Some("10.0.0.3"));
        assert_eq!(second.fills, Some(1));
        assert!(second.last.is_none());
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
            data: Happened::FieldFilled(Filled {
                fills: None,
                ..Filled::first(FieldId::new(field), FieldType::Text, None)
            }),
        };
        let mut signed = fill(9, 90, 0);
        signed.kind = Event::Signed;
        signed.data = Happened::Signed(super::super::audit_data::Finished { auth: None });
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
        let first = fill_of(&folded[0]);
        assert_eq!(first.fills, Some(3));
        let last = first.last.as_ref().unwrap();
        assert_eq!(last.last_filled_at, iso8601(40));
        assert_eq!(last.last_ip_address.as_deref(), Some("10.0.0.4"));
        assert!(fill_of(&folded[1]).fills.is_none());
    }
}
