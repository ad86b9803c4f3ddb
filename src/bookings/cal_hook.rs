//! A booking event as the scheduling service's API v1 webhooks deliver it, for endpoints made
//! through its routes (`/v1/hooks`): `{triggerEvent, createdAt, payload}` with the booking in
//! that service's calendar-event shape, or the endpoint's own payload template (Handlebars,
//! over the payload with `triggerEvent` and `createdAt` beside it).

use handlebars::Handlebars;
use serde::Serialize;
use serde_json::{Map, Value};

use super::Booking;
use super::details::utc_offset_minutes as offset;
use crate::core::error::AppError;
use crate::core::timefmt::iso8601;
use crate::outbox::webhooks::Event;

/// Longest payload template accepted, in bytes.
pub const TEMPLATE_MAX: usize = 16 * 1024;

/// `{triggerEvent, createdAt, payload}`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Delivery<'a> {
    trigger_event: Event,
    created_at: String,
    payload: &'a CalEvent,
}

/// The booking as the other service's webhooks describe a calendar event.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CalEvent {
    /// The event type (the other service puts its slug here; docket's has its title).
    #[serde(rename = "type")]
    kind: String,
    title: String,
    description: Option<String>,
    additional_notes: Option<String>,
    custom_inputs: Map<String, Value>,
    start_time: String,
    end_time: String,
    organizer: Person,
    responses: Map<String, Value>,
    user_fields_responses: Map<String, Value>,
    attendees: Vec<Person>,
    location: Option<String>,
    uid: String,
    booking_id: i64,
    event_title: String,
    event_description: Option<String>,
    requires_confirmation: bool,
    price: i64,
    currency: String,
    length: i64,
    status: super::Status,
    cancellation_reason: Option<String>,
    metadata: Map<String, Value>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Person {
    #[serde(skip_serializing_if = "Option::is_none")]
    username: Option<String>,
    name: String,
    email: String,
    time_zone: String,
    language: Language,
    utc_offset: i64,
}

#[derive(Debug, Serialize)]
struct Language {
    locale: &'static str,
}

impl CalEvent {
    pub fn of(b: &Booking) -> CalEvent {
        let person = |name: &str, email: &str, zone: &str| Person {
            username: None,
            name: name.to_string(),
            email: email.to_string(),
            time_zone: zone.to_string(),
            language: Language {
                locale: b.user.locale,
            },
            utc_offset: offset(zone, b.start_time),
        };
        CalEvent {
            kind: b.event_type.title.clone(),
            title: b.title.clone(),
            description: b.description.clone(),
            additional_notes: b.description.clone(),
            custom_inputs: b.answers.custom_inputs.clone(),
            start_time: iso8601(b.start_time),
            end_time: iso8601(b.end_time),
            organizer: Person {
                username: Some(b.user.username.clone()),
                ..person(&b.user.name, &b.user.email, &b.user.time_zone)
            },
            responses: b.answers.responses.clone(),
            user_fields_responses: b.answers.user_fields_responses.clone(),
            attendees: b
                .attendees
                .iter()
                .map(|a| person(&a.name, &a.email, &a.time_zone))
                .collect(),
            location: b.location.clone(),
            uid: b.uid.clone(),
            booking_id: b.id,
            event_title: b.event_type.title.clone(),
            event_description: b.event_type.description.clone(),
            requires_confirmation: b.event_type.requires_confirmation,
            price: b.event_type.price,
            currency: b.event_type.currency.clone(),
            length: b.event_type.length,
            status: b.status,
            cancellation_reason: b.cancellation_reason.clone(),
            metadata: Map::new(),
        }
    }
}

/// The body posted for `event` about `booking` at `now`: the envelope, or `template` rendered.
pub fn body(
    event: Event,
    booking: &Booking,
    now: i64,
    template: Option<&str>,
) -> Result<String, AppError> {
    let payload = CalEvent::of(booking);
    let delivery = Delivery {
        trigger_event: event,
        created_at: iso8601(now),
        payload: &payload,
    };
    let envelope = crate::outbox::webhooks::payload::body(&delivery)?;
    let Some(template) = template else {
        return Ok(envelope);
    };
    // The template sees the payload's members with `triggerEvent` and `createdAt` beside them.
    let mut data = match serde_json::to_value(&payload) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    };
    data.insert("triggerEvent".into(), Value::from(event.as_str()));
    data.insert("createdAt".into(), Value::from(iso8601(now)));
    // A template that fails on this payload (checked when the hook was made, so rarely)
    // falls back to the envelope rather than losing the event.
    Ok(render(template, &Value::Object(data)).unwrap_or(envelope))
}

