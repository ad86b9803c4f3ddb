//! The OpenAPI operations of `/api/v1/documents` (documents, recipients, fields) and
//! `/api/v1/me`: one marker function per operation, beside none of the routes (`http::api::documents`
//! serves them); `openapi::Api` collects them.

use utoipa::IntoParams;

use super::errors::{ChangeErrors, CreateErrors, ReadErrors, RemoveErrors};
use crate::http::api::wire::documents::create::CreateDocumentRequest;
use crate::http::api::wire::documents::recipients::RecipientInput;
use crate::http::api::wire::documents::settings::UpdateDocumentRequest;
use crate::http::api::wire::fields::batch::{FieldBatch, FieldPatch};
use crate::http::api::wire::moves::MoveRequest;
use crate::oauth::identity::ApiAccount;
use crate::signing::documents::Status;
use crate::signing::documents::answers::{
    DocumentCreated, DocumentDeleted, DocumentList, FieldRemoved, FieldsAdded, RecipientRemoved,
};
use crate::signing::documents::view::{DocumentView, FieldView, RecipientView};

/// The paging of document and template lists: `perPage` above 100 is served as 100 (the
/// signing service's API v1 sets no maximum).
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListPaging {
    #[param(minimum = 1)]
    page: Option<i64>,
    /// At most 100 are served.
    #[param(rename = "perPage", minimum = 1)]
    per_page: Option<i64>,
}

#[utoipa::path(post, path = "/api/v1/documents", tag = "documents",
    summary = "Create a document (DRAFT) and get its upload URL",
    request_body = CreateDocumentRequest,
    responses((status = 200, description = "OK", body = DocumentCreated), CreateErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn create_document() {}

#[utoipa::path(get, path = "/api/v1/documents", tag = "documents",
    summary = "List documents, newest first",
    params(ListPaging, ("status" = Option<Status>, Query),
        ("query" = Option<String>, Query, description = "Only the documents whose title or a recipient's e-mail contains this text (ignoring case; at most 200 characters)")),
    responses((status = 200, description = "OK", body = DocumentList), ReadErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn list_documents() {}

#[utoipa::path(get, path = "/api/v1/documents/{id}", tag = "documents",
    summary = "Get a document",
    params(("id" = i64, Path)),
    responses((status = 200, description = "OK", body = DocumentView), ReadErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn get_document() {}

#[utoipa::path(patch, path = "/api/v1/documents/{id}", tag = "documents",
    summary = "Change a draft's settings (title, externalId, meta, authOptions); what is left out keeps its value",
    params(("id" = i64, Path)),
    request_body = UpdateDocumentRequest,
    responses((status = 200, description = "OK", body = DocumentView), ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn update_document() {}

#[utoipa::path(post, path = "/api/v1/documents/{id}/move", tag = "documents",
    summary = "Docket's own: move a personal document into one of the caller's teams (teamId or teamUrl), with a visibility the caller's role there sees (default EVERYONE); recorded in its audit log as MOVED. A team's document stays in its team (409)",
    params(("id" = i64, Path)),
    request_body = MoveRequest,
    responses((status = 200, description = "OK", body = DocumentView), ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn move_document() {}

#[utoipa::path(delete, path = "/api/v1/documents/{id}", tag = "documents",
    summary = "Delete a draft, cancel a pending document, or hide a finished one; answers the document (a removed draft as it was)",
    params(("id" = i64, Path)),
    responses((status = 200, description = "OK", body = DocumentDeleted), RemoveErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn delete_document() {}

#[utoipa::path(post, path = "/api/v1/documents/{id}/recipients", tag = "recipients",
    summary = "Add a recipient",
    params(("id" = i64, Path)),
    request_body = RecipientInput,
    responses((status = 200, description = "OK", body = RecipientView), ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn add_recipient() {}

#[utoipa::path(patch, path = "/api/v1/documents/{id}/recipients/{recipientId}", tag = "recipients",
    summary = "Change a recipient that has not acted",
    params(("id" = i64, Path), ("recipientId" = i64, Path)),
    request_body = RecipientInput,
    responses((status = 200, description = "OK", body = RecipientView), ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn patch_recipient() {}

#[utoipa::path(delete, path = "/api/v1/documents/{id}/recipients/{recipientId}", tag = "recipients",
    summary = "Remove a recipient that has not acted, and its fields; answers the recipient as it was (signingUrl \"\")",
    params(("id" = i64, Path), ("recipientId" = i64, Path)),
    responses((status = 200, description = "OK", body = RecipientRemoved), RemoveErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn delete_recipient() {}

#[utoipa::path(post, path = "/api/v1/documents/{id}/fields", tag = "fields",
    summary = "Add one field or an array of fields (all or nothing)",
    params(("id" = i64, Path)),
    request_body = FieldBatch,
    responses((status = 200, description = "OK", body = FieldsAdded), ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn add_fields() {}

#[utoipa::path(patch, path = "/api/v1/documents/{id}/fields/{fieldId}", tag = "fields",
    summary = "Change a field (DRAFT only)",
    params(("id" = i64, Path), ("fieldId" = i64, Path)),
    request_body = FieldPatch,
    responses((status = 200, description = "OK", body = FieldView), ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn patch_field() {}

#[utoipa::path(delete, path = "/api/v1/documents/{id}/fields/{fieldId}", tag = "fields",
    summary = "Delete a field; answers it as it was",
    params(("id" = i64, Path), ("fieldId" = i64, Path)),
    responses((status = 200, description = "OK", body = FieldRemoved), RemoveErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn delete_field() {}

#[utoipa::path(get, path = "/api/v1/me", tag = "documents",
    summary = "The account behind the credential: name and id, with username and email for READ_PROFILE (an API key has it)",
    responses((status = 200, description = "OK", body = ApiAccount), ReadErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn api_account() {}
