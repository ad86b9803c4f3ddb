//! Sending a document and what follows it, for its owner: send (with the
//! document's `formValues` filled into its PDF first), resend, download and the audit log. Each
//! owns its transaction and the notices it queues, and wakes the workers that send them.

use crate::core::ids::{DocumentId, RecipientId};
use crate::teams::access;

use super::flow::{self, Origin};
use crate::core::blob::store::StoredBlob;
use crate::core::context::Context;
use crate::core::db::now;
use crate::core::error::AppError;
use crate::identity::principal::Principal;
use crate::outbox::webhooks::Event as Hook;
use crate::signing::documents::notify;
use crate::{
    signing::documents::DocumentView, signing::documents::SigningLinks, signing::documents::Status,
    signing::documents::store,
};
use crate::{
    signing::documents::audit, signing::documents::audit::Actor, signing::documents::audit_data,
};

/// The command to send a document: what a send asks besides sending.
#[derive(Debug, Clone, Copy)]
pub struct SendDocument {
    /// False: nobody is e-mailed a signing request now (the owner hands out the links).
    pub send_email: bool,
    /// Some: turns the completion e-mails to recipients and to the owner on or off
    /// (`emailSettings.documentCompleted` and `ownerDocumentCompleted`), stored with the meta.
    pub completion_emails: Option<bool>,
    /// True: a `formValues` name the PDF's form has no field for is a 400 and nothing is sent.
    /// False (the signing service's way): such names are left out, and the audit log's SENT
    /// event lists them.
    pub strict_form_values: bool,
}

impl Default for SendDocument {
    /// A send with nothing asked: the recipients e-mailed, the completion e-mails as the
    /// document says, names the form lacks left out.
    fn default() -> Self {
        SendDocument {
            send_email: true,
            completion_emails: None,
            strict_form_values: false,
        }
    }
}

/// Most recipients one resend may name.
pub const MAX_RESEND: usize = 100;

/// The command to remind recipients: at most `MAX_RESEND` of them.
#[derive(Debug, Clone)]
pub struct Resend {
    pub recipients: Vec<RecipientId>,
}

