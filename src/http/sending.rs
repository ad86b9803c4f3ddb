//! Sending a document and what follows it, for its owner (spec documents.md): send, resend,
//! download and the audit log, plus the signed download URLs docket serves itself.

use std::collections::HashMap;

use serde_json::{Value, json};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::auth::{authenticate_for, credentials};
use super::reply::json_result;
use super::with_state;
use crate::db::now;
use crate::documents::SigningLinks;
use crate::documents::audit::{self, Actor, Event};
use crate::documents::store;
use crate::error::AppError;
use crate::http::state::AppState;
use crate::oauth::principal::Credentials;
use crate::oauth::scope::Scope;
use crate::signing::flow::{self, Origin};
use crate::signing::notify;

/// How long a download URL stays valid.
const DOWNLOAD_TTL: i64 = 3600;

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = move || with_state(state.clone());
    let origin = super::origin;
    let send = warp::path!("api" / "v1" / "documents" / i64 / "send")
        .and(warp::post())
        .and(credentials())
        .and(super::body::json_or_empty())
        .and(origin())
        .and(s())
        .then(|id, c, b, o, st| async move { json_result(send(st, c, id, b, o).await) });
    let resend = warp::path!("api" / "v1" / "documents" / i64 / "resend")
        .and(warp::post())
        .and(credentials())
        .and(super::body::json::<Value>())
        .and(s())
        .then(|id, c, b, st| async move { json_result(resend(st, c, id, b).await) });
    let download = warp::path!("api" / "v1" / "documents" / i64 / "download")
        .and(warp::get())
        .and(credentials())
        .and(warp::query::<HashMap<String, String>>())
        .and(origin())
        .and(s())
        .then(|id, c, q, o, st| async move { json_result(download(st, c, id, q, o).await) });
    let audit_log = warp::path!("api" / "v1" / "documents" / i64 / "audit-log")
        .and(warp::get())
        .and(credentials())
        .and(s())
        .then(|id, c, st| async move { json_result(audit_log(st, c, id).await) });
    let fetch = warp::path!("api" / "v1" / "downloads" / String / String)
        .and(warp::get())
        .and(warp::query::<HashMap<String, String>>())
        .and(s())
        .then(|blob, name, q, st| async move {
            match fetch(st, blob, name, q).await {
                Ok(r) => r,
                Err(e) => super::reply::error_response(&e, super::reply::Format::Json),
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

/// `POST /api/v1/documents/{id}/send`: DRAFT to PENDING; the first recipients are e-mailed
/// unless `sendEmail` is false (then the owner hands out the signing links).
async fn send(
    state: AppState,
    creds: Credentials,
    id: i64,
    body: Value,
    origin: Origin,
) -> Result<Value, AppError> {
    let who = authenticate_for(&state, creds, Scope::WriteDocument).await?;
    let send_email = match body.get("sendEmail") {
        None | Some(Value::Null) => true,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(AppError::bad_request("sendEmail must be true or false")),
    };
    let app = state.app_base();
    let filled = fill_form(&state, who.user_id, id).await?;
    let replacement = filled.clone();
    let result = state
        .db
        .write(move |tx| {
            store::owned(tx, who.user_id, id)?;
            let owner = store::owner_email(tx, who.user_id)?;
            let replaced = match &replacement {
                Some((blob, sizes)) => store::set_file(tx, id, blob, sizes, now())?,
                None => None,
            };
            let first = flow::send(tx, id, &owner, &origin, now())?;
            if send_email {
                notify::signing_requests(tx, id, &first, &app, now())?;
            }
            notify::event(tx, id, "DOCUMENT_SENT", &app, now())?;
            Ok((store::view(tx, who.user_id, id, &app)?, replaced))
        })
        .await;
    // The file that is no longer the document's: the uploaded one once the filled one took its
    // place, or the filled one if sending failed.
    let unused = match (&result, filled) {
        (Ok((_, replaced)), _) => replaced.clone(),
        (Err(_), Some((blob, _))) => Some(blob.id.to_string()),
        (Err(_), None) => None,
    };
    if let Some(b) = unused.and_then(|b| crate::blob::BlobId::parse(&b)) {
        let blobs = state.blobs.clone();
        let _ = tokio::task::spawn_blocking(move || blobs.delete(&b)).await;
    }
    let (view, _) = result?;
    state.wake_outbound();
    Ok(json!(view.links_shown_if(who.sees_signing_links())))
}

/// The document's `formValues` set on its PDF's form fields, as a new blob with the page sizes
/// (`None` when there are no form values or the document is not a draft, which `send` refuses
/// anyway). Names the PDF's form does not have: 400 listing them.
async fn fill_form(
    state: &AppState,
    user: i64,
    id: i64,
) -> Result<Option<(crate::blob::store::StoredBlob, String)>, AppError> {
    let found = state
        .db
        .read(move |c| {
            store::owned(c, user, id)?;
            Ok(c.query_row(
                "SELECT status, blob_id, form_values, page_sizes FROM documents WHERE id = ?1",
                [id],
                |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, Option<String>>(1)?,
                        r.get::<_, Option<String>>(2)?,
                        r.get::<_, Option<String>>(3)?,
                    ))
                },
            )?)
        })
        .await?;
    let (status, Some(blob), Some(values), sizes) = found else {
        return Ok(None);
    };
    let values: serde_json::Map<String, Value> = serde_json::from_str(&values).unwrap_or_default();
    if status != "DRAFT" || values.is_empty() {
        return Ok(None);
    }
    let blob = crate::blob::BlobId::parse(&blob)
        .ok_or_else(|| AppError::internal("a document's blob id is malformed"))?;
    let blobs = state.blobs.clone();
    let stored = tokio::task::spawn_blocking(move || -> Result<_, AppError> {
        let original = std::fs::read(blobs.path(&blob))?;
        let filled = crate::pdf::forms::fill(&original, &values).map_err(|e| match e {
            crate::pdf::forms::FillError::Unknown(_) => AppError::bad_request(format!(
                "formValues: {e}; the form's fields are: {}",
                crate::pdf::forms::field_names(&original)
                    .unwrap_or_default()
                    .join(", ")
            )),
            crate::pdf::forms::FillError::Pdf(p) => {
                AppError::bad_request(format!("formValues cannot be applied: {p}"))
            }
        })?;
        Ok(blobs.put(&filled)?)
    })
    .await
    .map_err(|e| AppError::internal(format!("form task failed: {e}")))??;
    Ok(Some((stored, sizes.unwrap_or_else(|| "[]".into()))))
}

