//! The OpenAPI operations of bulk sends (`http::api::bulk_sends`).

use super::errors::{ChangeErrors, CreateErrors, ReadErrors};
use super::paths_documents::ListPaging;
use crate::http::api::bulk_sends::RunList;
use crate::signing::bulk::manage::Preview;
use crate::signing::bulk::model::RunDetail;

/// A CSV file: the first line names the columns.
#[derive(utoipa::ToSchema)]
#[schema(value_type = String)]
pub struct Csv(String);

/// A `multipart/form-data` body with the file as its `file` part.
#[derive(utoipa::ToSchema)]
pub struct CsvPart {
    #[schema(inline)]
    file: Csv,
}

#[utoipa::path(get, path = "/api/v1/templates/{id}/bulk-send/csv", tag = "templates",
    summary = "Docket's own: the header line of a bulk-send CSV file for this template (recipient_N_email and recipient_N_name for each recipient, then each field label a row may fill)",
    params(("id" = i64, Path)),
    responses((status = 200, description = "The CSV header", content_type = "text/csv", body = String), ReadErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn bulk_send_csv() {}

#[utoipa::path(post, path = "/api/v1/templates/{id}/bulk-send/preview", tag = "templates",
    summary = "Docket's own: check a bulk-send CSV file against the template without sending anything: what each column is taken for, and each row with its problems by column (at most --bulk-send-max-rows rows, 1 MiB)",
    params(("id" = i64, Path)),
    request_body(content(
        (inline(Csv) = "text/csv"),
        (inline(CsvPart) = "multipart/form-data"),
    )),
    responses((status = 200, description = "The preview", body = Preview), CreateErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn preview_bulk_send() {}

#[utoipa::path(post, path = "/api/v1/templates/{id}/bulk-send", tag = "templates",
    summary = "Docket's own: start a bulk send: one document per good row of the CSV file, made from the template and sent in the background (at most --bulk-send-per-hour an hour for the workspace); the bad rows are kept as SKIPPED with their problems",
    params(("id" = i64, Path),
        ("fileName" = Option<String>, Query, description = "The file's name, for the list and the report"),
        ("sendEmail" = Option<bool>, Query, description = "false: the documents are sent without e-mails (default true)")),
    request_body(content(
        (inline(Csv) = "text/csv"),
        (inline(CsvPart) = "multipart/form-data"),
    )),
    responses((status = 201, description = "Started", body = RunDetail), CreateErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn start_bulk_send() {}

#[utoipa::path(get, path = "/api/v1/bulk-sends", tag = "templates",
    summary = "Docket's own: the bulk sends of the workspace, newest first",
    params(ListPaging),
    responses((status = 200, description = "OK", body = RunList), ReadErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn list_bulk_sends() {}

#[utoipa::path(get, path = "/api/v1/bulk-sends/{id}", tag = "templates",
    summary = "Docket's own: a bulk send with its counts and rows",
    params(("id" = i64, Path)),
    responses((status = 200, description = "OK", body = RunDetail), ReadErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn get_bulk_send() {}

#[utoipa::path(get, path = "/api/v1/bulk-sends/{id}/report", tag = "templates",
    summary = "Docket's own: a bulk send's report as CSV: each row of the file with its status, document and reason",
    params(("id" = i64, Path)),
    responses((status = 200, description = "The report", content_type = "text/csv", body = String), ReadErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn bulk_send_report() {}

#[utoipa::path(post, path = "/api/v1/bulk-sends/{id}/cancel", tag = "templates",
    summary = "Docket's own: cancel a running bulk send; the rows not yet sent are not",
    params(("id" = i64, Path)),
    responses((status = 200, description = "Cancelled", body = RunDetail), ChangeErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn cancel_bulk_send() {}
