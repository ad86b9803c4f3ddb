//! The part of the OpenAPI document written by hand: its info, server and security schemes,
//! and the discovery operations (this document, the explorer, the OAuth metadata and keys),
//! whose answers it describes loosely. `openapi::document` adds the generated operations and
//! schemas to it.

use serde_json::{Value, json};

/// A JSON answer: an object with `required` members.
fn object_with(required: &[&str]) -> Value {
    json!({"application/json": {"schema": {"type": "object", "required": required}}})
}

/// The document's frame (info, server, security schemes) and the discovery operations, whose
/// answers are described loosely: this document, the explorer page, and the OAuth metadata.
pub fn described(issuer: &str) -> Value {
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
            "schemas": {}
        },
        "paths": {
            "/api/v1/openapi.json": {
                "get": {"summary": "This document", "tags": ["documents"], "security": [], "responses": {"200": {"description": "OK", "content": object_with(&["openapi", "paths"])}}}
            },
            "/api/v1/openapi": {
                "get": {"summary": "The API explorer (an HTML page)", "tags": ["documents"], "security": [], "responses": {"200": {"description": "OK", "content": {"text/html": {"schema": {"type": "string"}}}}}}
            },
            "/.well-known/oauth-authorization-server": {
                "get": {"summary": "OAuth metadata (RFC 8414)", "tags": ["oauth"], "security": [], "responses": {"200": {"description": "OK", "content": object_with(&["issuer"])}}}
            },
            "/.well-known/openid-configuration": {
                "get": {"summary": "OpenID Connect discovery", "tags": ["oauth"], "security": [], "responses": {"200": {"description": "OK", "content": object_with(&["issuer", "jwks_uri"])}}}
            },
            "/.well-known/jwks.json": {
                "get": {"summary": "The public key that signs ID tokens (JWK Set)", "tags": ["oauth"], "security": [], "responses": {"200": {"description": "OK", "content": object_with(&["keys"])}}}
            }
        }
    })
}
