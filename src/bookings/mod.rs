//! Bookings: a user's meetings with attendees, the rules for creating, listing and cancelling
//! them (plain functions over request shapes), and their table (`store`).

pub mod details;
pub mod manage;
pub mod store;
pub mod webhook;

use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::core::timefmt::iso8601;
use crate::identity::users::Email;
use crate::{core::error::AppError, core::error::FieldError};

pub use details::{Answers, EventType};

/// Longest accepted values, in characters.
pub const TITLE_MAX: usize = 200;
pub const DESCRIPTION_MAX: usize = 5000;
pub const LOCATION_MAX: usize = 500;
pub const ATTENDEE_NAME_MAX: usize = 200;
pub const ATTENDEES_MAX: usize = 100;
pub const TIME_ZONE_MAX: usize = 64;
pub const REASON_MAX: usize = 500;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "UPPERCASE")]
#[schema(as = BookingStatus)]
pub enum Status {
    Accepted,
    Pending,
    Cancelled,
    Rejected,
}

impl Status {
    pub const ALL: [Status; 4] = [
        Status::Accepted,
        Status::Pending,
        Status::Cancelled,
        Status::Rejected,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Accepted => "ACCEPTED",
            Status::Pending => "PENDING",
            Status::Cancelled => "CANCELLED",
            Status::Rejected => "REJECTED",
        }
    }

    /// Case-insensitive, as query parameters come in either case.
    pub fn parse(s: &str) -> Option<Status> {
        Status::ALL
            .into_iter()
            .find(|x| x.as_str().eq_ignore_ascii_case(s.trim()))
    }
}

crate::sql_text_enum!(Status);

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Attendee {
    pub name: String,
    pub email: String,
    pub time_zone: String,
}

/// The booking's owner, as the `user` object shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Organizer {
    pub username: String,
    pub name: String,
    pub email: String,
    pub time_zone: String,
    /// The language of docket's pages and mail (English), as integrations read it.
    pub locale: &'static str,
}

/// A booking as stored and as clients see it (times are Unix seconds, shown as ISO 8601 UTC).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Booking {
    pub id: i64,
    pub uid: String,
    pub title: String,
    #[schema(required = true)]
    pub description: Option<String>,
    #[serde(serialize_with = "as_iso8601")]
    #[schema(value_type = String, format = DateTime)]
    pub start_time: i64,
    #[serde(serialize_with = "as_iso8601")]
    #[schema(value_type = String, format = DateTime)]
    pub end_time: i64,
    pub status: Status,
    #[schema(required = true)]
    pub location: Option<String>,
    pub attendees: Vec<Attendee>,
    pub user: Organizer,
    #[serde(serialize_with = "as_iso8601")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: i64,
    #[schema(required = true)]
    pub cancellation_reason: Option<String>,
    pub event_type: EventType,
    /// `responses`, `userFieldsResponses`, `customInputs`.
    #[serde(flatten)]
    pub answers: Answers,
}

/// JSON text already serialised from bookings (`store::list_json`), answered as it is. Not
/// `Serialize`, so that it cannot be encoded a second time as a string by mistake.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Json(pub String);

fn as_iso8601<S: Serializer>(ts: &i64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&iso8601(*ts))
}

/// A create request as sent. Every field is optional here so that a missing one is reported
/// with the others, by `validate_new`, rather than as a parse error.
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
    reason = "the schema of a member read as text by validate_new"
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

/// A create request that passed `validate_new`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewBooking {
    pub title: String,
    pub description: Option<String>,
    pub start_time: i64,
    pub end_time: i64,
    pub status: Status,
    pub location: Option<String>,
    pub attendees: Vec<Attendee>,
    pub event_type: EventType,
    pub responses: Map<String, Value>,
}

/// Collects every invalid field before failing, so a client fixes them in one round.
#[derive(Default)]
struct Problems(Vec<FieldError>);

impl Problems {
    fn add(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.0.push(FieldError {
            path: path.into(),
            message: message.into(),
        });
    }

    fn into_result<T>(self, value: impl FnOnce() -> T) -> Result<T, AppError> {
        if self.0.is_empty() {
            Ok(value())
        } else {
            Err(AppError::validation(self.0))
        }
    }
}

