//! The OpenAPI operations of sending and files: send, resend, the audit log, download URLs,
//! and the signed upload and download URLs themselves (`http::api::sending`, `http::api::uploads`).

use utoipa::IntoParams;

use super::errors::{
    ChangeErrors, CheckErrors, CreateErrors, DownloadErrors, ReadErrors, RemoveErrors, UploadErrors,
};
use crate::http::api::wire::sending::{ResendRequest, SendRequest};
use crate::signing::uploads::Uploaded;
use crate::signing::workflow::answers::{AuditLog, DownloadUrl, RemindersStopped, Resent, Sent};
use crate::signing::workflow::seal_check::Verified;

/// `true` or `false`, as a query parameter's text.
#[derive(utoipa::ToSchema)]
pub enum Switch {
    #[schema(rename = "true")]
    True,
    #[schema(rename = "false")]
    False,
}

/// `POST /api/v1/documents/{id}/send`'s query.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SendQuery {
    /// Docket's own: true refuses (400, nothing sent) formValues names the PDF's form has no
    /// field for; false or absent leaves them out, as the other signing service does.
    #[param(rename = "strictFormValues", inline, default = "false")]
    strict_form_values: Option<Switch>,
}

/// `GET /api/v1/documents/{id}/download`'s query.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DownloadQuery {
    #[param(inline)]
    original: Option<Switch>,
    /// The other signing service's name for original: true or 1.
    #[param(rename = "downloadOriginalDocument")]
    download_original_document: Option<String>,
}

/// `GET /api/v1/documents/{id}/audit-log`'s query.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AuditQuery {
    #[param(minimum = 1, default = 1)]
    page: Option<i64>,
    /// At most 500 are served.
    #[param(rename = "perPage", minimum = 1, default = 500)]
    per_page: Option<i64>,
}

/// The query of a signed URL: its expiry, the key it was signed with, and the signature.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SignedUrl {
    exp: i64,
    kid: String,
    sig: String,
}

#[utoipa::path(post, path = "/api/v1/documents/{id}/send", tag = "sending",
    summary = "Send a DRAFT: it becomes PENDING and the first recipients are e-mailed (unless sendEmail is false). A PENDING document answers 200 unchanged, e-mailing those whose turn it is and who were never e-mailed; a finished one, or one lacking its file, recipients or signature fields, is 400. The document's formValues are set on the PDF's form fields of those names first; names the form lacks are left out (the audit log's SENT event lists them) unless strictFormValues=true",
    params(("id" = i64, Path), SendQuery),
    request_body = SendRequest,
    responses((status = 200, description = "OK", body = Sent), ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn send_document() {}

#[utoipa::path(post, path = "/api/v1/documents/{id}/resend", tag = "sending",
    summary = "E-mail again the listed recipients whose turn it is and who have not finished",
    params(("id" = i64, Path)),
    request_body = ResendRequest,
    responses((status = 200, description = "OK", body = Resent), ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn resend_document() {}

#[utoipa::path(delete, path = "/api/v1/documents/{id}/reminders", tag = "sending",
    summary = "Stop the automatic reminders (meta.reminders) of a document: none is sent any more and its meta.reminders becomes null",
    params(("id" = i64, Path)),
    responses((status = 200, description = "OK", body = RemindersStopped), ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn stop_reminders() {}

#[utoipa::path(get, path = "/api/v1/documents/{id}/download", tag = "sending",
    summary = "A signed, expiring URL of the sealed PDF (COMPLETED) or, with original=true, of the uploaded file",
    params(("id" = i64, Path), DownloadQuery),
    responses((status = 200, description = "OK", body = DownloadUrl), RemoveErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn download_document() {}

#[utoipa::path(get, path = "/api/v1/documents/{id}/audit-log", tag = "sending",
    summary = "The document's events, oldest first, at most 500 a page; repeated fills of a field by one recipient are one FIELD_FILLED event with data.fills, data.lastFilledAt and data.lastIpAddress",
    params(("id" = i64, Path), AuditQuery),
    responses((status = 200, description = "OK", body = AuditLog), ReadErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn audit_log() {}

#[utoipa::path(get, path = "/api/v1/downloads/{blobId}/{fileName}", tag = "sending",
    summary = "A PDF by the signed, expiring URL that download answered",
    params(("blobId" = String, Path), ("fileName" = String, Path), SignedUrl),
    responses((status = 200, description = "The PDF", content_type = "application/pdf", body = inline(Pdf)), DownloadErrors),
    security())]
pub fn download_file() {}

/// `POST /api/v1/documents/upload`'s query.
#[derive(IntoParams)]
#[into_params(parameter_in = Query)]
pub struct NewFromPdfQuery {
    /// The new document's title, 1 to 255 characters.
    #[param(min_length = 1, max_length = 255)]
    title: String,
    /// Who in its team sees it: EVERYONE (the default), MANAGER_AND_ABOVE or ADMIN (a team's
    /// row only; a role gives only a visibility it sees).
    #[param(value_type = Option<crate::core::owner::Visibility>)]
    visibility: Option<String>,
}

#[utoipa::path(post, path = "/api/v1/documents/upload", tag = "documents",
    summary = "Docket's own: create a DRAFT from the PDF in the body, in one step. The file is stored and checked first (a PDF, not encrypted, within --max-upload-mb); a refused file creates nothing. The new document has no recipients yet",
    params(NewFromPdfQuery),
    request_body(content(
        (inline(Pdf) = "application/pdf"),
        (inline(Pdf) = "application/octet-stream"),
        (inline(FilePart) = "multipart/form-data"),
    )),
    responses((status = 200, description = "Created with its file", body = Uploaded), CreateErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn create_from_pdf() {}

/// A PDF's bytes.
#[derive(utoipa::ToSchema)]
#[schema(value_type = String, format = Binary)]
pub struct Pdf(Vec<u8>);

/// A multipart upload: one file part.
#[derive(utoipa::ToSchema)]
pub struct FilePart {
    #[schema(inline)]
    file: Pdf,
}

#[utoipa::path(put, path = "/api/v1/uploads/{dataId}", tag = "documents",
    summary = "Upload the PDF to a signed upload URL (raw body or one multipart file part)",
    params(("dataId" = String, Path), SignedUrl),
    request_body(content(
        (inline(Pdf) = "application/pdf"),
        (inline(Pdf) = "application/octet-stream"),
        (inline(FilePart) = "multipart/form-data"),
    )),
    responses((status = 200, description = "Stored", body = Uploaded), UploadErrors),
    security())]
pub fn upload_file() {}

#[utoipa::path(post, path = "/api/v1/verify", tag = "sending",
    summary = "Docket's own: check a PDF against this instance's seal, without a credential: whether this Docket sealed it, whether it changed since, and the document's completion time and recipients as its audit certificate states them. The file (raw body or one multipart file part, within --max-upload-mb) is not kept; --check-rate-limit checks a minute per client address",
    request_body(content(
        (inline(Pdf) = "application/pdf"),
        (inline(Pdf) = "application/octet-stream"),
        (inline(FilePart) = "multipart/form-data"),
    )),
    responses((status = 200, description = "The verdict", body = Verified), CheckErrors),
    security())]
pub fn verify_pdf() {}
