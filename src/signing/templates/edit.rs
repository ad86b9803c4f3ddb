//! Changing a template after it is made, as the editor of the web application does: its
//! settings, its recipients (changed, removed, reordered through `signingOrder`) and its
//! fields (changed, removed), and duplicating it. Every command is the documents' own
//! (`UpdateSettings`, `RecipientCommand`, `FieldCommand`), and recipients and fields are edited
//! by the documents' own use cases (`documents::drafts`, `Draft for Template`); a template has
//! no state that forbids a change. Each use case owns its transaction; another user's template
//! is a 404.

use crate::core::blob::BlobId;
use crate::core::context::Context;
use crate::core::db::{Conn, now};
use crate::core::error::AppError;
use crate::core::ids::{FieldId, RecipientId, TemplateId};
use crate::identity::principal::Principal;
use crate::signing::documents::audit::Origin;
use crate::signing::documents::drafts::{self, Draft, FieldCommand, RecipientCommand};
use crate::signing::documents::model::{Field, Recipient};
use crate::signing::documents::settings::{Settings, UpdateSettings};
use crate::signing::documents::store::{self as doc_store, Parent};
use crate::teams::access;

use super::model::Template;
use super::{CreateTemplate, TemplateField, TemplateRecipient, TemplateView, store};

/// `PATCH /api/v1/templates/{id}`: title, externalId, meta and authOptions, as a draft
/// document's (members left out keep their values). Answers the template as it now is.
pub async fn update(
    ctx: &Context,
    who: &Principal,
    id: TemplateId,
    change: UpdateSettings,
) -> Result<TemplateView, AppError> {
    let (user, caller) = (who.user_id, who.clone());
    ctx.db
        .write(move |tx| {
            let access = access::resolve(tx, &caller)?;
            let t = store::owned(tx, &access.owner(), id)?;
            let change = change.check(&Settings::of(&t.meta, &t.auth_options))?;
            if let Some(v) = change.visibility {
                access.may_give(v, "templates")?;
            }
            let tier = crate::identity::users::store::tier(tx, user)?;
            let recipients: Vec<_> = t.recipients.iter().map(Recipient::as_new).collect();
            crate::signing::documents::check_tier(&change.auth_options, &recipients, tier)?;
            store::set_settings(tx, &t, &change, now())?;
            Ok(TemplateView::of(&store::owned(tx, &access.owner(), id)?))
        })
        .await
}

/// `PATCH /api/v1/templates/{id}/recipients/{rid}`: absent members keep their values; an
/// `email` of `null` makes the recipient a placeholder again (no address until the template
/// is used: `Draft::placeholder`).
pub async fn patch_recipient(
    ctx: &Context,
    who: &Principal,
    ids: (TemplateId, RecipientId),
    patch: RecipientCommand,
) -> Result<TemplateRecipient, AppError> {
    let changed = drafts::patch_recipient::<Template>(ctx, who, ids, patch, Origin::default());
    Ok(TemplateRecipient::of(&changed.await?))
}

/// `DELETE /api/v1/templates/{id}/recipients/{rid}`: the recipient and its fields. Answers the
/// recipient as it was.
pub async fn delete_recipient(
    ctx: &Context,
    who: &Principal,
    ids: (TemplateId, RecipientId),
) -> Result<TemplateRecipient, AppError> {
    let gone = drafts::delete_recipient::<Template>(ctx, who, ids).await?;
    Ok(TemplateRecipient::of(&gone))
}

/// `PATCH /api/v1/templates/{id}/fields/{fid}`: absent members keep their values; the field is
/// checked against the template's recipients and pages as a new one is.
pub async fn patch_field(
    ctx: &Context,
    who: &Principal,
    ids: (TemplateId, FieldId),
    patch: FieldCommand,
) -> Result<TemplateField, AppError> {
    let changed = drafts::patch_field::<Template>(ctx, who, ids, patch).await?;
    Ok(TemplateField::of(&changed))
}

/// `DELETE /api/v1/templates/{id}/fields/{fid}`. Answers the field as it was.
pub async fn delete_field(
    ctx: &Context,
    who: &Principal,
    ids: (TemplateId, FieldId),
) -> Result<TemplateField, AppError> {
    let gone = drafts::delete_field::<Template>(ctx, who, ids).await?;
    Ok(TemplateField::of(&gone))
}

