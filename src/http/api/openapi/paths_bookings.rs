//! The OpenAPI operations of bookings: `/api/v1/bookings` and the scheduling service's
//! `/listBookings` (`http::api::bookings`).

use super::errors::{ChangeErrors, CreateErrors, ReadErrors};
use crate::bookings::{Booking, Status};
use crate::http::api::bookings::CancelRequest;
use crate::http::api::wire::bookings::CreateRequest;

/// `GET /api/v1/bookings`' answer: a page of bookings and how many pages there are.
#[derive(serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = BookingList)]
pub struct Page {
    bookings: Vec<Booking>,
    total_pages: i64,
}

/// The paging of bookings.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct BookingPaging {
    #[param(minimum = 1)]
    page: Option<i64>,
    #[param(rename = "perPage", minimum = 1, maximum = 100)]
    per_page: Option<i64>,
    status: Option<Status>,
}

/// `/listBookings`' query.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LegacyQuery {
    #[param(minimum = 1, maximum = 100)]
    limit: Option<i64>,
    /// The API key, for clients that cannot send a header.
    #[param(rename = "apiKey")]
    api_key: Option<String>,
}

#[utoipa::path(post, path = "/api/v1/bookings", tag = "bookings",
    summary = "Create a booking",
    request_body = CreateRequest,
    responses((status = 201, description = "Created", body = Booking), CreateErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn create_booking() {}

#[utoipa::path(get, path = "/api/v1/bookings", tag = "bookings",
    summary = "List bookings",
    params(BookingPaging),
    responses((status = 200, description = "OK", body = Page), ReadErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn list_bookings() {}

#[utoipa::path(get, path = "/api/v1/bookings/{id}", tag = "bookings",
    summary = "Get a booking",
    params(("id" = i64, Path)),
    responses((status = 200, description = "OK", body = Booking), ReadErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn get_booking() {}

#[utoipa::path(post, path = "/api/v1/bookings/{id}/cancel", tag = "bookings",
    summary = "Cancel a booking",
    params(("id" = i64, Path)),
    request_body = CancelRequest,
    responses((status = 200, description = "OK", body = Booking), ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn cancel_booking() {}

#[utoipa::path(get, path = "/listBookings", tag = "bookings",
    summary = "The caller's bookings (Bearer token with READ_BOOKING, or an API key, also as ?apiKey=)",
    params(LegacyQuery),
    responses((status = 200, description = "OK", body = Vec<Booking>), ReadErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn list_bookings_legacy() {}
