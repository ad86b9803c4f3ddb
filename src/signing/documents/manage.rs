//! The document use cases of the API: create, list, read, delete, and the
//! editing of recipients and fields. Each owns its transaction, the audit rows and notices it
//! queues, and wakes the workers that send them once committed. The caller has authenticated
//! `who` and checked its scope.

use crate::core::ids::{DocumentId, FieldId, RecipientId};

use super::CreateDocument;
use super::drafts::{self, FieldCommand, FieldsCommand, RecipientCommand};

use super::audit::{self, Origin};
use super::model::Document;
use super::store::{self, Deleted, listing};
use super::{DocumentView, FieldView, RecipientView, SigningLinks, Status};
use crate::core::context::Context;
use crate::core::db::now;
use crate::core::error::AppError;
use crate::core::owner::Owner;
use crate::identity::principal::Principal;
use crate::teams::access;
use audit::owner_email;

/// A new draft: its id, the id its upload URL carries, and its recipients.
#[derive(Debug)]
pub struct Created {
    pub id: DocumentId,
    pub data_id: String,
    pub external_id: Option<String>,
    pub recipients: Vec<RecipientView>,
}

/// `POST /api/v1/documents`: a DRAFT with its recipients (DOCUMENT_CREATED queued); 403 for
/// authentication options the account's tier does not include.
pub async fn create(
    ctx: &Context,
    who: &Principal,
    doc: CreateDocument,
    origin: Origin,
) -> Result<Created, AppError> {
    ctx.admit_new_work()?;
    let (caller, app) = (who.clone(), ctx.app.clone());
    let data_id = super::new_data_id();
    let d = data_id.clone();
    let view = ctx
        .db
        .write(move |tx| {
            let owner = access::owner_giving(tx, &caller, doc.visibility, "documents")?;
            let email = owner_email(tx, owner.user())?;
            insert_draft(tx, &owner, &doc, &d, &origin.actor(&email, None), &app)
        })
        .await?;
    ctx.workers.webhooks.wake();
    Ok(Created {
        id: view.id,
        data_id,
        external_id: view.external_id,
        recipients: view.recipients.links_shown_if(who.sees_signing_links()),
    })
}

/// Inside a transaction: the DRAFT `doc` of `owner` with its recipients (the creator's tier's
/// rules checked; in a team, the team's defaults for the meta values `doc` did not choose),
/// its CREATED audit row by `actor` and DOCUMENT_CREATED queued; answers it as the API shows
/// it. The caller wakes the webhook worker once committed.
pub fn insert_draft(
    tx: &crate::core::db::Conn,
    owner: &Owner,
    doc: &CreateDocument,
    data_id: &str,
    actor: &audit::Actor,
    app: &str,
) -> Result<DocumentView, AppError> {
    let tier = crate::identity::users::store::tier(tx, owner.user())?;
    super::check_tier(&doc.auth_options, &doc.recipients, tier)?;
    let doc = &CreateDocument {
        meta: super::team_settings::with_defaults(tx, owner, &doc.meta, doc.chosen)?,
        ..doc.clone()
    };
    let t = now();
    let id = store::insert(tx, owner, doc, data_id, t)?;
    let view = DocumentView::of(&store::load(tx, id)?, app);
    crate::signing::documents::notify::created(tx, &view, actor, t)?;
    Ok(view)
}

/// What a listing asks for: a page of `per_page`, optionally one status, and optionally a
/// search (text in the title or in a recipient's e-mail).
#[derive(Debug, Clone)]
pub struct Listing {
    pub page: i64,
    pub per_page: i64,
    pub status: Option<Status>,
    pub search: Option<String>,
    /// The folder listed (`InFolder::Any`: every document).
    pub folder: listing::InFolder,
}

/// The page of the user's listed documents, newest created first, and the number of pages.
pub async fn list(
    ctx: &Context,
    who: &Principal,
    q: Listing,
) -> Result<(Vec<DocumentView>, i64), AppError> {
    let (caller, app) = (who.clone(), ctx.app.clone());
    let search = super::listing::search_terms(q.search.as_deref())?;
    let (status, page, per_page, folder) = (q.status, q.page, q.per_page, q.folder);
    let (docs, total) = ctx
        .db
        .read(move |c| {
            let query = listing::Query {
                whose: listing::Whose::Owned {
                    owner: access::owner(c, &caller)?,
                    status,
                    folder,
                },
                search,
                order: listing::Order::Created,
                limit: per_page,
                offset: (page - 1) * per_page,
            };
            let (docs, total) = listing::list(c, &query)?;
            let views: Vec<DocumentView> = docs.iter().map(|d| DocumentView::of(d, &app)).collect();
            Ok((views, total))
        })
        .await?;
    Ok((
        docs.links_shown_if(who.sees_signing_links()),
        super::total_pages(total, per_page),
    ))
}

/// The user's document `id` (another user's is a 404).
pub async fn get(ctx: &Context, who: &Principal, id: DocumentId) -> Result<DocumentView, AppError> {
    let (caller, app) = (who.clone(), ctx.app.clone());
    let doc = ctx
        .db
        .read(move |c| {
            let owner = access::owner(c, &caller)?;
            Ok(DocumentView::of(&store::owned(c, &owner, id)?, &app))
        })
        .await?;
    Ok(doc.links_shown_if(who.sees_signing_links()))
}

/// What deleting did, for the answer: the document (a removed draft as it was, a cancelled
/// or hidden one as it now is), and what became of it.
#[derive(Debug)]
pub struct Removal {
    pub document: DocumentView,
    pub outcome: Deleted,
}