/// Trimmed text of 1..=`max` characters without control characters (`\n` and `\t` allowed
/// when `multiline`).
fn text(raw: &str, max: usize, multiline: bool) -> Result<String, String> {
    let s = raw.trim();
    let bad_char = |c: char| c.is_control() && !(multiline && (c == '\n' || c == '\t'));
    if s.is_empty() || s.chars().count() > max {
        Err(format!("give 1 to {max} characters"))
    } else if s.chars().any(bad_char) {
        Err("control characters are not allowed".into())
    } else {
        Ok(s.to_string())
    }
}

/// Optional text: absent or blank is `None`.
fn optional_text(raw: Option<&str>, max: usize, multiline: bool) -> Result<Option<String>, String> {
    match raw.map(str::trim).filter(|s| !s.is_empty()) {
        None => Ok(None),
        Some(s) => text(s, max, multiline).map(Some),
    }
}

/// RFC 3339 text (any offset) to Unix seconds.
fn timestamp(raw: &str) -> Result<i64, String> {
    OffsetDateTime::parse(raw.trim(), &Rfc3339)
        .map(OffsetDateTime::unix_timestamp)
        .map_err(|_| format!("{raw:?} is not an RFC 3339 time such as 2026-11-21T09:30:00Z"))
}

/// An IANA-looking zone name such as `Europe/Berlin` or `Etc/GMT+2`.
fn time_zone(raw: &str) -> Result<String, String> {
    let s = raw.trim();
    let ok = !s.is_empty()
        && s.len() <= TIME_ZONE_MAX
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/_+-".contains(c));
    if ok {
        Ok(s.to_string())
    } else {
        Err(format!(
            "give a time zone name such as Europe/Berlin (1 to {TIME_ZONE_MAX} of A-Z, a-z, 0-9, '/', '_', '+', '-')"
        ))
    }
}

fn attendee(a: &AttendeeRequest, at: &str, p: &mut Problems) -> Option<Attendee> {
    let name = match a.name.as_deref().map(|n| text(n, ATTENDEE_NAME_MAX, false)) {
        Some(Ok(n)) => Some(n),
        Some(Err(m)) => {
            p.add(format!("{at}.name"), m);
            None
        }
        None => {
            p.add(format!("{at}.name"), "is required");
            None
        }
    };
    let email = match a.email.as_deref().map(Email::parse) {
        Some(Ok(e)) => Some(e),
        Some(Err(e)) => {
            let why = e.details().first().map(|d| d.message.clone());
            p.add(format!("{at}.email"), why.unwrap_or(e.public_message()));
            None
        }
        None => {
            p.add(format!("{at}.email"), "is required");
            None
        }
    };
    let tz = match a.time_zone.as_deref().map(time_zone) {
        None => Some("UTC".to_string()),
        Some(Ok(tz)) => Some(tz),
        Some(Err(m)) => {
            p.add(format!("{at}.timeZone"), m);
            None
        }
    };
    Some(Attendee {
        name: name?,
        email: email?.as_str().to_string(),
        time_zone: tz?,
    })
}

