//! `GET /api/v1/openapi.json` (OpenAPI 3.1 for every `/api/v1` path and the OAuth endpoints) and
//! `GET /api/v1/openapi`, the API explorer page (our own small script; works offline).

use http::StatusCode;
use serde_json::{Value, json};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::reply::{json_response, page};
use crate::http::state::AppState;
use crate::integrations::request::CreateWebhookRequest;
use crate::{
    signing::documents::request::CreateDocumentRequest, signing::documents::request::RecipientInput,
};
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

fn ref_(name: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{name}")})
}

/// `{"deleted": true}` beside a deleted object's shape.
fn deleted_flag() -> Value {
    json!({"type": "object", "required": ["deleted"], "properties": {"deleted": {"const": true}}})
}

fn nullable(t: &str) -> Value {
    json!({"type": [t, "null"]})
}

/// A recipient's signing token or link: the recipient's credential, so null unless the caller
/// uses the owner's API key.
fn link(what: &str) -> Value {
    json!({"type": ["string", "null"], "description": format!("{what}: a credential of the recipient's, shown to the owner's API key only (null for OAuth access tokens)")})
}

fn content(schema: Value) -> Value {
    json!({"application/json": {"schema": schema}})
}

/// Error responses every authenticated `/api/v1` operation may give.
fn errors(codes: &[u16]) -> serde_json::Map<String, Value> {
    let mut m = serde_json::Map::new();
    for code in codes {
        let description = match code {
            400 => "Invalid input; `details` lists each problem with its path",
            401 => "Missing or bad credentials",
            403 => "Not allowed (tier, scope, or a bad signed URL)",
            404 => "Unknown object, or another user's",
            405 => "Wrong method",
            409 => "Not allowed in the object's current state",
            413 => "Body too large",
            415 => "Unsupported media type",
            429 => "Rate limited; see Retry-After and X-RateLimit-*",
            _ => "Error",
        };
        m.insert(
            code.to_string(),
            json!({"description": description, "content": content(ref_("Error"))}),
        );
    }
    m
}

const API_ERRORS: &[u16] = &[400, 401, 403, 404, 413, 429];

/// `op` answering `status` (201, 204) on success rather than 200.
fn op_as(
    status: u16,
    summary: &str,
    tag: &str,
    params: Value,
    body: Option<Value>,
    ok: Option<Value>,
    errs: &[u16],
) -> Value {
    let mut o = op(summary, tag, params, body, json!({}), errs);
    let responses = o["responses"].as_object_mut().expect("responses");
    responses.remove("200");
    let answer = match ok {
        Some(schema) => json!({"description": "OK", "content": content(schema)}),
        None => json!({"description": "Done, no body"}),
    };
    responses.insert(status.to_string(), answer);
    o
}

fn op(
    summary: &str,
    tag: &str,
    params: Value,
    body: Option<Value>,
    ok: Value,
    errs: &[u16],
) -> Value {
    let mut responses = errors(errs);
    responses.insert(
        "200".into(),
        json!({"description": "OK", "content": content(ok)}),
    );
    let mut o = json!({
        "summary": summary,
        "tags": [tag],
        "parameters": params,
        "responses": responses,
        "security": [{"apiKey": []}, {"bearer": []}],
    });
    if let Some(b) = body {
        o["requestBody"] = json!({"required": true, "content": content(b)});
        // A body not sent as JSON (`body::json`).
        let e415 = errors(&[415]).remove("415").expect("described");
        o["responses"]["415"] = e415;
    }
    o
}

fn id_param(name: &str) -> Value {
    json!({"name": name, "in": "path", "required": true, "schema": {"type": "integer", "format": "int64"}})
}

/// The path parameters `names` (text) and the query of a signed URL.
fn signed_url_params(names: &[&str]) -> Value {
    let mut out: Vec<Value> = names
        .iter()
        .map(|n| json!({"name": n, "in": "path", "required": true, "schema": {"type": "string"}}))
        .collect();
    for (name, kind) in [("exp", "integer"), ("kid", "string"), ("sig", "string")] {
        out.push(json!({"name": name, "in": "query", "required": true, "schema": {"type": kind}}));
    }
    Value::Array(out)
}

/// Paging of documents and templates: `perPage` above 100 is served as 100 (the signing
/// service's API v1 sets no maximum).
fn doc_paging() -> Vec<Value> {
    vec![
        json!({"name": "page", "in": "query", "schema": {"type": "integer", "minimum": 1}}),
        json!({"name": "perPage", "in": "query", "description": "at most 100 are served", "schema": {"type": "integer", "minimum": 1}}),
    ]
}

fn paging() -> Vec<Value> {
    vec![
        json!({"name": "page", "in": "query", "schema": {"type": "integer", "minimum": 1}}),
        json!({"name": "perPage", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100}}),
    ]
}

/// The shapes whose schemas are generated from their Rust types (requests read by
/// `crate::core::lenient`, and the enums the API shows).
#[derive(utoipa::OpenApi)]
#[openapi(components(schemas(
    CreateDocumentRequest,
    RecipientInput,
    CreateWebhookRequest,
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
)))]
struct Typed;

/// The OpenAPI 3.1 document, with `issuer` as the server URL.
pub fn document(issuer: &str) -> Value {
    let mut doc = described(issuer);
    let typed = serde_json::to_value(Typed::openapi()).expect("a JSON document");
    if let (Some(all), Some(Value::Object(generated))) = (
        doc["components"]["schemas"].as_object_mut(),
        typed["components"].get("schemas").cloned(),
    ) {
        all.extend(generated);
    }
    doc
}