/// DRAFT: deleted, with its file. PENDING: CANCELLED (audited, DOCUMENT_CANCELLED queued).
/// Finished: hidden from lists, which only a caller that may read documents may do: a
/// finished document is the owner's record, and an app that cannot see it must not make it
/// disappear from the owner's list (403 `insufficient_scope`, naming READ_DOCUMENT).
pub async fn delete(
    ctx: &Context,
    who: &Principal,
    id: DocumentId,
    origin: Origin,
) -> Result<Removal, AppError> {
    let (caller, app) = (who.clone(), ctx.app.clone());
    let reader = who.reads_documents();
    let (view, outcome, blob) = ctx
        .db
        .write(move |tx| {
            let access = access::resolve(tx, &caller)?;
            let doc = store::owned(tx, &access.owner(), id)?;
            access.require_delete("documents")?;
            let user = access.user();
            if !reader && !matches!(doc.status, Status::Draft | Status::Pending) {
                return Err(AppError::InsufficientScope(
                    crate::identity::scope::Scope::ReadDocument.as_str(),
                ));
            }
            let mut view = DocumentView::of(&doc, &app);
            let (outcome, file) = store::delete(tx, &doc, now())?;
            if outcome == Deleted::Cancelled {
                let owner = owner_email(tx, user)?;
                let actor = origin.actor(&owner, None);
                audit::record(tx, id, &actor, &audit::Happened::Cancelled, now())?;
                crate::signing::documents::notify::cancelled(tx, id, &app, now())?;
                view = DocumentView::of(&store::load(tx, id)?, &app);
            }
            Ok((view, outcome, file))
        })
        .await?;
    match outcome {
        Deleted::Removed => {
            if let Some(b) = blob.and_then(|b| crate::core::blob::BlobId::parse(&b)) {
                ctx.discard_blob(b).await;
            }
        }
        Deleted::Cancelled => ctx.workers.notices(),
        Deleted::Hidden => {}
    }
    Ok(Removal {
        document: view.links_shown_if(who.sees_signing_links()),
        outcome,
    })
}

/// `POST /api/v1/documents/{id}/recipients`, while the document is a draft or pending.
pub async fn add_recipient(
    ctx: &Context,
    who: &Principal,
    id: DocumentId,
    r: RecipientCommand,
) -> Result<RecipientView, AppError> {
    let added = drafts::add_recipient::<Document>(ctx, who, id, r).await?;
    Ok(RecipientView::of(&added, id, &ctx.app).links_shown_if(who.sees_signing_links()))
}

/// `PATCH /api/v1/documents/{id}/recipients/{rid}`: absent keys keep their values. A new
/// e-mail address is a new signing link; on a PENDING document whose recipient had been
/// e-mailed, the new address is e-mailed its link (`Draft::readdressed`).
pub async fn patch_recipient(
    ctx: &Context,
    who: &Principal,
    (id, rid): (DocumentId, RecipientId),
    patch: RecipientCommand,
    origin: Origin,
) -> Result<RecipientView, AppError> {
    let changed = drafts::patch_recipient::<Document>(ctx, who, (id, rid), patch, origin).await?;
    ctx.workers.mail.wake();
    Ok(RecipientView::of(&changed, id, &ctx.app).links_shown_if(who.sees_signing_links()))
}

/// `DELETE /api/v1/documents/{id}/recipients/{rid}`, while the document is a draft or pending.
/// Answers the recipient as it was, its dead link as `""` (as the other signing service does).
pub async fn delete_recipient(
    ctx: &Context,
    who: &Principal,
    (id, rid): (DocumentId, RecipientId),
) -> Result<RecipientView, AppError> {
    let gone = drafts::delete_recipient::<Document>(ctx, who, (id, rid)).await?;
    let mut view = RecipientView::of(&gone, id, &ctx.app);
    view.signing_url = Some(String::new());
    Ok(view.links_shown_if(who.sees_signing_links()))
}

/// `POST /api/v1/documents/{id}/fields`: one field or an array; all or nothing. While the
/// document is a draft, or PENDING for recipients who have not finished.
pub async fn add_fields(
    ctx: &Context,
    who: &Principal,
    id: DocumentId,
    fields: FieldsCommand,
) -> Result<Vec<FieldView>, AppError> {
    let added = drafts::add_fields::<Document>(ctx, who, id, fields).await?;
    Ok(added.iter().map(|f| FieldView::of(f, id)).collect())
}

/// `PATCH /api/v1/documents/{id}/fields/{fid}`: absent keys keep their values.
pub async fn patch_field(
    ctx: &Context,
    who: &Principal,
    (id, fid): (DocumentId, FieldId),
    patch: FieldCommand,
) -> Result<FieldView, AppError> {
    let f = drafts::patch_field::<Document>(ctx, who, (id, fid), patch).await?;
    Ok(FieldView::of(&f, id))
}

/// `DELETE /api/v1/documents/{id}/fields/{fid}`, while the document is a draft, or PENDING for
/// a recipient who has not finished (never a filled field, nor a signer's last signature field).
/// Answers the field as it was.
pub async fn delete_field(
    ctx: &Context,
    who: &Principal,
    (id, fid): (DocumentId, FieldId),
) -> Result<FieldView, AppError> {
    let f = drafts::delete_field::<Document>(ctx, who, (id, fid)).await?;
    Ok(FieldView::of(&f, id))
}