/// Checks a create request: title, times (end after start), attendees, optional text, status.
pub fn validate_new(req: &CreateRequest) -> Result<NewBooking, AppError> {
    let mut p = Problems::default();
    let title = match req.title.as_deref().map(|t| text(t, TITLE_MAX, false)) {
        Some(Ok(t)) => t,
        Some(Err(m)) => {
            p.add("title", m);
            String::new()
        }
        None => {
            p.add("title", "is required");
            String::new()
        }
    };
    let mut time = |field: &str, raw: Option<&str>| match raw.map(timestamp) {
        Some(Ok(t)) => Some(t),
        Some(Err(m)) => {
            p.add(field, m);
            None
        }
        None => {
            p.add(field, "is required");
            None
        }
    };
    let start = time("startTime", req.start_time.as_deref());
    let end = time("endTime", req.end_time.as_deref());
    if let (Some(s), Some(e)) = (start, end)
        && e <= s
    {
        p.add("endTime", "must be after startTime");
    }
    let description = optional_text(req.description.as_deref(), DESCRIPTION_MAX, true)
        .unwrap_or_else(|m| {
            p.add("description", m);
            None
        });
    let location =
        optional_text(req.location.as_deref(), LOCATION_MAX, false).unwrap_or_else(|m| {
            p.add("location", m);
            None
        });
    let status = match req.status.as_deref().map(Status::parse) {
        None => Status::Accepted,
        Some(Some(s @ (Status::Accepted | Status::Pending))) => s,
        Some(_) => {
            p.add("status", "a new booking is ACCEPTED or PENDING");
            Status::Accepted
        }
    };
    let raw_attendees = req.attendees.as_deref().unwrap_or_default();
    let mut attendees = Vec::with_capacity(raw_attendees.len().min(ATTENDEES_MAX));
    if raw_attendees.len() > ATTENDEES_MAX {
        p.add("attendees", format!("at most {ATTENDEES_MAX} attendees"));
    } else {
        for (i, a) in raw_attendees.iter().enumerate() {
            attendees.extend(attendee(a, &format!("attendees[{i}]"), &mut p));
        }
    }
    let (start_time, end_time) = (start.unwrap_or_default(), end.unwrap_or_default());
    let derived = EventType::derived(
        &title,
        description.as_deref(),
        start_time,
        end_time,
        status == Status::Pending,
    );
    let event_type = match &req.event_type {
        None | Some(Value::Null) => derived,
        Some(raw) => details::event_type(raw, derived, &mut p.0),
    };
    let responses = match &req.responses {
        None | Some(Value::Null) => Map::new(),
        Some(raw) => details::responses(raw, &mut p.0),
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

/// A cancellation reason: optional, at most `REASON_MAX` characters.
pub fn validate_reason(raw: Option<&str>) -> Result<Option<String>, AppError> {
    let mut p = Problems::default();
    let reason = optional_text(raw, REASON_MAX, true).unwrap_or_else(|m| {
        p.add("reason", m);
        None
    });
    p.into_result(|| reason)
}

/// A whole number in `min..=max` from a query parameter, `default` when absent.
pub fn bounded(
    name: &str,
    raw: Option<&str>,
    default: u32,
    min: u32,
    max: u32,
) -> Result<u32, FieldError> {
    match raw.map(str::trim) {
        None => Ok(default),
        Some(s) => s
            .parse::<u32>()
            .ok()
            .filter(|n| (min..=max).contains(n))
            .ok_or_else(|| FieldError {
                path: name.to_string(),
                message: format!("give a whole number from {min} to {max}"),
            }),
    }
}

/// `?limit=` of `GET /listBookings`: 1..=100, 50 when absent.
pub fn parse_limit(raw: Option<&str>) -> Result<u32, AppError> {
    bounded("limit", raw, 50, 1, 100).map_err(|e| AppError::validation(vec![e]))
}

/// One page of a listing, with an optional status filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageRequest {
    pub page: u32,
    pub per_page: u32,
    pub status: Option<Status>,
}

impl PageRequest {
    pub fn offset(&self) -> i64 {
        (i64::from(self.page) - 1) * i64::from(self.per_page)
    }

    /// Pages needed for `total` items (0 when there are none).
    pub fn total_pages(&self, total: i64) -> i64 {
        (total + i64::from(self.per_page) - 1) / i64::from(self.per_page)
    }
}

/// `?page` (from 1), `?perPage` (1..=100, default 10) and `?status` of `GET /api/v1/bookings`.
pub fn parse_page(
    page: Option<&str>,
    per_page: Option<&str>,
    status: Option<&str>,
) -> Result<PageRequest, AppError> {
    let mut p = Problems::default();
    let page = bounded("page", page, 1, 1, u32::MAX).unwrap_or_else(|e| {
        p.0.push(e);
        1
    });
    let per_page = bounded("perPage", per_page, 10, 1, 100).unwrap_or_else(|e| {
        p.0.push(e);
        10
    });
    let status = match status.map(str::trim).filter(|s| !s.is_empty()) {
        None => None,
        Some(s) => Status::parse(s).or_else(|| {
            p.add("status", "use ACCEPTED, PENDING, CANCELLED or REJECTED");
            None
        }),
    };
    p.into_result(|| PageRequest {
        page,
        per_page,
        status,
    })
}

/// A fresh public identifier.
pub fn new_uid() -> String {
    crate::core::crypto::random_base62(22)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let b = validate_new(&request()).unwrap();
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
        let b = validate_new(&r).unwrap();
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
            paths(validate_new(&r).unwrap_err()),
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
        assert_eq!(paths(validate_new(&r).unwrap_err()), ["endTime"]);
    }

    #[test]
    fn limits_on_lengths_and_counts() {
        let mut r = request();
        r.title = Some("t".repeat(TITLE_MAX));
        r.description = Some("line\nline".into());
        r.status = Some("pending".into());
        let b = validate_new(&r).unwrap();
        assert_eq!(b.status, Status::Pending);
        assert_eq!(b.description.as_deref(), Some("line\nline"));
        r.title = Some("t".repeat(TITLE_MAX + 1));
        r.attendees = Some(vec![AttendeeRequest::default(); ATTENDEES_MAX + 1]);
        assert_eq!(paths(validate_new(&r).unwrap_err()), ["title", "attendees"]);
    }

    #[test]
    fn time_zones_look_like_iana_names() {
        for ok in [
            "UTC",
            "Europe/Berlin",
            "America/Argentina/Buenos_Aires",
            "Etc/GMT+2",
        ] {
            assert!(time_zone(ok).is_ok(), "{ok}");
        }
        for bad in ["", "Europe/Berlin;", "a".repeat(65).as_str(), "Zürich"] {
            assert!(time_zone(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn reasons_and_paging_are_bounded() {
        assert_eq!(validate_reason(None).unwrap(), None);
        assert_eq!(validate_reason(Some("  ")).unwrap(), None);
        assert_eq!(
            validate_reason(Some(" ill ")).unwrap().as_deref(),
            Some("ill")
        );
        assert!(validate_reason(Some(&"r".repeat(REASON_MAX + 1))).is_err());

        assert_eq!(parse_limit(None).unwrap(), 50);
        assert_eq!(parse_limit(Some("100")).unwrap(), 100);
        for bad in ["0", "101", "-1", "ten", ""] {
            assert!(parse_limit(Some(bad)).is_err(), "{bad}");
        }

        let p = parse_page(None, None, None).unwrap();
        assert_eq!((p.page, p.per_page, p.status, p.offset()), (1, 10, None, 0));
        let p = parse_page(Some("3"), Some("20"), Some("cancelled")).unwrap();
        assert_eq!((p.offset(), p.status), (40, Some(Status::Cancelled)));
        assert_eq!(
            (p.total_pages(0), p.total_pages(20), p.total_pages(21)),
            (0, 1, 2)
        );
        assert_eq!(
            paths(parse_page(Some("0"), Some("101"), Some("DONE")).unwrap_err()),
            ["page", "perPage", "status"]
        );
    }

    #[test]
    fn bookings_serialize_as_the_spec_says() {
        let b = Booking {
            id: 1,
            uid: "u".into(),
            title: "T".into(),
            description: None,
            start_time: 0,
            end_time: 60,
            status: Status::Pending,
            location: None,
            attendees: vec![],
            user: Organizer {
                username: "ada".into(),
                name: "Ada".into(),
                email: "ada@example.com".into(),
                time_zone: "UTC".into(),
                locale: "en",
            },
            created_at: 0,
            cancellation_reason: None,
            event_type: EventType::derived("T", None, 0, 60, true),
            answers: Answers::of(&[], None, None, &Map::new()),
        };
        let v = serde_json::to_value(&b).unwrap();
        assert_eq!(v["startTime"], "1970-01-01T00:00:00Z");
        assert_eq!(v["endTime"], "1970-01-01T00:01:00Z");
        assert_eq!(v["status"], "PENDING");
        assert_eq!(v["user"]["timeZone"], "UTC");
        assert!(v["cancellationReason"].is_null());
        // The spec's twelve keys, then what integrations map: the event type and the answers.
        assert_eq!(v["eventType"]["length"], 1);
        assert_eq!(v["eventType"]["requiresConfirmation"], true);
        assert_eq!(v["responses"], serde_json::json!({}));
        assert_eq!(v["userFieldsResponses"], serde_json::json!({}));
        assert_eq!(v["customInputs"], serde_json::json!({}));
        assert_eq!(v["user"]["locale"], "en");
        assert_eq!(v.as_object().unwrap().len(), 16);
    }
}
