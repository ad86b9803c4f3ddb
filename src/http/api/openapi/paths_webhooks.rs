//! The OpenAPI operations of `/api/v1/webhooks` (`http::api::webhooks`).

use super::errors::{ChangeErrors, CreateErrors, DeleteErrors, ReadErrors};
use crate::http::api::wire::webhooks::{
    CreateWebhookRequest, TestWebhookRequest, UpdateWebhookRequest,
};
use crate::integrations::answers::{DeliveryList, WebhookAdded, WebhookList, WebhookRemoved};
use crate::outbox::webhooks::store::{Delivery, Webhook};

#[utoipa::path(post, path = "/api/v1/webhooks", tag = "webhooks",
    summary = "Register a webhook; its secret (given or generated) is shown only in this response",
    request_body = CreateWebhookRequest,
    responses((status = 200, description = "OK", body = WebhookAdded), CreateErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn create_webhook() {}

#[utoipa::path(get, path = "/api/v1/webhooks", tag = "webhooks",
    summary = "List your webhooks",
    responses((status = 200, description = "OK", body = WebhookList), ReadErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn list_webhooks() {}

#[utoipa::path(delete, path = "/api/v1/webhooks/{id}", tag = "webhooks",
    summary = "Delete a webhook and its deliveries",
    params(("id" = i64, Path)),
    responses((status = 200, description = "OK", body = WebhookRemoved), DeleteErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn delete_webhook() {}

#[utoipa::path(get, path = "/api/v1/webhooks/{id}/deliveries", tag = "webhooks",
    summary = "The webhook's latest 100 deliveries, newest first",
    params(("id" = i64, Path)),
    responses((status = 200, description = "OK", body = DeliveryList), ReadErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn webhook_deliveries() {}

#[utoipa::path(get, path = "/api/v1/webhooks/{id}", tag = "webhooks",
    summary = "One of your webhooks",
    params(("id" = i64, Path)),
    responses((status = 200, description = "OK", body = Webhook), ReadErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn get_webhook() {}

#[utoipa::path(patch, path = "/api/v1/webhooks/{id}", tag = "webhooks",
    summary = "Change a webhook's URL or events, or switch it off and on (a switched-off webhook is queued no deliveries)",
    params(("id" = i64, Path)),
    request_body = UpdateWebhookRequest,
    responses((status = 200, description = "OK", body = Webhook), ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn update_webhook() {}

#[utoipa::path(post, path = "/api/v1/webhooks/{id}/test", tag = "webhooks",
    summary = "Queue a test delivery (payload {\"test\": true, ...}) of one of the webhook's events; the delivery, pending",
    params(("id" = i64, Path)),
    request_body = TestWebhookRequest,
    responses((status = 200, description = "OK", body = Delivery), ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn test_webhook() {}

#[utoipa::path(post, path = "/api/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver", tag = "webhooks",
    summary = "Queue a delivery again: a new delivery with the same event and body, signed anew",
    params(("id" = i64, Path), ("deliveryId" = i64, Path)),
    responses((status = 200, description = "OK", body = Delivery), ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn redeliver_webhook() {}
