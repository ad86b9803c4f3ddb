//! What integrations read about a booking beyond its times and people: the event type it was
//! booked as (`eventType`) and the booker's answers (`responses`, `userFieldsResponses`), in
//! the shapes the scheduling service's Zapier app maps. Docket has no event-type catalogue: a
//! booking carries its own, given on create or derived from the booking.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::core::error::FieldError;

/// Longest accepted values.
pub const CURRENCY_LEN: usize = 3;
pub const LENGTH_MAX_MINUTES: i64 = 7 * 24 * 60;
pub const PRICE_MAX: i64 = 100_000_000;
pub const RESPONSES_MAX: usize = 50;
pub const RESPONSE_KEY_MAX: usize = 64;
/// The answers' JSON, in bytes.
pub const RESPONSES_BYTES_MAX: usize = 16 * 1024;

/// The event type a booking was made as. Stored whole at create (what the client left out
/// derived then), so a later cancellation does not change it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EventType {
    pub title: String,
    #[schema(required = true)]
    pub description: Option<String>,
    /// Minutes.
    pub length: i64,
    pub requires_confirmation: bool,
    /// In the currency's smallest unit; 0 for a free event.
    pub price: i64,
    /// ISO 4217, lower case as the scheduling service writes it.
    pub currency: String,
}

impl EventType {
    /// What a booking without an event type of its own shows: its title, description and
    /// length, free, needing confirmation when it was made PENDING.
    pub fn derived(
        title: &str,
        description: Option<&str>,
        start: i64,
        end: i64,
        pending: bool,
    ) -> EventType {
        EventType {
            title: title.to_string(),
            description: description.map(str::to_string),
            length: (end - start).max(0) / 60,
            requires_confirmation: pending,
            price: 0,
            currency: "usd".to_string(),
        }
    }
}

/// Checks `eventType` of a create request over `base` (the derived one): an object whose
/// members, each optional, replace `base`'s.
pub fn event_type(raw: &Value, base: EventType, errors: &mut Vec<FieldError>) -> EventType {
    let mut fail = |path: &str, message: &str| {
        errors.push(FieldError {
            path: format!("eventType.{path}"),
            message: message.to_string(),
        })
    };
    let Some(obj) = raw.as_object() else {
        errors.push(FieldError {
            path: "eventType".into(),
            message: "must be an object".into(),
        });
        return base;
    };
    let mut out = base;
    for (key, value) in obj {
        match (key.as_str(), value) {
            (_, Value::Null) => {}
            ("title", Value::String(s)) => match super::text(s, super::TITLE_MAX, false) {
                Ok(t) => out.title = t,
                Err(m) => fail("title", &m),
            },
            ("description", Value::String(s)) => {
                match super::optional_text(Some(s), super::DESCRIPTION_MAX, true) {
                    Ok(d) => out.description = d,
                    Err(m) => fail("description", &m),
                }
            }
            ("length", v) => match v.as_i64().filter(|n| (1..=LENGTH_MAX_MINUTES).contains(n)) {
                Some(n) => out.length = n,
                None => fail(
                    "length",
                    &format!("minutes, a whole number from 1 to {LENGTH_MAX_MINUTES}"),
                ),
            },
            ("requiresConfirmation", Value::Bool(b)) => out.requires_confirmation = *b,
            ("price", v) => match v.as_i64().filter(|n| (0..=PRICE_MAX).contains(n)) {
                Some(n) => out.price = n,
                None => fail(
                    "price",
                    &format!("the currency's smallest unit, a whole number from 0 to {PRICE_MAX}"),
                ),
            },
            ("currency", Value::String(s))
                if s.len() == CURRENCY_LEN && s.chars().all(|c| c.is_ascii_alphabetic()) =>
            {
                out.currency = s.to_ascii_lowercase()
            }
            ("currency", _) => fail("currency", "a three-letter ISO 4217 code such as usd"),
            ("title" | "description", _) => fail(key, "must be a string"),
            ("requiresConfirmation", _) => fail(key, "must be true or false"),
            _ => fail(
                key,
                "unknown; give title, description, length, requiresConfirmation, price, currency",
            ),
        }
    }
    out
}

