//! The owner's preview of a document: which stored file holds page `n` and that page's size,
//! for the web application's editor and document page to show the pages (rendered by
//! `signing::pdf` as the signing page's are).

use crate::core::blob::BlobId;
use crate::core::context::Context;
use crate::core::error::AppError;
use crate::core::ids::DocumentId;
use crate::identity::principal::Principal;
use crate::teams::access;

use super::Status;
use super::model::Document;
use super::store;

/// The stored PDF behind page `n` (1-based) of the caller's document `id` and that page's size
/// in points: the document as it stands. Until it is completed that is the original upload
/// (the editor and the document page draw the fields over it); once completed, the sealed copy,
/// whose first pages are the original's with the values burnt in, at the same sizes (the
/// signing certificate's pages after them are not shown). Another user's document, a page past
/// the last, or a document without a file is a 404.
pub async fn page_source(
    ctx: &Context,
    who: &Principal,
    id: DocumentId,
    n: usize,
) -> Result<PageSource, AppError> {
    let caller = who.clone();
    ctx.db
        .read(move |c| page_of(&store::owned(c, &access::owner(c, &caller)?, id)?, n))
        .await
}

fn page_of(doc: &Document, n: usize) -> Result<PageSource, AppError> {
    page_in(doc.page_sizes.as_deref(), shown_blob(doc), n)
}

/// The file whose pages the owner sees: the sealed copy once the document is completed, else
/// the upload.
fn shown_blob(doc: &Document) -> Option<&str> {
    match doc.status {
        Status::Completed => doc.sealed_blob_id.as_deref(),
        _ => doc.blob_id.as_deref(),
    }
}

/// Where a page to show comes from: the stored PDF, the page's size in points, and the next
/// page's size (`None` on the last page), which the page cache reads ahead.
#[derive(Debug, Clone)]
pub struct PageSource {
    pub blob: BlobId,
    pub size: (f32, f32),
    pub next: Option<(f32, f32)>,
}

/// Page `n` (1-based) of the file `blob` whose pages are `sizes`; a 404 past the last page or
/// without a file (a template's pages too).
pub fn page_in(
    sizes: Option<&[[f64; 2]]>,
    blob: Option<&str>,
    n: usize,
) -> Result<PageSource, AppError> {
    let sizes = sizes.unwrap_or_default();
    let points = |i: usize| sizes.get(i).map(|&[w, h]| (w as f32, h as f32));
    let Some(size) = n.checked_sub(1).and_then(points) else {
        return Err(AppError::not_found("page"));
    };
    let blob = blob
        .and_then(BlobId::parse)
        .ok_or_else(|| AppError::not_found("page"))?;
    Ok(PageSource {
        blob,
        size,
        next: points(n),
    })
}

/// The size in points (`[width, height]`) of each page of the caller's document `id`: empty
/// before its PDF is uploaded. The editor places fields in percent of these pages and moves
/// them by whole points.
pub async fn page_sizes(
    ctx: &Context,
    who: &Principal,
    id: DocumentId,
) -> Result<Vec<[f64; 2]>, AppError> {
    let caller = who.clone();
    ctx.db
        .read(move |c| {
            Ok(store::owned(c, &access::owner(c, &caller)?, id)?
                .page_sizes
                .unwrap_or_default())
        })
        .await
}
