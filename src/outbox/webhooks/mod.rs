//! Webhooks: endpoints a user registers for document and booking events
//! (`store`, secrets encrypted by `secret`), deliveries queued in the transaction of the event
//! (`enqueue`, `enqueue_booking`, bodies shaped by `payload`), and the task that posts them,
//! signed, retried, and never to internal addresses (`deliver`, `address`). Endpoints made
//! through the Zapier REST-hook routes are managed by `zapier`.

pub mod address;
pub mod deliver;
pub mod log;
pub mod payload;
pub mod store;

use crate::core::db::Conn;
use serde::{Deserialize, Serialize};

use crate::core::error::AppError;

/// An event a webhook can subscribe to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[schema(as = WebhookEvent)]
pub enum Event {
    DocumentCreated,
    DocumentSent,
    DocumentOpened,
    DocumentRecipientCompleted,
    DocumentSigned,
    DocumentCompleted,
    DocumentRejected,
    DocumentCancelled,
    DocumentSealFailed,
    /// A recipient's time to act passed before they finished (the document stays PENDING).
    RecipientExpired,
    BookingCreated,
    BookingCancelled,
}

impl Event {
    pub const ALL: [Event; 12] = [
        Event::DocumentCreated,
        Event::DocumentSent,
        Event::DocumentOpened,
        Event::DocumentRecipientCompleted,
        Event::DocumentSigned,
        Event::DocumentCompleted,
        Event::DocumentRejected,
        Event::DocumentCancelled,
        Event::DocumentSealFailed,
        Event::RecipientExpired,
        Event::BookingCreated,
        Event::BookingCancelled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Event::DocumentCreated => "DOCUMENT_CREATED",
            Event::DocumentSent => "DOCUMENT_SENT",
            Event::DocumentOpened => "DOCUMENT_OPENED",
            Event::DocumentRecipientCompleted => "DOCUMENT_RECIPIENT_COMPLETED",
            Event::DocumentSigned => "DOCUMENT_SIGNED",
            Event::DocumentCompleted => "DOCUMENT_COMPLETED",
            Event::DocumentRejected => "DOCUMENT_REJECTED",
            Event::DocumentCancelled => "DOCUMENT_CANCELLED",
            Event::DocumentSealFailed => "DOCUMENT_SEAL_FAILED",
            Event::RecipientExpired => "RECIPIENT_EXPIRED",
            Event::BookingCreated => "BOOKING_CREATED",
            Event::BookingCancelled => "BOOKING_CANCELLED",
        }
    }

    /// A booking's event (the rest are a document's).
    pub fn is_booking(self) -> bool {
        matches!(self, Event::BookingCreated | Event::BookingCancelled)
    }

    /// The names of the booking events (`true`) or of the document events (`false`).
    pub fn names_of(bookings: bool) -> Vec<&'static str> {
        Event::ALL
            .into_iter()
            .filter(|e| e.is_booking() == bookings)
            .map(Event::as_str)
            .collect()
    }

    pub fn parse(s: &str) -> Option<Event> {
        Event::ALL.into_iter().find(|e| e.as_str() == s)
    }

    /// Every event's name, for messages and the OpenAPI document.
    pub fn names() -> Vec<&'static str> {
        Event::ALL.into_iter().map(Event::as_str).collect()
    }
}

crate::sql_text_enum!(Event);

/// The key that seals webhook secrets at rest (`core::crypto::SecretBox`), under
/// `<data>/secrets/` or by that name in the database's shared secrets.
pub const SECRETS_FILE: &str = "webhook-secrets.key";

/// A generated secret: `whsec_` and 32 base62 characters (190 bits).
pub fn generate_secret() -> String {
    format!("whsec_{}", crate::core::crypto::random_base62(32))
}

/// An absolute http(s) URL with a host, no credentials or fragment, at most 2048 characters.
pub fn check_url(raw: &str) -> Result<String, &'static str> {
    if raw.len() > 2048 {
        return Err("at most 2048 characters");
    }
    let url = url::Url::parse(raw.trim()).map_err(|_| "must be an absolute http or https URL")?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none_or(str::is_empty) {
        return Err("must be an absolute http or https URL");
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("no credentials in the URL: verify requests with the secret");
    }
    if url.fragment().is_some() {
        return Err("no fragment allowed");
    }
    Ok(url.to_string())
}

/// The body of a test delivery of `event` to endpoint `url`: the usual envelope, whose payload
/// says it is a test and names no document or booking.
pub fn test_body(event: Event, now: i64, url: &str) -> Result<String, AppError> {
    let test = payload::TestPayload::SENT_FROM_SETTINGS;
    payload::body(&payload::Envelope::new(event, &test, now, url))
}

/// Queues one delivery of `event` per endpoint of `user_id` subscribed to it, inside the
/// caller's transaction (it only inserts); wake the worker (`Workers::notices`) after the commit.
/// `body` gives the text posted to each endpoint (`payload::body`): the ring that owns the
/// event decides what an endpoint may see (`signing::documents::webhook`, `bookings::webhook`).
pub fn enqueue(
    conn: &Conn,
    owner: &crate::core::owner::Owner,
    event: Event,
    now: i64,
    mut body: impl FnMut(&store::Webhook) -> Result<String, AppError>,
) -> Result<(), AppError> {
    for hook in store::subscribed(conn, owner, event)? {
        let posted = body(&hook)?;
        store::insert_delivery(conn, hook.id, (event, store::Kind::Event), &posted, now)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_test_delivery_posts_the_bytes_it_did() {
        let stored = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/webhook_bodies.txt"
        ))
        .unwrap();
        let want = stored
            .lines()
            .find_map(|l| l.strip_prefix("TEST "))
            .expect("a stored test body");
        let got = test_body(
            Event::DocumentSigned,
            1_764_000_100,
            "https://hooks.test/in",
        );
        assert_eq!(got.unwrap(), want);
    }
}