/// A template refuses no change; a recipient sent without an address gets a placeholder.
impl Draft for Template {
    type Id = TemplateId;

    fn owned(
        tx: &Conn,
        owner: &crate::core::owner::Owner,
        id: TemplateId,
    ) -> Result<Self, AppError> {
        store::owned(tx, owner, id)
    }
    fn parent(id: TemplateId) -> Parent {
        Parent::Template(id)
    }
    fn recipients(&self) -> &[Recipient] {
        &self.recipients
    }
    fn fields(&self) -> &[Field] {
        &self.fields
    }
    fn pages(&self) -> Option<i64> {
        Template::pages(self)
    }
    fn placeholder(&self, r: Option<&Recipient>) -> Option<String> {
        Some(match r {
            Some(r) => placeholder_for(self, r),
            None => super::placeholder_email(self.next_placeholder()),
        })
    }
}

/// The placeholder address recipient `r` of `t` gets back: its own when it has one, else the
/// one of its place in the list when free ("Recipient 2" for the second), else the next.
fn placeholder_for(t: &Template, r: &Recipient) -> String {
    if super::is_placeholder(&r.email) {
        return r.email.clone();
    }
    let place = t.recipients.iter().position(|x| x.id == r.id).unwrap_or(0) + 1;
    let own = super::placeholder_email(place);
    if t.recipients.iter().any(|x| x.email == own) {
        super::placeholder_email(t.next_placeholder())
    } else {
        own
    }
}

/// `POST /api/v1/templates/{id}/duplicate`: a new template of the same user titled
/// "<title> (copy)", with the same settings, recipients, fields, attachments and a copy of the PDF (each
/// template owns its file); no external id and a new direct link, disabled.
pub async fn duplicate(
    ctx: &Context,
    who: &Principal,
    id: TemplateId,
) -> Result<TemplateView, AppError> {
    ctx.admit_new_work()?;
    let caller = who.clone();
    let reader = who.clone();
    let source = ctx
        .db
        .read(move |c| Ok(store::owned(c, &access::owner(c, &reader)?, id)?.blob_id))
        .await?;
    let copy = match source.as_deref().and_then(BlobId::parse) {
        Some(b) => Some(super::copy_blob_async(&ctx.blobs, &b).await?),
        None => None,
    };
    let file = copy.clone();
    let result = ctx
        .db
        .write(move |tx| {
            let owner = access::owner(tx, &caller)?;
            let t = store::owned(tx, &owner, id)?;
            if t.blob_id != source {
                return Err(AppError::Conflict(
                    "the template's file changed meanwhile; try again".into(),
                ));
            }
            let new = copy_of(tx, &owner, &t, file.as_ref())?;
            Ok(TemplateView::of(&store::owned(tx, &owner, new)?))
        })
        .await;
    if let (Err(_), Some(c)) = (&result, copy) {
        ctx.discard_blob(c.id).await;
    }
    result
}

/// Inside a transaction: the copy of `t` (with `file`, a copy of its PDF), its recipients and
/// their fields, made by `owner` (a member's copy of a team template is the team's).
fn copy_of(
    tx: &Conn,
    owner: &crate::core::owner::Owner,
    t: &Template,
    file: Option<&crate::core::blob::store::StoredBlob>,
) -> Result<TemplateId, AppError> {
    let at = now();
    let title: String = format!("{} (copy)", t.title).chars().take(255).collect();
    let new = CreateTemplate {
        title,
        external_id: None,
        kind: t.kind,
        recipients: Vec::new(),
        meta: t.meta.clone(),
        chosen: crate::signing::documents::meta::Chosen::ALL,
        auth_options: t.auth_options.clone(),
        // The copy stays with who saw the original.
        visibility: Some(t.visibility),
    };
    let data_id = crate::signing::documents::new_data_id();
    let id = store::insert(tx, owner, &new, &data_id, at)?;
    if let (Some(file), Some(sizes)) = (file, &t.page_sizes) {
        let sizes = serde_json::to_string(sizes).unwrap_or_else(|_| "[]".into());
        doc_store::set_file(tx, Parent::Template(id), file, &sizes, at)?;
    }
    store::copy_parts(tx, id, &t.recipients, &t.fields, at)?;
    let attachments = crate::signing::attachments::store::copy;
    attachments(tx, Parent::Template(t.id), Parent::Template(id), at)?;
    Ok(id)
}
