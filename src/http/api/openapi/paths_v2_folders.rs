//! The OpenAPI operations of the API v2's folders and attachments (`http::api::v2::folders`,
//! `http::api::v2::attachments`): the shapes the peer's official clients read.

use super::errors::{V2ChangeErrors, V2ReadErrors};
use crate::http::api::v2::wire_attachments::{
    CreateDocumentAttachment, CreateEnvelopeAttachment, DeleteAttachment, DocumentAttachmentQuery,
    EnvelopeAttachmentQuery, UpdateAttachment,
};
use crate::http::api::v2::wire_folders::{
    CreateFolder, DeleteFolder, FolderFindQuery, UpdateFolder,
};
use crate::signing::attachments::AttachmentView;
use crate::signing::envelopes::attachments::Created;
use crate::signing::envelopes::changes::Success;
use crate::signing::envelopes::{Many, Page};
use crate::signing::folders::FolderView;

#[utoipa::path(get, path = "/api/v2/folder", tag = "api-v2",
    summary = "Find folders, pinned first, then newest first",
    params(FolderFindQuery),
    responses((status = 200, description = "OK", body = Page<FolderView>), V2ReadErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn folder_find() {}

#[utoipa::path(post, path = "/api/v2/folder/create", tag = "api-v2",
    summary = "Create a folder (at the root, or in another of its kind)",
    request_body = CreateFolder,
    responses((status = 200, description = "OK", body = FolderView), V2ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn folder_create() {}

#[utoipa::path(post, path = "/api/v2/folder/update", tag = "api-v2",
    summary = "Rename, move, pin or change the visibility of a folder",
    request_body = UpdateFolder,
    responses((status = 200, description = "OK", body = FolderView), V2ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn folder_update() {}

#[utoipa::path(post, path = "/api/v2/folder/delete", tag = "api-v2",
    summary = "Delete a folder and those under it; what they held goes back to the root",
    request_body = DeleteFolder,
    responses((status = 200, description = "OK", body = Success), V2ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn folder_delete() {}

#[utoipa::path(get, path = "/api/v2/envelope/attachment", tag = "api-v2",
    summary = "The attachments of an envelope (a document or a template), in their order",
    params(EnvelopeAttachmentQuery),
    responses((status = 200, description = "OK", body = Many<AttachmentView>), V2ReadErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn envelope_attachment_find() {}

#[utoipa::path(post, path = "/api/v2/envelope/attachment/create", tag = "api-v2",
    summary = "Add a link to an envelope",
    request_body = CreateEnvelopeAttachment,
    responses((status = 200, description = "OK", body = Created), V2ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn envelope_attachment_create() {}

#[utoipa::path(post, path = "/api/v2/envelope/attachment/update", tag = "api-v2",
    summary = "Change an attachment's label and URL",
    request_body = UpdateAttachment,
    responses((status = 200, description = "OK", body = Success), V2ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn envelope_attachment_update() {}

#[utoipa::path(post, path = "/api/v2/envelope/attachment/delete", tag = "api-v2",
    summary = "Remove an attachment",
    request_body = DeleteAttachment,
    responses((status = 200, description = "OK", body = Success), V2ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn envelope_attachment_delete() {}

#[utoipa::path(get, path = "/api/v2/document/attachment", tag = "api-v2",
    summary = "The attachments of a document, in their order",
    params(DocumentAttachmentQuery),
    responses((status = 200, description = "OK", body = Many<AttachmentView>), V2ReadErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn document_attachment_find() {}

#[utoipa::path(post, path = "/api/v2/document/attachment/create", tag = "api-v2",
    summary = "Add a link to a document",
    request_body = CreateDocumentAttachment,
    responses((status = 200, description = "OK", body = Created), V2ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn document_attachment_create() {}

#[utoipa::path(post, path = "/api/v2/document/attachment/update", tag = "api-v2",
    summary = "Change a document attachment's label and URL",
    request_body = UpdateAttachment,
    responses((status = 200, description = "OK", body = Success), V2ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn document_attachment_update() {}

#[utoipa::path(post, path = "/api/v2/document/attachment/delete", tag = "api-v2",
    summary = "Remove a document attachment",
    request_body = DeleteAttachment,
    responses((status = 200, description = "OK", body = Success), V2ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn document_attachment_delete() {}
