//! Bookings: a user's meetings with attendees, the rules for creating, listing and cancelling
//! them (plain functions over the values a caller sent), and their table (`store`).

pub mod cal_hook;
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

mod paging;
mod validate;
pub use paging::*;
pub use validate::*;

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

/// A fresh public identifier.
pub fn new_uid() -> String {
    crate::core::crypto::random_base62(22)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(e: AppError) -> Vec<String> {
        e.details().iter().map(|d| d.path.clone()).collect()
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