/// The paths, and the schemas not yet generated from types.
fn described(issuer: &str) -> Value {
    let doc_id = || id_param("id");
    let mut list_params = doc_paging();
    list_params.push(json!({"name": "status", "in": "query", "schema": ref_("DocumentStatus")}));
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Docket API",
            "version": crate::core::version::VERSION,
            "description": "The document-signing API (/api/v1) and the OAuth 2 provider of a Docket appliance. Errors are JSON {error, code, message, details?}; OAuth token endpoints answer RFC 6749 errors {error, error_description}."
        },
        "servers": [{"url": issuer}],
        "components": {
            "securitySchemes": {
                "apiKey": {"type": "apiKey", "in": "header", "name": "Authorization", "description": "An API key (api_...), sent as is or as `Bearer api_...`"},
                "bearer": {"type": "http", "scheme": "bearer", "description": "An OAuth access token (READ_DOCUMENT / WRITE_DOCUMENT, READ_BOOKING / WRITE_BOOKING, READ_PROFILE). A token with WRITE_DOCUMENT but not READ_DOCUMENT gets receipts from document and template writes: only id, documentId, templateId, recipientId, externalId, status, uploadUrl, deleted, outcome and message, with recipients, fields and template reduced alike; it may not delete (hide) a finished document (403)"},
                "clientBasic": {"type": "http", "scheme": "basic", "description": "OAuth client_id:client_secret"}
            },
            "schemas": schemas()
        },
        "paths": {
            "/api/v1/documents": {
                "post": op("Create a document (DRAFT) and get its upload URL", "documents", json!([]), Some(ref_("CreateDocument")), ref_("CreateDocumentResponse"), API_ERRORS),
                "get": op("List documents, newest first", "documents", Value::Array(list_params), None, ref_("DocumentList"), API_ERRORS)
            },
            "/api/v1/documents/{id}": {
                "get": op("Get a document", "documents", json!([doc_id()]), None, ref_("Document"), API_ERRORS),
                "delete": op("Delete a draft, cancel a pending document, or hide a finished one; answers the document (a removed draft as it was)", "documents", json!([doc_id()]), None, ref_("DeletedDocument"), &[400, 401, 403, 404, 409, 429])
            },
            "/api/v1/documents/{id}/recipients": {
                "post": op("Add a recipient", "recipients", json!([doc_id()]), Some(ref_("RecipientInput")), ref_("Recipient"), &[400, 401, 403, 404, 409, 413, 429])
            },
            "/api/v1/documents/{id}/recipients/{recipientId}": {
                "patch": op("Change a recipient that has not acted", "recipients", json!([doc_id(), id_param("recipientId")]), Some(ref_("RecipientInput")), ref_("Recipient"), &[400, 401, 403, 404, 409, 413, 429]),
                "delete": op("Remove a recipient that has not acted, and its fields; answers the recipient as it was (signingUrl \"\")", "recipients", json!([doc_id(), id_param("recipientId")]), None, ref_("DeletedRecipient"), &[400, 401, 403, 404, 409, 429])
            },
            "/api/v1/documents/{id}/fields": {
                "post": op("Add one field or an array of fields (all or nothing)", "fields", json!([doc_id()]), Some(ref_("FieldBatch")), ref_("FieldsResponse"), &[400, 401, 403, 404, 409, 413, 429])
            },
            "/api/v1/documents/{id}/fields/{fieldId}": {
                "patch": op("Change a field (DRAFT only)", "fields", json!([doc_id(), id_param("fieldId")]), Some(ref_("FieldPatch")), ref_("Field"), &[400, 401, 403, 404, 409, 413, 429]),
                "delete": op("Delete a field; answers it as it was", "fields", json!([doc_id(), id_param("fieldId")]), None, ref_("DeletedField"), &[400, 401, 403, 404, 409, 429])
            },
            "/api/v1/webhooks": {
                "post": op("Register a webhook; its secret (given or generated) is shown only in this response", "webhooks", json!([]), Some(ref_("WebhookInput")), ref_("WebhookCreated"), API_ERRORS),
                "get": op("List your webhooks", "webhooks", json!([]), None, ref_("WebhookList"), API_ERRORS)
            },
            "/api/v1/webhooks/{id}": {
                "delete": op("Delete a webhook and its deliveries", "webhooks", json!([id_param("id")]), None, ref_("Deleted"), &[400, 401, 403, 404, 429])
            },
            "/api/v1/webhooks/{id}/deliveries": {
                "get": op("The webhook's latest 100 deliveries, newest first", "webhooks", json!([id_param("id")]), None, ref_("DeliveryList"), API_ERRORS)
            },
            "/api/v1/me": {
                "get": op("The account behind the credential: name and id, with username and email for READ_PROFILE (an API key has it)", "documents", json!([]), None, json!({"type": "object", "required": ["name", "id"], "properties": {"name": {"type": "string"}, "id": {"type": "integer"}, "username": {"type": "string"}, "email": {"type": "string"}}}), API_ERRORS)
            },
            "/api/v1/documents/{id}/send": {
                "post": op("Send a DRAFT: it becomes PENDING and the first recipients are e-mailed (unless sendEmail is false). A PENDING document answers 200 unchanged, e-mailing those whose turn it is and who were never e-mailed; a finished one, or one lacking its file, recipients or signature fields, is 400. The document's formValues are set on the PDF's form fields of those names first; names the form lacks are left out (the audit log's SENT event lists them) unless strictFormValues=true", "sending", json!([doc_id(), {"name": "strictFormValues", "in": "query", "description": "docket's own: true refuses (400, nothing sent) formValues names the PDF's form has no field for; false or absent leaves them out, as the other signing service does", "schema": {"type": "string", "enum": ["true", "false"], "default": "false"}}]), Some(ref_("SendDocument")), ref_("Document"), &[400, 401, 403, 404, 409, 413, 429])
            },
            "/api/v1/documents/{id}/resend": {
                "post": op("E-mail again the listed recipients whose turn it is and who have not finished", "sending", json!([doc_id()]), Some(ref_("ResendDocument")), ref_("ResendResponse"), &[400, 401, 403, 404, 409, 413, 429])
            },
            "/api/v1/documents/{id}/download": {
                "get": op("A signed, expiring URL of the sealed PDF (COMPLETED) or, with original=true, of the uploaded file", "sending", json!([doc_id(), {"name": "original", "in": "query", "schema": {"type": "string", "enum": ["true", "false"]}}, {"name": "downloadOriginalDocument", "in": "query", "description": "the other signing service's name for original: true or 1", "schema": {"type": "string"}}]), None, ref_("DownloadUrl"), &[400, 401, 403, 404, 409, 429])
            },
            "/api/v1/documents/{id}/audit-log": {
                "get": op("The document's events, oldest first, at most 500 a page; repeated fills of a field by one recipient are one FIELD_FILLED event with data.fills, data.lastFilledAt and data.lastIpAddress", "sending", json!([doc_id(), {"name": "page", "in": "query", "schema": {"type": "integer", "minimum": 1, "default": 1}}, {"name": "perPage", "in": "query", "description": "at most 500 are served", "schema": {"type": "integer", "minimum": 1, "default": 500}}]), None, ref_("AuditLog"), API_ERRORS)
            },
            "/api/v1/downloads/{blobId}/{fileName}": {
                "get": {
                    "summary": "A PDF by the signed, expiring URL that download answered",
                    "tags": ["sending"],
                    "security": [],
                    "parameters": signed_url_params(&["blobId", "fileName"]),
                    "responses": merge(errors(&[403, 404]), "200", json!({"description": "The PDF", "content": {"application/pdf": {"schema": {"type": "string", "format": "binary"}}}}))
                }
            },
            "/api/v1/templates": {
                "post": op("Create a template and get its upload URL", "templates", json!([]), Some(ref_("CreateTemplate")), ref_("CreateTemplateResponse"), API_ERRORS),
                "get": op("List templates, newest first", "templates", Value::Array(doc_paging()), None, ref_("TemplateList"), API_ERRORS)
            },
            "/api/v1/templates/{id}": {
                "get": op("Get a template", "templates", json!([doc_id()]), None, ref_("Template"), API_ERRORS),
                "delete": op("Delete a template; answers it as it was", "templates", json!([doc_id()]), None, ref_("DeletedTemplate"), &[400, 401, 403, 404, 429])
            },
            "/api/v1/templates/{id}/recipients": {
                "post": op("Add a template recipient", "templates", json!([doc_id()]), Some(ref_("RecipientInput")), ref_("TemplateRecipient"), &[400, 401, 403, 404, 409, 413, 429])
            },
            "/api/v1/templates/{id}/fields": {
                "post": op("Add template fields (all or nothing)", "templates", json!([doc_id()]), Some(ref_("FieldBatch")), ref_("TemplateFieldsResponse"), &[400, 401, 403, 404, 409, 413, 429])
            },
            "/api/v1/templates/{id}/generate-document": {
                "post": op("Generate a document from a template", "templates", json!([doc_id()]), Some(ref_("GenerateDocument")), ref_("GenerateDocumentResponse"), &[400, 401, 403, 404, 409, 413, 429])
            },
            "/api/v1/templates/{id}/create-document": {
                "post": op("Generate a document from a template, recipients by their position in the template and title required (the other signing service's older form)", "templates", json!([doc_id()]), Some(ref_("CreateFromTemplateRequest")), ref_("GenerateDocumentResponse"), &[400, 401, 403, 404, 409, 413, 429])
            },
            "/api/v1/uploads/{dataId}": {
                "put": {
                    "summary": "Upload the PDF to a signed upload URL (raw body or one multipart file part)",
                    "tags": ["documents"],
                    "security": [],
                    "parameters": signed_url_params(&["dataId"]),
                    "requestBody": {"required": true, "content": {
                        "application/pdf": {"schema": {"type": "string", "format": "binary"}},
                        "application/octet-stream": {"schema": {"type": "string", "format": "binary"}},
                        "multipart/form-data": {"schema": {"type": "object", "properties": {"file": {"type": "string", "format": "binary"}}}}
                    }},
                    "responses": merge(errors(&[400, 403, 404, 409, 413, 415]), "200", json!({"description": "Stored", "content": content(ref_("UploadResponse"))}))
                }
            },
            "/api/v1/bookings": {
                "post": op("Create a booking", "bookings", json!([]), Some(ref_("BookingInput")), ref_("Booking"), API_ERRORS),
                "get": op("List bookings", "bookings", Value::Array({
                    let mut p = paging();
                    p.push(json!({"name": "status", "in": "query", "schema": {"type": "string", "enum": ["ACCEPTED", "PENDING", "CANCELLED", "REJECTED"]}}));
                    p
                }), None, ref_("BookingList"), API_ERRORS)
            },
            "/api/v1/bookings/{id}": {
                "get": op("Get a booking", "bookings", json!([id_param("id")]), None, ref_("Booking"), API_ERRORS)
            },
            "/api/v1/bookings/{id}/cancel": {
                "post": op("Cancel a booking", "bookings", json!([id_param("id")]), Some(json!({"type": "object", "properties": {"reason": {"type": "string", "maxLength": 500}}})), ref_("Booking"), &[400, 401, 403, 404, 409, 413, 429])
            },
            "/listBookings": {
                "get": op("The caller's bookings (Bearer token with READ_BOOKING, or an API key, also as ?apiKey=)", "bookings", json!([
                    {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100}},
                    {"name": "apiKey", "in": "query", "schema": {"type": "string"}}
                ]), None, json!({"type": "array", "items": ref_("Booking")}), API_ERRORS)
            },
            "/api/integrations/zapier/listBookings": {
                "get": op_as(201, "Sample bookings for the scheduling service's Zapier app: the newest three, flat as its subscriptions deliver them (READ_BOOKING; Bearer or ?apiKey=)", "zapier", json!([{"name": "apiKey", "in": "query", "schema": {"type": "string"}}]), None, Some(json!({"type": "array", "maxItems": 3, "items": ref_("ZapierBooking")})), &[401, 403, 429])
            },
            "/api/integrations/zapier/addSubscription": {
                "post": op("Subscribe a Zapier REST hook to BOOKING_CREATED or BOOKING_CANCELLED (READ_BOOKING and READ_PROFILE); deliveries are ZapierBooking bodies", "zapier", json!([{"name": "apiKey", "in": "query", "schema": {"type": "string"}}]), Some(ref_("CalSubscriptionInput")), ref_("CalSubscription"), &[400, 401, 403, 409, 413, 429])
            },
            "/api/integrations/zapier/deleteSubscription": {
                "delete": op_as(204, "Delete a subscription made through addSubscription", "zapier", json!([{"name": "id", "in": "query", "required": true, "schema": {"type": "string"}}, {"name": "apiKey", "in": "query", "schema": {"type": "string"}}]), None, None, &[400, 401, 403, 404, 429])
            },
            "/api/integrations/zapier/me": {
                "get": op_as(201, "The account behind the credential, as the scheduling service's Zapier app checks it (READ_PROFILE)", "zapier", json!([{"name": "apiKey", "in": "query", "schema": {"type": "string"}}]), None, Some(json!({"type": "object", "required": ["username"], "properties": {"username": {"type": "string"}, "name": {"type": "string"}, "id": {"type": "integer"}, "email": {"type": "string"}}})), &[401, 403, 429])
            },
            "/api/v1/zapier/list-documents": {
                "get": op("Sample for the signing service's Zapier app: empty until the account has a webhook and a document with recipients, then one delivery as the oldest webhook would get it (any method)", "zapier", json!([]), None, json!({"type": "array", "maxItems": 1, "items": {"type": "object", "required": ["event", "createdAt", "webhookEndpoint", "payload"]}}), &[401, 403, 429])
            },
            "/api/v1/zapier/subscribe": {
                "post": op("Subscribe a Zapier REST hook to one document event (any method)", "zapier", json!([]), Some(ref_("SignSubscriptionInput")), ref_("SignSubscription"), &[400, 401, 403, 409, 413, 429])
            },
            "/api/v1/zapier/unsubscribe": {
                "post": op("Delete a webhook by id; the webhook as it was (any method)", "zapier", json!([]), Some(ref_("SignUnsubscribeInput")), ref_("SignSubscription"), &[400, 401, 403, 404, 413, 429])
            },
            "/api/auth/oauth/me": {
                "get": op("Identity check (READ_PROFILE)", "oauth", json!([]), None, ref_("Me"), &[401, 403, 429]),
                "post": op("Identity check by POST (READ_PROFILE)", "oauth", json!([]), None, ref_("Me"), &[401, 403, 429])
            },
            "/api/auth/oauth/userinfo": {
                "get": op("OpenID Connect userinfo (openid or READ_PROFILE)", "oauth", json!([]), None, ref_("UserInfo"), &[401, 403, 429]),
                "post": op("OpenID Connect userinfo by POST", "oauth", json!([]), None, ref_("UserInfo"), &[401, 403, 429])
            },
            "/api/auth/oauth/token": {"post": oauth_op("Exchange a code, or refresh (RFC 6749)", ref_("TokenRequest"), ref_("TokenResponse"))},
            "/api/auth/oauth/refreshToken": {"post": oauth_op("Refresh an access token (the refresh token in the body or as Authorization: Bearer)", ref_("RefreshRequest"), ref_("TokenResponse"))},
            "/api/auth/oauth/revoke": {"post": oauth_op("Revoke a token (RFC 7009)", ref_("TokenParam"), json!({"type": "object"}))},
            "/api/auth/oauth/introspect": {"post": oauth_op("Introspect a token (RFC 7662)", ref_("TokenParam"), ref_("Introspection"))},
            "/api/v1/openapi.json": {
                "get": {"summary": "This document", "tags": ["documents"], "security": [], "responses": {"200": {"description": "OK", "content": content(json!({"type": "object", "required": ["openapi", "paths"]}))}}}
            },
            "/api/v1/openapi": {
                "get": {"summary": "The API explorer (an HTML page)", "tags": ["documents"], "security": [], "responses": {"200": {"description": "OK", "content": {"text/html": {"schema": {"type": "string"}}}}}}
            },
            "/.well-known/oauth-authorization-server": {
                "get": {"summary": "OAuth metadata (RFC 8414)", "tags": ["oauth"], "security": [], "responses": {"200": {"description": "OK", "content": content(json!({"type": "object", "required": ["issuer"]}))}}}
            },
            "/.well-known/openid-configuration": {
                "get": {"summary": "OpenID Connect discovery", "tags": ["oauth"], "security": [], "responses": {"200": {"description": "OK", "content": content(json!({"type": "object", "required": ["issuer", "jwks_uri"]}))}}}
            },
            "/.well-known/jwks.json": {
                "get": {"summary": "The public key that signs ID tokens (JWK Set)", "tags": ["oauth"], "security": [], "responses": {"200": {"description": "OK", "content": content(json!({"type": "object", "required": ["keys"]}))}}}
            }
        }
    })
}

