//! The OpenAPI operations Zapier's apps call, for each peer (`http::api::zapier`): the scheduling
//! service's under `/api/integrations/zapier/`, the signing service's under `/api/v1/zapier/`.

use utoipa::IntoParams;

use super::errors::{CredentialErrors, DeleteErrors, SubscribeErrors, UnsubscribeErrors};
use crate::bookings::webhook::ZapierBooking;
use crate::http::api::wire::webhooks::{
    CalSubscriptionRequest, SignSubscriptionRequest, SignUnsubscribeRequest,
};
use crate::integrations::answers::{CalcomRow, DocumensoRow, SampleDelivery};
use crate::oauth::identity::ApiAccount;

/// The API key in the query, for the scheduling service's Zapier app.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
pub struct KeyQuery {
    #[param(rename = "apiKey")]
    api_key: Option<String>,
}

/// `deleteSubscription`'s query.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SubscriptionQuery {
    /// The subscription's id, as addSubscription answered it.
    id: String,
    #[param(rename = "apiKey")]
    api_key: Option<String>,
}

#[utoipa::path(get, path = "/api/integrations/zapier/listBookings", tag = "zapier",
    summary = "Sample bookings for the scheduling service's Zapier app: the newest three, flat as its subscriptions deliver them (READ_BOOKING; Bearer or ?apiKey=)",
    params(KeyQuery),
    responses((status = 201, description = "OK", body = Vec<ZapierBooking>), CredentialErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn zapier_list_bookings() {}

#[utoipa::path(post, path = "/api/integrations/zapier/addSubscription", tag = "zapier",
    summary = "Subscribe a Zapier REST hook to BOOKING_CREATED or BOOKING_CANCELLED (READ_BOOKING and READ_PROFILE); deliveries are ZapierBooking bodies",
    params(KeyQuery),
    request_body = CalSubscriptionRequest,
    responses((status = 200, description = "OK", body = CalcomRow), SubscribeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn zapier_add_subscription() {}

#[utoipa::path(delete, path = "/api/integrations/zapier/deleteSubscription", tag = "zapier",
    summary = "Delete a subscription made through addSubscription",
    params(SubscriptionQuery),
    responses((status = 204, description = "Done, no body"), DeleteErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn zapier_delete_subscription() {}

#[utoipa::path(get, path = "/api/integrations/zapier/me", tag = "zapier",
    summary = "The account behind the credential, as the scheduling service's Zapier app checks it (READ_PROFILE)",
    params(KeyQuery),
    responses((status = 201, description = "OK", body = ApiAccount), CredentialErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn zapier_me() {}

#[utoipa::path(get, path = "/api/v1/zapier/list-documents", tag = "zapier",
    summary = "Sample for the signing service's Zapier app: empty until the account has a webhook and a document with recipients, then one delivery as the oldest webhook would get it (any method)",
    responses((status = 200, description = "OK", body = Vec<SampleDelivery>), CredentialErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn zapier_list_documents() {}

#[utoipa::path(post, path = "/api/v1/zapier/subscribe", tag = "zapier",
    summary = "Subscribe a Zapier REST hook to one document event (any method)",
    request_body = SignSubscriptionRequest,
    responses((status = 200, description = "OK", body = DocumensoRow), SubscribeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn zapier_subscribe() {}

#[utoipa::path(post, path = "/api/v1/zapier/unsubscribe", tag = "zapier",
    summary = "Delete a webhook by id; the webhook as it was (any method)",
    request_body = SignUnsubscribeRequest,
    responses((status = 200, description = "OK", body = DocumensoRow), UnsubscribeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn zapier_unsubscribe() {}
