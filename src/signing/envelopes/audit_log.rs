//! A document's audit log as the peer's v2 audit-log entries: each docket event under the
//! peer's type with the data its clients require. Events the peer has no type for (a
//! download) are left out, as are those only the newer clients know (a cancellation, a
//! passed deadline) for a reader that does not know them; all of them stay in docket's own
//! log and certificate.

use serde_json::{Value, json};

use super::Reader;
use super::envelope::source;
use super::people::type_name;
use crate::signing::documents::audit::AuditEvent;
use crate::signing::documents::audit_data::Happened;
use crate::signing::documents::model::{Document, Recipient};
use crate::signing::documents::recipients::Role;
use crate::signing::envelope_ids::{self, Envelope};

/// The entries `events` give for `doc`, oldest first.
pub fn entries(doc: &Document, events: &[AuditEvent], reader: Reader) -> Vec<Value> {
    events
        .iter()
        .filter_map(|e| entry(doc, e, reader))
        .collect()
}

fn entry(doc: &Document, e: &AuditEvent, reader: Reader) -> Option<Value> {
    let (kind, data) = shape(doc, e, reader)?;
    let actor = (e.actor != "system").then(|| e.actor.clone());
    let name = e
        .recipient_id
        .and_then(|id| doc.recipient(id))
        .map(|r| r.name.clone());
    Some(json!({
        "type": kind,
        "data": data,
        "id": e.id.to_string(),
        "createdAt": e.created_at,
        "envelopeId": Envelope::Document(doc.id).id(),
        "name": name,
        "email": actor,
        "userId": null,
        "userAgent": e.user_agent,
        "ipAddress": e.ip_address,
    }))
}

/// The recipient an event names: `{recipientEmail, recipientName, recipientId, recipientRole}`.
fn who(doc: &Document, e: &AuditEvent, id: Option<crate::core::ids::RecipientId>) -> Option<Value> {
    let id = id.or(e.recipient_id)?;
    let r: Option<&Recipient> = doc.recipient(id);
    Some(json!({
        "recipientEmail": r.map_or(e.actor.as_str(), |r| r.email.as_str()),
        "recipientName": r.map_or("", |r| r.name.as_str()),
        "recipientId": id,
        "recipientRole": r.map_or("SIGNER", |r| r.role.as_str()),
    }))
}

fn with(mut base: Value, more: Value) -> Value {
    if let (Some(b), Value::Object(m)) = (base.as_object_mut(), more) {
        b.extend(m);
    }
    base
}

/// The peer's type and data for one event, if the reader can be shown it.
fn shape(doc: &Document, e: &AuditEvent, reader: Reader) -> Option<(&'static str, Value)> {
    let newer = reader.knows_newer_values();
    Some(match &e.data {
        Happened::Created(c) => {
            let from = match (source(doc), doc.template_id) {
                ("TEMPLATE_DIRECT_LINK", Some(t)) => {
                    json!({"type": "TEMPLATE_DIRECT_LINK", "templateId": t})
                }
                ("TEMPLATE", Some(t)) => json!({"type": "TEMPLATE", "templateId": t}),
                _ => json!({"type": "DOCUMENT"}),
            };
            (
                "DOCUMENT_CREATED",
                json!({"title": c.title, "source": from}),
            )
        }
        Happened::Uploaded(_) => {
            let item = envelope_ids::item_id(Envelope::Document(doc.id).item_number());
            (
                "ENVELOPE_ITEM_CREATED",
                json!({"envelopeItemId": item, "envelopeItemTitle": doc.title}),
            )
        }
        Happened::Sent(_) => ("DOCUMENT_SENT", json!({})),
        Happened::Emailed(_) => {
            let r = who(doc, e, None)?;
            let role = doc.recipient(e.recipient_id?).map(|r| r.role);
            let kind = match role {
                Some(Role::Viewer) => "VIEW_REQUEST",
                Some(Role::Approver) => "APPROVE_REQUEST",
                Some(Role::Assistant) => "ASSISTING_REQUEST",
                Some(Role::Cc) => "CC",
                _ => "SIGNING_REQUEST",
            };
            (
                "EMAIL_SENT",
                with(r, json!({"emailType": kind, "isResending": false})),
            )
        }
        Happened::Opened => (
            "DOCUMENT_OPENED",
            with(who(doc, e, None)?, json!({"accessAuth": []})),
        ),
        Happened::FieldFilled(f) => {
            let field = doc.fields.iter().find(|x| x.id == f.field_id);
            let value = field
                .and_then(|x| x.custom_text.clone())
                .unwrap_or_default();
            (
                "DOCUMENT_FIELD_INSERTED",
                with(
                    who(doc, e, None)?,
                    json!({"fieldId": f.field_id.to_string(),
                           "field": {"type": type_name(f.kind), "data": value}}),
                ),
            )
        }
        Happened::FieldCleared(f) => (
            "DOCUMENT_FIELD_UNINSERTED",
            json!({"field": type_name(f.kind), "fieldId": f.field_id.to_string()}),
        ),
        Happened::Signed(_)
        | Happened::Approved(_)
        | Happened::Viewed(_)
        | Happened::Assisted(_) => (
            "DOCUMENT_RECIPIENT_COMPLETED",
            with(who(doc, e, None)?, json!({"actionAuth": []})),
        ),
        Happened::Rejected(r) => (
            "DOCUMENT_RECIPIENT_REJECTED",
            with(who(doc, e, None)?, json!({"reason": r.reason})),
        ),
        Happened::Completed(c) => ("DOCUMENT_COMPLETED", json!({"transactionId": c.sha256})),
        Happened::Cancelled if newer => ("DOCUMENT_CANCELLED", json!({})),
        Happened::Expired(_) if newer => ("DOCUMENT_RECIPIENT_EXPIRED", who(doc, e, None)?),
        Happened::RecipientChanged(r) => (
            "RECIPIENT_UPDATED",
            with(
                who(doc, e, Some(r.recipient_id))?,
                json!({"changes": [{"type": "EMAIL", "from": r.from, "to": r.to}]}),
            ),
        ),
        Happened::Moved(m) => (
            "DOCUMENT_MOVED_TO_TEAM",
            json!({"movedByUserId": doc.user_id, "fromPersonalAccount": true,
                   "toTeamId": m.team_id?}),
        ),
        Happened::Downloaded(_) | Happened::Cancelled | Happened::Expired(_) => return None,
    })
}
