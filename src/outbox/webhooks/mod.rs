//! Webhooks: endpoints a user registers for document and booking events
//! (`store`, secrets encrypted by `secret`), deliveries queued in the transaction of the event
//! (`enqueue`, `enqueue_booking`, bodies shaped by `payload`), and the task that posts them,
//! signed, retried, and never to internal addresses (`deliver`, `address`). Endpoints made
//! through the Zapier REST-hook routes are managed by `zapier`.

pub mod address;
pub mod deliver;
pub mod payload;
pub mod secret;
pub mod store;

use crate::core::db::Conn;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::core::error::AppError;
use crate::identity::scope::Scope;
use crate::signing::documents::check::Check;

/// An event a webhook can subscribe to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
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
    BookingCreated,
    BookingCancelled,
}

impl Event {
    pub const ALL: [Event; 11] = [
        Event::DocumentCreated,
        Event::DocumentSent,
        Event::DocumentOpened,
        Event::DocumentRecipientCompleted,
        Event::DocumentSigned,
        Event::DocumentCompleted,
        Event::DocumentRejected,
        Event::DocumentCancelled,
        Event::DocumentSealFailed,
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

    /// The scope a credential needs to subscribe to the event: a webhook is a way to read.
    pub fn scope(self) -> Scope {
        if self.is_booking() {
            Scope::ReadBooking
        } else {
            Scope::ReadDocument
        }
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

/// A webhook as a client describes it, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewWebhook {
    pub url: String,
    pub events: Vec<Event>,
    /// Given by the client, or generated (and shown once).
    pub secret: String,
}

/// A generated secret: `whsec_` and 32 base62 characters (190 bits).
pub fn generate_secret() -> String {
    format!("whsec_{}", crate::core::crypto::random_base62(32))
}

/// Validates `POST /api/v1/webhooks`: `{url, events, secret?}`.
pub fn parse_create(body: &Value) -> Result<NewWebhook, AppError> {
    let mut c = Check::new();
    if !body.is_object() {
        return Err(AppError::bad_request("the body must be a JSON object"));
    }
    let url = match body.get("url") {
        Some(Value::String(s)) => match check_url(s) {
            Ok(u) => Some(u),
            Err(m) => {
                c.fail("url", m);
                None
            }
        },
        None | Some(Value::Null) => {
            c.fail("url", "required");
            None
        }
        Some(_) => {
            c.fail("url", "must be a string");
            None
        }
    };
    let mut events: Vec<Event> = Vec::new();
    match body.get("events") {
        Some(Value::Array(items)) if !items.is_empty() => {
            for (i, e) in items.iter().enumerate() {
                match e.as_str().and_then(Event::parse) {
                    Some(event) => {
                        if !events.contains(&event) {
                            events.push(event);
                        }
                    }
                    None => c.fail(
                        format!("events[{i}]"),
                        format!("must be one of {}", Event::names().join(", ")),
                    ),
                }
            }
        }
        Some(Value::Array(_)) => c.fail("events", "give at least one event"),
        None | Some(Value::Null) => c.fail("events", "required"),
        Some(_) => c.fail("events", "must be an array of event names"),
    }
    let secret = match body.get("secret") {
        None | Some(Value::Null) => Some(generate_secret()),
        Some(Value::String(s)) if (1..=256).contains(&s.chars().count()) && s.trim() == s => {
            Some(s.clone())
        }
        Some(Value::String(_)) => {
            c.fail(
                "secret",
                "1 to 256 characters without leading or trailing spaces",
            );
            None
        }
        Some(_) => {
            c.fail("secret", "must be a string");
            None
        }
    };
    match (url, secret) {
        (Some(url), Some(secret)) if c.is_ok() => Ok(NewWebhook {
            url,
            events,
            secret,
        }),
        _ => c
            .finish(())
            .and(Err(AppError::bad_request("invalid webhook"))),
    }
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

/// Queues one delivery of `event` per endpoint of `user_id` subscribed to it, inside the
/// caller's transaction (it only inserts); wake the worker (`Workers::notices`) after the commit.
/// `body` gives what is posted to each endpoint: the ring that owns the event decides what an
/// endpoint may see (`signing::documents::webhook`, `bookings::webhook`).
pub fn enqueue(
    conn: &Conn,
    user_id: i64,
    event: Event,
    now: i64,
    mut body: impl FnMut(&store::Webhook) -> Result<Value, AppError>,
) -> Result<(), AppError> {
    for hook in store::subscribed(conn, user_id, event)? {
        let posted = body(&hook)?;
        store::insert_delivery(conn, hook.id, event, &posted.to_string(), now)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn validates_every_part() {
        let ok = parse_create(&json!({"url": "https://h.example/x", "events": ["DOCUMENT_CREATED", "DOCUMENT_CREATED"]})).unwrap();
        assert_eq!(ok.events, vec![Event::DocumentCreated]);
        assert!(ok.secret.starts_with("whsec_") && ok.secret.len() == 38);
        let given = parse_create(
            &json!({"url": "http://h:8080/", "events": ["DOCUMENT_SIGNED"], "secret": "s3cret"}),
        )
        .unwrap();
        assert_eq!(given.secret, "s3cret");
        for bad in [
            json!({"events": ["DOCUMENT_CREATED"]}),
            json!({"url": "ftp://h/", "events": ["DOCUMENT_CREATED"]}),
            json!({"url": "https://u:p@h/", "events": ["DOCUMENT_CREATED"]}),
            json!({"url": "/relative", "events": ["DOCUMENT_CREATED"]}),
            json!({"url": "https://h/", "events": []}),
            json!({"url": "https://h/", "events": ["NOPE"]}),
            json!({"url": "https://h/", "events": "DOCUMENT_CREATED"}),
            json!({"url": "https://h/", "events": ["DOCUMENT_CREATED"], "secret": ""}),
            json!({"url": "https://h/", "events": ["DOCUMENT_CREATED"], "secret": 5}),
            json!([]),
        ] {
            let e = parse_create(&bad).unwrap_err();
            assert_eq!(e.status(), 400, "{bad}");
        }
    }
}
