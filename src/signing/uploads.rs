//! Attaching an uploaded PDF to its document or template: the
//! body streams into a temp file in the blob store (never held whole in memory), is checked as
//! a PDF, and only then becomes the file, in one transaction that checks a document is still a
//! draft and that no field lies past the new file's last page (409 naming them). Any failure
//! leaves no file and no changed row behind.

use crate::core::ids::{DocumentId, TemplateId};
use crate::teams::access;
use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use sha2::{Digest, Sha256};
use tokio::task::JoinHandle;

use crate::core::blob::store::StoredBlob;
use crate::core::context::Context;
use crate::core::db::now;
use crate::core::error::AppError;
use crate::signing::documents::fields;
use crate::signing::documents::model::placements;
use crate::signing::templates::store as templates;
use crate::{signing::documents::store, signing::documents::store::Parent};

/// Bytes gathered before a write to the temp file: a batch is handed to two blocking tasks, so
/// larger batches mean fewer hand-offs (1 MiB was faster than 256 KiB on a 20 MiB upload), and
/// an upload holds at most two.
const COALESCE: usize = 1024 * 1024;

/// An upload's body, as the HTTP layer hands it over.
pub type Body = std::pin::Pin<Box<dyn Stream<Item = Result<Bytes, AppError>> + Send>>;

/// What an upload URL's `dataId` names: a document (only while DRAFT) or a template.
#[derive(Debug, Clone, Copy)]
pub enum Target {
    Document(DocumentId),
    Template(TemplateId),
}

pub fn too_large(max: u64) -> AppError {
    AppError::PayloadTooLarge(format!(
        "the file is larger than the {} MiB allowed (--max-upload-mb)",
        max / (1024 * 1024)
    ))
}

/// What `dataId` names: a document while it is a draft (409 after), or a template; 404 else.
pub async fn target(ctx: &Context, data_id: String) -> Result<Target, AppError> {
    ctx.db
        .read(move |c| match store::by_data_id(c, &data_id)? {
            Some(doc) => doc
                .require_draft("upload a file")
                .map(|()| Target::Document(doc.id)),
            None => templates::by_data_id(c, &data_id)?
                .map(Target::Template)
                .ok_or_else(|| AppError::not_found("document")),
        })
        .await
}

/// The file now attached.
#[derive(Debug)]
pub struct Attached {
    pub target: Target,
    pub pages: u32,
    pub size: u64,
    pub sha256: String,
}

/// The answer to an upload: the document's or the template's id, and the file's pages, size
/// and SHA-256.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = UploadResponse)]
pub struct Uploaded {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(required = false, nullable = false)]
    pub document_id: Option<DocumentId>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(required = false, nullable = false)]
    pub template_id: Option<TemplateId>,
    pub pages: u32,
    pub size: u64,
    pub sha256: String,
}

impl Uploaded {
    pub fn of(done: Attached) -> Uploaded {
        let (document_id, template_id) = match done.target {
            Target::Document(id) => (Some(id), None),
            Target::Template(id) => (None, Some(id)),
        };
        Uploaded {
            document_id,
            template_id,
            pages: done.pages,
            size: done.size,
            sha256: done.sha256,
        }
    }
}

