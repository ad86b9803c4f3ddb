//! Sending a document and what follows it, for its owner: the routes of
//! send, resend, download and the audit log over `signing::sending`, and the signed download
//! URLs docket serves itself.

use crate::core::ids::DocumentId;
use std::collections::HashMap;

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::db::now;
use crate::core::error::AppError;
use crate::core::lenient::OrDefault;
use crate::http::auth::api;
use crate::http::reply::{json_result, write_result};
use crate::http::server::state::AppState;
use crate::http::with_state;
use crate::identity::principal::Principal;
use crate::identity::scope::Scope;
use crate::signing::workflow::answers::{AuditLog, DownloadUrl, Resent, Sent};
use crate::signing::workflow::flow::Origin;
use crate::signing::workflow::sending;
use crate::{signing::workflow::request::ResendRequest, signing::workflow::request::SendRequest};

/// How long a download URL stays valid.
const DOWNLOAD_TTL: i64 = 3600;

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = {
        let state = state.clone();
        move || with_state(state.clone())
    };
    let read = {
        let state = state.clone();
        move || api(&state, Scope::ReadDocument)
    };
    let write = {
        let state = state.clone();
        move || api(&state, Scope::WriteDocument)
    };
    let origin = crate::http::origin;
    let send = warp::path!("api" / "v1" / "documents" / DocumentId / "send")
        .and(warp::post())
        .and(write())
        .and(warp::query::<HashMap<String, String>>())
        .and(crate::http::body::optional_json::<OrDefault<SendRequest>>())
        .and(origin())
        .and(s())
        .then(
            |id, who: Principal, q, b: OrDefault<SendRequest>, o, st| async move {
                write_result(&who.clone(), send(st, who, id, (q, b), o).await)
            },
        );
    let resend = warp::path!("api" / "v1" / "documents" / DocumentId / "resend")
        .and(warp::post())
        .and(write())
        .and(crate::http::body::object::<ResendRequest>())
        .and(s())
        .then(|id, who: Principal, b, st| async move {
            write_result(&who.clone(), resend(st, who, id, b).await)
        });
    let download = warp::path!("api" / "v1" / "documents" / DocumentId / "download")
        .and(warp::get())
        .and(read())
        .and(warp::query::<HashMap<String, String>>())
        .and(origin())
        .and(s())
        .then(|id, who, q, o, st| async move { json_result(download(st, who, id, q, o).await) });
    let audit_log = warp::path!("api" / "v1" / "documents" / DocumentId / "audit-log")
        .and(warp::get())
        .and(read())
        .and(warp::query::<HashMap<String, String>>())
        .and(s())
        .then(|id, who: Principal, q, st: AppState| async move {
            json_result(audit_log(st, who, id, q).await)
        });
    let fetch = warp::path!("api" / "v1" / "downloads" / String / String)
        .and(warp::get())
        .and(warp::query::<HashMap<String, String>>())
        .and(s())
        .then(|blob, name, q, st| async move {
            match fetch(st, blob, name, q).await {
                Ok(r) => r,
                Err(e) => crate::http::reply::error_response(&e, crate::http::reply::Format::Json),
            }
        });
    send.or(resend)
        .unify()
        .or(download)
        .unify()
        .or(audit_log)
        .unify()
        .or(fetch)
        .unify()
        .boxed()
}

/// `POST /api/v1/documents/{id}/send[?strictFormValues=true]` with `{"sendEmail"?,
/// "sendCompletionEmails"?}`.
async fn send(
    state: AppState,
    who: Principal,
    id: DocumentId,
    (query, body): (HashMap<String, String>, OrDefault<SendRequest>),
    origin: Origin,
) -> Result<Sent, AppError> {
    let opts = body.0.validate(strict_form_values(&query)?)?;
    let view = sending::send(&state.ctx(), &who, id, opts, origin).await?;
    Ok(Sent::of(view))
}

/// `strictFormValues` is docket's own switch, in the query so that it can never meet a key of
/// the signing service's body: `true` refuses `formValues` names the PDF's form lacks.
fn strict_form_values(query: &HashMap<String, String>) -> Result<bool, AppError> {
    match query.get("strictFormValues").map(String::as_str) {
        None | Some("false") => Ok(false),
        Some("true") => Ok(true),
        Some(_) => Err(AppError::bad_request(
            "strictFormValues must be true or false",
        )),
    }
}

/// `POST /api/v1/documents/{id}/resend` with `{"recipients": [ids]}`.
async fn resend(
    state: AppState,
    who: Principal,
    id: DocumentId,
    body: ResendRequest,
) -> Result<Resent, AppError> {
    let reminded = sending::resend(&state.ctx(), &who, id, body.validate()?).await?;
    Ok(Resent::of(id, reminded))
}

/// `GET /api/v1/documents/{id}/audit-log[?page&perPage]`: `{documentId, events, totalPages}`,
/// at most `AUDIT_PAGE_MAX` events a page (a larger `perPage` is served as that, as document
/// listings cap theirs), all of them by default up to that many.
async fn audit_log(
    state: AppState,
    who: Principal,
    id: DocumentId,
    q: HashMap<String, String>,
) -> Result<AuditLog, AppError> {
    let number = |key: &str, default: i64| match q.get(key) {
        None => Ok(default),
        Some(v) => v
            .parse::<i64>()
            .ok()
            .filter(|n| (1..=1_000_000).contains(n))
            .ok_or_else(|| AppError::bad_request(format!("{key} must be a whole number from 1"))),
    };
    let paging = (
        number("page", 1)?,
        number("perPage", sending::AUDIT_PAGE_MAX)?,
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
    state: AppState,
    who: Principal,
    id: DocumentId,
    query: HashMap<String, String>,
    origin: Origin,
) -> Result<DownloadUrl, AppError> {
    let original = match query.get("original").map(String::as_str) {
        None | Some("false") => matches!(
            query.get("downloadOriginalDocument").map(String::as_str),
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

async fn fetch(
    state: AppState,
    blob: String,
    name: String,
    query: HashMap<String, String>,
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
