//! A booking as webhooks deliver it, and queuing a booking event for the organiser's endpoints.

use crate::core::ids::UserId;
use serde_json::{Value, json};

use super::Booking;
use crate::core::db::Conn;
use crate::core::error::AppError;
use crate::core::timefmt::iso8601;
use crate::outbox::webhooks::store::App;
use crate::{outbox::webhooks, outbox::webhooks::Event, outbox::webhooks::payload::envelope};

/// Queues one delivery of `event` per endpoint of `user` subscribed to it, in the caller's
/// transaction. An endpoint made through the Zapier route gets the booking itself, in the flat
/// shape the scheduling service's Zapier app maps (`zapier_shape`); any other the envelope
/// around the booking as the API shows it.
pub fn enqueue(
    conn: &Conn,
    user_id: UserId,
    event: Event,
    booking: &Booking,
    now: i64,
) -> Result<(), AppError> {
    webhooks::enqueue(conn, user_id, event, now, |hook| {
        Ok(match hook.app {
            App::Zapier => zapier_shape(booking),
            App::Api => {
                let plain = serde_json::to_value(booking).map_err(AppError::internal)?;
                envelope(event, &plain, now, &hook.url)
            }
        })
    })
}

/// A booking in the flat shape the scheduling service's Zapier app reads, both from its
/// subscription's deliveries and from `listBookings` (its sample data): the booking's title,
/// description, times, location, status and cancellation reason, its answers, `eventType`,
/// the organiser as `user` and the `attendees`, each person with the offset of their zone
/// from UTC at the start, in minutes. Docket's `id` and `uid` stand beside.
pub fn zapier_shape(b: &Booking) -> Value {
    use super::details::utc_offset_minutes as offset;
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