/// Receives `bytes` (at most `max`) as `target`'s file: stored, checked, then attached in one
/// transaction (a document's upload is audited); the file it replaces is removed.
pub async fn receive(
    ctx: &Context,
    target: Target,
    bytes: Body,
    max: u64,
    origin: crate::signing::documents::audit::Origin,
) -> Result<Attached, AppError> {
    ctx.admit_new_work()?;
    let (stored, sizes, pages) = store_checked(ctx, bytes, max).await?;
    let blob = stored.clone();
    let result = ctx
        .db
        .write(move |tx| match target {
            Target::Document(id) => {
                let actor = origin.actor("upload URL", None);
                attach_to_document(tx, id, (&blob, &sizes, pages), &actor)
            }
            Target::Template(id) => {
                fields::require_on_pages(
                    &placements(&store::fields::of(tx, Parent::Template(id))?),
                    i64::from(pages),
                )?;
                store::set_file(tx, Parent::Template(id), &blob, &sizes, now())
            }
        })
        .await;
    let old = kept_if(ctx, &stored, result).await?;
    if let Some(old) = old.and_then(|o| crate::core::blob::BlobId::parse(&o)) {
        // Nothing refers to the replaced file any more; remove it after answering.
        let blobs = ctx.blobs.clone();
        tokio::task::spawn_blocking(move || blobs.delete(&old));
    }
    Ok(Attached {
        target,
        pages,
        size: stored.size,
        sha256: stored.sha256,
    })
}

/// What `create_with_file` makes around the file: a document (a DRAFT) or a template.
#[derive(Debug, Clone)]
pub enum New {
    Document(crate::signing::documents::CreateDocument),
    Template(crate::signing::templates::CreateTemplate),
}

/// `POST /api/v1/documents/upload` and `POST /api/v1/templates/upload`: a new DRAFT document
/// (or template) titled `new`'s title whose file is `bytes` (at most `max`). The file is stored
/// and checked first; only then is the row written with its file (a document also with its
/// audit rows, CREATED and UPLOADED, and DOCUMENT_CREATED), in one transaction. A refused file
/// leaves nothing behind: no row, no blob, no temp file.
pub async fn create_with_file(
    ctx: &Context,
    who: &crate::identity::principal::Principal,
    new: New,
    bytes: Body,
    max: u64,
    origin: crate::signing::documents::audit::Origin,
) -> Result<Attached, AppError> {
    ctx.admit_new_work()?;
    let (stored, sizes, pages) = store_checked(ctx, bytes, max).await?;
    let (user, caller, app) = (who.user_id, who.clone(), ctx.app.clone());
    let blob = stored.clone();
    let data_id = crate::signing::documents::new_data_id();
    let result = ctx
        .db
        .write(move |tx| match new {
            New::Document(doc) => {
                let owner = access::owner_giving(tx, &caller, doc.visibility, "documents")?;
                let email = crate::signing::documents::audit::owner_email(tx, user)?;
                let actor = origin.actor(&email, None);
                let view = crate::signing::documents::manage::insert_draft(
                    tx, &owner, &doc, &data_id, &actor, &app,
                )?;
                attach_to_document(tx, view.id, (&blob, &sizes, pages), &actor)?;
                Ok(Target::Document(view.id))
            }
            New::Template(t) => {
                let owner = access::owner_giving(tx, &caller, t.visibility, "templates")?;
                let id = crate::signing::templates::manage::insert_new(tx, &owner, &t, &data_id)?;
                store::set_file(tx, Parent::Template(id), &blob, &sizes, now())?;
                Ok(Target::Template(id))
            }
        })
        .await;
    let target = kept_if(ctx, &stored, result).await?;
    if matches!(target, Target::Document(_)) {
        ctx.workers.webhooks.wake();
    }
    Ok(Attached {
        target,
        pages,
        size: stored.size,
        sha256: stored.sha256,
    })
}

/// `bytes` stored and checked as a PDF (`store_pdf`): the blob, its page sizes as stored with
/// a file (`[[w, h], ...]` in points) and its page count.
async fn store_checked(
    ctx: &Context,
    bytes: Body,
    max: u64,
) -> Result<(StoredBlob, String, u32), AppError> {
    let (stored, info) = store_pdf(&ctx.blobs, bytes, max).await?;
    let sizes: Vec<[_; 2]> = info.page_sizes.iter().map(|(w, h)| [*w, *h]).collect();
    let sizes = serde_json::to_string(&sizes).unwrap_or_else(|_| "[]".into());
    Ok((stored, sizes, info.pages))
}