/// Checks `responses` of a create request: an object of at most `RESPONSES_MAX` answers keyed
/// by field name (letters, digits, `_`, `-`), any JSON values, at most `RESPONSES_BYTES_MAX`
/// bytes in all.
pub fn responses(raw: &Value, errors: &mut Vec<FieldError>) -> Map<String, Value> {
    let mut fail = |path: String, message: String| errors.push(FieldError { path, message });
    let Some(obj) = raw.as_object() else {
        fail(
            "responses".into(),
            "must be an object of answers by field name".into(),
        );
        return Map::new();
    };
    if obj.len() > RESPONSES_MAX {
        fail(
            "responses".into(),
            format!("at most {RESPONSES_MAX} answers"),
        );
        return Map::new();
    }
    if raw.to_string().len() > RESPONSES_BYTES_MAX {
        fail(
            "responses".into(),
            format!("at most {RESPONSES_BYTES_MAX} bytes of JSON"),
        );
        return Map::new();
    }
    let good_key = |k: &str| {
        (1..=RESPONSE_KEY_MAX).contains(&k.len())
            && k.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    };
    let mut out = Map::new();
    for (key, value) in obj {
        if good_key(key) {
            out.insert(key.clone(), value.clone());
        } else {
            fail(
                "responses".into(),
                format!(
                    "{key:?}: a field name is 1 to {RESPONSE_KEY_MAX} letters, digits, '_' or '-'"
                ),
            );
        }
    }
    out
}

/// The fields the scheduling service fills itself, with the labels it gives them; every other
/// answer is the booker's own (`userFieldsResponses`).
const SYSTEM_FIELDS: [(&str, &str); 6] = [
    ("name", "your_name"),
    ("email", "email_address"),
    ("location", "location"),
    ("notes", "additional_notes"),
    ("guests", "additional_guests"),
    ("rescheduleReason", "reason_for_reschedule"),
];

/// A booking's answers: `responses` holds every one (the booker's name and e-mail from the
/// first attendee, the location, the description as notes, the other attendees as guests, then
/// the stored answers, which win), `userFieldsResponses` the booker's own, `customInputs` the
/// legacy form's (always empty: docket has none).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = BookingAnswers)]
pub struct Answers {
    /// Every answer by field name, each `{label, value}`.
    #[schema(schema_with = answers_schema)]
    pub responses: Map<String, Value>,
    /// The booker's own answers by field name, each `{label, value}`.
    #[schema(schema_with = answers_schema)]
    pub user_fields_responses: Map<String, Value>,
    /// Always empty: docket has no legacy form.
    #[schema(value_type = Object)]
    pub custom_inputs: Map<String, Value>,
}

/// Answers by field name: `{label, value}` each.
pub fn answers_schema() -> utoipa::openapi::schema::Schema {
    use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, SchemaType, Type};
    let answer = ObjectBuilder::new()
        .property("label", ObjectBuilder::new().schema_type(Type::String))
        .property(
            "value",
            ObjectBuilder::new().schema_type(SchemaType::AnyValue),
        )
        .required("label")
        .required("value");
    ObjectBuilder::new()
        .schema_type(Type::Object)
        .additional_properties(Some(AdditionalProperties::RefOr(answer.build().into())))
        .build()
        .into()
}

impl Answers {
    pub fn of(
        attendees: &[super::Attendee],
        location: Option<&str>,
        description: Option<&str>,
        stored: &Map<String, Value>,
    ) -> Answers {
        let mut all = Map::new();
        // Each answer as integrations read it: `{label, value}`.
        let put = |map: &mut Map<String, Value>, key: &str, value: Value| {
            let label = SYSTEM_FIELDS
                .iter()
                .find(|(k, _)| *k == key)
                .map_or(key, |(_, l)| l);
            map.insert(
                key.to_string(),
                serde_json::json!({"label": label, "value": value}),
            );
        };
        if let Some(first) = attendees.first() {
            put(&mut all, "name", Value::String(first.name.clone()));
            put(&mut all, "email", Value::String(first.email.clone()));
        }
        if let Some(l) = location {
            let value = serde_json::json!({"value": l, "optionValue": ""});
            put(&mut all, "location", value);
        }
        if let Some(d) = description {
            put(&mut all, "notes", Value::String(d.to_string()));
        }
        if attendees.len() > 1 {
            let guests = attendees[1..]
                .iter()
                .map(|a| Value::String(a.email.clone()))
                .collect();
            put(&mut all, "guests", Value::Array(guests));
        }
        let mut own = Map::new();
        for (key, value) in stored {
            put(&mut all, key, value.clone());
            if !SYSTEM_FIELDS.iter().any(|(k, _)| k == key) {
                put(&mut own, key, value.clone());
            }
        }
        Answers {
            responses: all,
            user_fields_responses: own,
            custom_inputs: Map::new(),
        }
    }
}

