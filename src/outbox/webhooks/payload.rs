//! The envelope every webhook body has, except the flat bookings of the scheduling service's
//! Zapier app: `{"event","payload","createdAt","webhookEndpoint"}`. What goes inside is shaped
//! by the ring that owns the event (`signing::documents::webhook`, `bookings::webhook`).

use serde_json::{Value, json};

use super::Event;
use crate::core::timefmt::iso8601;

/// `{"event","payload","createdAt","webhookEndpoint"}`.
pub fn envelope(event: Event, payload: &Value, now: i64, endpoint: &str) -> Value {
    json!({
        "event": event.as_str(),
        "payload": payload,
        "createdAt": iso8601(now),
        "webhookEndpoint": endpoint,
    })
}
