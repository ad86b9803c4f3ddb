//! `PUT <uploadUrl>`: the PDF of a document or of a template, as the raw body or as the single
//! file part of `multipart/form-data`, authorised only by the URL's signature; and `POST
//! /api/v1/documents/upload?title=` (`/templates/upload`): a new draft (template) made from the
//! PDF in the body in one step (the web application's upload), nothing made when the file is
//! refused. This checks the signature, the size and the content type, and
//! hands the body as a stream to `documents::attach`, which stores, checks and attaches it.

use bytes::{Buf, Bytes};
use futures_util::{Stream, StreamExt};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::blob::{Signature, SignedUrlError};
use crate::core::db::now;
use crate::core::error::AppError;
use crate::core::lenient::Given;
use crate::http::api::multipart_limits::{Breach, Limits, guarded};
use crate::http::api::wire::documents::create::CreateDocumentRequest;
use crate::http::api::wire::templates::create::CreateTemplateRequest;
use crate::http::auth::caller;
use crate::http::reply::{answer, json_result, written};
use crate::http::server::state::AppState;
use crate::identity::principal::Principal;
use crate::identity::scope::Scope;
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
        .and(declared::<TitleQuery>())
        .and(warp::body::stream())
        .and(making(Kind::Document))
        .then(create_with_file)
        .map(answer);
    let template = warp::path!("api" / "v1" / "templates" / "upload")
        .and(warp::post())
        .and(caller(&state, Scope::WriteDocument))
        .and(declared::<TitleQuery>())
        .and(warp::body::stream())
        .and(making(Kind::Template))
        .then(create_with_file)
        .map(answer);
    let put = warp::path!("api" / "v1" / "uploads" / String)
        .and(warp::put())
        .and(crate::http::with_state(state))
        .and(declared::<Signature>())
        .and(warp::body::stream())
        .then(upload)
        .map(json_result);
    create.or(template).unify().or(put).unify().boxed()
}

/// What an upload declares besides its body: the query (`Q`), the content type and length, and
/// where it came from.
type Declared<Q> = (
    Q,
    Option<String>,
    Option<u64>,
    crate::signing::documents::audit::Origin,
);

fn declared<Q: DeserializeOwned + Send + 'static>()
-> impl Filter<Extract = (Declared<Q>,), Error = warp::Rejection> + Clone {
    crate::http::body::query::<Q>()
        .and(warp::header::optional::<String>("content-type"))
        .and(warp::header::optional::<u64>("content-length"))
        .and(crate::http::origin())
        .map(|q, ct, len, origin| (q, ct, len, origin))
}

/// The query of a one-step upload: the new document's (or template's) title, as sent.
#[derive(Deserialize)]
struct TitleQuery {
    title: Option<String>,
    /// Who in its team sees it (a team's row only), as the JSON create's `visibility`.
    visibility: Option<String>,
}

/// 413 when the declared length is over `max`, or for a multipart body over `max` and the
/// allowance for the rest of the form (a body without one is counted as it comes).
pub(crate) fn within(
    content_type: Option<&str>,
    length: Option<u64>,
    max: u64,
) -> Result<(), AppError> {
    let Some(n) = length else { return Ok(()) };
    if is_multipart(content_type.unwrap_or("")) {
        let limit = Limits::for_upload(max).total;
        if n > limit {
            return Err(AppError::PayloadTooLarge(Breach::Total(limit).to_string()));
        }
    } else if n > max {
        return Err(uploads::too_large(max));
    }
    Ok(())
}

fn is_multipart(content_type: &str) -> bool {
    content_type.starts_with("multipart/form-data")
}

/// `PUT /api/v1/uploads/{dataId}?exp&kid&sig`: the PDF of a document or template, authorised
/// by the URL's signature alone.
async fn upload<S, B>(
    data_id: String,
    state: AppState,
    (query, content_type, length, origin): Declared<Signature>,
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
    within(content_type.as_deref(), length, max)?;
    let target = uploads::target(&state.ctx(), data_id).await?;
    let bytes = body_of(content_type.as_deref(), body, max)?;
    let done = uploads::receive(&state.ctx(), target, bytes, max, origin).await?;
    Ok(uploads::Uploaded::of(done))
}

/// What an upload in one step makes.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Document,
    Template,
}

/// The route's `Kind`, for the handler.
fn making(kind: Kind) -> impl Filter<Extract = (Kind,), Error = std::convert::Infallible> + Clone {
    warp::any().map(move || kind)
}

