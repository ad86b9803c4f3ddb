//! Sending a document and what follows it, for its owner: send (with the
//! document's `formValues` filled into its PDF first), resend, download and the audit log. Each
//! owns its transaction and the notices it queues, and wakes the workers that send them.

use serde_json::json;

use super::flow::{self, Origin};
use super::notify;
use crate::blob::store::StoredBlob;
use crate::context::Context;
use crate::db::now;
use crate::documents::audit::{self, Actor, Event};
use crate::documents::{DocumentView, SigningLinks, Status, store};
use crate::error::AppError;
use crate::oauth::principal::Principal;
use crate::webhooks::Event as Hook;

/// What a send asks besides sending.
#[derive(Debug, Clone, Copy)]
pub struct SendOptions {
    /// False: nobody is e-mailed a signing request now (the owner hands out the links).
    pub send_email: bool,
    /// Some: turns the completion e-mails to recipients and to the owner on or off
    /// (`emailSettings.documentCompleted` and `ownerDocumentCompleted`), stored with the meta.
    pub completion_emails: Option<bool>,
}

/// `POST /api/v1/documents/{id}/send`: DRAFT to PENDING; the first recipients are e-mailed
/// unless `send_email` is false or the document's e-mail settings say not to (then the owner
/// hands out the signing links). A PENDING document stays as it is: those whose turn it is
/// and who were never e-mailed are e-mailed now (same conditions), as the signing service
/// does.
pub async fn send(
    ctx: &Context,
    who: &Principal,
    id: i64,
    opts: SendOptions,
    origin: Origin,
) -> Result<DocumentView, AppError> {
    let SendOptions {
        send_email,
        completion_emails,
    } = opts;
    let (user, app) = (who.user_id, ctx.app.clone());
    let filled = fill_form(ctx, user, id).await?;
    let replacement = filled.clone();
    let result = ctx
        .db
        .write(move |tx| {
            let doc = store::owned(tx, user, id)?;
            if let Some(on) = completion_emails
                && matches!(doc.status, Status::Draft | Status::Pending)
            {
                let mut meta = doc.meta.clone();
                meta.email_settings.document_completed = on;
                meta.email_settings.owner_document_completed = on;
                store::set_meta(tx, id, &meta, now())?;
            }
            if doc.status == Status::Pending {
                let due = flow::send_again(tx, id)?;
                if send_email {
                    notify::signing_requests(tx, id, &due, &app, now())?;
                }
                return Ok((DocumentView::of(&store::load(tx, id)?, &app), None));
            }
            let owner = audit::owner_email(tx, user)?;
            let replaced = match &replacement {
                Some((blob, sizes)) => store::set_file(tx, id, blob, sizes, now())?,
                None => None,
            };
            let first = flow::send(tx, id, &owner, &origin, now())?;
            if send_email {
                notify::signing_requests(tx, id, &first, &app, now())?;
            }
            notify::event(tx, id, Hook::DocumentSent, &app, now())?;
            Ok((DocumentView::of(&store::load(tx, id)?, &app), replaced))
        })
        .await;
    // The file that is no longer the document's: the uploaded one once the filled one took its
    // place, or the filled one if sending failed.
    let unused = match (&result, filled) {
        (Ok((_, replaced)), _) => replaced.clone(),
        (Err(_), Some((blob, _))) => Some(blob.id.to_string()),
        (Err(_), None) => None,
    };
    if let Some(b) = unused.and_then(|b| crate::blob::BlobId::parse(&b)) {
        ctx.discard_blob(b).await;
    }
    let (view, _) = result?;
    ctx.workers.notices();
    Ok(view.links_shown_if(who.sees_signing_links()))
}

