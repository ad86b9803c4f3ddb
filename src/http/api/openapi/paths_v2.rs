//! The OpenAPI operations of the signing service's API v2 under `/api/v2` (`http::api::v2`):
//! the shapes its official clients read, the error body `V2Error`.

use super::errors::{V2ChangeErrors, V2ReadErrors};
use crate::http::api::v2::wire::{DocumentIds, EnvelopeIds, FindQuery, TemplateIds};
use crate::signing::envelopes::envelope::{Full, Summary};
use crate::signing::envelopes::legacy::{
    LegacyDocument, LegacyDocumentSummary, LegacyTemplate, LegacyTemplateSummary,
};
use crate::signing::envelopes::{Many, Page};

#[utoipa::path(get, path = "/api/v2/envelope/{envelopeId}", tag = "api-v2",
    summary = "Get an envelope (a document or a template)",
    params(("envelopeId" = String, Path, description = "envelope_ and 16 letters")),
    responses((status = 200, description = "OK", body = Full), V2ReadErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn envelope_get() {}

#[utoipa::path(get, path = "/api/v2/envelope", tag = "api-v2",
    summary = "Find envelopes, newest first",
    params(FindQuery),
    responses((status = 200, description = "OK", body = Page<Summary>), V2ReadErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn envelope_find() {}

#[utoipa::path(post, path = "/api/v2/envelope/get-many", tag = "api-v2",
    summary = "Get several envelopes (those the caller reaches)",
    request_body = EnvelopeIds,
    responses((status = 200, description = "OK", body = Many<Full>), V2ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn envelope_get_many() {}

#[utoipa::path(get, path = "/api/v2/envelope/{envelopeId}/audit-log", tag = "api-v2",
    summary = "A page of a document's audit log, oldest first",
    params(("envelopeId" = String, Path, description = "envelope_ and 16 letters"),
        ("page" = Option<String>, Query, description = "1 and up"),
        ("perPage" = Option<String>, Query, description = "1 to 100 (default 50)")),
    responses((status = 200, description = "OK", body = Page<serde_json::Value>), V2ReadErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn envelope_audit_log() {}

#[utoipa::path(get, path = "/api/v2/document/{documentId}", tag = "api-v2",
    summary = "Get a document (legacy shape)",
    params(("documentId" = String, Path, description = "the document's number (7 or 7.0)")),
    responses((status = 200, description = "OK", body = LegacyDocument), V2ReadErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn document_get() {}

#[utoipa::path(get, path = "/api/v2/document", tag = "api-v2",
    summary = "Find documents, newest first (legacy shape)",
    params(FindQuery),
    responses((status = 200, description = "OK", body = Page<LegacyDocumentSummary>), V2ReadErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn document_find() {}

#[utoipa::path(post, path = "/api/v2/document/get-many", tag = "api-v2",
    summary = "Get several documents (legacy shape)",
    request_body = DocumentIds,
    responses((status = 200, description = "OK", body = Many<LegacyDocumentSummary>), V2ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn document_get_many() {}

#[utoipa::path(get, path = "/api/v2/template/{templateId}", tag = "api-v2",
    summary = "Get a template (legacy shape)",
    params(("templateId" = String, Path, description = "the template's number (7 or 7.0)")),
    responses((status = 200, description = "OK", body = LegacyTemplate), V2ReadErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn template_get() {}

#[utoipa::path(get, path = "/api/v2/template", tag = "api-v2",
    summary = "Find templates, newest first (legacy shape)",
    params(FindQuery),
    responses((status = 200, description = "OK", body = Page<LegacyTemplateSummary>), V2ReadErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn template_find() {}

#[utoipa::path(post, path = "/api/v2/template/get-many", tag = "api-v2",
    summary = "Get several templates (legacy shape)",
    request_body = TemplateIds,
    responses((status = 200, description = "OK", body = Many<LegacyTemplateSummary>), V2ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn template_get_many() {}
