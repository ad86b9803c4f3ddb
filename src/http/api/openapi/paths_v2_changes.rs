//! The OpenAPI operations of the API v2's changes to a whole envelope
//! (`http::api::v2::changes`): update, delete, distribute and redistribute.

use super::errors::V2ChangeErrors;
use crate::http::api::v2::wire_changes::{
    DistributeRequest, DocumentRef, EnvelopeRef, RedistributeRequest, TemplateRef, UpdateRequest,
};
use crate::signing::envelopes::changes::{Distributed, Success};
use crate::signing::envelopes::envelope::Full;
use crate::signing::envelopes::legacy::{LegacyDocument, LegacyTemplate};

#[utoipa::path(post, path = "/api/v2/envelope/update", tag = "api-v2",
    summary = "Change an envelope's title, externalId, visibility, authentication, meta or folder",
    request_body = UpdateRequest,
    responses((status = 200, description = "OK", body = Full), V2ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn envelope_update() {}

#[utoipa::path(post, path = "/api/v2/document/update", tag = "api-v2",
    summary = "Change a document (legacy form; `documentId` names it)",
    request_body = UpdateRequest,
    responses((status = 200, description = "OK", body = LegacyDocument), V2ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn document_update() {}

#[utoipa::path(post, path = "/api/v2/template/update", tag = "api-v2",
    summary = "Change a template (legacy form; `templateId` names it)",
    request_body = UpdateRequest,
    responses((status = 200, description = "OK", body = LegacyTemplate), V2ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn template_update() {}

#[utoipa::path(post, path = "/api/v2/envelope/delete", tag = "api-v2",
    summary = "Delete an envelope: a draft removed, a pending document cancelled, a finished one hidden",
    request_body = EnvelopeRef,
    responses((status = 200, description = "OK", body = Success), V2ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn envelope_delete() {}

#[utoipa::path(post, path = "/api/v2/document/delete", tag = "api-v2",
    summary = "Delete a document (legacy form)",
    request_body = DocumentRef,
    responses((status = 200, description = "OK", body = Success), V2ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn document_delete() {}

#[utoipa::path(post, path = "/api/v2/template/delete", tag = "api-v2",
    summary = "Delete a template (legacy form)",
    request_body = TemplateRef,
    responses((status = 200, description = "OK", body = Success), V2ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn template_delete() {}

#[utoipa::path(post, path = "/api/v2/envelope/distribute", tag = "api-v2",
    summary = "Send a document: its meta set first when given; answers each recipient's link",
    request_body = DistributeRequest,
    responses((status = 200, description = "OK", body = Distributed), V2ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn envelope_distribute() {}

#[utoipa::path(post, path = "/api/v2/document/distribute", tag = "api-v2",
    summary = "Send a document (legacy form)",
    request_body = DistributeRequest,
    responses((status = 200, description = "OK", body = LegacyDocument), V2ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn document_distribute() {}

#[utoipa::path(post, path = "/api/v2/envelope/redistribute", tag = "api-v2",
    summary = "E-mail recipients whose turn it is again",
    request_body = RedistributeRequest,
    responses((status = 200, description = "OK", body = Success), V2ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn envelope_redistribute() {}

#[utoipa::path(post, path = "/api/v2/document/redistribute", tag = "api-v2",
    summary = "E-mail recipients whose turn it is again (legacy form)",
    request_body = RedistributeRequest,
    responses((status = 200, description = "OK", body = Success), V2ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn document_redistribute() {}

#[utoipa::path(post, path = "/api/v2/template/use", tag = "api-v2",
    summary = "Make a document from a template (recipients by id, override, prefill), sent at once when asked",
    request_body = crate::http::api::v2::wire_use::TemplateUseRequest,
    responses((status = 200, description = "OK", body = LegacyDocument), V2ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn template_use() {}
