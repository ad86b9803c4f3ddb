//! Sending a document and what follows it, for its owner: the routes of
//! send, resend, download and the audit log over `signing::sending`, and the signed download
//! URLs docket serves itself.

use crate::core::ids::DocumentId;

use serde::Deserialize;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::blob::Signature;
use crate::core::db::now;
use crate::core::error::AppError;
use crate::core::lenient::OrDefault;
use crate::http::api::wire::sending::{ResendRequest, SendRequest};
use crate::http::auth::caller;
use crate::http::body::query;
use crate::http::reply::{answer, json_result, written};
use crate::http::server::state::AppState;
use crate::identity::principal::Principal;
use crate::identity::scope::Scope;
use crate::signing::workflow::answers::{AuditLog, DownloadUrl, RemindersStopped, Resent, Sent};
use crate::signing::workflow::flow::Origin;
use crate::signing::workflow::sending;

/// How long a download URL stays valid.
const DOWNLOAD_TTL: i64 = 3600;

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let (read, write) = (Scope::ReadDocument, Scope::WriteDocument);
    let send = warp::path!("api" / "v1" / "documents" / DocumentId / "send")
        .and(warp::post())
        .and(caller(&state, write))
        .and(query::<SendQuery>())
        .and(crate::http::body::optional_json::<OrDefault<SendRequest>>())
        .and(crate::http::origin())
        .then(send)
        .map(answer);
    let resend = warp::path!("api" / "v1" / "documents" / DocumentId / "resend")
        .and(warp::post())
        .and(caller(&state, write))
        .and(crate::http::body::object::<ResendRequest>())
        .then(resend)
        .map(answer);
    let stop_reminders = warp::path!("api" / "v1" / "documents" / DocumentId / "reminders")
        .and(warp::delete())
        .and(caller(&state, write))
        .then(stop_reminders)
        .map(answer);
    let download = warp::path!("api" / "v1" / "documents" / DocumentId / "download")
        .and(warp::get())
        .and(caller(&state, read))
        .and(query::<DownloadQuery>())
        .and(crate::http::origin())
        .then(download)
        .map(json_result);
    let audit_log = warp::path!("api" / "v1" / "documents" / DocumentId / "audit-log")
        .and(warp::get())
        .and(caller(&state, read))
        .and(query::<AuditQuery>())
        .then(audit_log)
        .map(json_result);
    let fetch = warp::path!("api" / "v1" / "downloads" / String / String)
        .and(warp::get())
        .and(query::<Signature>())
        .and(crate::http::with_state(state))
        .then(fetch)
        .map(answer);
    send.or(resend)
        .unify()
        .or(stop_reminders)
        .unify()
        .or(download)
        .unify()
        .or(audit_log)
        .unify()
        .or(fetch)
        .unify()
        .boxed()
}

/// The query of `send`: `strictFormValues`, as sent.
#[derive(Deserialize)]
struct SendQuery {
    #[serde(rename = "strictFormValues")]
    strict_form_values: Option<String>,
}

/// The query of `download`: `original` and the other signing service's name for it, as sent.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DownloadQuery {
    original: Option<String>,
    download_original_document: Option<String>,
}

/// The query of `audit_log`: the paging, as sent.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct AuditQuery {
    page: Option<String>,
    per_page: Option<String>,
}

/// `POST /api/v1/documents/{id}/send[?strictFormValues=true]` with `{"sendEmail"?,
/// "sendCompletionEmails"?}`.
async fn send(
    id: DocumentId,
    who: Principal,
    state: AppState,
    query: SendQuery,
    body: OrDefault<SendRequest>,
    origin: Origin,
) -> Result<Response, AppError> {
    let opts = body.0.validate(strict_form_values(&query)?)?;
    let view = sending::send(&state.ctx(), &who, id, opts, origin).await?;
    written(&who, Sent::of(view))
}

/// `strictFormValues` is docket's own switch, in the query so that it can never meet a key of
/// the signing service's body: `true` refuses `formValues` names the PDF's form lacks.
fn strict_form_values(query: &SendQuery) -> Result<bool, AppError> {
    match query.strict_form_values.as_deref() {
        None | Some("false") => Ok(false),
        Some("true") => Ok(true),
        Some(_) => Err(AppError::bad_request(
            "strictFormValues must be true or false",
        )),
    }
}

/// `POST /api/v1/documents/{id}/resend` with `{"recipients": [ids]}`.
async fn resend(
    id: DocumentId,
    who: Principal,
    state: AppState,
    body: ResendRequest,
) -> Result<Response, AppError> {
    let reminded = sending::resend(&state.ctx(), &who, id, body.validate()?).await?;
    written(&who, Resent::of(id, reminded))
}

