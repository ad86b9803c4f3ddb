//! "Save as template": a new template made from one of the caller's documents, in the workspace
//! the caller acts in (where the document is): the document's PDF (the same stored file, shared
//! as a generated document shares its template's: deleting either releases it, and it goes
//! only when nothing refers to it), its recipients as they are (names, addresses, roles,
//! signing order, authentication; a placeholder address stays one), every field on them with
//! its place, type and settings but never its value, its link attachments, and the document's
//! meta and authentication options. Titled as the document; no external id; its direct link off.

use crate::core::blob::rows;
use crate::core::context::Context;
use crate::core::db::{Conn, now};
use crate::core::error::AppError;
use crate::core::ids::{DocumentId, TemplateId};
use crate::core::owner::Owner;
use crate::identity::principal::Principal;
use crate::signing::documents::meta::Chosen;
use crate::signing::documents::model::{Document, Recipient};
use crate::signing::documents::store as doc_store;
use crate::teams::access;

use super::{CreateTemplate, TemplateType, TemplateView, store};

/// `POST /api/v1/documents/{id}/template` and the document page's "Save as template": the new
/// template as the API shows it. Another's document (or one the caller's role does not see) is
/// a 404; authentication options the caller's account may not ask for are a 403, as they are
/// when a template is made by hand.
pub async fn save(
    ctx: &Context,
    who: &Principal,
    id: DocumentId,
) -> Result<TemplateView, AppError> {
    ctx.admit_new_work()?;
    let reader = who.clone();
    // The file the document has now: held before the document is read again, so no release
    // of it can slip in between.
    let file = ctx
        .db
        .read(move |c| Ok(doc_store::owned(c, &access::owner(c, &reader)?, id)?.blob_id))
        .await?;
    let caller = who.clone();
    ctx.db
        .write(move |tx| {
            if let Some(f) = &file {
                rows::hold(tx, f)?;
            }
            let owner = access::owner(tx, &caller)?;
            let doc = doc_store::owned(tx, &owner, id)?;
            if doc.blob_id != file {
                return Err(AppError::Conflict(
                    "the document's file changed meanwhile; try again".into(),
                ));
            }
            let new = template_of(tx, &owner, &doc, now())?;
            Ok(TemplateView::of(&store::owned(tx, &owner, new)?))
        })
        .await
}

/// Inside a transaction that holds `doc`'s file: the template of `owner` made from `doc`.
fn template_of(tx: &Conn, owner: &Owner, doc: &Document, at: i64) -> Result<TemplateId, AppError> {
    let recipients: Vec<_> = doc.recipients.iter().map(Recipient::as_new).collect();
    let tier = crate::identity::users::store::tier(tx, owner.user())?;
    crate::signing::documents::check_tier(&doc.auth_options, &recipients, tier).map_err(|e| {
        AppError::Forbidden(format!(
            "this document cannot be saved as a template by this account: {e}"
        ))
    })?;
    let new = CreateTemplate {
        title: doc.title.clone(),
        external_id: None,
        kind: TemplateType::Private,
        recipients: Vec::new(),
        // The document's links are rows of the template's own (below), not in its meta.
        meta: crate::signing::documents::meta::Meta {
            attachments: Vec::new(),
            ..doc.meta.clone()
        },
        // The document's values, not the team's defaults.
        chosen: Chosen::ALL,
        auth_options: doc.auth_options.clone(),
        // Seen by whoever in the team sees the document.
        visibility: Some(doc.visibility),
    };
    let id = store::insert(
        tx,
        owner,
        &new,
        &crate::signing::documents::new_data_id(),
        at,
    )?;
    if let (Some(blob), Some(sizes)) = (&doc.blob_id, &doc.page_sizes) {
        let sizes = serde_json::to_string(sizes).unwrap_or_else(|_| "[]".into());
        store::share_file(tx, id, blob, &sizes, at)?;
    }
    store::copy_parts(tx, id, &doc.recipients, &doc.fields, at)?;
    crate::signing::attachments::store::copy(
        tx,
        doc_store::Parent::Document(doc.id),
        doc_store::Parent::Template(id),
        at,
    )?;
    Ok(id)
}