/// `POST /api/v1/documents/{id}/send`: DRAFT to PENDING; the first recipients are e-mailed
/// unless `send_email` is false or the document's e-mail settings say not to (then the owner
/// hands out the signing links). A PENDING document stays as it is: those whose turn it is
/// and who were never e-mailed are e-mailed now (same conditions), as the signing service
/// does.
pub async fn send(
    ctx: &Context,
    who: &Principal,
    id: DocumentId,
    command: SendDocument,
    origin: Origin,
) -> Result<DocumentView, AppError> {
    let SendDocument {
        send_email,
        completion_emails,
        strict_form_values,
    } = command;
    let (user, caller, app) = (who.user_id, who.clone(), ctx.app.clone());
    let disk = ctx.disk.clone();
    let form = fill_form(ctx, who.clone(), id, strict_form_values).await?;
    let sent_data = form.as_ref().map(FormFill::audit).unwrap_or_default();
    let filled = form.and_then(|f| f.file);
    let replacement = filled.clone();
    let result = ctx
        .db
        .write(move |tx| {
            let doc = store::owned(tx, &access::owner(tx, &caller)?, id)?;
            if let Some(on) = completion_emails
                && matches!(doc.status, Status::Draft | Status::Pending)
            {
                let mut meta = doc.meta.clone();
                meta.email_settings.document_completed = on;
                meta.email_settings.owner_document_completed = on;
                store::set_meta(tx, id, &meta, now())?;
            }
            if doc.status == Status::Pending {
                let due = flow::send_again(tx, id, now())?;
                if send_email {
                    notify::signing_requests(tx, id, &due, &app, now())?;
                }
                return Ok((DocumentView::of(&store::load(tx, id)?, &app), None));
            }
            // Sending a draft starts new work (its signing ends in a sealed copy); a document
            // already out for signing is mailed again above whatever the disk holds.
            disk.admit_new_work()?;
            let owner = audit::owner_email(tx, user)?;
            let replaced = match &replacement {
                Some((blob, sizes)) => {
                    store::set_file(tx, store::Parent::Document(id), blob, sizes, now())?
                }
                None => None,
            };
            let first = flow::send(tx, id, &owner, &origin, sent_data, now())?;
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
    if let Some(b) = unused.and_then(|b| crate::core::blob::BlobId::parse(&b)) {
        ctx.discard_blob(b).await;
    }
    let (view, _) = result?;
    ctx.workers.notices();
    Ok(view.links_shown_if(who.sees_signing_links()))
}

/// What filling the form did: the filled file as a new blob with the page sizes (`None` when
/// no name matched, so the uploaded file is sent as it is), and the names set and left out.
#[derive(Debug)]
struct FormFill {
    file: Option<(StoredBlob, String)>,
    matched: Vec<String>,
    unmatched: Vec<String>,
}

impl FormFill {
    /// The SENT event's details: the names set on the form and those left out.
    fn audit(&self) -> audit_data::Sent {
        audit_data::Sent {
            form_values: Some(audit_data::FormValues {
                filled: self.matched.clone(),
                unmatched: self.unmatched.clone(),
            }),
            direct_link: None,
        }
    }
}

/// The document's `formValues` set on its PDF's form fields (`None` when there are no form
/// values or the document is not a draft, which `send` refuses anyway). Names the PDF's form
/// does not have are left out, as the signing service leaves them; when `strict`, they are a
/// 400 listing them and the form's own names.
async fn fill_form(
    ctx: &Context,
    caller: Principal,
    id: DocumentId,
    strict: bool,
) -> Result<Option<FormFill>, AppError> {
    let found = ctx
        .db
        .read(move |c| store::owned(c, &access::owner(c, &caller)?, id))
        .await?;
    let (Some(blob), Some(values)) = (found.blob_id, found.form_values) else {
        return Ok(None);
    };
    if found.status != Status::Draft || values.is_empty() {
        return Ok(None);
    }
    ctx.admit_new_work()?;
    let blob = crate::core::blob::BlobId::parse(&blob)
        .ok_or_else(|| AppError::internal("a document's blob id is malformed"))?;
    let blobs = ctx.blobs.clone();
    let (stored, matched, unmatched) =
        tokio::task::spawn_blocking(move || -> Result<_, AppError> {
            let original = blobs.read(&blob)?;
            let filled = crate::signing::pdf::forms::fill(&original, &values)
                .map_err(|p| AppError::bad_request(format!("formValues cannot be applied: {p}")))?;
            if strict && !filled.unmatched.is_empty() {
                return Err(AppError::bad_request(format!(
                    "formValues: the PDF has no form fields named {}; the form's fields are: {} \
                 (strictFormValues=true; leave it out to send without them)",
                    filled.unmatched.join(", "),
                    crate::signing::pdf::forms::field_names(&original)
                        .unwrap_or_default()
                        .join(", ")
                )));
            }
            let stored = filled.pdf.map(|pdf| blobs.put(&pdf)).transpose()?;
            Ok((stored, filled.matched, filled.unmatched))
        })
        .await
        .map_err(|e| AppError::internal(format!("form task failed: {e}")))??;
    let sizes = found.page_sizes.unwrap_or_default();
    let sizes = serde_json::to_string(&sizes).unwrap_or_else(|_| "[]".into());
    Ok(Some(FormFill {
        file: stored.map(|b| (b, sizes)),
        matched,
        unmatched,
    }))
}

/// `POST /api/v1/documents/{id}/resend`: e-mails again those of `recipients` whose turn it is
/// and who have not finished; answers who was reminded (nobody when the document's e-mail
/// settings turn signing requests off). An empty list reminds nobody (the
/// document must still be the caller's and PENDING).
pub async fn resend(
    ctx: &Context,
    who: &Principal,
    id: DocumentId,
    Resend { recipients }: Resend,
) -> Result<Vec<RecipientId>, AppError> {
    let (caller, app) = (who.clone(), ctx.app.clone());
    let reminded = ctx
        .db
        .write(move |tx| {
            let d = store::owned(tx, &access::owner(tx, &caller)?, id)?;
            let due = flow::resendable(tx, id, &recipients)?;
            crate::signing::workflow::deadlines::refresh(tx, &d, &due, now())?;
            notify::reminders(tx, id, &due, &app, now())
        })
        .await?;
    ctx.workers.notices();
    Ok(reminded)
}

/// `DELETE /api/v1/documents/{id}/reminders` and the document page's "Stop reminders": no
/// more automatic reminders for the caller's document; answers how many were scheduled.
pub async fn stop_reminders(
    ctx: &Context,
    who: &Principal,
    id: DocumentId,
) -> Result<usize, AppError> {
    let caller = who.clone();
    ctx.db
        .write(move |tx| {
            let d = store::owned(tx, &access::owner(tx, &caller)?, id)?;
            crate::signing::workflow::deadlines::stop_reminders(tx, &d, now())
        })
        .await
}

/// When each recipient of the caller's document `id` gets their next automatic reminder.
pub async fn next_reminders(
    ctx: &Context,
    who: &Principal,
    id: DocumentId,
) -> Result<Vec<(RecipientId, i64)>, AppError> {
    let caller = who.clone();
    ctx.db
        .read(move |c| {
            store::owned(c, &access::owner(c, &caller)?, id)?;
            store::timers::reminders_of(c, id)
        })
        .await
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
    id: DocumentId,
    original: bool,
    origin: Origin,
) -> Result<Download, AppError> {
    let (user, caller) = (who.user_id, who.clone());
    let (blob, title) = ctx
        .db
        .write(move |tx| {
            let files = store::owned(tx, &access::owner(tx, &caller)?, id)?;
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
            let data = audit::Happened::Downloaded(audit_data::Downloaded { original });
            audit::record(tx, id, &actor, &data, now())?;
            Ok((blob, files.title))
        })
        .await?;
    Ok(Download {
        blob,
        name: crate::signing::documents::file_name(&title, !original),
    })
}

/// The most events one page of the audit log holds (and how many it holds unless asked for
/// fewer): the answer stays bounded however long the log grows (downloads, reminders).
pub const AUDIT_PAGE_MAX: i64 = 500;

/// `GET /api/v1/documents/{id}/audit-log?page&perPage`: page `page` (from 1) of `per_page`
/// events, oldest first, and the number of pages.
pub async fn audit_log(
    ctx: &Context,
    who: &Principal,
    id: DocumentId,
    (page, per_page): (i64, i64),
) -> Result<(Vec<audit::AuditEvent>, i64), AppError> {
    let caller = who.clone();
    let per_page = per_page.clamp(1, AUDIT_PAGE_MAX);
    ctx.db
        .read(move |c| {
            store::owned(c, &access::owner(c, &caller)?, id)?;
            let offset = (page.max(1) - 1).saturating_mul(per_page);
            let events = audit::page(c, id, per_page, offset)?;
            let total = audit::count(c, id)?;
            Ok((
                events,
                crate::signing::documents::total_pages(total, per_page),
            ))
        })
        .await
}
