//! A booking as webhooks deliver it, and queuing a booking event for the organiser's endpoints.

use crate::core::ids::UserId;
use serde::Serialize;
use serde_json::{Map, Value};
use utoipa::ToSchema;

use super::details::EventType;
use super::{Booking, Status};
use crate::core::db::Conn;
use crate::core::error::AppError;
use crate::core::timefmt::iso8601;
use crate::outbox::webhooks::store::App;
use crate::{outbox::webhooks, outbox::webhooks::Event};
use crate::{outbox::webhooks::payload::Envelope, outbox::webhooks::payload::body};

/// Queues one delivery of `event` per endpoint of `user` subscribed to it, in the caller's
/// transaction. An endpoint made through the Zapier route gets the booking itself, in the flat
/// shape the scheduling service's Zapier app maps (`ZapierBooking`); one made through that
/// service's API v1 routes its webhook shape (`cal_hook`); any other the envelope around the
/// booking as the API shows it.
pub fn enqueue(
    conn: &Conn,
    user_id: UserId,
    event: Event,
    booking: &Booking,
    now: i64,
) -> Result<(), AppError> {
    // Bookings are personal: only the user's own endpoints hear of them.
    let owner = crate::core::owner::Owner::Personal(user_id);
    webhooks::enqueue(conn, &owner, event, now, |hook| match hook.app {
        App::Zapier => body(&ZapierBooking::of(booking)),
        App::Api => body(&Envelope::new(event, booking, now, &hook.url)),
        App::Cal => super::cal_hook::body(event, booking, now, hook.payload_template.as_deref()),
    })
}

/// A booking in the flat shape the scheduling service's Zapier app reads, both from its
/// subscription's deliveries and from `listBookings` (its sample data): the booking's title,
/// description, times, location, status and cancellation reason, its answers, `eventType`,
/// the organiser as `user` and the `attendees`, each person with the offset of their zone
/// from UTC at the start, in minutes. Docket's `id` and `uid` stand beside.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ZapierBooking {
    pub id: i64,
    pub uid: String,
    pub title: String,
    #[schema(required = true)]
    pub description: Option<String>,
    #[schema(value_type = Object)]
    pub custom_inputs: Map<String, Value>,
    #[schema(schema_with = super::details::answers_schema)]
    pub responses: Map<String, Value>,
    #[schema(schema_with = super::details::answers_schema)]
    pub user_fields_responses: Map<String, Value>,
    #[schema(format = DateTime)]
    pub start_time: String,
    #[schema(format = DateTime)]
    pub end_time: String,
    #[schema(required = true)]
    pub location: Option<String>,
    pub status: Status,
    #[schema(required = true)]
    pub cancellation_reason: Option<String>,
    pub user: ZapierPerson,
    pub event_type: EventType,
    pub attendees: Vec<ZapierPerson>,
    #[schema(format = DateTime)]
    pub created_at: String,
}

/// The organiser or an attendee in `ZapierBooking`: `utcOffset` in minutes at the start;
/// `username` and `locale` for the organiser only.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ZapierPerson {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(required = false, nullable = false)]
    pub username: Option<String>,
    pub name: String,
    pub email: String,
    pub time_zone: String,
    pub utc_offset: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(required = false, nullable = false)]
    pub locale: Option<&'static str>,
}

impl ZapierBooking {
    pub fn of(b: &Booking) -> ZapierBooking {
        use super::details::utc_offset_minutes as offset;
        let person = |name: &str, email: &str, zone: &str| ZapierPerson {
            username: None,
            name: name.to_string(),
            email: email.to_string(),
            time_zone: zone.to_string(),
            utc_offset: offset(zone, b.start_time),
            locale: None,
        };
        let user = ZapierPerson {
            username: Some(b.user.username.clone()),
            locale: Some(b.user.locale),
            ..person(&b.user.name, &b.user.email, &b.user.time_zone)
        };
        ZapierBooking {
            id: b.id,
            uid: b.uid.clone(),
            title: b.title.clone(),
            description: b.description.clone(),
            custom_inputs: b.answers.custom_inputs.clone(),
            responses: b.answers.responses.clone(),
            user_fields_responses: b.answers.user_fields_responses.clone(),
            start_time: iso8601(b.start_time),
            end_time: iso8601(b.end_time),
            location: b.location.clone(),
            status: b.status,
            cancellation_reason: b.cancellation_reason.clone(),
            user,
            event_type: b.event_type.clone(),
            attendees: b
                .attendees
                .iter()
                .map(|a| person(&a.name, &a.email, &a.time_zone))
                .collect(),
            created_at: iso8601(b.created_at),
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::bookings::details::Answers;
    use crate::bookings::{Attendee, Organizer};

    /// A booking with one attendee and one answer.
    pub(in crate::bookings) fn booking() -> Booking {
        let mut responses = Map::new();
        responses.insert(
            "notes".into(),
            serde_json::json!({"label": "Notes", "value": "Gate \"B\""}),
        );
        Booking {
            id: 12,
            uid: "bk_12".into(),
            title: "Intro call".into(),
            description: Some("First talk".into()),
            start_time: 1_764_003_600,
            end_time: 1_764_005_400,
            status: Status::Accepted,
            location: None,
            attendees: vec![Attendee {
                name: "Bob".into(),
                email: "bob@example.com".into(),
                time_zone: "Europe/Paris".into(),
            }],
            user: Organizer {
                username: "ann".into(),
                name: "Ann".into(),
                email: "ann@example.com".into(),
                time_zone: "America/New_York".into(),
                locale: "en",
            },
            created_at: 1_764_000_000,
            cancellation_reason: None,
            event_type: EventType {
                title: "Intro call".into(),
                description: None,
                length: 30,
                requires_confirmation: false,
                price: 0,
                currency: "usd".into(),
            },
            answers: Answers {
                user_fields_responses: responses.clone(),
                responses,
                custom_inputs: Map::new(),
            },
        }
    }

    #[test]
    fn each_booking_event_posts_the_bytes_it_did() {
        let stored = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/webhook_bodies.txt"
        ))
        .unwrap();
        let want = |name: &str| {
            stored
                .lines()
                .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))
                .unwrap_or_else(|| panic!("no stored body for {name}"))
                .to_string()
        };
        let b = booking();
        for event in [Event::BookingCreated, Event::BookingCancelled] {
            let api = body(&Envelope::new(
                event,
                &b,
                1_764_000_100,
                "https://hooks.test/in",
            ));
            assert_eq!(api.unwrap(), want(event.as_str()), "{event:?}");
        }
        let zapier = body(&ZapierBooking::of(&b)).unwrap();
        assert_eq!(zapier, want("BOOKING/zapier"));
    }
}
