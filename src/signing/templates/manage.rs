//! The template use cases of the API: create, list,
//! read, delete, add recipients and fields (through `documents::drafts`, as documents do), and
//! generate a document. Each owns its transaction; the caller has authenticated `who`.

use crate::core::ids::{DocumentId, TemplateId};
use crate::signing::documents::InFolder;
use crate::signing::documents::drafts::{self, FieldsCommand, RecipientCommand};
use crate::signing::documents::team_settings;
use crate::teams::access;

use super::model::Template;
use super::{
    GenerateCommand, GenerateDocument, TemplateField, TemplateRecipient, TemplateView, store,
};
use crate::core::blob::BlobId;
use crate::core::context::Context;
use crate::core::db::now;
use crate::core::error::AppError;
use crate::identity::principal::Principal;
use crate::{
    signing::documents::DocumentView, signing::documents::RecipientBrief,
    signing::documents::SigningLinks,
};

/// A new template: its id, the id its upload URL carries, its recipients, and the template as
/// the API shows it.
#[derive(Debug)]
pub struct Created {
    pub id: TemplateId,
    pub data_id: String,
    pub recipients: Vec<RecipientBrief>,
    pub template: TemplateView,
}

/// `POST /api/v1/templates`: the template with its recipients; its PDF comes by upload.
pub async fn create(
    ctx: &Context,
    who: &Principal,
    t: super::CreateTemplate,
) -> Result<Created, AppError> {
    ctx.admit_new_work()?;
    let (caller, app) = (who.clone(), ctx.app.clone());
    let data_id = crate::signing::documents::new_data_id();
    let d = data_id.clone();
    let (id, recipients) = ctx
        .db
        .write(move |tx| {
            let owner = access::owner_giving(tx, &caller, t.visibility, "templates")?;
            let id = insert_new(tx, &owner, &t, &d)?;
            let created = store::owned(tx, &owner, id)?;
            let briefs: Vec<RecipientBrief> = created
                .recipients
                .iter()
                .map(|r| RecipientBrief::of(r, &app))
                .collect();
            Ok((id, (briefs, TemplateView::of(&created))))
        })
        .await?;
    let (recipients, template) = recipients;
    Ok(Created {
        id,
        data_id,
        recipients: recipients.links_shown_if(who.sees_signing_links()),
        template,
    })
}

/// Inside a transaction: the new template `t` of `owner` (the creator's tier's rules checked;
/// in a team, the team's defaults for the meta values `t` did not choose).
pub fn insert_new(
    tx: &crate::core::db::Conn,
    owner: &crate::core::owner::Owner,
    t: &super::CreateTemplate,
    data_id: &str,
) -> Result<TemplateId, AppError> {
    let tier = crate::identity::users::store::tier(tx, owner.user())?;
    crate::signing::documents::check_tier(&t.auth_options, &t.recipients, tier)?;
    let meta = team_settings::with_defaults(tx, owner, &t.meta, t.chosen)?;
    let t = &super::CreateTemplate { meta, ..t.clone() };
    store::insert(tx, owner, t, data_id, now())
}

/// Page `page` of `per_page` of the user's templates, and the number of pages.
pub async fn list(
    ctx: &Context,
    who: &Principal,
    paging: (i64, i64),
) -> Result<(Vec<TemplateView>, i64), AppError> {
    let (items, pages) = listed(ctx, who, InFolder::Any, paging).await?;
    Ok((items.iter().map(TemplateView::of).collect(), pages))
}

/// Page `page` of `per_page` of the user's templates in `folder` as the read model (newest
/// first), and the number of pages: the web application's list.
pub async fn listed(
    ctx: &Context,
    who: &Principal,
    folder: InFolder,
    (page, per_page): (i64, i64),
) -> Result<(Vec<Template>, i64), AppError> {
    let caller = who.clone();
    let (items, total) = ctx
        .db
        .read(move |c| {
            let owner = access::owner(c, &caller)?;
            store::list(c, &owner, &folder, per_page, (page - 1) * per_page)
        })
        .await?;
    Ok((
        items,
        crate::signing::documents::total_pages(total, per_page),
    ))
}

/// The user's template `id` as the read model (another user's is a 404): the web
/// application's pages.
pub async fn read(ctx: &Context, who: &Principal, id: TemplateId) -> Result<Template, AppError> {
    let caller = who.clone();
    ctx.db
        .read(move |c| store::owned(c, &access::owner(c, &caller)?, id))
        .await
}

/// The stored PDF behind page `n` (1-based) of the user's template `id` and that page's size in
/// points (a 404 past the last page, before an upload, or for another user's template).
pub async fn page_source(
    ctx: &Context,
    who: &Principal,
    id: TemplateId,
    n: usize,
) -> Result<crate::signing::documents::preview::PageSource, AppError> {
    let t = read(ctx, who, id).await?;
    crate::signing::documents::preview::page_in(t.page_sizes.as_deref(), t.blob_id.as_deref(), n)
}

