//! The answers of the scheduling service's API v1 routes (`cal_v1`), in that service's
//! shapes: each list under its plural name, each object under its singular one, ids of hooks
//! as text. Members docket has no use for are null, or empty.

use serde::Serialize;
use serde_json::{Map, Value};
use utoipa::ToSchema;

use crate::bookings::{Booking, Status};
use crate::core::ids::{TeamId, UserId};
use crate::core::timefmt::iso8601;
use crate::identity::users::User;
use crate::outbox::webhooks::Event;
use crate::outbox::webhooks::store::Webhook;
use crate::signing::documents::answers::always_null;
use crate::teams::model::{Membership, TeamRole};

/// A hook as the other service shows it (never its secret).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CalHook {
    pub id: String,
    pub user_id: UserId,
    #[schema(schema_with = always_null)]
    pub event_type_id: Option<i64>,
    pub payload_template: Option<String>,
    pub event_triggers: Vec<Event>,
    #[schema(schema_with = always_null)]
    pub app_id: Option<String>,
    pub subscriber_url: String,
    /// `false`: switched off; nothing is delivered.
    pub active: bool,
}

impl CalHook {
    pub fn of(w: &Webhook, user: UserId) -> CalHook {
        CalHook {
            id: w.id.to_string(),
            user_id: user,
            event_type_id: None,
            payload_template: w.payload_template.clone(),
            event_triggers: w.events.clone(),
            app_id: None,
            subscriber_url: w.url.clone(),
            active: w.enabled,
        }
    }
}

/// `GET /v1/hooks`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CalHookList {
    pub webhooks: Vec<CalHook>,
}

/// `GET /v1/hooks/{id}`, and `POST /v1/hooks` with its `message`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CalHookAnswer {
    pub webhook: CalHook,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(required = false, nullable = false)]
    pub message: Option<String>,
}

/// `DELETE /v1/hooks/{id}`, and any answer that is only a sentence.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CalMessage {
    pub message: String,
}

/// A team membership as the other service shows one. Its roles are MEMBER, ADMIN and OWNER:
/// a team's admin is ADMIN, its managers and members MEMBER (the other service has no
/// managers, and its admins manage the team, which docket's managers do not).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CalMembership {
    pub team_id: TeamId,
    pub user_id: UserId,
    pub accepted: bool,
    /// "ADMIN" or "MEMBER".
    pub role: &'static str,
    pub disable_impersonation: bool,
}

/// `GET /v1/memberships`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CalMemberships {
    pub memberships: Vec<CalMembership>,
}

impl CalMemberships {
    pub fn of(user: UserId, all: &[Membership]) -> CalMemberships {
        let memberships = all
            .iter()
            .map(|m| CalMembership {
                team_id: m.team.id,
                user_id: user,
                accepted: true,
                role: match m.role {
                    TeamRole::Admin => "ADMIN",
                    TeamRole::Manager | TeamRole::Member => "MEMBER",
                },
                disable_impersonation: false,
            })
            .collect();
        CalMemberships { memberships }
    }
}

/// The account as the other service shows a user.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CalUser {
    pub id: UserId,
    pub username: String,
    pub name: String,
    pub email: String,
    pub time_zone: String,
    /// Docket's pages and mail are in English.
    pub locale: &'static str,
    #[schema(format = DateTime)]
    pub created_date: String,
}

/// `GET /v1/me`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CalMe {
    pub user: CalUser,
}

impl CalMe {
    pub fn of(u: &User) -> CalMe {
        CalMe {
            user: CalUser {
                id: u.id,
                username: u.username.clone(),
                name: u.name.clone(),
                email: u.email.clone(),
                time_zone: u.time_zone.clone(),
                locale: "en",
                created_date: iso8601(u.created_at),
            },
        }
    }
}

/// A person of a booking: an attendee, or the organiser as `user`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CalPerson {
    pub email: String,
    pub name: String,
    pub time_zone: String,
    pub locale: &'static str,
}

/// A booking as the other service's API v1 lists one.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CalBooking {
    pub id: i64,
    pub uid: String,
    pub user_id: UserId,
    pub title: String,
    pub description: Option<String>,
    #[schema(schema_with = always_null)]
    pub event_type_id: Option<i64>,
    #[schema(format = DateTime)]
    pub start_time: String,
    #[schema(format = DateTime)]
    pub end_time: String,
    pub location: Option<String>,
    pub status: Status,
    pub cancellation_reason: Option<String>,
    pub attendees: Vec<CalPerson>,
    pub user: CalPerson,
    #[schema(value_type = Object)]
    pub responses: Map<String, Value>,
    #[schema(value_type = Object)]
    pub metadata: Map<String, Value>,
    /// Always empty: docket takes no payments.
    #[schema(value_type = Vec<Object>)]
    pub payment: Vec<Value>,
    #[schema(schema_with = always_null)]
    pub from_reschedule: Option<String>,
    #[schema(format = DateTime)]
    pub created_at: String,
}

/// `GET /v1/bookings`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CalBookings {
    pub bookings: Vec<CalBooking>,
}

impl CalBookings {
    pub fn of(user: UserId, all: &[Booking]) -> CalBookings {
        let bookings = all
            .iter()
            .map(|b| {
                let person = |name: &str, email: &str, zone: &str| CalPerson {
                    email: email.to_string(),
                    name: name.to_string(),
                    time_zone: zone.to_string(),
                    locale: b.user.locale,
                };
                CalBooking {
                    id: b.id,
                    uid: b.uid.clone(),
                    user_id: user,
                    title: b.title.clone(),
                    description: b.description.clone(),
                    event_type_id: None,
                    start_time: iso8601(b.start_time),
                    end_time: iso8601(b.end_time),
                    location: b.location.clone(),
                    status: b.status,
                    cancellation_reason: b.cancellation_reason.clone(),
                    attendees: b
                        .attendees
                        .iter()
                        .map(|a| person(&a.name, &a.email, &a.time_zone))
                        .collect(),
                    user: person(&b.user.name, &b.user.email, &b.user.time_zone),
                    responses: b.answers.responses.clone(),
                    metadata: Map::new(),
                    payment: Vec::new(),
                    from_reschedule: None,
                    created_at: iso8601(b.created_at),
                }
            })
            .collect();
        CalBookings { bookings }
    }
}