/// The document's `formValues` set on its PDF's form fields, as a new blob with the page sizes
/// (`None` when there are no form values or the document is not a draft, which `send` refuses
/// anyway). Names the PDF's form does not have: 400 listing them.
async fn fill_form(
    ctx: &Context,
    user: i64,
    id: i64,
) -> Result<Option<(StoredBlob, String)>, AppError> {
    let found = ctx.db.read(move |c| store::owned(c, user, id)).await?;
    let (Some(blob), Some(values)) = (found.blob_id, found.form_values) else {
        return Ok(None);
    };
    if found.status != Status::Draft || values.is_empty() {
        return Ok(None);
    }
    let blob = crate::blob::BlobId::parse(&blob)
        .ok_or_else(|| AppError::internal("a document's blob id is malformed"))?;
    let blobs = ctx.blobs.clone();
    let stored = tokio::task::spawn_blocking(move || -> Result<_, AppError> {
        let original = blobs.read(&blob)?;
        let filled = crate::pdf::forms::fill(&original, &values).map_err(|e| match e {
            crate::pdf::forms::FillError::Unknown(_) => AppError::bad_request(format!(
                "formValues: {e}; the form's fields are: {}",
                crate::pdf::forms::field_names(&original)
                    .unwrap_or_default()
                    .join(", ")
            )),
            crate::pdf::forms::FillError::Pdf(p) => {
                AppError::bad_request(format!("formValues cannot be applied: {p}"))
            }
        })?;
        Ok(blobs.put(&filled)?)
    })
    .await
    .map_err(|e| AppError::internal(format!("form task failed: {e}")))??;
    let sizes = found.page_sizes.unwrap_or_default();
    let sizes = serde_json::to_string(&sizes).unwrap_or_else(|_| "[]".into());
    Ok(Some((stored, sizes)))
}

/// `POST /api/v1/documents/{id}/resend`: e-mails again those of `recipients` whose turn it is
/// and who have not finished; answers who was reminded (nobody when the document's e-mail
/// settings turn signing requests off). An empty list reminds nobody (the
/// document must still be the caller's and PENDING).
pub async fn resend(
    ctx: &Context,
    who: &Principal,
    id: i64,
    recipients: Vec<i64>,
) -> Result<Vec<i64>, AppError> {
    let (user, app) = (who.user_id, ctx.app.clone());
    let reminded = ctx
        .db
        .write(move |tx| {
            store::owned(tx, user, id)?;
            let due = flow::resendable(tx, id, &recipients)?;
            notify::reminders(tx, id, &due, &app, now())
        })
        .await?;
    ctx.workers.notices();
    Ok(reminded)
}

/// A file to hand out: its blob id and the name it is served under.
#[derive(Debug)]
pub struct Download {
    pub blob: String,
    pub name: String,
}

/// `GET /api/v1/documents/{id}/download`: the sealed PDF once COMPLETED, or the uploaded file
/// (`original`); the download is audited.
pub async fn download(
    ctx: &Context,
    who: &Principal,
    id: i64,
    original: bool,
    origin: Origin,
) -> Result<Download, AppError> {
    let user = who.user_id;
    let (blob, title) = ctx
        .db
        .write(move |tx| {
            let files = store::owned(tx, user, id)?;
            let blob = if original {
                files
                    .blob_id
                    .ok_or_else(|| AppError::wrong_state("no PDF has been uploaded yet"))?
            } else if files.status == Status::Completed {
                files
                    .sealed_blob_id
                    .ok_or_else(|| AppError::internal("completed without a sealed file"))?
            } else {
                return Err(AppError::wrong_state(format!(
                    "the document is {}; the signed PDF exists once it is COMPLETED (use ?original=true for the uploaded file)",
                    files.status.as_str()
                )));
            };
            let owner = audit::owner_email(tx, user)?;
            let actor = Actor {
                label: owner,
                recipient_id: None,
                ip: origin.ip,
                user_agent: origin.user_agent,
            };
            let data = json!({"original": original});
            audit::record(tx, id, Event::Downloaded, &actor, &data, now())?;
            Ok((blob, files.title))
        })
        .await?;
    Ok(Download {
        blob,
        name: crate::documents::file_name(&title, !original),
    })
}

/// `GET /api/v1/documents/{id}/audit-log`: the document's events, oldest first.
pub async fn audit_log(
    ctx: &Context,
    who: &Principal,
    id: i64,
) -> Result<Vec<audit::AuditEvent>, AppError> {
    let user = who.user_id;
    ctx.db
        .read(move |c| {
            store::owned(c, user, id)?;
            audit::list(c, id)
        })
        .await
}
