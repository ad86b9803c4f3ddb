//! What a webhook registration is once checked (`NewWebhook`), and the rules its members
//! follow, each recording its problems under the member's JSON path. The HTTP layer's request
//! types (`http::api::wire::webhooks`) call them.

use crate::core::lenient::Given;
use crate::outbox::webhooks::{Event, check_url, generate_secret};
use crate::signing::documents::check::Check;

/// A webhook as a client describes it, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewWebhook {
    pub url: String,
    pub events: Vec<Event>,
    /// Given by the client, or generated (and shown once).
    pub secret: String,
}

/// The member `secret`: 1 to 256 characters without leading or trailing spaces; generated when
/// left out.
pub fn secret(c: &mut Check, given: &Given<String>) -> Option<String> {
    match c.given(given, "secret", "must be a string") {
        Some(s) if (1..=256).contains(&s.chars().count()) && s.trim() == s => Some(s.clone()),
        Some(_) => {
            c.fail(
                "secret",
                "1 to 256 characters without leading or trailing spaces",
            );
            None
        }
        None if given.is_absent() => Some(generate_secret()),
        None => None,
    }
}

/// The member `url`: an absolute http(s) URL (`check_url`); absent is `None`, and a problem
/// when `required`.
pub fn url(c: &mut Check, given: &Given<String>, required: bool) -> Option<String> {
    match c.given(given, "url", "must be a string") {
        Some(s) => check_url(s).map_err(|m| c.fail("url", m)).ok(),
        None if given.is_absent() && required => {
            c.fail("url", "required");
            None
        }
        None => None,
    }
}

/// The member `events`: at least one known event, each once; absent is `None`, and a problem
/// when `required`.
pub fn event_list(
    c: &mut Check,
    given: &Given<Vec<Given<Event>>>,
    required: bool,
) -> Option<Vec<Event>> {
    let mut events: Vec<Event> = Vec::new();
    match given {
        Given::Valid(items) if !items.is_empty() => {
            let message = format!("must be one of {}", Event::names().join(", "));
            for (i, e) in items.iter().enumerate() {
                match e.valid() {
                    Some(event) if !events.contains(event) => events.push(*event),
                    Some(_) => {}
                    None => c.fail(format!("events[{i}]"), message.clone()),
                }
            }
        }
        Given::Valid(_) => c.fail("events", "give at least one event"),
        Given::Absent if !required => return None,
        Given::Absent => c.fail("events", "required"),
        Given::Null if required => c.fail("events", "required"),
        Given::Null | Given::Invalid(_) => c.fail("events", "must be an array of event names"),
    }
    Some(events)
}
