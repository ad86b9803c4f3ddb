//! `PUT <uploadUrl>`: the PDF of a document or of a template, as the raw body or as the single
//! file part of `multipart/form-data`, authorised only by the URL's signature; and `POST
//! /api/v1/documents/upload?title=` (`/templates/upload`): a new draft (template) made from the
//! PDF in the body in one step (the web application's upload), nothing made when the file is
//! refused. This checks the signature, the size and the content type, and
//! hands the body as a stream to `documents::attach`, which stores, checks and attaches it.

use std::collections::HashMap;

use bytes::{Buf, Bytes};
use futures_util::{Stream, StreamExt};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::auth::caller;
use super::reply::{json_result, write_result};
use crate::core::blob::SignedUrlError;
use crate::core::db::now;
use crate::core::error::AppError;
use crate::http::state::AppState;
use crate::identity::principal::Principal;
use crate::identity::scope::Scope;
use crate::signing::documents::request::CreateDocumentRequest;
use crate::signing::templates::request::CreateTemplateRequest;
use crate::signing::uploads;

const PREFIX: &str = "/api/v1/uploads/";

fn object(data_id: &str) -> String {
    format!("upload:{data_id}")
}

/// The signed URL a client PUTs the file to, valid for `--upload-url-ttl`.
pub fn upload_url(state: &AppState, data_id: &str) -> String {
    let path = format!("{PREFIX}{data_id}");
    let expires = now() + state.config.upload_url_ttl;
    let query = state.signer.sign("PUT", &path, &object(data_id), expires);
    format!("{}{path}?{query}", state.issuer())
}

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let create = warp::path!("api" / "v1" / "documents" / "upload")
        .and(warp::post())
        .and(caller(&state, Scope::WriteDocument))
        .and(declared())
        .and(warp::body::stream())
        .then(|who: Principal, st: AppState, d, body| async move {
            let r = create_with_file(st, who.clone(), d, body, Kind::Document).await;
            write_result(&who, r)
        });
    let template = warp::path!("api" / "v1" / "templates" / "upload")
        .and(warp::post())
        .and(caller(&state, Scope::WriteDocument))
        .and(declared())
        .and(warp::body::stream())
        .then(|who: Principal, st: AppState, d, body| async move {
            let r = create_with_file(st, who.clone(), d, body, Kind::Template).await;
            write_result(&who, r)
        });
    let put = warp::path!("api" / "v1" / "uploads" / String)
        .and(warp::put())
        .and(super::with_state(state))
        .and(declared())
        .and(warp::body::stream())
        .then(|data_id: String, st: AppState, d, body| async move {
            json_result(upload(st, data_id, d, body).await)
        });
    create.or(template).unify().or(put).unify().boxed()
}

/// What an upload declares besides its body: the query, the content type and length, and
/// where it came from.
type Declared = (
    HashMap<String, String>,
    Option<String>,
    Option<u64>,
    crate::signing::documents::audit::Origin,
);

fn declared() -> impl Filter<Extract = (Declared,), Error = warp::Rejection> + Clone {
    warp::query::<HashMap<String, String>>()
        .and(warp::header::optional::<String>("content-type"))
        .and(warp::header::optional::<u64>("content-length"))
        .and(super::origin())
        .map(|q, ct, len, origin| (q, ct, len, origin))
}

/// 413 when the declared length is over `max` (a body without one is counted as it comes).
fn within(length: Option<u64>, max: u64) -> Result<(), AppError> {
    match length {
        Some(n) if n > max => Err(uploads::too_large(max)),
        _ => Ok(()),
    }
}

async fn upload<S, B>(
    state: AppState,
    data_id: String,
    (query, content_type, length, origin): Declared,
    body: S,
) -> Result<uploads::Uploaded, AppError>
where
    S: Stream<Item = Result<B, warp::Error>> + Send + 'static,
    B: Buf + Send + 'static,
{
    let path = format!("{PREFIX}{data_id}");
    state
        .signer
        .verify("PUT", &path, &object(&data_id), &query, now())
        .map_err(|e| {
            AppError::Forbidden(match e {
                SignedUrlError::Expired => {
                    "this upload URL has expired; create the document again for a new one".into()
                }
                SignedUrlError::Invalid => e.to_string(),
            })
        })?;
    let max = state.config.max_upload_bytes;
    within(length, max)?;
    let target = uploads::target(&state.ctx(), data_id).await?;
    let bytes = body_of(content_type.as_deref(), body)?;
    let done = uploads::receive(&state.ctx(), target, bytes, max, origin).await?;
    Ok(uploads::Uploaded::of(done))
}