/// `DELETE /api/v1/documents/{id}/reminders`: no more automatic reminders.
async fn stop_reminders(
    id: DocumentId,
    who: Principal,
    state: AppState,
) -> Result<Response, AppError> {
    let stopped = sending::stop_reminders(&state.ctx(), &who, id).await?;
    written(
        &who,
        RemindersStopped {
            document_id: id,
            stopped,
        },
    )
}

/// `GET /api/v1/documents/{id}/audit-log[?page&perPage]`: `{documentId, events, totalPages}`,
/// at most `AUDIT_PAGE_MAX` events a page (a larger `perPage` is served as that, as document
/// listings cap theirs), all of them by default up to that many.
async fn audit_log(
    id: DocumentId,
    who: Principal,
    state: AppState,
    q: AuditQuery,
) -> Result<AuditLog, AppError> {
    let number = |key: &str, sent: Option<&str>, default: i64| match sent {
        None => Ok(default),
        Some(v) => v
            .parse::<i64>()
            .ok()
            .filter(|n| (1..=1_000_000).contains(n))
            .ok_or_else(|| AppError::bad_request(format!("{key} must be a whole number from 1"))),
    };
    let paging = (
        number("page", q.page.as_deref(), 1)?,
        number("perPage", q.per_page.as_deref(), sending::AUDIT_PAGE_MAX)?,
    );
    let (events, total_pages) = sending::audit_log(&state.ctx(), &who, id, paging).await?;
    Ok(AuditLog {
        document_id: id,
        events,
        total_pages,
    })
}

/// `GET /api/v1/documents/{id}/download[?original=true]`: a signed, expiring URL of the sealed
/// PDF (COMPLETED) or of the uploaded file. `downloadOriginalDocument` is the other signing
/// service's name for `original` (`true` or `1`; anything else is false there, and here).
async fn download(
    id: DocumentId,
    who: Principal,
    state: AppState,
    query: DownloadQuery,
    origin: Origin,
) -> Result<DownloadUrl, AppError> {
    let original = match query.original.as_deref() {
        None | Some("false") => matches!(
            query.download_original_document.as_deref(),
            Some("true" | "1")
        ),
        Some("true") => true,
        Some(_) => return Err(AppError::bad_request("original must be true or false")),
    };
    let d = sending::download(&state.ctx(), &who, id, original, origin).await?;
    Ok(DownloadUrl {
        download_url: download_url(&state, &d.blob, &d.name),
    })
}

fn object(blob: &str) -> String {
    format!("download:{blob}")
}

/// The signed URL of blob `blob`, served as `name`, valid for an hour.
pub fn download_url(state: &AppState, blob: &str, name: &str) -> String {
    let path = format!("/api/v1/downloads/{blob}/{name}");
    let query = state
        .signer
        .sign("GET", &path, &object(blob), now() + DOWNLOAD_TTL);
    format!("{}{path}?{query}", state.issuer())
}

/// `GET /api/v1/downloads/{blob}/{name}?exp&kid&sig`: the file, by its signed URL alone.
async fn fetch(
    blob: String,
    name: String,
    query: Signature,
    state: AppState,
) -> Result<Response, AppError> {
    let path = format!("/api/v1/downloads/{blob}/{name}");
    state
        .signer
        .verify("GET", &path, &object(&blob), &query, now())
        .map_err(|e| AppError::Forbidden(e.to_string()))?;
    file_response(&state, &blob, &name).await
}

/// The PDF in blob `blob` as an attachment named `name` (ASCII letters, digits and `-_.`, see
/// `documents::file_name`): the answer of every download, by signed URL or from the pages.
pub async fn file_response(state: &AppState, blob: &str, name: &str) -> Result<Response, AppError> {
    let id = crate::core::blob::BlobId::parse(blob).ok_or_else(|| AppError::not_found("file"))?;
    let blobs = state.blobs.clone();
    let bytes = tokio::task::spawn_blocking(move || blobs.read(&id))
        .await
        .map_err(|e| AppError::internal(format!("download task failed: {e}")))?
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => AppError::not_found("file"),
            _ => e.into(),
        })?;
    // `name` is ASCII letters, digits and `-_.` (see `file_name`).
    let decoded = name;
    let mut resp = Response::new(bytes.into());
    let h = resp.headers_mut();
    h.insert("content-type", "application/pdf".parse().expect("static"));
    if let Ok(v) = format!(
        "attachment; filename=\"{}\"",
        decoded.replace(['"', '\\'], "")
    )
    .parse()
    {
        h.insert("content-disposition", v);
    }
    h.insert(
        "cache-control",
        "private, no-store".parse().expect("static"),
    );
    Ok(resp)
}
