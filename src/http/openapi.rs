//! `GET /api/v1/openapi.json` (OpenAPI 3.1 for every `/api/v1` path and the OAuth endpoints) and
//! `GET /api/v1/openapi`, the API explorer page (our own small script; works offline).
//!
//! The document is assembled here: the operations are `#[utoipa::path]` marker functions in
//! `openapi/paths_*.rs`, their request and answer schemas derived from the Rust types the
//! routes parse and reply with, the error sets from `openapi/errors.rs`; the frame (info,
//! security schemes) and the loosely described discovery operations are in `openapi/by_hand.rs`.

mod by_hand;
mod errors;
#[allow(dead_code)]
mod paths_bookings;
// The operations' marker functions are read by `#[openapi(paths(...))]`, never called.
#[allow(dead_code)]
mod paths_documents;
#[allow(dead_code)]
mod paths_oauth;
#[allow(dead_code)]
mod paths_sending;
#[allow(dead_code)]
mod paths_templates;
#[allow(dead_code)]
mod paths_webhooks;
#[allow(dead_code)]
mod paths_zapier;

use http::StatusCode;
use serde_json::Value;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::reply::{json_response, page};
use crate::http::state::AppState;
use paths_bookings as bookings;
use paths_documents as documents;
use paths_oauth as oauth;
use paths_sending as sending;
use paths_templates as templates;
use paths_webhooks as webhooks;
use paths_zapier as zapier;
use utoipa::OpenApi;

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let spec = warp::path!("api" / "v1" / "openapi.json")
        .and(warp::get())
        .and(super::with_state(state))
        .map(|st: AppState| {
            let mut r = json_response(StatusCode::OK, &document(&st.issuer()));
            r.headers_mut().insert(
                http::header::CACHE_CONTROL,
                http::HeaderValue::from_static("no-cache"),
            );
            r
        });
    let explorer = warp::path!("api" / "v1" / "openapi")
        .and(warp::get())
        .map(|| page(Ok(Explorer)));
    spec.or(explorer).unify().boxed()
}

/// The API explorer page (`explorer.js` fills it from the document).
#[derive(askama::Template)]
#[template(path = "explorer.html")]
struct Explorer;

