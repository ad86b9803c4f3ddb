//! The webhook API's bodies and the Zapier apps' subscriptions as types: read leniently
//! (`crate::core::lenient`), turned into commands by `validate()` with every problem named by
//! its path, by the rules of `integrations::checks`.

use serde::Deserialize;
use utoipa::ToSchema;

use crate::core::error::AppError;
use crate::integrations::checks::{NewWebhook, event_list, secret, url};
use crate::outbox::webhooks::Event;
use crate::outbox::webhooks::store::Change;
use crate::signing::documents::check::Check;
use crate::{core::lenient::Given, core::lenient::Int};

#[derive(Debug, Default, Deserialize, ToSchema)]
#[schema(as = WebhookInput, example = json!({"url": "https://hooks.example.com/docket",
    "events": ["DOCUMENT_SIGNED", "DOCUMENT_COMPLETED"]}))]
pub struct CreateWebhookRequest {
    /// An absolute http or https URL, never an internal address.
    #[serde(default)]
    #[schema(value_type = String, required = true, max_length = 2048)]
    pub url: Given<String>,
    #[serde(default)]
    #[schema(value_type = Vec<Event>, required = true, min_items = 1)]
    pub events: Given<Vec<Given<Event>>>,
    /// Signs each delivery; generated when left out.
    #[serde(default)]
    #[schema(value_type = Option<String>, min_length = 1, max_length = 256)]
    pub secret: Given<String>,
}

impl CreateWebhookRequest {
    /// The endpoint to store (its secret given or generated): 400 listing every problem.
    pub fn validate(&self) -> Result<NewWebhook, AppError> {
        let mut c = Check::new();
        let url = url(&mut c, &self.url, true);
        let events = event_list(&mut c, &self.events, true).unwrap_or_default();
        let secret = secret(&mut c, &self.secret);
        match (url, secret) {
            (Some(url), Some(secret)) if c.is_ok() => Ok(NewWebhook {
                url,
                events,
                secret,
            }),
            _ => c
                .finish(())
                .and(Err(AppError::bad_request("invalid webhook"))),
        }
    }
}

/// `PATCH /api/v1/webhooks/{id}`: what changes; a member left out stays as it is.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[schema(as = WebhookPatch, example = json!({"events": ["DOCUMENT_COMPLETED"], "enabled": false}))]
pub struct UpdateWebhookRequest {
    /// An absolute http or https URL, never an internal address.
    #[serde(default)]
    #[schema(value_type = Option<String>, max_length = 2048)]
    pub url: Given<String>,
    #[serde(default)]
    #[schema(value_type = Option<Vec<Event>>, min_items = 1)]
    pub events: Given<Vec<Given<Event>>>,
    /// `false` switches the webhook off: no deliveries are queued for it until it is on again.
    #[serde(default)]
    #[schema(value_type = Option<bool>)]
    pub enabled: Given<bool>,
}

impl UpdateWebhookRequest {
    /// The change to make: 400 listing every problem.
    pub fn validate(&self) -> Result<Change, AppError> {
        let mut c = Check::new();
        let change = Change {
            url: url(&mut c, &self.url, false),
            events: event_list(&mut c, &self.events, false),
            enabled: c.flag(&self.enabled, "enabled"),
        };
        if matches!(self.url, Given::Null) {
            c.fail("url", "must be a string");
        }
        if matches!(self.enabled, Given::Null) {
            c.fail("enabled", "must be true or false");
        }
        c.finish(change)
    }
}

/// `POST /api/v1/webhooks/{id}/test`: which event the test delivery carries (one the webhook
/// subscribes to; its first when left out).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[schema(as = WebhookTestInput, example = json!({"event": "DOCUMENT_SIGNED"}))]
pub struct TestWebhookRequest {
    #[serde(default)]
    #[schema(value_type = Option<Event>)]
    pub event: Given<Event>,
}

impl TestWebhookRequest {
    /// The event asked for, if any: 400 when it is not an event's name.
    pub fn validate(&self) -> Result<Option<Event>, AppError> {
        let mut c = Check::new();
        let message = format!("must be one of {}", Event::names().join(", "));
        let event = c.given(&self.event, "event", &message).copied();
        if matches!(self.event, Given::Null) {
            c.fail("event", message);
        }
        c.finish(event)
    }
}

/// The scheduling service's Zapier app subscribing a REST hook (`addSubscription`).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = CalSubscriptionInput, example = json!({"subscriberUrl": "https://hooks.zapier.com/1", "triggerEvent": "BOOKING_CREATED"}))]
pub struct CalSubscriptionRequest {
    #[serde(default)]
    #[schema(value_type = String, required = true)]
    pub subscriber_url: Given<String>,
    #[serde(default)]
    #[schema(schema_with = booking_events, required = true)]
    pub trigger_event: Given<String>,
}

/// The signing service's Zapier app subscribing a REST hook (`/api/v1/zapier/subscribe`).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = SignSubscriptionInput, example = json!({"webhookUrl": "https://hooks.zapier.com/2", "eventTrigger": "DOCUMENT_SIGNED"}))]
pub struct SignSubscriptionRequest {
    #[serde(default)]
    #[schema(value_type = String, required = true)]
    pub webhook_url: Given<String>,
    #[serde(default)]
    #[schema(schema_with = document_events, required = true)]
    pub event_trigger: Given<String>,
}