/// What an upload in one step makes.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Document,
    Template,
}

/// `POST /api/v1/documents/upload?title=<title>` (or `/templates/upload`) with the PDF as the
/// body (as to an upload URL): a new DRAFT (or template) with its file, made only once the
/// file is stored and checked. The title is checked as the JSON create's is.
async fn create_with_file<S, B>(
    state: AppState,
    who: Principal,
    (query, content_type, length, origin): Declared,
    body: S,
    kind: Kind,
) -> Result<uploads::Uploaded, AppError>
where
    S: Stream<Item = Result<B, warp::Error>> + Send + 'static,
    B: Buf + Send + 'static,
{
    let title = query.get("title").cloned().unwrap_or_default();
    let shape = serde_json::json!({"title": title, "recipients": []});
    let invalid = |e: serde_json::Error| AppError::bad_request(e.to_string());
    let doc = match kind {
        Kind::Document => uploads::New::Document(
            serde_json::from_value::<CreateDocumentRequest>(shape)
                .map_err(invalid)?
                .validate()?,
        ),
        Kind::Template => uploads::New::Template(
            serde_json::from_value::<CreateTemplateRequest>(shape)
                .map_err(invalid)?
                .validate()?,
        ),
    };
    let max = state.config.max_upload_bytes;
    within(length, max)?;
    let bytes = body_of(content_type.as_deref(), body)?;
    let done = uploads::create_with_file(&state.ctx(), &who, doc, bytes, max, origin).await?;
    Ok(uploads::Uploaded::of(done))
}

/// The file's bytes of a body of type `content_type`: the raw body (`application/pdf`,
/// `application/octet-stream`, or none said) or the file part of `multipart/form-data`.
fn body_of<S, B>(content_type: Option<&str>, body: S) -> Result<uploads::Body, AppError>
where
    S: Stream<Item = Result<B, warp::Error>> + Send + 'static,
    B: Buf + Send + 'static,
{
    let kind = content_type.unwrap_or("application/octet-stream");
    let bytes: uploads::Body = if kind.starts_with("multipart/form-data") {
        let boundary = multer::parse_boundary(kind)
            .map_err(|e| AppError::bad_request(format!("invalid multipart/form-data: {e}")))?;
        Box::pin(file_part(body, boundary))
    } else if kind.starts_with("application/pdf") || kind.starts_with("application/octet-stream") {
        Box::pin(body.map(|r| {
            r.map(|mut b| b.copy_to_bytes(b.remaining()))
                .map_err(|e| AppError::bad_request(format!("reading the upload failed: {e}")))
        }))
    } else {
        return Err(AppError::UnsupportedMediaType(format!(
            "send the PDF as application/pdf, application/octet-stream or a multipart/form-data file part, not {kind}"
        )));
    };
    Ok(bytes)
}

/// The bytes of the first file part (one with a file name, or named `file`) of a multipart
/// body; other parts are skipped.
fn file_part<S, B>(body: S, boundary: String) -> impl Stream<Item = Result<Bytes, AppError>> + Send
where
    S: Stream<Item = Result<B, warp::Error>> + Send + 'static,
    B: Buf + Send + 'static,
{
    let raw = body.map(|r| r.map(|mut b| b.copy_to_bytes(b.remaining())));
    let multipart = multer::Multipart::new(raw, boundary);
    futures_util::stream::unfold(
        Some((multipart, None::<multer::Field<'static>>)),
        |state| async move {
            let (mut mp, mut field) = state?;
            loop {
                if let Some(f) = field.as_mut() {
                    return match f.chunk().await {
                        Ok(Some(chunk)) => Some((Ok(chunk), Some((mp, field)))),
                        Ok(None) => None,
                        Err(e) => Some((
                            Err(AppError::bad_request(format!(
                                "invalid multipart body: {e}"
                            ))),
                            None,
                        )),
                    };
                }
                match mp.next_field().await {
                    Ok(Some(f)) if f.file_name().is_some() || f.name() == Some("file") => {
                        field = Some(f)
                    }
                    // Not the file: skip it (multer reads past it on the next call).
                    Ok(Some(_)) => continue,
                    Ok(None) => {
                        return Some((
                            Err(AppError::bad_request("the multipart body has no file part")),
                            None,
                        ));
                    }
                    Err(e) => {
                        return Some((
                            Err(AppError::bad_request(format!(
                                "invalid multipart body: {e}"
                            ))),
                            None,
                        ));
                    }
                }
            }
        },
    )
}