/// `POST /api/v1/documents/{id}/resend` `{"recipients": [ids]}`: e-mails again those of them
/// whose turn it is and who have not finished; answers who was reminded.
async fn resend(
    state: AppState,
    creds: Credentials,
    id: i64,
    body: Value,
) -> Result<Value, AppError> {
    let who = authenticate_for(&state, creds, Scope::WriteDocument).await?;
    let ids: Vec<i64> = body
        .get("recipients")
        .and_then(Value::as_array)
        .and_then(|a| a.iter().map(Value::as_i64).collect::<Option<Vec<_>>>())
        .filter(|v| !v.is_empty() && v.len() <= 100)
        .ok_or_else(|| {
            AppError::bad_request("recipients: a list of 1 to 100 recipient ids is required")
        })?;
    let app = state.app_base();
    let reminded = state
        .db
        .write(move |tx| {
            store::owned(tx, who.user_id, id)?;
            let due = flow::resendable(tx, id, &ids)?;
            notify::signing_requests(tx, id, &due, &app, now())?;
            Ok(due)
        })
        .await?;
    state.wake_outbound();
    Ok(json!({"documentId": id, "recipients": reminded}))
}

/// `GET /api/v1/documents/{id}/download[?original=true]`: a signed, expiring URL of the sealed
/// PDF (COMPLETED) or of the uploaded file.
async fn download(
    state: AppState,
    creds: Credentials,
    id: i64,
    query: HashMap<String, String>,
    origin: Origin,
) -> Result<Value, AppError> {
    let who = authenticate_for(&state, creds, Scope::ReadDocument).await?;
    let original = match query.get("original").map(String::as_str) {
        None | Some("false") => false,
        Some("true") => true,
        Some(_) => return Err(AppError::bad_request("original must be true or false")),
    };
    let (blob, title) = state
        .db
        .write(move |tx| {
            store::owned(tx, who.user_id, id)?;
            let (status, blob, sealed, title): (String, Option<String>, Option<String>, String) =
                tx.query_row(
                    "SELECT status, blob_id, sealed_blob_id, title FROM documents WHERE id = ?1",
                    [id],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
                )?;
            let blob = if original {
                blob.ok_or_else(|| AppError::Conflict("no PDF has been uploaded yet".into()))?
            } else if status == "COMPLETED" {
                sealed.ok_or_else(|| AppError::internal("completed without a sealed file"))?
            } else {
                return Err(AppError::Conflict(format!(
                    "the document is {status}; the signed PDF exists once it is COMPLETED (use ?original=true for the uploaded file)"
                )));
            };
            let owner = store::owner_email(tx, who.user_id)?;
            audit::record(
                tx,
                id,
                Event::Downloaded,
                &Actor {
                    label: owner,
                    recipient_id: None,
                    ip: origin.ip,
                    user_agent: origin.user_agent,
                },
                &json!({"original": original}),
                now(),
            )?;
            Ok((blob, title))
        })
        .await?;
    let name = crate::documents::file_name(&title, !original);
    Ok(json!({"downloadUrl": download_url(&state, &blob, &name)}))
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
    let id = crate::blob::BlobId::parse(&blob).ok_or_else(|| AppError::not_found("file"))?;
    let blobs = state.blobs.clone();
    let bytes = tokio::task::spawn_blocking(move || std::fs::read(blobs.path(&id)))
        .await
        .map_err(|e| AppError::internal(format!("download task failed: {e}")))?
        .map_err(|_| AppError::not_found("file"))?;
    // `name` is ASCII letters, digits and `-_.` (see `file_name`) and covered by the signature.
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

/// `GET /api/v1/documents/{id}/audit-log`: the document's events, oldest first.
async fn audit_log(state: AppState, creds: Credentials, id: i64) -> Result<Value, AppError> {
    let who = authenticate_for(&state, creds, Scope::ReadDocument).await?;
    let events = state
        .db
        .read(move |c| {
            store::owned(c, who.user_id, id)?;
            audit::list(c, id)
        })
        .await?;
    Ok(json!({"documentId": id, "events": events}))
}