fn merge(mut m: serde_json::Map<String, Value>, key: &str, v: Value) -> Value {
    m.insert(key.into(), v);
    Value::Object(m)
}

fn oauth_op(summary: &str, body: Value, ok: Value) -> Value {
    let err = json!({"description": "OAuth error", "content": content(ref_("OAuthError"))});
    json!({
        "summary": summary,
        "tags": ["oauth"],
        "security": [{"clientBasic": []}, {}],
        "requestBody": {"required": true, "content": {
            "application/x-www-form-urlencoded": {"schema": body},
            "application/json": {"schema": body}
        }},
        "responses": {"200": {"description": "OK", "content": content(ok)}, "400": err, "401": err, "413": {"description": "Body too large", "content": content(ref_("Error"))}}
    })
}

fn schemas() -> Value {
    let ts = json!({"type": "string", "format": "date-time"});
    let ts_null = json!({"type": ["string", "null"], "format": "date-time"});
    let role = ref_("Role");
    let field_type = ref_("FieldType");
    json!({
        "Error": {"type": "object", "required": ["error", "code", "message"], "properties": {
            "error": {"type": "string"}, "code": {"type": "string"}, "message": {"type": "string"},
            "details": {"type": "array", "items": {"type": "object", "required": ["path", "message"], "properties": {"path": {"type": "string"}, "message": {"type": "string"}}}}
        }},
        "OAuthError": {"type": "object", "required": ["error"], "properties": {"error": {"type": "string"}, "error_description": {"type": "string"}, "message": {"type": "string", "description": "error_description again, for integrations that read message"}}},
        "ResendResponse": {"type": "object", "required": ["documentId", "recipients", "message"], "properties": {"documentId": {"type": "integer"}, "recipients": {"type": "array", "items": {"type": "integer"}}, "message": {"type": "string"}}},
        "DownloadUrl": {"type": "object", "required": ["downloadUrl"], "properties": {"downloadUrl": {"type": "string", "format": "uri"}}},
        "AuditLog": {"type": "object", "required": ["documentId", "events", "totalPages"], "properties": {"documentId": {"type": "integer"}, "totalPages": {"type": "integer"}, "events": {"type": "array", "items": {"type": "object",
            "required": ["id", "type", "createdAt", "actor", "recipientId", "ipAddress", "userAgent", "data"], "properties": {
            "id": {"type": "integer"}, "type": {"type": "string", "enum": ["CREATED", "UPLOADED", "SENT", "EMAILED", "OPENED", "FIELD_FILLED", "SIGNED", "APPROVED", "VIEWED", "REJECTED", "COMPLETED", "DOWNLOADED", "CANCELLED", "RECIPIENT_CHANGED", "ASSISTED"]},
            "createdAt": ts, "actor": {"type": "string"}, "recipientId": {"type": ["integer", "null"]}, "ipAddress": nullable("string"), "userAgent": nullable("string"), "data": {"type": "object"}
        }}}}},
        "Meta": {"type": "object", "properties": {
            "subject": {"type": ["string", "null"], "maxLength": 255, "description": "the signing request's subject; {signer.name}, {signer.email} and {document.name} are filled in per recipient"},
            "message": {"type": ["string", "null"], "maxLength": 5000, "description": "the signing request's message; {signer.name}, {signer.email} and {document.name} are filled in per recipient"},
            "timezone": {"type": "string"},
            "dateFormat": {"type": "string", "enum": crate::signing::documents::meta::DATE_FORMATS},
            "redirectUrl": {"type": ["string", "null"], "format": "uri", "maxLength": 2000, "pattern": "^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]+$"},
            "signingOrder": ref_("SigningOrder"),
            "distributionMethod": {"allOf": [ref_("DistributionMethod")], "default": "EMAIL", "description": "NONE: recipients are never e-mailed (no signing requests, reminders, completion or cancellation e-mails); the owner hands out the signing links"},
            "emailSettings": {"type": "object", "description": "the e-mails the document sends; a switch left out is on. Docket has mail for recipientSigningRequest (signing requests and reminders), documentCompleted (the signed copy to recipients), ownerDocumentCompleted (to the owner) and documentDeleted (cancellation); the others are kept and shown", "properties": {
                "recipientSigningRequest": {"type": "boolean"}, "recipientRemoved": {"type": "boolean"}, "recipientSigned": {"type": "boolean"},
                "documentPending": {"type": "boolean"}, "documentCompleted": {"type": "boolean"}, "documentDeleted": {"type": "boolean"},
                "ownerDocumentCompleted": {"type": "boolean"}, "ownerRecipientExpired": {"type": "boolean"}, "ownerDocumentCreated": {"type": "boolean"}
            }},
            "attachments": {"type": "array", "readOnly": true, "description": "the link attachments given at creation (present when there are any)", "items": ref_("Attachment")}
        }},
        "Attachment": {"type": "object", "required": ["label", "data"], "properties": {
            "label": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "\\S"},
            "data": {"type": "string", "format": "uri", "maxLength": 2000, "pattern": "^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]+$"},
            "type": {"type": "string", "enum": ["link"], "default": "link"}
        }},
        "RecipientBrief": {"type": "object", "required": ["recipientId", "name", "email", "token", "role", "signingOrder", "signingUrl"], "properties": {
            "recipientId": {"type": "integer"}, "name": {"type": "string"}, "email": {"type": "string"}, "token": link("The recipient's signing token"),
            "role": role, "signingOrder": nullable("integer"), "signingUrl": link("The recipient's signing link")
        }},
        "CreateDocumentResponse": {"type": "object", "required": ["uploadUrl", "documentId", "externalId", "recipients"], "properties": {
            "uploadUrl": {"type": "string"}, "documentId": {"type": "integer"}, "externalId": nullable("string"), "recipients": {"type": "array", "items": ref_("RecipientBrief")}
        }},
        "Recipient": {"type": "object", "required": ["id", "documentId", "email", "name", "role", "signingOrder", "token", "signedAt", "readStatus", "signingStatus", "sendStatus", "signingUrl"], "properties": {
            "authOptions": {"type": "object", "description": "How the recipient authenticates", "properties": {"accessAuth": {"type": "array", "items": {"type": "string"}}, "actionAuth": {"type": "array", "items": {"type": "string"}}}},
            "id": {"type": "integer"}, "documentId": {"type": "integer"}, "email": {"type": "string"}, "name": {"type": "string"}, "role": role,
            "signingOrder": nullable("integer"), "token": link("The recipient's signing token"), "signedAt": ts_null,
            "readStatus": ref_("ReadStatus"),
            "signingStatus": ref_("SigningStatus"),
            "sendStatus": ref_("SendStatus"),
            "signingUrl": link("The recipient's signing link")
        }},
        "Field": {"type": "object", "required": ["id", "documentId", "recipientId", "type", "pageNumber", "pageX", "pageY", "pageWidth", "pageHeight", "fieldMeta", "inserted", "customText", "page", "positionX", "positionY", "width", "height", "secondaryId"], "properties": {
            "id": {"type": "integer"}, "documentId": {"type": "integer"}, "recipientId": {"type": "integer"}, "type": field_type,
            "pageNumber": {"type": "integer"}, "pageX": {"type": "number"}, "pageY": {"type": "number"}, "pageWidth": {"type": "number"}, "pageHeight": {"type": "number"},
            "fieldMeta": {"type": ["object", "null"]}, "inserted": {"type": "boolean"}, "customText": {"type": "string"},
            "page": {"type": "integer"}, "positionX": {"type": "string"}, "positionY": {"type": "string"}, "width": {"type": "string"}, "height": {"type": "string"},
            "secondaryId": {"type": "string"},
            "recipient": {"type": "object", "required": ["name", "email", "signingStatus"], "description": "whose field it is; in a document's fields only", "properties": {
                "name": {"type": "string"}, "email": {"type": "string"}, "signingStatus": ref_("SigningStatus")
            }}
        }},
        "FieldsResponse": {"type": "object", "required": ["documentId", "fields"], "description": "When one field was sent (an object), its keys (id, recipientId, type, ...) also stand at the top level", "properties": {"documentId": {"type": "integer"}, "fields": {"type": "array", "items": ref_("Field")}}},
        "Document": {"type": "object", "required": ["id", "externalId", "userId", "teamId", "folderId", "title", "status", "documentDataId", "createdAt", "updatedAt", "completedAt", "recipients", "fields", "meta"], "properties": {
            "id": {"type": "integer"}, "externalId": nullable("string"), "userId": {"type": "integer"}, "teamId": nullable("integer"),
            "folderId": {"type": "null", "description": "always null: there are no folders"},
            "title": {"type": "string"}, "status": ref_("DocumentStatus"),
            "documentDataId": {"type": "string"}, "createdAt": ts, "updatedAt": ts, "completedAt": ts_null,
            "recipients": {"type": "array", "items": ref_("Recipient")}, "fields": {"type": "array", "items": ref_("Field")}, "meta": ref_("Meta"),
            "authOptions": {"type": "object", "description": "How every recipient authenticates", "properties": {"globalAccessAuth": {"type": "array", "items": {"type": "string"}}, "globalActionAuth": {"type": "array", "items": {"type": "string"}}}},
            "sealing": {"allOf": [ref_("Sealing")], "description": "present once an attempt to seal the finished document has failed"}
        }},
        "Sealing": {"type": "object", "required": ["status", "attempts", "lastError", "nextAttemptAt"], "properties": {
            "status": {"type": "string", "enum": ["FAILED", "SEALED"], "description": "FAILED: the last attempt failed and sealing is retried at nextAttemptAt (while the document is PENDING); SEALED: a later attempt succeeded"},
            "attempts": {"type": "integer", "minimum": 1, "description": "attempts made so far, the successful one included"},
            "lastError": nullable("string"), "nextAttemptAt": ts_null
        }},
        "DocumentList": {"type": "object", "required": ["documents", "totalPages"], "properties": {"documents": {"type": "array", "items": ref_("Document")}, "totalPages": {"type": "integer"}}},
        "DeletedDocument": {"allOf": [ref_("Document"), {"type": "object", "required": ["deleted", "outcome"], "properties": {
            "deleted": {"type": "boolean", "description": "true when the draft and its file are gone"},
            "outcome": {"type": "string", "enum": ["DELETED", "CANCELLED", "HIDDEN"]}
        }}]},
        "DeletedRecipient": {"allOf": [ref_("Recipient"), deleted_flag()]},
        "DeletedField": {"allOf": [ref_("Field"), deleted_flag()]},
        "DeletedTemplate": {"allOf": [ref_("Template"), deleted_flag()]},
        "Deleted": {"type": "object", "required": ["id", "deleted"], "properties": {"id": {"type": "integer"}, "deleted": {"type": "boolean"}, "status": {"type": "string"}, "documentId": {"type": "integer"}}},
        "Webhook": {"type": "object", "required": ["id", "url", "events", "createdAt"], "properties": {
            "id": {"type": "integer"}, "url": {"type": "string"},
            "events": {"type": "array", "items": ref_("WebhookEvent")}, "createdAt": ts
        }},
        "WebhookCreated": {"type": "object", "required": ["id", "url", "events", "createdAt", "secret"], "properties": {
            "id": {"type": "integer"}, "url": {"type": "string"},
            "events": {"type": "array", "items": ref_("WebhookEvent")}, "createdAt": ts,
            "secret": {"type": "string", "description": "Verify X-Docket-Signature (t=<unix>,v1=<hex HMAC-SHA256(secret, \"<t>.<body>\")>) with it; shown only now"}
        }},
        "WebhookList": {"type": "object", "required": ["webhooks"], "properties": {"webhooks": {"type": "array", "items": ref_("Webhook")}}},
        "Delivery": {"type": "object", "required": ["id", "webhookId", "event", "status", "attempts", "nextAttemptAt", "lastStatus", "lastError", "createdAt", "deliveredAt"], "properties": {
            "id": {"type": "integer"}, "webhookId": {"type": "integer"}, "event": {"type": "string"},
            "status": {"type": "string", "enum": ["PENDING", "DELIVERED", "FAILED"]}, "attempts": {"type": "integer"},
            "nextAttemptAt": ts_null, "lastStatus": nullable("integer"), "lastError": nullable("string"),
            "createdAt": ts, "deliveredAt": ts_null
        }},
        "DeliveryList": {"type": "object", "required": ["webhookId", "deliveries"], "properties": {"webhookId": {"type": "integer"}, "deliveries": {"type": "array", "items": ref_("Delivery")}}},
        "CreateTemplateResponse": {"type": "object", "required": ["templateId", "uploadUrl", "recipients", "template"], "properties": {
            "templateId": {"type": "integer"}, "uploadUrl": {"type": "string"}, "recipients": {"type": "array", "items": ref_("RecipientBrief")},
            "template": ref_("Template")
        }},
        "TemplateRecipient": {"type": "object", "required": ["id", "email", "name", "signingOrder", "authOptions", "role"], "properties": {
            "id": {"type": "integer"}, "email": {"type": "string"}, "name": {"type": "string"}, "signingOrder": nullable("integer"),
            "authOptions": {"type": "string"}, "role": role, "templateId": {"type": "integer"}
        }},
        "TemplateField": {"type": "object", "required": ["id", "recipientId", "type", "page", "positionX", "positionY", "width", "height"], "properties": {
            "id": {"type": "integer"}, "recipientId": {"type": "integer"}, "type": field_type, "page": {"type": "integer"},
            "positionX": {"type": "string"}, "positionY": {"type": "string"}, "width": {"type": "string"}, "height": {"type": "string"},
            "fieldMeta": {"type": ["object", "null"]}
        }},
        "TemplateFieldsResponse": {"type": "object", "required": ["templateId", "fields"], "properties": {"templateId": {"type": "integer"}, "fields": {"type": "array", "items": ref_("TemplateField")}}},
        "Template": {"type": "object", "required": ["id", "externalId", "type", "title", "userId", "teamId", "templateDocumentDataId", "createdAt", "updatedAt", "templateMeta", "directLink", "templateDocumentData", "Field", "Recipient"], "properties": {
            "id": {"type": "integer"}, "externalId": nullable("string"), "type": {"type": "string", "enum": ["PUBLIC", "PRIVATE"]},
            "title": {"type": "string"}, "userId": {"type": "integer"}, "teamId": nullable("integer"),
            "templateDocumentDataId": {"type": "string"}, "createdAt": ts, "updatedAt": ts,
            "templateMeta": {"type": "object", "required": ["id", "templateId", "signingOrder"], "properties": {
                "id": {"type": "string"}, "subject": nullable("string"), "message": nullable("string"), "timezone": {"type": "string"},
                "dateFormat": {"type": "string"}, "templateId": {"type": "integer"}, "redirectUrl": nullable("string"),
                "signingOrder": ref_("SigningOrder")
            }},
            "directLink": {"type": "object", "required": ["token", "enabled"], "properties": {"token": {"type": "string"}, "enabled": {"type": "boolean"}}},
            "templateDocumentData": {"type": "object", "required": ["id", "type", "data"], "properties": {"id": {"type": "string"}, "type": {"type": "string"}, "data": {"type": "string"}}},
            "Field": {"type": "array", "items": ref_("TemplateField")},
            "Recipient": {"type": "array", "items": ref_("TemplateRecipient")}
        }},
        "TemplateList": {"type": "object", "required": ["templates", "totalPages"], "properties": {"templates": {"type": "array", "items": ref_("Template")}, "totalPages": {"type": "integer"}}},
        "GenerateDocumentResponse": {"type": "object", "required": ["documentId", "externalId", "recipients"], "properties": {
            "documentId": {"type": "integer"}, "externalId": nullable("string"), "recipients": {"type": "array", "items": ref_("RecipientBrief")}
        }},
        "UploadResponse": {"type": "object", "required": ["pages", "size", "sha256"], "properties": {"documentId": {"type": "integer"}, "templateId": {"type": "integer"}, "pages": {"type": "integer"}, "size": {"type": "integer"}, "sha256": {"type": "string"}}},
        "Attendee": {"type": "object", "required": ["name", "email", "timeZone"], "properties": {"name": {"type": "string"}, "email": {"type": "string"}, "timeZone": {"type": "string"}}},
        "BookingInput": {"type": "object", "required": ["title", "startTime", "endTime"], "properties": {
            "title": {"type": "string"}, "description": nullable("string"), "startTime": ts, "endTime": ts, "location": nullable("string"),
            "status": {"type": "string", "enum": ["ACCEPTED", "PENDING"]}, "attendees": {"type": "array", "items": ref_("Attendee")},
            "eventType": {"type": ["object", "null"], "description": "Each member optional; what is left out comes from the booking", "properties": {
                "title": {"type": "string"}, "description": nullable("string"), "length": {"type": "integer", "minimum": 1, "maximum": 10080},
                "requiresConfirmation": {"type": "boolean"}, "price": {"type": "integer", "minimum": 0}, "currency": {"type": "string", "minLength": 3, "maxLength": 3}
            }},
            "responses": {"type": ["object", "null"], "maxProperties": 50, "description": "The booker's answers by field name"}
        }},
        "Booking": {"type": "object", "required": ["id", "uid", "title", "description", "startTime", "endTime", "status", "location", "attendees", "user", "createdAt", "cancellationReason"], "properties": {
            "id": {"type": "integer"}, "uid": {"type": "string"}, "title": {"type": "string"}, "description": nullable("string"),
            "startTime": ts, "endTime": ts, "status": {"type": "string", "enum": ["ACCEPTED", "PENDING", "CANCELLED", "REJECTED"]},
            "location": nullable("string"), "attendees": {"type": "array", "items": ref_("Attendee")},
            "user": {"type": "object", "required": ["username", "name", "email", "timeZone", "locale"], "properties": {"username": {"type": "string"}, "name": {"type": "string"}, "email": {"type": "string"}, "timeZone": {"type": "string"}, "locale": {"type": "string"}}},
            "createdAt": ts, "cancellationReason": nullable("string"),
            "eventType": ref_("EventType"), "responses": ref_("Answers"), "userFieldsResponses": ref_("Answers"), "customInputs": {"type": "object"}
        }},
        "EventType": {"type": "object", "required": ["title", "description", "length", "requiresConfirmation", "price", "currency"], "properties": {
            "title": {"type": "string"}, "description": nullable("string"), "length": {"type": "integer"},
            "requiresConfirmation": {"type": "boolean"}, "price": {"type": "integer"}, "currency": {"type": "string"}
        }},
        "Answers": {"type": "object", "additionalProperties": {"type": "object", "required": ["label", "value"], "properties": {"label": {"type": "string"}, "value": {}}}},
        "ZapierBooking": {"type": "object", "required": ["title", "description", "customInputs", "responses", "userFieldsResponses", "startTime", "endTime", "location", "status", "cancellationReason", "user", "eventType", "attendees", "createdAt"], "properties": {
            "id": {"type": "integer"}, "uid": {"type": "string"}, "title": {"type": "string"}, "description": nullable("string"),
            "customInputs": {"type": "object"}, "responses": ref_("Answers"), "userFieldsResponses": ref_("Answers"),
            "startTime": ts, "endTime": ts, "location": nullable("string"), "status": {"type": "string"}, "cancellationReason": nullable("string"),
            "user": {"type": "object", "required": ["username", "name", "email", "timeZone", "utcOffset", "locale"]},
            "eventType": ref_("EventType"),
            "attendees": {"type": "array", "items": {"type": "object", "required": ["name", "email", "timeZone", "utcOffset"]}},
            "createdAt": ts
        }},
        "CalSubscription": {"type": "object", "required": ["id", "userId", "subscriberUrl", "appId", "active", "eventTriggers", "secret", "createdAt"], "properties": {
            "id": {"type": "string"}, "userId": {"type": "integer"}, "subscriberUrl": {"type": "string"}, "appId": {"type": "string"},
            "active": {"type": "boolean"}, "eventTriggers": {"type": "array", "items": {"type": "string"}}, "secret": {"type": "null"}, "createdAt": ts
        }},
        "SignSubscription": {"type": "object", "required": ["id", "webhookUrl", "eventTriggers", "secret", "enabled", "createdAt", "updatedAt", "userId", "teamId"], "properties": {
            "id": {"type": "string"}, "webhookUrl": {"type": "string"}, "eventTriggers": {"type": "array", "items": {"type": "string"}},
            "secret": {"type": "null"}, "enabled": {"type": "boolean"}, "createdAt": ts, "updatedAt": ts, "userId": {"type": "integer"}, "teamId": {"type": "null"}
        }},
        "BookingList": {"type": "object", "required": ["bookings", "totalPages"], "properties": {"bookings": {"type": "array", "items": ref_("Booking")}, "totalPages": {"type": "integer"}}},
        "Me": {"type": "object", "required": ["id", "username", "name", "email"], "properties": {"id": {"type": "integer"}, "username": {"type": "string"}, "name": {"type": "string"}, "email": {"type": "string"}}},
        "UserInfo": {"type": "object", "required": ["sub"], "description": "name and preferred_username with profile (or READ_PROFILE), email and email_verified with email (or READ_PROFILE)", "properties": {"sub": {"type": "string"}, "name": {"type": "string"}, "preferred_username": {"type": "string"}, "email": {"type": "string"}, "email_verified": {"type": "boolean"}}},
        "TokenRequest": {"type": "object", "required": ["grant_type"], "properties": {
            "grant_type": {"type": "string", "enum": ["authorization_code", "refresh_token"]}, "code": {"type": "string"}, "redirect_uri": {"type": "string"},
            "code_verifier": {"type": "string"}, "refresh_token": {"type": "string"}, "client_id": {"type": "string"}, "client_secret": {"type": "string"}, "scope": {"type": "string"}
        }},
        "RefreshRequest": {"type": "object", "properties": {
            "grant_type": {"type": "string", "enum": ["refresh_token"]}, "refresh_token": {"type": "string"}, "client_id": {"type": "string"}, "client_secret": {"type": "string"}, "scope": {"type": "string"}
        }},
        "TokenParam": {"type": "object", "required": ["token"], "properties": {"token": {"type": "string"}, "token_type_hint": {"type": "string"}, "client_id": {"type": "string"}, "client_secret": {"type": "string"}}},
        "TokenResponse": {"type": "object", "required": ["access_token", "token_type", "expires_in", "refresh_token", "scope"], "properties": {
            "access_token": {"type": "string"}, "token_type": {"type": "string", "enum": ["Bearer"]}, "expires_in": {"type": "integer"}, "refresh_token": {"type": "string"}, "scope": {"type": "string"}
        }},
        "Introspection": {"type": "object", "required": ["active"], "properties": {"active": {"type": "boolean"}, "scope": {"type": "string"}, "client_id": {"type": "string"}, "username": {"type": "string"}, "exp": {"type": "integer"}, "iat": {"type": "integer"}}}
    })
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
