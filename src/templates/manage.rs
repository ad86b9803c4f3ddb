//! The template use cases of the API: create, list,
//! read, delete, add recipients and fields (through `documents::parts`, as documents do), and
//! generate a document. Each owns its transaction; the caller has authenticated `who`.

use rusqlite::Connection;
use serde_json::Value;

use super::{TemplateField, TemplateRecipient, TemplateView, store};
use crate::blob::BlobId;
use crate::context::Context;
use crate::db::now;
use crate::documents::fields::NewField;
use crate::documents::parts::{self, Owner};
use crate::documents::recipients::NewRecipient;
use crate::documents::{RecipientBrief, SigningLinks};
use crate::error::AppError;
use crate::oauth::principal::Principal;

/// A template as the owner of its recipients and fields.
struct Template(i64);

impl Owner for Template {
    type Recipient = TemplateRecipient;
    type Field = TemplateField;
    fn recipient_ids(&self, conn: &Connection) -> Result<Vec<i64>, AppError> {
        store::recipient_ids(conn, self.0)
    }
    fn insert_recipient(
        &self,
        conn: &Connection,
        r: &NewRecipient,
        now: i64,
    ) -> Result<i64, AppError> {
        store::insert_recipient(conn, self.0, r, now)
    }
    fn recipient(&self, conn: &Connection, id: i64) -> Result<TemplateRecipient, AppError> {
        store::recipient(conn, self.0, id)
    }
    fn insert_field(&self, conn: &Connection, f: &NewField, now: i64) -> Result<i64, AppError> {
        store::insert_field(conn, self.0, f, now)
    }
    fn field(&self, conn: &Connection, id: i64) -> Result<TemplateField, AppError> {
        store::field(conn, self.0, id)
    }
    fn touch(&self, conn: &Connection, now: i64) -> Result<(), AppError> {
        store::touch(conn, self.0, now)
    }
}

/// A new template: its id, the id its upload URL carries, and its recipients.
#[derive(Debug)]
pub struct Created {
    pub id: i64,
    pub data_id: String,
    pub recipients: Vec<RecipientBrief>,
}

/// `POST /api/v1/templates`: the template with its recipients; its PDF comes by upload.
pub async fn create(ctx: &Context, who: &Principal, body: Value) -> Result<Created, AppError> {
    let (user, app) = (who.user_id, ctx.app.clone());
    let data_id = crate::documents::new_data_id();
    let d = data_id.clone();
    let (id, recipients) = ctx
        .db
        .write(move |tx| {
            let t = super::parse_create(&body, crate::users::store::tier(tx, user)?)?;
            let id = store::insert(tx, user, &t, &d, now())?;
            Ok((id, store::recipient_briefs(tx, id, &app)?))
        })
        .await?;
    Ok(Created {
        id,
        data_id,
        recipients: recipients.links_shown_if(who.sees_signing_links()),
    })
}

/// Page `page` of `per_page` of the user's templates, and the number of pages.
pub async fn list(
    ctx: &Context,
    who: &Principal,
    (page, per_page): (i64, i64),
) -> Result<(Vec<TemplateView>, i64), AppError> {
    let user = who.user_id;
    let (items, total) = ctx
        .db
        .read(move |c| store::list(c, user, per_page, (page - 1) * per_page))
        .await?;
    Ok((items, crate::documents::total_pages(total, per_page)))
}

/// `GET /api/v1/templates/{id}`: the template with its recipients and fields.
pub async fn get(ctx: &Context, who: &Principal, id: i64) -> Result<TemplateView, AppError> {
    let user = who.user_id;
    ctx.db.read(move |c| store::view(c, user, id)).await
}

/// Deletes the template and its file; documents generated from it keep their own copies.
pub async fn delete(ctx: &Context, who: &Principal, id: i64) -> Result<(), AppError> {
    let user = who.user_id;
    let blob = ctx
        .db
        .write(move |tx| {
            let t = store::owned(tx, user, id)?;
            store::delete(tx, &t)?;
            Ok(t.blob_id)
        })
        .await?;
    if let Some(b) = blob.and_then(|b| BlobId::parse(&b)) {
        ctx.discard_blob(b).await;
    }
    Ok(())
}

/// `POST /api/v1/templates/{id}/recipients`: as for documents; without an e-mail the recipient
/// gets the next placeholder address.
pub async fn add_recipient(
    ctx: &Context,
    who: &Principal,
    id: i64,
    body: Value,
) -> Result<TemplateRecipient, AppError> {
    let user = who.user_id;
    ctx.db
        .write(move |tx| {
            store::owned(tx, user, id)?;
            let raw = super::with_placeholder(&body, store::next_placeholder(tx, id)?);
            let r = parts::recipient(tx, user, &raw)?;
            parts::add_recipient(tx, &Template(id), &r, now())
        })
        .await
}

/// `POST /api/v1/templates/{id}/fields`: one field or an array, checked against the template's
/// recipients and PDF; all or nothing.
pub async fn add_fields(
    ctx: &Context,
    who: &Principal,
    id: i64,
    body: Value,
) -> Result<Vec<TemplateField>, AppError> {
    let user = who.user_id;
    ctx.db
        .write(move |tx| {
            let t = store::owned(tx, user, id)?;
            parts::add_fields(tx, &Template(id), &body, t.pages(), now())
        })
        .await
}

/// `POST /api/v1/templates/{id}/generate-document`: a DRAFT copy of the template
/// (recipients as the request names them, fields, meta, and a copy of the PDF), created as
/// documents are (DOCUMENT_CREATED queued). Answers its id and recipients.
pub async fn generate(
    ctx: &Context,
    who: &Principal,
    id: i64,
    body: Value,
) -> Result<(i64, Vec<RecipientBrief>), AppError> {
    let user = who.user_id;
    // Check first, so a bad request or a template without a file copies nothing.
    let b = body.clone();
    let source = ctx
        .db
        .read(move |c| {
            let t = store::owned(c, user, id)?;
            let tier = crate::users::store::tier(c, user)?;
            super::parse_generate(&b, &store::base(c, &t)?, tier)?;
            t.blob_id
                .and_then(|b| BlobId::parse(&b))
                .ok_or_else(super::no_file)
        })
        .await?;
    let blobs = ctx.blobs.clone();
    let src = source.clone();
    let copy = tokio::task::spawn_blocking(move || super::copy_blob(&blobs, &src))
        .await
        .map_err(|e| AppError::internal(format!("copy task failed: {e}")))??;
    let app = ctx.app.clone();
    let data_id = crate::documents::new_data_id();
    let file = copy.clone();
    let result = ctx
        .db
        .write(move |tx| {
            let tier = crate::users::store::tier(tx, user)?;
            let t = now();
            let source = source.as_str();
            let (doc, recipients) =
                super::generate(tx, user, id, &body, tier, source, &file, &data_id, &app, t)?;
            let view = crate::documents::store::view(tx, user, doc, &app)?;
            let owner = crate::documents::store::owner_email(tx, user)?;
            let actor = crate::documents::audit::Actor {
                label: owner,
                ..Default::default()
            };
            crate::signing::notify::created(tx, &view, &actor, t)?;
            Ok((doc, recipients))
        })
        .await;
    ctx.workers.webhooks.wake();
    match result {
        Ok((doc, recipients)) => {
            let briefs: Vec<RecipientBrief> = recipients.iter().map(RecipientBrief::from).collect();
            Ok((doc, briefs.links_shown_if(who.sees_signing_links())))
        }
        Err(e) => {
            ctx.discard_blob(copy.id).await;
            Err(e)
        }
    }
}