/// `result` of the transaction that made `stored` a file; when it failed, the blob is removed
/// first, so nothing is left behind.
async fn kept_if<T>(
    ctx: &Context,
    stored: &StoredBlob,
    result: Result<T, AppError>,
) -> Result<T, AppError> {
    if result.is_err() {
        ctx.discard_blob(stored.id.clone()).await;
    }
    result
}

/// Inside a transaction: `blob` (with its page sizes and count) becomes document `id`'s file,
/// unless a field lies past its last page (409); the upload is audited as `actor`'s. Answers
/// the blob id of the file it replaces.
fn attach_to_document(
    tx: &crate::core::db::Conn,
    id: DocumentId,
    (blob, sizes, pages): (&StoredBlob, &str, u32),
    actor: &crate::signing::documents::audit::Actor,
) -> Result<Option<String>, AppError> {
    fields::require_on_pages(
        &placements(&store::fields::of(tx, Parent::Document(id))?),
        i64::from(pages),
    )?;
    let old = store::set_file(tx, Parent::Document(id), blob, sizes, now())?;
    let uploaded = crate::signing::documents::audit_data::Uploaded {
        pages,
        sha256: blob.sha256.clone(),
        size: blob.size,
    };
    crate::signing::documents::audit::record(
        tx,
        id,
        actor,
        &crate::signing::documents::audit::Happened::Uploaded(uploaded),
        now(),
    )?;
    Ok(old)
}

