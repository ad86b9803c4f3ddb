//! The OpenAPI operations of `/api/v1/webhooks` (`http::webhooks`).

use super::errors::{CreateErrors, DeleteErrors, ReadErrors};
use crate::integrations::answers::{DeliveryList, WebhookAdded, WebhookList, WebhookRemoved};
use crate::integrations::request::CreateWebhookRequest;

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
