//! `PUT <uploadUrl>`: the PDF of a document or of a template, as the raw body or as the single
//! file part of `multipart/form-data`, authorised only by the URL's signature (spec
//! documents.md, seed 4.2).
//!
//! The body streams to a temp file in the blob store (never held in memory), is checked as a
//! PDF, and only then becomes the document's (or template's) file, in one transaction that
//! checks a document is still a draft and that no field lies past the new file's last page
//! (409 naming them). Any failure leaves no file and no changed row behind.

use std::collections::HashMap;

use bytes::{Buf, Bytes};
use futures_util::{Stream, StreamExt};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tokio::task::JoinHandle;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::reply::json_result;
use crate::blob::SignedUrlError;
use crate::blob::store::StoredBlob;
use crate::db::now;
use crate::documents::fields;
use crate::documents::store::{self, FieldsOf};
use crate::error::AppError;
use crate::http::state::AppState;
use crate::templates::store as templates;

const PREFIX: &str = "/api/v1/uploads/";
/// Bytes gathered before a write to the temp file.
const COALESCE: usize = 256 * 1024;

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
    warp::path!("api" / "v1" / "uploads" / String)
        .and(warp::put())
        .and(super::with_state(state))
        .and(warp::query::<HashMap<String, String>>())
        .and(warp::header::optional::<String>("content-type"))
        .and(warp::header::optional::<u64>("content-length"))
        .and(super::origin())
        .and(warp::body::stream())
        .then(
            |data_id: String, st: AppState, q, ct, len, origin, body| async move {
                json_result(upload(st, data_id, q, ct, len, origin, body).await)
            },
        )
        .boxed()
}

async fn upload<S, B>(
    state: AppState,
    data_id: String,
    query: HashMap<String, String>,
    content_type: Option<String>,
    length: Option<u64>,
    origin: crate::documents::audit::Origin,
    body: S,
) -> Result<Value, AppError>
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
    if let Some(n) = length
        && n > max
    {
        return Err(too_large(max));
    }
    let d = data_id.clone();
    let target = state
        .db
        .read(move |c| match store::by_data_id(c, &d)? {
            Some(doc) => {
                store::require_draft(&doc, "upload a file").map(|()| Target::Document(doc.id))
            }
            None => templates::by_data_id(c, &d)?
                .map(Target::Template)
                .ok_or_else(|| AppError::not_found("document")),
        })
        .await?;

    let kind = content_type
        .as_deref()
        .unwrap_or("application/octet-stream");
    let bytes: std::pin::Pin<Box<dyn Stream<Item = Result<Bytes, AppError>> + Send>> = if kind
        .starts_with("multipart/form-data")
    {
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

    let (stored, info) = receive(&state, bytes, max).await?;
    let sizes = serde_json::to_string(
        &info
            .page_sizes
            .iter()
            .map(|(w, h)| [*w, *h])
            .collect::<Vec<_>>(),
    )
    .unwrap_or_else(|_| "[]".into());
    let blob = stored.clone();
    let pages = info.pages;
    let result = state
        .db
        .write(move |tx| match target {
            Target::Document(id) => {
                fields::require_on_pages(
                    &store::placements(tx, FieldsOf::Document(id))?,
                    i64::from(pages),
                )?;
                let old = store::set_file(tx, id, &blob, &sizes, now())?;
                crate::documents::audit::record(
                    tx,
                    id,
                    crate::documents::audit::Event::Uploaded,
                    &origin.actor("upload URL", None),
                    &json!({"sha256": blob.sha256, "size": blob.size, "pages": pages}),
                    now(),
                )?;
                Ok(old)
            }
            Target::Template(id) => {
                fields::require_on_pages(
                    &store::placements(tx, FieldsOf::Template(id))?,
                    i64::from(pages),
                )?;
                templates::set_file(tx, id, &blob, &sizes, now())
            }
        })
        .await;
    let blobs = state.blobs.clone();
    match result {
        Ok(old) => {
            if let Some(old) = old.and_then(|o| crate::blob::BlobId::parse(&o)) {
                // Nothing refers to the replaced file any more; remove it after answering.
                tokio::task::spawn_blocking(move || blobs.delete(&old));
            }
            let (key, id) = match target {
                Target::Document(id) => ("documentId", id),
                Target::Template(id) => ("templateId", id),
            };
            Ok(json!({
                key: id,
                "pages": info.pages,
                "size": stored.size,
                "sha256": stored.sha256,
            }))
        }
        Err(e) => {
            let id = stored.id.clone();
            let _ = tokio::task::spawn_blocking(move || blobs.delete(&id)).await;
            Err(e)
        }
    }
}

/// What an upload URL's `dataId` names: a document (only while DRAFT) or a template.
#[derive(Debug, Clone, Copy)]
enum Target {
    Document(i64),
    Template(i64),
}

