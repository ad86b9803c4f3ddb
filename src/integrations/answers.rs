//! The webhook API's answers (`/api/v1/webhooks`) and the subscription rows the Zapier routes
//! answer as each peer does. Their OpenAPI schemas are derived from these types.

use crate::core::ids::UserId;
use serde::Serialize;
use utoipa::ToSchema;

use crate::outbox::webhooks::Event;
use crate::outbox::webhooks::store::{Delivery, Webhook};
use crate::signing::documents::answers::{always_null, always_true};

/// `POST /api/v1/webhooks`: the new endpoint and its secret, shown only in this answer.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(as = WebhookCreated)]
pub struct WebhookAdded {
    #[serde(flatten)]
    pub webhook: Webhook,
    /// Verify X-Docket-Signature (t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>) with
    /// it; shown only now.
    pub secret: String,
}

/// `GET /api/v1/webhooks`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct WebhookList {
    pub webhooks: Vec<Webhook>,
}

/// `DELETE /api/v1/webhooks/{id}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(as = DeletedWebhook)]
pub struct WebhookRemoved {
    pub id: i64,
    #[schema(schema_with = always_true)]
    pub deleted: bool,
}

/// `GET /api/v1/webhooks/{id}/deliveries`: the latest deliveries, newest first.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryList {
    pub webhook_id: i64,
    pub deliveries: Vec<Delivery>,
}

/// A subscription as the scheduling service answers it: its webhook row (the id as text, as
/// Zapier hands it back in a query); the members docket has no use for are null.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = CalSubscription)]
pub struct CalcomRow {
    pub id: String,
    pub user_id: UserId,
    #[schema(schema_with = always_null)]
    pub team_id: Option<i64>,
    #[schema(schema_with = always_null)]
    pub event_type_id: Option<i64>,
    #[serde(rename = "platformOAuthClientId")]
    #[schema(schema_with = always_null)]
    pub platform_oauth_client_id: Option<String>,
    pub subscriber_url: String,
    #[schema(schema_with = always_null)]
    pub payload_template: Option<String>,
    /// "zapier".
    pub app_id: &'static str,
    pub active: bool,
    pub event_triggers: Vec<Event>,
    /// Never shown.
    #[schema(schema_with = always_null)]
    pub secret: Option<String>,
    pub platform: bool,
    #[schema(schema_with = always_null)]
    pub time: Option<i64>,
    #[schema(schema_with = always_null)]
    pub time_unit: Option<String>,
    #[schema(format = DateTime)]
    pub created_at: String,
}

impl CalcomRow {
    pub fn of(hook: &Webhook, user_id: UserId) -> CalcomRow {
        CalcomRow {
            id: hook.id.to_string(),
            user_id,
            team_id: None,
            event_type_id: None,
            platform_oauth_client_id: None,
            subscriber_url: hook.url.clone(),
            payload_template: None,
            app_id: "zapier",
            active: hook.enabled,
            event_triggers: hook.events.clone(),
            secret: None,
            platform: false,
            time: None,
            time_unit: None,
            created_at: hook.created_at.clone(),
        }
    }
}

/// A subscription as the signing service answers it: its webhook row.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = SignSubscription)]
pub struct DocumensoRow {
    pub id: String,
    pub webhook_url: String,
    pub event_triggers: Vec<Event>,
    /// Never shown.
    #[schema(schema_with = always_null)]
    pub secret: Option<String>,
    pub enabled: bool,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
    pub user_id: UserId,
    /// The team whose endpoint it is; null for a personal one.
    #[schema(required = true)]
    pub team_id: Option<i64>,
}

impl DocumensoRow {
    pub fn of(hook: &Webhook, user_id: UserId) -> DocumensoRow {
        DocumensoRow {
            id: hook.id.to_string(),
            webhook_url: hook.url.clone(),
            event_triggers: hook.events.clone(),
            secret: None,
            enabled: hook.enabled,
            created_at: hook.created_at.clone(),
            updated_at: hook.created_at.clone(),
            user_id,
            team_id: hook.team.map(|t| t.get()),
        }
    }
}

/// A delivery as the signing service's Zapier app reads it as sample data: the endpoint's
/// events (comma-separated), the document as its webhooks carry it.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SampleDelivery {
    pub event: String,
    #[schema(format = DateTime)]
    pub created_at: String,
    pub webhook_endpoint: String,
    /// The document, as `DOCUMENT_*` webhooks carry it.
    #[schema(value_type = Object)]
    pub payload: serde_json::Value,
}