/// The generated part: the operations (in the order the explorer lists them) and every schema
/// made from a Rust type (the requests read by `crate::core::lenient`, the answers, and the
/// enums the API shows).
#[derive(utoipa::OpenApi)]
#[openapi(
    paths(
        documents::create_document,
        documents::list_documents,
        documents::get_document,
        documents::update_document,
        documents::delete_document,
        documents::add_recipient,
        documents::patch_recipient,
        documents::delete_recipient,
        documents::add_fields,
        documents::patch_field,
        documents::delete_field,
        webhooks::create_webhook,
        webhooks::list_webhooks,
        webhooks::delete_webhook,
        webhooks::webhook_deliveries,
        webhooks::get_webhook,
        webhooks::update_webhook,
        webhooks::test_webhook,
        webhooks::redeliver_webhook,
        documents::api_account,
        sending::send_document,
        sending::resend_document,
        sending::download_document,
        sending::audit_log,
        sending::download_file,
        templates::create_template,
        templates::list_templates,
        templates::get_template,
        templates::delete_template,
        templates::add_template_recipient,
        templates::add_template_fields,
        templates::generate_document,
        templates::create_document_from_template,
        templates::create_template_from_pdf,
        templates::update_template,
        templates::duplicate_template,
        templates::get_direct_link,
        templates::set_direct_link,
        templates::patch_template_recipient,
        templates::delete_template_recipient,
        templates::patch_template_field,
        templates::delete_template_field,
        sending::upload_file,
        sending::create_from_pdf,
        bookings::create_booking,
        bookings::list_bookings,
        bookings::get_booking,
        bookings::cancel_booking,
        bookings::list_bookings_legacy,
        zapier::zapier_list_bookings,
        zapier::zapier_add_subscription,
        zapier::zapier_delete_subscription,
        zapier::zapier_me,
        zapier::zapier_list_documents,
        zapier::zapier_subscribe,
        zapier::zapier_unsubscribe,
        oauth::me,
        oauth::me_by_post,
        oauth::userinfo,
        oauth::userinfo_by_post,
        oauth::token,
        oauth::refresh_token,
        oauth::revoke,
        oauth::introspect,
    ),
    components(schemas(
        crate::signing::documents::request::CreateDocumentRequest,
        crate::signing::documents::request::RecipientInput,
        crate::signing::documents::settings::UpdateDocumentRequest,
        crate::integrations::request::CreateWebhookRequest,
        crate::integrations::request::CalSubscriptionRequest,
        crate::integrations::request::SignSubscriptionRequest,
        crate::integrations::request::SignUnsubscribeRequest,
        crate::signing::templates::request::CreateTemplateRequest,
        crate::signing::workflow::request::SendRequest,
        crate::signing::workflow::request::ResendRequest,
        crate::signing::documents::field_request::FieldInput,
        crate::signing::documents::field_request::FieldPatch,
        crate::signing::documents::field_request::FieldBatch,
        crate::signing::documents::field_meta::FieldMetaInput,
        crate::signing::documents::field_meta::ChoiceInput,
        crate::signing::templates::generate_request::GenerateRequest,
        crate::signing::templates::generate_request::NamedRecipientInput,
        crate::signing::templates::generate_request::CreateFromTemplateRequest,
        crate::signing::templates::prefill::PrefillInput,
        crate::signing::documents::Status,
        crate::signing::documents::recipients::SigningStatus,
        crate::signing::documents::recipients::ReadStatus,
        crate::signing::documents::recipients::SendStatus,
        crate::signing::documents::fields::FieldType,
        crate::signing::documents::meta::SigningOrder,
        crate::signing::documents::meta::DistributionMethod,
        crate::signing::documents::view::DocumentView,
        crate::signing::documents::view::RecipientView,
        crate::signing::documents::view::RecipientBrief,
        crate::signing::documents::view::FieldView,
        crate::signing::documents::answers::DocumentCreated,
        crate::signing::documents::answers::DocumentList,
        crate::signing::documents::answers::DocumentDeleted,
        crate::signing::documents::answers::RecipientRemoved,
        crate::signing::documents::answers::FieldRemoved,
        crate::signing::documents::answers::FieldsAdded,
        crate::signing::templates::TemplateView,
        crate::signing::templates::direct::DirectLinkState,
        crate::signing::templates::answers::TemplateCreated,
        crate::signing::templates::answers::TemplateList,
        crate::signing::templates::answers::TemplateRemoved,
        crate::signing::templates::answers::RecipientAdded,
        crate::signing::templates::answers::TemplateFieldsAdded,
        crate::signing::templates::manage::Generated,
        crate::signing::workflow::answers::Sent,
        crate::signing::workflow::answers::Resent,
        crate::signing::workflow::answers::AuditLog,
        crate::signing::workflow::answers::DownloadUrl,
        crate::integrations::answers::WebhookAdded,
        crate::integrations::answers::WebhookList,
        crate::integrations::answers::WebhookRemoved,
        crate::integrations::answers::DeliveryList,
        crate::signing::uploads::Uploaded,
        super::reply::ErrorBody,
        crate::oauth::tokens::OAuthErrorBody,
        crate::oauth::identity::ApiAccount,
    ))
)]
struct Generated;

/// The OpenAPI 3.1 document, with `issuer` as the server URL: the generated operations first,
/// then those written by hand; every schema.
pub fn document(issuer: &str) -> Value {
    let mut doc = by_hand::described(issuer);
    let generated = serde_json::to_value(Generated::openapi()).expect("a JSON document");
    let (Value::Object(mut paths), Value::Object(by_hand)) =
        (generated["paths"].clone(), doc["paths"].take())
    else {
        unreachable!("paths are objects")
    };
    paths.extend(by_hand);
    doc["paths"] = Value::Object(paths);
    if let (Some(all), Some(Value::Object(schemas))) = (
        doc["components"]["schemas"].as_object_mut(),
        generated["components"].get("schemas").cloned(),
    ) {
        all.extend(schemas);
    }
    doc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reference_resolves() {
        let doc = document("https://d.example");
        let text = doc.to_string();
        let schemas = doc["components"]["schemas"].as_object().unwrap();
        for part in text.split("#/components/schemas/").skip(1) {
            let name = part.split('"').next().unwrap();
            assert!(schemas.contains_key(name), "missing schema {name}");
        }
        assert_eq!(doc["openapi"], "3.1.0");
    }
}