/// `template` over `data`. A template that is JSON itself has each value escaped as inside a
/// JSON string, so that a quote in a name keeps the body JSON (the other service HTML-escapes
/// and then restores quotes, which breaks such a body); any other template is HTML-escaped as
/// Handlebars does, quotes aside. A body that is JSON is sent compact.
fn render(template: &str, data: &Value) -> Option<String> {
    let mut engine = Handlebars::new();
    let json = serde_json::from_str::<Value>(template).is_ok();
    if json {
        engine.register_escape_fn(json_escape);
    } else {
        engine.register_escape_fn(|s| handlebars::html_escape(s).replace("&quot;", "\""));
    }
    let text = engine.render_template(template, data).ok()?;
    Some(match serde_json::from_str::<Value>(&text) {
        Ok(json) => json.to_string(),
        Err(_) => text,
    })
}

/// `s` as the inside of a JSON string.
fn json_escape(s: &str) -> String {
    let quoted = Value::from(s).to_string();
    quoted[1..quoted.len() - 1].to_string()
}

/// Why `template` cannot be used, if it cannot: too long, or not a template Handlebars reads.
pub fn check_template(template: &str) -> Result<(), String> {
    if template.len() > TEMPLATE_MAX {
        return Err(format!("at most {TEMPLATE_MAX} bytes"));
    }
    handlebars::Template::compile(template)
        .map(|_| ())
        .map_err(|e| format!("not a Handlebars template: {}", e.reason()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn booking() -> Booking {
        super::super::webhook::tests::booking()
    }

    #[test]
    fn the_envelope_carries_the_calendar_event() {
        let b = booking();
        let body: Value =
            serde_json::from_str(&body(Event::BookingCreated, &b, 0, None).unwrap()).unwrap();
        assert_eq!(body["triggerEvent"], "BOOKING_CREATED");
        assert_eq!(body["createdAt"], "1970-01-01T00:00:00Z");
        let p = &body["payload"];
        assert_eq!(p["title"], "Intro call");
        assert_eq!(p["bookingId"], 12);
        assert_eq!(p["uid"], "bk_12");
        assert_eq!(p["organizer"]["username"], "ann");
        assert_eq!(p["organizer"]["language"]["locale"], "en");
        assert_eq!(p["organizer"]["utcOffset"], -300);
        assert_eq!(p["attendees"][0]["utcOffset"], 60);
        assert_eq!(p["attendees"][0].get("username"), None);
        assert_eq!(p["status"], "ACCEPTED");
        assert_eq!(p["length"], 30);
        assert_eq!(p["responses"]["notes"]["value"], "Gate \"B\"");
    }

    #[test]
    fn a_template_renders_over_the_payload() {
        let b = booking();
        let t = r#"{"what":"{{triggerEvent}}","who":"{{organizer.name}}","notes":"{{responses.notes.value}}","to":"{{#each attendees}}{{name}} <{{email}}>{{/each}}"}"#;
        let sent: Value =
            serde_json::from_str(&body(Event::BookingCancelled, &b, 0, Some(t)).unwrap()).unwrap();
        assert_eq!(sent["what"], "BOOKING_CANCELLED");
        assert_eq!(sent["who"], "Ann");
        assert_eq!(sent["to"], "Bob <bob@example.com>");
        // Text that is not JSON goes as rendered (HTML-escaped as Handlebars does, but quotes).
        let text = body(
            Event::BookingCreated,
            &b,
            0,
            Some("<{{title}}> \"{{uid}}\""),
        )
        .unwrap();
        assert_eq!(text, "<Intro call> \"bk_12\"");
        let escaped = body(
            Event::BookingCreated,
            &b,
            0,
            Some("{{responses.notes.value}}&"),
        )
        .unwrap();
        assert_eq!(escaped, "Gate \"B\"&");
    }

    #[test]
    fn templates_are_checked_and_bounded() {
        assert!(check_template("{{title}}").is_ok());
        assert!(check_template("{{#each attendees}}{{name}}").is_err());
        assert!(check_template(&"a".repeat(TEMPLATE_MAX + 1)).is_err());
    }
}
