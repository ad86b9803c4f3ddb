//! The shape of a booking as an API caller sends it, before any check.
use super::*;

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