/// `GET /api/v1/templates/{id}`: the template with its recipients and fields.
pub async fn get(ctx: &Context, who: &Principal, id: TemplateId) -> Result<TemplateView, AppError> {
    let caller = who.clone();
    ctx.db
        .read(move |c| {
            Ok(TemplateView::of(&store::owned(
                c,
                &access::owner(c, &caller)?,
                id,
            )?))
        })
        .await
}

/// Deletes the template and, unless documents made from it still use it, its file.
/// Answers the template as it was.
pub async fn delete(
    ctx: &Context,
    who: &Principal,
    id: TemplateId,
) -> Result<TemplateView, AppError> {
    let caller = who.clone();
    let (view, blob) = ctx
        .db
        .write(move |tx| {
            let access = access::resolve(tx, &caller)?;
            let t = store::owned(tx, &access.owner(), id)?;
            access.require_delete("templates")?;
            let view = TemplateView::of(&t);
            let file = store::delete(tx, &t)?;
            Ok((view, file))
        })
        .await?;
    if let Some(b) = blob.and_then(|b| BlobId::parse(&b)) {
        ctx.discard_blob(b).await;
    }
    Ok(view)
}

/// `POST /api/v1/templates/{id}/recipients`: as for documents; without an e-mail the recipient
/// gets the next placeholder address (`Draft::placeholder`).
pub async fn add_recipient(
    ctx: &Context,
    who: &Principal,
    id: TemplateId,
    r: RecipientCommand,
) -> Result<TemplateRecipient, AppError> {
    let added = drafts::add_recipient::<Template>(ctx, who, id, r).await?;
    Ok(TemplateRecipient::of(&added))
}

/// `POST /api/v1/templates/{id}/fields`: one field or an array, checked against the template's
/// recipients and PDF; all or nothing.
pub async fn add_fields(
    ctx: &Context,
    who: &Principal,
    id: TemplateId,
    fields: FieldsCommand,
) -> Result<Vec<TemplateField>, AppError> {
    let added = drafts::add_fields::<Template>(ctx, who, id, fields).await?;
    Ok(added.iter().map(TemplateField::of).collect())
}

/// A document generated from a template, as the answer shows it: `documentId`, the
/// `externalId` it was given, and its recipients.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = GenerateDocumentResponse)]
pub struct Generated {
    pub document_id: DocumentId,
    #[schema(required = true)]
    pub external_id: Option<String>,
    pub recipients: Vec<RecipientBrief>,
}

/// `POST /api/v1/templates/{id}/generate-document` (and `create-document`, whose command names
/// the recipients by position): a DRAFT copy of the template (recipients as the request names
/// them, fields, meta, and the template's PDF, shared), created as documents are
/// (DOCUMENT_CREATED queued). Answers its id and recipients.
pub async fn generate(
    ctx: &Context,
    who: &Principal,
    id: TemplateId,
    command: GenerateCommand,
) -> Result<Generated, AppError> {
    ctx.admit_new_work()?;
    let (user, caller) = (who.user_id, who.clone());
    let reader = who.clone();
    // Check first, so a bad request or a template without a file starts no transaction.
    let first = command.clone();
    let source = ctx
        .db
        .read(move |c| {
            let t = store::owned(c, &access::owner(c, &reader)?, id)?;
            let tier = crate::identity::users::store::tier(c, user)?;
            GenerateDocument::Request(&first).against(&t.base(), tier)?;
            t.blob_id
                .and_then(|b| BlobId::parse(&b))
                .ok_or_else(super::no_file)
        })
        .await?;
    let app = ctx.app.clone();
    let data_id = crate::signing::documents::new_data_id();
    let (document_id, external_id, recipients) = ctx
        .db
        .write(move |tx| {
            let tier = crate::identity::users::store::tier(tx, user)?;
            let t = now();
            let source = source.as_str();
            let body = GenerateDocument::Request(&command);
            let owner = access::owner(tx, &caller)?;
            let doc = super::generate(tx, &owner, id, body, tier, source, &data_id, t)?;
            let view = DocumentView::of(&crate::signing::documents::store::load(tx, doc)?, &app);
            let owner = crate::signing::documents::audit::owner_email(tx, user)?;
            let actor = crate::signing::documents::audit::Actor {
                label: owner,
                ..Default::default()
            };
            crate::signing::documents::notify::created(tx, &view, &actor, t)?;
            Ok((doc, view.external_id, view.recipients))
        })
        .await?;
    ctx.workers.webhooks.wake();
    let briefs: Vec<RecipientBrief> = recipients.iter().map(RecipientBrief::from).collect();
    Ok(Generated {
        document_id,
        external_id,
        recipients: briefs.links_shown_if(who.sees_signing_links()),
    })
}
