//! The OpenAPI operations of `/api/v1/templates` (`http::templates`).

use super::errors::{ChangeErrors, CreateErrors, DeleteErrors, ReadErrors};
use super::paths_documents::ListPaging;
use crate::signing::documents::field_request::FieldBatch;
use crate::signing::documents::request::RecipientInput;
use crate::signing::templates::TemplateView;
use crate::signing::templates::answers::{
    RecipientAdded, TemplateCreated, TemplateFieldsAdded, TemplateList, TemplateRemoved,
};
use crate::signing::templates::generate_request::{CreateFromTemplateRequest, GenerateRequest};
use crate::signing::templates::manage::Generated;
use crate::signing::templates::request::CreateTemplateRequest;

#[utoipa::path(post, path = "/api/v1/templates", tag = "templates",
    summary = "Create a template and get its upload URL",
    request_body = CreateTemplateRequest,
    responses((status = 200, description = "OK", body = TemplateCreated), CreateErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn create_template() {}

#[utoipa::path(get, path = "/api/v1/templates", tag = "templates",
    summary = "List templates, newest first",
    params(ListPaging),
    responses((status = 200, description = "OK", body = TemplateList), ReadErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn list_templates() {}

#[utoipa::path(get, path = "/api/v1/templates/{id}", tag = "templates",
    summary = "Get a template",
    params(("id" = i64, Path)),
    responses((status = 200, description = "OK", body = TemplateView), ReadErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn get_template() {}

#[utoipa::path(delete, path = "/api/v1/templates/{id}", tag = "templates",
    summary = "Delete a template; answers it as it was",
    params(("id" = i64, Path)),
    responses((status = 200, description = "OK", body = TemplateRemoved), DeleteErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn delete_template() {}

#[utoipa::path(post, path = "/api/v1/templates/{id}/recipients", tag = "templates",
    summary = "Add a template recipient",
    params(("id" = i64, Path)),
    request_body = RecipientInput,
    responses((status = 200, description = "OK", body = RecipientAdded), ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn add_template_recipient() {}

#[utoipa::path(post, path = "/api/v1/templates/{id}/fields", tag = "templates",
    summary = "Add template fields (all or nothing)",
    params(("id" = i64, Path)),
    request_body = FieldBatch,
    responses((status = 200, description = "OK", body = TemplateFieldsAdded), ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn add_template_fields() {}

#[utoipa::path(post, path = "/api/v1/templates/{id}/generate-document", tag = "templates",
    summary = "Generate a document from a template",
    params(("id" = i64, Path)),
    request_body = GenerateRequest,
    responses((status = 200, description = "OK", body = Generated), ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn generate_document() {}

#[utoipa::path(post, path = "/api/v1/templates/{id}/create-document", tag = "templates",
    summary = "Generate a document from a template, recipients by their position in the template and title required (the other signing service's older form)",
    params(("id" = i64, Path)),
    request_body = CreateFromTemplateRequest,
    responses((status = 200, description = "OK", body = Generated), ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn create_document_from_template() {}