fn too_large(max: u64) -> AppError {
    AppError::PayloadTooLarge(format!(
        "the file is larger than the {} MiB allowed (--max-upload-mb)",
        max / (1024 * 1024)
    ))
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

/// Streams `bytes` into a new blob (at most `max` bytes), checks it is a PDF, and commits it.
///
/// The body is gathered on the async side into 256 KiB pieces; each piece is written to the
/// temp file and hashed on the blocking pool (two short tasks, side by side) while the next
/// piece arrives. A blocking thread is thus held only while a piece is written or hashed, never
/// while the client is slow to send: slow uploads cannot use up the blocking pool that every
/// database call (`Db::call`, `/healthz`) needs. At most two pieces are in memory. Once the
/// last byte is written, the PDF is checked on a read-only map of the temp file (the pages are
/// still in the page cache) while another thread fsyncs it; the blob is committed only when
/// both succeed, and dropped (with its temp file) otherwise.
async fn receive(
    state: &AppState,
    mut bytes: std::pin::Pin<Box<dyn Stream<Item = Result<Bytes, AppError>> + Send>>,
    max: u64,
) -> Result<(StoredBlob, crate::pdf::PdfInfo), AppError> {
    let mut sink = Sink::start(state.blobs.clone());
    let mut piece = bytes::BytesMut::with_capacity(COALESCE);
    let mut total = 0u64;
    let mut failure = None;
    while let Some(chunk) = bytes.next().await {
        match chunk {
            Ok(c) => {
                total += c.len() as u64;
                if total > max {
                    failure = Some(too_large(max));
                    break;
                }
                piece.extend_from_slice(&c);
                if piece.len() >= COALESCE {
                    let full =
                        std::mem::replace(&mut piece, bytes::BytesMut::with_capacity(COALESCE))
                            .freeze();
                    // A failed write has dropped the writer, and with it the temp file.
                    sink = sink.feed(full).await?;
                }
            }
            Err(e) => {
                failure = Some(e);
                break;
            }
        }
    }
    if failure.is_none() && total == 0 {
        failure = Some(AppError::bad_request(
            "the upload is empty; send the PDF as the body",
        ));
    }
    if let Some(e) = failure {
        // Waiting for the piece in hand drops the writer, and its temp file, before answering.
        let _ = sink.finish().await;
        return Err(e);
    }
    let last = piece.freeze();
    if !last.is_empty() {
        sink = sink.feed(last).await?;
    }
    let (writer, digest) = sink.finish().await?;
    let sha256 = hex::encode(digest.finalize());
    let handle = writer.file_handle()?;
    let map = writer.map()?;
    let sync = tokio::task::spawn_blocking(move || handle.sync_all());
    let inspect = tokio::task::spawn_blocking(move || crate::pdf::inspect_bytes(&map));
    let (synced, inspected) = tokio::join!(sync, inspect);
    synced.map_err(|e| AppError::internal(format!("upload task failed: {e}")))??;
    let info = inspected
        .map_err(|e| AppError::internal(format!("PDF check failed: {e}")))?
        .map_err(|e| match e {
            crate::pdf::PdfError::NotPdf => {
                AppError::UnsupportedMediaType(format!("{e}; upload a PDF file"))
            }
            crate::pdf::PdfError::TooComplex(_) => AppError::BadRequest {
                code: "pdf_too_complex",
                message: e.to_string(),
                details: Vec::new(),
            },
            e if e.is_upload_fault() => AppError::bad_request(e.to_string()),
            e => AppError::internal(e),
        })?;
    // Dropping the writer on an error above removed its temp file; here it becomes the blob
    // (its fsync finds nothing left to write).
    let stored = tokio::task::spawn_blocking(move || writer.commit_with_sha256(sha256))
        .await
        .map_err(|e| AppError::internal(format!("upload task failed: {e}")))??;
    Ok((stored, info))
}

/// The temp file and the running SHA-256 of an upload, each behind the blocking task that
/// handles the latest piece.
struct Sink {
    writing: JoinHandle<Result<crate::blob::BlobWriter, AppError>>,
    hashing: JoinHandle<Sha256>,
}

impl Sink {
    fn start(blobs: crate::blob::BlobStore) -> Sink {
        Sink {
            writing: tokio::task::spawn_blocking(move || Ok(blobs.begin_unhashed()?)),
            hashing: tokio::task::spawn_blocking(Sha256::new),
        }
    }

    /// Waits for the previous piece, then hands `piece` to a writing and a hashing task.
    async fn feed(self, piece: Bytes) -> Result<Sink, AppError> {
        let (mut writer, mut digest) = self.finish().await?;
        let copy = piece.clone();
        Ok(Sink {
            writing: tokio::task::spawn_blocking(move || {
                writer.write_all(&piece)?;
                writer.start_writeback();
                Ok(writer)
            }),
            hashing: tokio::task::spawn_blocking(move || {
                digest.update(&copy);
                digest
            }),
        })
    }

    /// The writer and the digest once every piece handed over is written and hashed.
    async fn finish(self) -> Result<(crate::blob::BlobWriter, Sha256), AppError> {
        let (written, hashed) = tokio::join!(self.writing, self.hashing);
        let failed =
            |e: tokio::task::JoinError| AppError::internal(format!("upload task failed: {e}"));
        Ok((written.map_err(failed)??, hashed.map_err(failed)?))
    }
}
