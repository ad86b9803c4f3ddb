//! The bodies webhooks post: docket's envelope around a document or a booking, with the keys
//! receivers written for the signing service read beside docket's own; and, for endpoints made
//! through the scheduling service's Zapier route, the flat booking its Zapier app maps.

use serde_json::{Value, json};

use super::Event;
use crate::bookings::Booking;
use crate::core::error::AppError;
use crate::core::timefmt::iso8601;
use crate::{signing::documents::DocumentView, signing::documents::SigningLinks};

/// `{"event","payload","createdAt","webhookEndpoint"}`.
pub fn envelope(event: Event, payload: &Value, now: i64, endpoint: &str) -> Value {
    json!({
        "event": event.as_str(),
        "payload": payload,
        "createdAt": iso8601(now),
        "webhookEndpoint": endpoint,
    })
}

/// A document as a webhook shows it: as the API does (signing links only when `links`), plus
/// the keys the signing service's own payload has that the API's shape lacks. `Recipient`
/// repeats `recipients` (its older name), each recipient gaining what docket does not track
/// (never expiring, never rejected with a reason); `documentMeta` is `meta` with the
/// document's id; the document is never soft-deleted, visible to everyone on the account, and
/// made through the API.
pub fn document(view: &DocumentView, links: bool) -> Result<Value, AppError> {
    let shown = view.clone().links_shown_if(links);
    let mut out = serde_json::to_value(shown).map_err(AppError::internal)?;
    let Some(obj) = out.as_object_mut() else {
        return Err(AppError::internal("a document shows as an object"));
    };
    if let Some(Value::Array(recipients)) = obj.get_mut("recipients") {
        for r in recipients.iter_mut().filter_map(Value::as_object_mut) {
            for key in [
                "templateId",
                "documentDeletedAt",
                "expiresAt",
                "expirationNotifiedAt",
                "rejectionReason",
            ] {
                r.entry(key).or_insert(Value::Null);
            }
            r.entry("expired").or_insert(Value::Bool(false));
        }
    }
    let recipients = obj.get("recipients").cloned().unwrap_or(json!([]));
    obj.insert("Recipient".into(), recipients);
    let mut meta = obj.get("meta").cloned().unwrap_or(json!({}));
    if let Some(m) = meta.as_object_mut() {
        m.insert("id".into(), json!(view.id.to_string()));
        m.insert("documentId".into(), json!(view.id));
    }
    obj.insert("documentMeta".into(), meta);
    for (key, value) in [
        ("deletedAt", Value::Null),
        ("templateId", Value::Null),
        ("formValues", Value::Null),
        ("source", json!("DOCUMENT")),
        ("visibility", json!("EVERYONE")),
    ] {
        obj.entry(key).or_insert(value);
    }
    Ok(out)
}

/// A booking in the flat shape the scheduling service's Zapier app reads, both from its
/// subscription's deliveries and from `listBookings` (its sample data): the booking's title,
/// description, times, location, status and cancellation reason, its answers, `eventType`,
/// the organiser as `user` and the `attendees`, each person with the offset of their zone
/// from UTC at the start, in minutes. Docket's `id` and `uid` stand beside.
pub fn zapier_booking(b: &Booking) -> Value {
    use crate::bookings::details::utc_offset_minutes as offset;
    let attendees: Vec<Value> = b
        .attendees
        .iter()
        .map(|a| {
            json!({
                "name": a.name,
                "email": a.email,
                "timeZone": a.time_zone,
                "utcOffset": offset(&a.time_zone, b.start_time),
            })
        })
        .collect();
    json!({
        "id": b.id,
        "uid": b.uid,
        "title": b.title,
        "description": b.description,
        "customInputs": b.answers.custom_inputs,
        "responses": b.answers.responses,
        "userFieldsResponses": b.answers.user_fields_responses,
        "startTime": iso8601(b.start_time),
        "endTime": iso8601(b.end_time),
        "location": b.location,
        "status": b.status.as_str(),
        "cancellationReason": b.cancellation_reason,
        "user": {
            "username": b.user.username,
            "name": b.user.name,
            "email": b.user.email,
            "timeZone": b.user.time_zone,
            "utcOffset": offset(&b.user.time_zone, b.start_time),
            "locale": b.user.locale,
        },
        "eventType": b.event_type,
        "attendees": attendees,
        "createdAt": iso8601(b.created_at),
    })
}
