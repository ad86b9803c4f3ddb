//! Webhooks: endpoints a user registers for document events
//! (`store`, secrets encrypted by `secret`), deliveries queued in the transaction of the event
//! (`enqueue`), and the task that posts them, signed, retried, and never to internal addresses
//! (`deliver`, `address`).

pub mod address;
pub mod deliver;
pub mod manage;
pub mod secret;
pub mod store;

use rusqlite::Connection;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::documents::check::Check;
use crate::documents::{DocumentView, SigningLinks};
use crate::error::AppError;
use crate::timefmt::iso8601;

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
}

impl Event {
    pub const ALL: [Event; 9] = [
        Event::DocumentCreated,
        Event::DocumentSent,
        Event::DocumentOpened,
        Event::DocumentRecipientCompleted,
        Event::DocumentSigned,
        Event::DocumentCompleted,
        Event::DocumentRejected,
        Event::DocumentCancelled,
        Event::DocumentSealFailed,
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
    format!("whsec_{}", crate::crypto::random_base62(32))
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
fn check_url(raw: &str) -> Result<String, &'static str> {
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

/// Queues one delivery of `event` per endpoint of `user` subscribed to it, inside the caller's
/// transaction (it only inserts). Wake the worker (`Workers::notices`) after the commit.
/// The body posted is exactly `{"event","payload","createdAt","webhookEndpoint"}`, the payload
/// being `document` as the endpoint's creator may read it: an app's endpoints (bound to its
/// OAuth grant) never get the recipients' signing links.
pub fn enqueue(
    conn: &Connection,
    user_id: i64,
    event: Event,
    document: &DocumentView,
    now: i64,
) -> Result<(), AppError> {
    let hooks = store::subscribed(conn, user_id, event)?;
    if hooks.is_empty() {
        return Ok(());
    }
    let to_value = |d: DocumentView| serde_json::to_value(d).map_err(AppError::internal);
    let full = to_value(document.clone())?;
    let without_links = to_value(document.clone().links_shown_if(false))?;
    for hook in hooks {
        let payload = match hook.grant {
            None => &full,
            Some(_) => &without_links,
        };
        let body = json!({
            "event": event.as_str(),
            "payload": payload,
            "createdAt": iso8601(now),
            "webhookEndpoint": hook.url,
        });
        store::insert_delivery(conn, hook.id, event, &body.to_string(), now)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
