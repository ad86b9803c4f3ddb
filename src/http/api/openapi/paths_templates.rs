//! The OpenAPI operations of `/api/v1/templates` (`http::api::templates`).

use super::errors::{ChangeErrors, CreateErrors, DeleteErrors, ReadErrors, RemoveErrors};
use super::paths_documents::ListPaging;
use super::paths_sending::{FilePart, NewFromPdfQuery, Pdf};
use crate::http::api::wire::documents::recipients::RecipientInput;
use crate::http::api::wire::documents::settings::UpdateDocumentRequest;
use crate::http::api::wire::fields::batch::{FieldBatch, FieldPatch};
use crate::http::api::wire::moves::MoveRequest;
use crate::http::api::wire::templates::create::CreateTemplateRequest;
use crate::http::api::wire::templates::create_document::CreateFromTemplateRequest;
use crate::http::api::wire::templates::direct_link::DirectLinkRequest;
use crate::http::api::wire::templates::generate::GenerateRequest;
use crate::signing::templates::TemplateField;
use crate::signing::templates::TemplateRecipient;
use crate::signing::templates::TemplateView;
use crate::signing::templates::answers::{
    RecipientAdded, TemplateCreated, TemplateFieldsAdded, TemplateList, TemplateRemoved,
};
use crate::signing::templates::answers::{TemplateFieldRemoved, TemplateRecipientRemoved};
use crate::signing::templates::direct::DirectLinkState;
use crate::signing::templates::manage::Generated;
use crate::signing::uploads::Uploaded;

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

#[utoipa::path(post, path = "/api/v1/templates/upload", tag = "templates",
    summary = "Docket's own: create a template from the PDF in the body, in one step. The file is stored and checked first (a PDF, not encrypted, within --max-upload-mb); a refused file creates nothing. The new template has no recipients yet",
    params(NewFromPdfQuery),
    request_body(content(
        (inline(Pdf) = "application/pdf"),
        (inline(Pdf) = "application/octet-stream"),
        (inline(FilePart) = "multipart/form-data"),
    )),
    responses((status = 200, description = "Created with its file", body = Uploaded), CreateErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn create_template_from_pdf() {}

#[utoipa::path(patch, path = "/api/v1/templates/{id}", tag = "templates",
    summary = "Change a template's settings (title, externalId, meta, authOptions), checked as a draft document's; what is left out keeps its value",
    params(("id" = i64, Path)),
    request_body = UpdateDocumentRequest,
    responses((status = 200, description = "OK", body = TemplateView), ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn update_template() {}

#[utoipa::path(post, path = "/api/v1/templates/{id}/move", tag = "templates",
    summary = "Docket's own: move a personal template into one of the caller's teams, or a team's template into another team whose admin the caller is too (teamId or teamUrl), with a visibility the caller's role there sees (default EVERYONE)",
    params(("id" = i64, Path)),
    request_body = MoveRequest,
    responses((status = 200, description = "OK", body = TemplateView), ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn move_template() {}

#[utoipa::path(post, path = "/api/v1/templates/{id}/duplicate", tag = "templates",
    summary = "Docket's own: copy a template (settings, recipients, fields and its PDF) as a new one titled \"<title> (copy)\", without externalId",
    params(("id" = i64, Path)),
    responses((status = 200, description = "The copy", body = TemplateView), RemoveErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn duplicate_template() {}

#[utoipa::path(post, path = "/api/v1/documents/{id}/template", tag = "templates",
    summary = "Docket's own: save a document as a new template titled as the document, in the caller's workspace: its PDF (shared, not copied), its recipients, its fields (place, type and fieldMeta; never their values), its meta and authOptions; no externalId, the direct link off",
    params(("id" = i64, Path)),
    responses((status = 200, description = "The new template", body = TemplateView), RemoveErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn save_document_as_template() {}

#[utoipa::path(get, path = "/api/v1/templates/{id}/direct-link", tag = "templates",
    summary = "Docket's own: the template's direct link (its public page's address, whether it works, and the recipient a visitor becomes)",
    params(("id" = i64, Path)),
    responses((status = 200, description = "OK", body = DirectLinkState), ReadErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn get_direct_link() {}

#[utoipa::path(put, path = "/api/v1/templates/{id}/direct-link", tag = "templates",
    summary = "Docket's own: turn the template's direct link on or off, choose the recipient (a SIGNER with a signature field) a visitor becomes, or replace its token; what is left out stays",
    params(("id" = i64, Path)),
    request_body = DirectLinkRequest,
    responses((status = 200, description = "OK", body = DirectLinkState), ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn set_direct_link() {}

#[utoipa::path(patch, path = "/api/v1/templates/{id}/recipients/{recipientId}", tag = "templates",
    summary = "Change a template recipient (what is left out keeps its value); an email of null makes it a placeholder again",
    params(("id" = i64, Path), ("recipientId" = i64, Path)),
    request_body = RecipientInput,
    responses((status = 200, description = "OK", body = TemplateRecipient), ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn patch_template_recipient() {}

#[utoipa::path(delete, path = "/api/v1/templates/{id}/recipients/{recipientId}", tag = "templates",
    summary = "Remove a template recipient and its fields; answers it as it was",
    params(("id" = i64, Path), ("recipientId" = i64, Path)),
    responses((status = 200, description = "OK", body = TemplateRecipientRemoved), RemoveErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn delete_template_recipient() {}

#[utoipa::path(patch, path = "/api/v1/templates/{id}/fields/{fieldId}", tag = "templates",
    summary = "Change a template field (what is left out keeps its value), checked as a new field is",
    params(("id" = i64, Path), ("fieldId" = i64, Path)),
    request_body = FieldPatch,
    responses((status = 200, description = "OK", body = TemplateField), ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn patch_template_field() {}

#[utoipa::path(delete, path = "/api/v1/templates/{id}/fields/{fieldId}", tag = "templates",
    summary = "Delete a template field; answers it as it was",
    params(("id" = i64, Path), ("fieldId" = i64, Path)),
    responses((status = 200, description = "OK", body = TemplateFieldRemoved), RemoveErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn delete_template_field() {}
