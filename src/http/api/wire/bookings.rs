//! The bookings API's body as a type, turned into the command to create a booking by the rules
//! of `bookings` (each problem named with its path).

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::bookings::{self, EventType, NewBooking, Problems, Status, details};
use crate::bookings::{DESCRIPTION_MAX, LOCATION_MAX};
use crate::core::error::AppError;

/// A create request as sent. Every field is optional here so that a missing one is reported
/// with the others, rather than as a parse error.
#[derive(Debug, Clone, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = BookingInput)]
pub struct CreateRequest {
    #[schema(required = true)]
    pub title: Option<String>,
    pub description: Option<String>,
    #[schema(required = true, format = DateTime)]
    pub start_time: Option<String>,
    #[schema(required = true, format = DateTime)]
    pub end_time: Option<String>,
    #[schema(value_type = Option<NewStatus>)]
    pub status: Option<String>,
    pub location: Option<String>,
    #[schema(nullable = false)]
    pub attendees: Option<Vec<AttendeeRequest>>,
    /// Each member optional; what is left out comes from the booking.
    #[schema(value_type = Option<EventTypeInput>)]
    pub event_type: Option<Value>,
    /// The booker's answers by field name (at most 50).
    #[schema(value_type = Option<Object>)]
    pub responses: Option<Value>,
}

/// The statuses a booking may be created in (`status` in a create request).
#[derive(utoipa::ToSchema)]
#[schema(rename_all = "UPPERCASE")]
#[allow(
    dead_code,
    reason = "the schema of a member read as text by CreateRequest::validate"
)]
pub enum NewStatus {
    Accepted,
    Pending,
}

/// `eventType` in a create request: each member optional.
#[derive(utoipa::ToSchema)]
#[schema(rename_all = "camelCase")]
#[allow(
    dead_code,
    reason = "the schema of a member read as JSON by details::event_type"
)]
pub struct EventTypeInput {
    #[schema(nullable = false)]
    title: Option<String>,
    description: Option<String>,
    #[schema(nullable = false, minimum = 1, maximum = 10080)]
    length: Option<i64>,
    #[schema(nullable = false)]
    requires_confirmation: Option<bool>,
    #[schema(nullable = false, minimum = 0)]
    price: Option<i64>,
    #[schema(nullable = false, min_length = 3, max_length = 3)]
    currency: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AttendeeRequest {
    pub name: Option<String>,
    pub email: Option<String>,
    pub time_zone: Option<String>,
}

impl CreateRequest {
    /// The booking to create: title, times (end after start), attendees, optional text,
    /// status, event type and answers; 400 listing every problem.
    pub fn validate(&self) -> Result<NewBooking, AppError> {
        let mut p = Problems::default();
        let title = bookings::title(self.title.as_deref(), &mut p);
        let (start_time, end_time) =
            bookings::times(self.start_time.as_deref(), self.end_time.as_deref(), &mut p);
        let description = self.description.as_deref();
        let description =
            bookings::optional(description, ("description", DESCRIPTION_MAX, true), &mut p);
        let location = self.location.as_deref();
        let location = bookings::optional(location, ("location", LOCATION_MAX, false), &mut p);
        let status = bookings::new_status(self.status.as_deref(), &mut p);
        let sent = self.attendees.as_deref().unwrap_or_default();
        let mut attendees = Vec::with_capacity(sent.len().min(bookings::ATTENDEES_MAX));
        if bookings::attendees_fit(sent.len(), &mut p) {
            for (i, a) in sent.iter().enumerate() {
                let member = (
                    a.name.as_deref(),
                    a.email.as_deref(),
                    a.time_zone.as_deref(),
                );
                attendees.extend(bookings::attendee(
                    member,
                    &format!("attendees[{i}]"),
                    &mut p,
                ));
            }
        }
        let derived = EventType::derived(
            &title,
            description.as_deref(),
            start_time,
            end_time,
            status == Status::Pending,
        );
        let event_type = match &self.event_type {
            None | Some(Value::Null) => derived,
            Some(raw) => details::event_type(raw, derived, p.list()),
        };
        let responses = match &self.responses {
            None | Some(Value::Null) => Map::new(),
            Some(raw) => details::responses(raw, p.list()),
        };
        p.into_result(|| NewBooking {
            title,
            description,
            start_time,
            end_time,
            status,
            location,
            attendees,
            event_type,
            responses,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bookings::{ATTENDEES_MAX, Attendee, TITLE_MAX};
    use crate::core::timefmt::iso8601;

    fn request() -> CreateRequest {
        CreateRequest {
            title: Some(" Intro call ".into()),
            start_time: Some("2026-11-21T09:30:00Z".into()),
            end_time: Some("2026-11-21T10:00:00+00:00".into()),
            attendees: Some(vec![AttendeeRequest {
                name: Some("Grace".into()),
                email: Some("Grace@Example.com".into()),
                time_zone: None,
            }]),
            ..CreateRequest::default()
        }
    }

    fn paths(e: AppError) -> Vec<String> {
        e.details().iter().map(|d| d.path.clone()).collect()
    }

    #[test]
    fn a_valid_request_is_normalised() {
        let b = request().validate().unwrap();
        assert_eq!(b.title, "Intro call");
        assert_eq!(b.end_time - b.start_time, 1800);
        assert_eq!(b.status, Status::Accepted);
        assert_eq!(b.description, None);
        assert_eq!(
            b.attendees,
            vec![Attendee {
                name: "Grace".into(),
                email: "grace@example.com".into(),
                time_zone: "UTC".into()
            }]
        );
    }

    #[test]
    fn offsets_are_converted_to_utc() {
        let mut r = request();
        r.start_time = Some("2026-11-21T10:30:00+01:00".into());
        let b = r.validate().unwrap();
        assert_eq!(iso8601(b.start_time), "2026-11-21T09:30:00Z");
    }

    #[test]
    fn every_bad_field_is_listed() {
        let r = CreateRequest {
            title: None,
            start_time: Some("tomorrow".into()),
            end_time: None,
            status: Some("CANCELLED".into()),
            location: Some("x".repeat(LOCATION_MAX + 1)),
            attendees: Some(vec![AttendeeRequest {
                name: Some(" ".into()),
                email: Some("nope".into()),
                time_zone: Some("Europe/Ber lin".into()),
            }]),
            ..CreateRequest::default()
        };
        assert_eq!(
            paths(r.validate().unwrap_err()),
            [
                "title",
                "startTime",
                "endTime",
                "location",
                "status",
                "attendees[0].name",
                "attendees[0].email",
                "attendees[0].timeZone"
            ]
        );
    }

    #[test]
    fn end_must_follow_start() {
        let mut r = request();
        r.end_time = r.start_time.clone();
        assert_eq!(paths(r.validate().unwrap_err()), ["endTime"]);
    }

    #[test]
    fn limits_on_lengths_and_counts() {
        let mut r = request();
        r.title = Some("t".repeat(TITLE_MAX));
        r.description = Some("line\nline".into());
        r.status = Some("pending".into());
        let b = r.validate().unwrap();
        assert_eq!(b.status, Status::Pending);
        assert_eq!(b.description.as_deref(), Some("line\nline"));
        r.title = Some("t".repeat(TITLE_MAX + 1));
        r.attendees = Some(vec![AttendeeRequest::default(); ATTENDEES_MAX + 1]);
        assert_eq!(paths(r.validate().unwrap_err()), ["title", "attendees"]);
    }
}