/// The signing service's Zapier app removing its hook (`/api/v1/zapier/unsubscribe`).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = SignUnsubscribeInput, example = json!({"webhookId": "12"}))]
pub struct SignUnsubscribeRequest {
    /// The subscription's id, as text or a number.
    #[serde(default)]
    #[schema(schema_with = id_schema, required = true)]
    pub webhook_id: Given<Int>,
}

/// One of the booking events (`true`) or of the document events.
fn events(bookings: bool) -> utoipa::openapi::schema::Schema {
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(Event::names_of(bookings)))
        .into()
}

fn booking_events() -> utoipa::openapi::schema::Schema {
    events(true)
}

fn document_events() -> utoipa::openapi::schema::Schema {
    events(false)
}

fn id_schema() -> utoipa::openapi::schema::Schema {
    use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Integer]))
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::lenient::from_slice;

    fn paths(body: &str) -> Vec<String> {
        let req: CreateWebhookRequest = from_slice(body.as_bytes()).unwrap();
        let err = req.validate().unwrap_err();
        err.details().iter().map(|d| d.path.clone()).collect()
    }

    #[test]
    fn every_problem_is_named() {
        assert_eq!(
            paths(r#"{"url": "ftp://x/", "events": ["NOPE"]}"#),
            ["url", "events[0]"]
        );
        assert_eq!(
            paths(r#"{"url": 5, "events": "x", "secret": " s"}"#),
            ["url", "events", "secret"]
        );
        assert_eq!(paths(r#"{"events": []}"#), ["url", "events"]);
        let ok: CreateWebhookRequest = from_slice(
            br#"{"url": "https://h.example.com/x", "events": ["DOCUMENT_SIGNED", "DOCUMENT_SIGNED"]}"#,
        )
        .unwrap();
        let hook = ok.validate().unwrap();
        assert_eq!(hook.events, [Event::DocumentSigned]);
        assert!(hook.secret.starts_with("whsec_"));
    }

    fn create(body: serde_json::Value) -> Result<NewWebhook, AppError> {
        from_slice::<crate::core::lenient::Object<CreateWebhookRequest>>(
            body.to_string().as_bytes(),
        )?
        .0
        .validate()
    }

    #[test]
    fn validates_every_part() {
        let ok = create(serde_json::json!({"url": "https://h.example/x", "events": ["DOCUMENT_CREATED", "DOCUMENT_CREATED"]})).unwrap();
        assert_eq!(ok.events, vec![Event::DocumentCreated]);
        assert!(ok.secret.starts_with("whsec_") && ok.secret.len() == 38);
        let given = create(
            serde_json::json!({"url": "http://h:8080/", "events": ["DOCUMENT_SIGNED"], "secret": "s3cret"}),
        )
        .unwrap();
        assert_eq!(given.secret, "s3cret");
        for bad in [
            serde_json::json!({"events": ["DOCUMENT_CREATED"]}),
            serde_json::json!({"url": "ftp://h/", "events": ["DOCUMENT_CREATED"]}),
            serde_json::json!({"url": "https://u:p@h/", "events": ["DOCUMENT_CREATED"]}),
            serde_json::json!({"url": "/relative", "events": ["DOCUMENT_CREATED"]}),
            serde_json::json!({"url": "https://h/", "events": []}),
            serde_json::json!({"url": "https://h/", "events": ["NOPE"]}),
            serde_json::json!({"url": "https://h/", "events": "DOCUMENT_CREATED"}),
            serde_json::json!({"url": "https://h/", "events": ["DOCUMENT_CREATED"], "secret": ""}),
            serde_json::json!({"url": "https://h/", "events": ["DOCUMENT_CREATED"], "secret": 5}),
            serde_json::json!([]),
        ] {
            let e = create(bad.clone()).unwrap_err();
            assert_eq!(e.status(), 400, "{bad}");
        }
    }

    #[test]
    fn a_patch_names_what_changes_and_refuses_what_is_wrong() {
        let patch = |body: serde_json::Value| {
            from_slice::<crate::core::lenient::Object<UpdateWebhookRequest>>(
                body.to_string().as_bytes(),
            )
            .and_then(|r| r.0.validate())
        };
        assert_eq!(patch(serde_json::json!({})).unwrap(), Change::default());
        let change =
            patch(serde_json::json!({"enabled": false, "events": ["DOCUMENT_SIGNED"]})).unwrap();
        assert_eq!(change.enabled, Some(false));
        assert_eq!(change.events, Some(vec![Event::DocumentSigned]));
        assert_eq!(change.url, None);
        for bad in [
            serde_json::json!({"url": "ftp://h/"}),
            serde_json::json!({"url": null}),
            serde_json::json!({"events": []}),
            serde_json::json!({"events": null}),
            serde_json::json!({"enabled": "yes"}),
            serde_json::json!({"enabled": null}),
        ] {
            assert_eq!(patch(bad.clone()).unwrap_err().status(), 400, "{bad}");
        }
    }
}