/// Streams `bytes` into a new blob (at most `max` bytes), checks it is a PDF, and commits it.
///
/// The body's chunks are gathered, without copying, into batches of about 1 MiB; each batch
/// is written to the temp file and hashed on the blocking pool (two short tasks, side by side)
/// while the next one arrives. A blocking thread is thus held only while a batch is written or
/// hashed, never while the client is slow to send: slow uploads cannot use up the blocking pool
/// that every database call (`Db::read`, `/healthz`) needs. At most two batches are in memory.
/// Every 2 MiB or so, a third task flushes what is written so far (`sync_data`) while the next
/// batches arrive, at most one at a time, so that the fsync at the end finds little left.
/// Once the last byte is written, the PDF is checked on a private map of the temp file (the
/// pages are still in the page cache) while another thread fsyncs it; the blob is committed
/// only when both succeed, and dropped (with its temp file) otherwise.
async fn store_pdf(
    blobs: &crate::core::blob::BlobStore,
    mut bytes: Body,
    max: u64,
) -> Result<(StoredBlob, crate::signing::pdf::PdfInfo), AppError> {
    let mut sink = Sink::start(blobs.clone());
    let mut batch = Batch::default();
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
                if batch.add(c) {
                    // A failed write has dropped the writer, and with it the temp file.
                    sink = sink.feed(std::mem::take(&mut batch)).await?;
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
        // Waiting for the batch in hand drops the writer, and its temp file, before answering.
        let _ = sink.finish().await;
        return Err(e);
    }
    if !batch.chunks.is_empty() {
        sink = sink.feed(batch).await?;
    }
    // The check and the fsync start once the last byte is written; the hash of the last batch
    // finishes beside them.
    let (writer, hashing, syncing) = sink.written().await?;
    let handle = writer.file_handle()?;
    let mut map = writer.map()?;
    let sync = tokio::task::spawn_blocking(move || handle.sync_all());
    let inspect =
        tokio::task::spawn_blocking(move || crate::signing::pdf::inspect_private(&mut map));
    let (flushed, last_sync, inspected, hashed) =
        tokio::join!(synced(syncing), sync, inspect, hashing);
    let sha256 = hex::encode(hashed.map_err(failed)?.finalize());
    flushed?;
    last_sync.map_err(failed)??;
    let info = inspected
        .map_err(|e| AppError::internal(format!("PDF check failed: {e}")))?
        .map_err(|e| match e {
            crate::signing::pdf::PdfError::NotPdf => {
                AppError::UnsupportedMediaType(format!("{e}; upload a PDF file"))
            }
            crate::signing::pdf::PdfError::TooComplex(_) => AppError::BadRequest {
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
        .map_err(failed)??;
    Ok((stored, info))
}

fn failed(e: tokio::task::JoinError) -> AppError {
    AppError::internal(format!("upload task failed: {e}"))
}

/// Body chunks gathered for one write, as they came (each still the HTTP layer's buffer).
#[derive(Default)]
struct Batch {
    chunks: Vec<Bytes>,
    len: usize,
}

impl Batch {
    /// Most chunks in one batch: a client sending tiny chunks fills it long before 1 MiB.
    const MAX_CHUNKS: usize = 64;

    /// Adds `chunk`; answers whether the batch is now full.
    fn add(&mut self, chunk: Bytes) -> bool {
        if !chunk.is_empty() {
            self.len += chunk.len();
            self.chunks.push(chunk);
        }
        self.len >= COALESCE || self.chunks.len() >= Self::MAX_CHUNKS
    }
}

/// The temp file and the running SHA-256 of an upload, each behind the blocking task that
/// handles the latest batch, and the flush of what was written so far, if one is running.
struct Sink {
    writing: JoinHandle<Result<crate::core::blob::BlobWriter, AppError>>,
    hashing: JoinHandle<Sha256>,
    syncing: Syncing,
}

/// At most one flush of the temp file at a time, behind the writes (see
/// `BlobWriter::sync_due`): it waits for the disk, never for the client.
type Syncing = Option<JoinHandle<std::io::Result<std::time::Duration>>>;

impl Sink {
    fn start(blobs: crate::core::blob::BlobStore) -> Sink {
        Sink {
            writing: tokio::task::spawn_blocking(move || Ok(blobs.begin_unhashed()?)),
            hashing: tokio::task::spawn_blocking(Sha256::new),
            syncing: None,
        }
    }

    /// Waits for the previous batch, then hands `batch` to a writing and a hashing task, and,
    /// when no flush is running and enough was written since the last, starts one.
    async fn feed(self, batch: Batch) -> Result<Sink, AppError> {
        let syncing = self.syncing;
        let (mut writer, mut digest) = joined(self.writing, self.hashing).await?;
        let syncing = match syncing {
            Some(running) if !running.is_finished() => Some(running),
            finished => {
                if let Some(took) = synced(finished).await? {
                    writer.flushed_in(took);
                }
                (writer.sync_due()?).map(|flush| tokio::task::spawn_blocking(move || flush.run()))
            }
        };
        let chunks = std::sync::Arc::new(batch.chunks);
        let copy = chunks.clone();
        Ok(Sink {
            syncing,
            writing: tokio::task::spawn_blocking(move || {
                for chunk in chunks.iter() {
                    writer.write_all(chunk)?;
                }
                writer.start_writeback();
                Ok(writer)
            }),
            hashing: tokio::task::spawn_blocking(move || {
                for chunk in copy.iter() {
                    digest.update(chunk);
                }
                digest
            }),
        })
    }

    /// The writer and the digest once every batch handed over is written and hashed (a flush
    /// still running finishes on its own).
    async fn finish(self) -> Result<(crate::core::blob::BlobWriter, Sha256), AppError> {
        joined(self.writing, self.hashing).await
    }

    /// The writer once every batch handed over is written, the task still hashing the last
    /// one, and the flush still running, if any.
    async fn written(
        self,
    ) -> Result<(crate::core::blob::BlobWriter, JoinHandle<Sha256>, Syncing), AppError> {
        let writer = self.writing.await.map_err(failed)??;
        Ok((writer, self.hashing, self.syncing))
    }
}

/// The writer and the digest once the writing and hashing tasks of the last batch are done.
async fn joined(
    writing: JoinHandle<Result<crate::core::blob::BlobWriter, AppError>>,
    hashing: JoinHandle<Sha256>,
) -> Result<(crate::core::blob::BlobWriter, Sha256), AppError> {
    let (written, hashed) = tokio::join!(writing, hashing);
    Ok((written.map_err(failed)??, hashed.map_err(failed)?))
}

/// Waits for `syncing`, if any, and answers how long it took: a flush that failed fails the
/// upload (its error is reported once, to the handle that flushed, not again to the final
/// fsync).
async fn synced(syncing: Syncing) -> Result<Option<std::time::Duration>, AppError> {
    match syncing {
        Some(running) => Ok(Some(running.await.map_err(failed)??)),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A PDF of about 2.5 MiB (a page and a large stream), sent in chunks of 3,001 bytes, then
    /// of 40,001 (so batches end on the chunk count, then on the byte count): what is stored
    /// and hashed is the body, byte for byte.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_body_in_odd_chunks_is_stored_whole_through_batches() {
        let filler = "0123456789abcdef".repeat(160_000);
        let stream = format!(
            "<< /Length {} >>\nstream\n{filler}\nendstream",
            filler.len()
        )
        .into_bytes();
        let pdf = crate::signing::pdf::budget::hostile::pdf_with(&[stream], 1, None);
        assert!(pdf.len() > 2 * COALESCE + 1);
        let (small, large) = pdf.split_at(300_000);
        let chunks: Vec<Result<Bytes, AppError>> = (small.chunks(3_001))
            .chain(large.chunks(40_001))
            .map(|c| Ok(Bytes::copy_from_slice(c)))
            .collect();
        let tmp = tempfile::tempdir().unwrap();
        let blobs = crate::core::blob::BlobStore::open(tmp.path()).unwrap();
        let body: Body = Box::pin(futures_util::stream::iter(chunks));
        let (stored, info) = store_pdf(&blobs, body, 10 * 1024 * 1024).await.unwrap();
        assert_eq!(info.pages, 1);
        assert_eq!(stored.size, pdf.len() as u64);
        assert_eq!(stored.sha256, crate::core::crypto::sha256_hex(&pdf));
        assert_eq!(blobs.read_async(&stored.id).await.unwrap(), pdf);
    }

    /// Batches of 1 MiB: once 2 MiB are written, a flush runs behind the next batch's write,
    /// and the upload waits for it before it ends.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_flush_runs_behind_the_writes_once_a_sync_step_is_written() {
        let tmp = tempfile::tempdir().unwrap();
        let blobs = crate::core::blob::BlobStore::open(tmp.path()).unwrap();
        let mib = || {
            let mut batch = Batch::default();
            assert!(batch.add(Bytes::from(vec![0u8; COALESCE])));
            batch
        };
        let mut sink = Sink::start(blobs);
        for written_before in 0..2 {
            sink = sink.feed(mib()).await.unwrap();
            assert!(sink.syncing.is_none(), "{written_before} MiB written");
        }
        sink = sink.feed(mib()).await.unwrap();
        assert!(sink.syncing.is_some(), "2 MiB written: a flush runs");
        let (writer, hashing, syncing) = sink.written().await.unwrap();
        synced(syncing).await.unwrap();
        hashing.await.unwrap();
        assert_eq!(writer.size(), 3 * COALESCE as u64);
    }

    #[test]
    fn a_batch_is_full_at_1_mib_or_at_64_chunks() {
        let mut batch = Batch::default();
        assert!(!batch.add(Bytes::from(vec![1u8; COALESCE - 1])));
        assert!(!batch.add(Bytes::new()), "an empty chunk adds nothing");
        assert!(batch.add(Bytes::from_static(b"x")));
        assert_eq!((batch.len, batch.chunks.len()), (COALESCE, 2));
        let mut tiny = Batch::default();
        let full = (0..Batch::MAX_CHUNKS).map(|_| tiny.add(Bytes::from_static(b"y")));
        assert_eq!(
            full.filter(|&f| f).count(),
            1,
            "full at the 64th chunk only"
        );
    }
}