/// `POST /api/v1/documents/upload?title=<title>` (or `/templates/upload`) with the PDF as the
/// body (as to an upload URL): a new DRAFT (or template) with its file, made only once the
/// file is stored and checked. The title is checked as the JSON create's is.
async fn create_with_file<S, B>(
    who: Principal,
    state: AppState,
    (query, content_type, length, origin): Declared<TitleQuery>,
    body: S,
    kind: Kind,
) -> Result<Response, AppError>
where
    S: Stream<Item = Result<B, warp::Error>> + Send + 'static,
    B: Buf + Send + 'static,
{
    // The title as if sent in a JSON create with no recipients, checked the same way.
    let title = Given::Valid(query.title.unwrap_or_default());
    let visibility = query.visibility.map_or(Given::Absent, Given::Valid);
    let doc = match kind {
        Kind::Document => uploads::New::Document(
            CreateDocumentRequest {
                title,
                recipients: Given::Valid(Vec::new()),
                visibility,
                ..CreateDocumentRequest::default()
            }
            .validate()?,
        ),
        Kind::Template => uploads::New::Template(
            CreateTemplateRequest {
                title,
                recipients: Given::Valid(Vec::new()),
                visibility,
                ..CreateTemplateRequest::default()
            }
            .validate()?,
        ),
    };
    let max = state.config.max_upload_bytes;
    within(content_type.as_deref(), length, max)?;
    let bytes = body_of(content_type.as_deref(), body, max)?;
    let done = uploads::create_with_file(&state.ctx(), &who, doc, bytes, max, origin).await?;
    written(&who, uploads::Uploaded::of(done))
}

/// The file's bytes of a body of type `content_type`: the raw body (`application/pdf`,
/// `application/octet-stream`, or none said) or the file part of `multipart/form-data`, whose
/// whole body is bounded by [`Limits::for_upload`] of the file's `max` (the file's own bytes
/// are counted against `max` where they are stored).
pub(crate) fn body_of<S, B>(
    content_type: Option<&str>,
    body: S,
    max: u64,
) -> Result<uploads::Body, AppError>
where
    S: Stream<Item = Result<B, warp::Error>> + Send + 'static,
    B: Buf + Send + 'static,
{
    file_of(content_type, body, max, &["application/pdf"], "the PDF")
}

/// As [`body_of`], for a file whose raw body may also come as one of `raw` (besides
/// `application/octet-stream`); `what` names it in the refusal of another type.
pub(crate) fn file_of<S, B>(
    content_type: Option<&str>,
    body: S,
    max: u64,
    raw: &[&str],
    what: &str,
) -> Result<uploads::Body, AppError>
where
    S: Stream<Item = Result<B, warp::Error>> + Send + 'static,
    B: Buf + Send + 'static,
{
    let kind = content_type.unwrap_or("application/octet-stream");
    let bytes: uploads::Body = if is_multipart(kind) {
        let boundary = multer::parse_boundary(kind)
            .map_err(|e| AppError::bad_request(format!("invalid multipart/form-data: {e}")))?;
        Box::pin(file_part(body, boundary, Limits::for_upload(max)))
    } else if raw.iter().any(|r| kind.starts_with(r))
        || kind.starts_with("application/octet-stream")
    {
        Box::pin(body.map(|r| {
            r.map(|mut b| b.copy_to_bytes(b.remaining()))
                .map_err(|e| AppError::bad_request(format!("reading the upload failed: {e}")))
        }))
    } else {
        return Err(AppError::UnsupportedMediaType(format!(
            "send {what} as {}, application/octet-stream or a multipart/form-data file part, not {kind}",
            raw.join(", ")
        )));
    };
    Ok(bytes)
}

/// The bytes of the first file part (one with a file name, or named `file`) of a multipart
/// body; other parts are skipped. The raw body passes `multipart_limits` first, so a body past
/// its limits fails (413) at the piece that crosses one, before multer buffers it; multer's
/// own whole-stream limit is the same total, a second line.
fn file_part<S, B>(
    body: S,
    boundary: String,
    limits: Limits,
) -> impl Stream<Item = Result<Bytes, AppError>> + Send
where
    S: Stream<Item = Result<B, warp::Error>> + Send + 'static,
    B: Buf + Send + 'static,
{
    let raw = body.map(|r| r.map(|mut b| b.copy_to_bytes(b.remaining())));
    let raw = guarded(raw, &boundary, limits);
    let constraints =
        multer::Constraints::new().size_limit(multer::SizeLimit::new().whole_stream(limits.total));
    let multipart = multer::Multipart::with_constraints(raw, boundary, constraints);
    futures_util::stream::unfold(
        Some((multipart, None::<multer::Field<'static>>)),
        |state| async move {
            let (mut mp, mut field) = state?;
            loop {
                if let Some(f) = field.as_mut() {
                    return match f.chunk().await {
                        Ok(Some(chunk)) => Some((Ok(chunk), Some((mp, field)))),
                        Ok(None) => None,
                        Err(e) => Some((Err(refused(e)), None)),
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
                    Err(e) => return Some((Err(refused(e)), None)),
                }
            }
        },
    )
}

/// What a multipart body failed with: 413 naming the limit it went past, else 400.
fn refused(e: multer::Error) -> AppError {
    match e {
        multer::Error::StreamReadFailed(cause) => match cause.downcast::<Breach>() {
            Ok(breach) => AppError::PayloadTooLarge(breach.to_string()),
            Err(cause) => AppError::bad_request(format!("reading the upload failed: {cause}")),
        },
        multer::Error::StreamSizeExceeded { limit } => {
            AppError::PayloadTooLarge(Breach::Total(limit).to_string())
        }
        e => AppError::bad_request(format!("invalid multipart body: {e}")),
    }
}