/// The offset of `zone` from UTC at `ts`, in minutes (0 for a zone docket does not know).
pub fn utc_offset_minutes(zone: &str, ts: i64) -> i64 {
    let tz = jiff::tz::TimeZone::get(zone).unwrap_or(jiff::tz::TimeZone::UTC);
    match jiff::Timestamp::from_second(ts) {
        Ok(t) => i64::from(tz.to_offset(t).seconds()) / 60,
        Err(_) => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bookings::Attendee;
    use serde_json::json;

    fn base() -> EventType {
        EventType::derived("Intro", None, 0, 1800, false)
    }

    #[test]
    fn an_event_type_is_derived_then_overridden() {
        assert_eq!(base().length, 30);
        assert_eq!(base().currency, "usd");
        let mut errors = Vec::new();
        let t = event_type(
            &json!({"title": "Deep dive", "length": 45, "price": 500, "currency": "EUR",
                    "requiresConfirmation": true, "description": null}),
            base(),
            &mut errors,
        );
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(
            (t.title.as_str(), t.length, t.price, t.currency.as_str()),
            ("Deep dive", 45, 500, "eur")
        );
        assert!(t.requires_confirmation);
    }

    #[test]
    fn a_bad_event_type_lists_every_problem() {
        let mut errors = Vec::new();
        event_type(
            &json!({"title": "", "length": 0, "price": -1, "currency": "euro",
                    "requiresConfirmation": "yes", "colour": "red"}),
            base(),
            &mut errors,
        );
        let paths: Vec<_> = errors.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths.len(), 6, "{paths:?}");
        let mut errors = Vec::new();
        event_type(&json!("Intro"), base(), &mut errors);
        assert_eq!(errors[0].path, "eventType");
    }

    #[test]
    fn responses_are_bounded() {
        let mut errors = Vec::new();
        let ok = responses(&json!({"company": "Acme", "size": 5}), &mut errors);
        assert!(errors.is_empty());
        assert_eq!(ok.len(), 2);
        let many: Map<String, Value> = (0..=RESPONSES_MAX)
            .map(|i| (format!("k{i}"), json!(1)))
            .collect();
        for bad in [
            json!([1]),
            Value::Object(many),
            json!({"big": "x".repeat(RESPONSES_BYTES_MAX)}),
            json!({"bad key": 1}),
        ] {
            let mut errors = Vec::new();
            responses(&bad, &mut errors);
            assert_eq!(errors.len(), 1, "{bad}");
        }
    }

    #[test]
    fn answers_combine_attendees_and_stored_answers() {
        let people = [
            Attendee {
                name: "Bo".into(),
                email: "bo@example.com".into(),
                time_zone: "UTC".into(),
            },
            Attendee {
                name: "Cy".into(),
                email: "cy@example.com".into(),
                time_zone: "UTC".into(),
            },
        ];
        let stored = json!({"company": "Acme"}).as_object().unwrap().clone();
        let a = Answers::of(&people, Some("Room 1"), Some("Agenda"), &stored);
        let v = serde_json::to_value(&a).unwrap();
        assert_eq!(
            v["responses"]["name"],
            json!({"label": "your_name", "value": "Bo"})
        );
        assert_eq!(v["responses"]["email"]["value"], "bo@example.com");
        assert_eq!(v["responses"]["location"]["value"]["value"], "Room 1");
        assert_eq!(v["responses"]["notes"]["value"], "Agenda");
        assert_eq!(v["responses"]["guests"]["value"], json!(["cy@example.com"]));
        assert_eq!(v["responses"]["company"]["value"], "Acme");
        assert_eq!(
            v["userFieldsResponses"],
            json!({"company": {"label": "company", "value": "Acme"}})
        );
        assert_eq!(v["customInputs"], json!({}));
    }

    #[test]
    fn offsets_follow_the_zone_at_the_time() {
        // 2026-01-15 and 2026-07-15, noon UTC.
        assert_eq!(utc_offset_minutes("Europe/Berlin", 1_768_478_400), 60);
        assert_eq!(utc_offset_minutes("Europe/Berlin", 1_784_116_800), 120);
        assert_eq!(utc_offset_minutes("America/New_York", 1_768_478_400), -300);
        assert_eq!(utc_offset_minutes("Nowhere/Atlantis", 0), 0);
    }
}
