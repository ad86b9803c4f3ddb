//! The bodies webhooks post. Every event's but the flat bookings of the scheduling service's
//! Zapier app is an `Envelope` (`{"createdAt","event","payload","webhookEndpoint"}`) around a
//! payload shaped by the ring that owns the event (`signing::documents::webhook`,
//! `bookings::webhook`); a test delivery's payload is `TestPayload`.
//!
//! A body is written once, when the delivery is queued, by `body`: the JSON of its type with
//! the keys of every object in alphabetical order. Bodies were built as `serde_json::Value`s,
//! whose keys serde_json keeps sorted, and receivers may have stored or compared them; `body`
//! keeps those bytes whatever order a payload type declares its fields in (the API's own
//! answers, which payloads embed, keep their declared order).

use serde::Serialize;

use super::Event;
use crate::core::error::AppError;
use crate::core::timefmt::iso8601;

/// `{"createdAt","event","payload","webhookEndpoint"}` around `payload`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Envelope<'a, P> {
    /// When the delivery was queued (ISO 8601).
    pub created_at: String,
    pub event: Event,
    pub payload: &'a P,
    /// The endpoint's URL.
    pub webhook_endpoint: &'a str,
}

impl<'a, P: Serialize> Envelope<'a, P> {
    pub fn new(event: Event, payload: &'a P, now: i64, endpoint: &'a str) -> Self {
        Envelope {
            created_at: iso8601(now),
            event,
            payload,
            webhook_endpoint: endpoint,
        }
    }
}

/// The payload of a test delivery (`POST /api/v1/webhooks/{id}/test`): it says so, and names
/// no document or booking.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct TestPayload {
    pub message: &'static str,
    pub test: bool,
}

impl TestPayload {
    pub const SENT_FROM_SETTINGS: TestPayload = TestPayload {
        message: "A test event sent from Docket's settings; nothing changed.",
        test: true,
    };
}

/// The text posted for `posted`: its JSON, the keys of every object sorted.
pub fn body(posted: &impl Serialize) -> Result<String, AppError> {
    let sorted = serde_json::to_value(posted).map_err(AppError::internal)?;
    Ok(sorted.to_string())
}
