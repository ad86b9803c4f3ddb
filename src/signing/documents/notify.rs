//! Who is told what, queued in the caller's transaction (so a change and its notices commit or
//! roll back together): e-mails through `mail`, and document events for `webhooks`.
//!
//! Webhook events: DOCUMENT_SENT (sent), DOCUMENT_OPENED (a recipient's first visit),
//! DOCUMENT_RECIPIENT_COMPLETED (any recipient finished: signed, approved or viewed),
//! DOCUMENT_SIGNED (a SIGNER signed), DOCUMENT_COMPLETED (sealed), DOCUMENT_REJECTED,
//! DOCUMENT_CANCELLED, DOCUMENT_SEAL_FAILED (the first failed sealing attempt of a finished
//! document; its `sealing` says why); DOCUMENT_CREATED is queued where documents are created.

use crate::core::db::Conn;
use crate::core::ids::{DocumentId, RecipientId};

use crate::core::error::AppError;
use crate::outbox::webhooks::Event;
use crate::signing::documents::model::Document;
use crate::signing::documents::recipients::SendStatus;

use crate::core::i18n::Lang;
use crate::outbox::mail::store::Mail;
use crate::signing::documents::audit_data::Via;
use crate::signing::documents::recipients::Role;
use crate::{outbox::mail::Kind, outbox::mail::NewMail, outbox::mail::Status};
use crate::{outbox::mail::compose, outbox::mail::compose::SigningRequest};
use crate::{signing::documents::DocumentView, signing::documents::store};
use crate::{signing::documents::audit, signing::documents::audit::Actor};
use crate::{signing::documents::audit::Happened, signing::documents::audit_data};

/// What the messages about a document need: the document, its sender's name and e-mail (the
/// member who made it, for a team's), and the sender its recipients are shown
/// (`team_settings::sender_shown`).
struct About {
    doc: Document,
    sender_name: String,
    sender_email: String,
    shown_as: String,
}

fn about(tx: &Conn, doc: DocumentId) -> Result<About, AppError> {
    let doc = store::load(tx, doc)?;
    let owner = crate::identity::users::store::get(tx, doc.user_id)?
        .ok_or_else(|| AppError::internal("a document without its owner"))?;
    let shown_as =
        super::team_settings::sender_shown(tx, &owner.name, doc.team_id, doc.meta.language)?;
    Ok(About {
        doc,
        sender_name: owner.name,
        sender_email: owner.email,
        shown_as,
    })
}

/// What a recipient is asked to do, in a sentence and on the button of the signing request.
fn action(role: Role) -> compose::Action {
    match role {
        Role::Signer => compose::Action::Sign,
        Role::Approver => compose::Action::Approve,
        Role::Viewer | Role::Cc => compose::Action::View,
        Role::Assistant => compose::Action::Prepare,
    }
}

/// A message has left (`SENT`) or was filed (`OUTBOX`), in the transaction that marks it so
/// (`mail::worker::OnSent`): for a signing request, the recipient's `sendStatus` becomes SENT
/// and an EMAILED event is recorded.
pub fn mail_sent(tx: &Conn, m: &Mail, status: Status, now: i64) -> Result<(), AppError> {
    if m.kind != Kind::SigningRequest {
        return Ok(());
    }
    let (Some(rid), Some(doc)) = (m.recipient_id, m.document_id) else {
        return Ok(());
    };
    store::recipients::mark_sent(tx, rid, now)?;
    let via = match status {
        Status::Sent => Via::Smtp,
        _ => Via::Outbox,
    };
    let actor = Actor {
        recipient_id: Some(rid),
        ..Actor::system()
    };
    let emailed = audit_data::Emailed {
        mail_id: m.id,
        to: m.to.clone(),
        via,
    };
    audit::record(tx, doc, &actor, &Happened::Emailed(emailed), now)
}

/// A message about document `doc`.
fn mail(doc: DocumentId, kind: Kind, to: &str, content: compose::Composed) -> NewMail {
    let mut m = NewMail::new(kind, to, content);
    m.document_id = Some(doc);
    m
}

fn queue(tx: &Conn, m: NewMail, now: i64) -> Result<(), AppError> {
    crate::outbox::mail::store::enqueue(tx, &m, now)?;
    Ok(())
}

/// Queues the signing-request e-mail for each of `recipients` of document `doc`, unless the
/// document's e-mail settings turn signing requests off (`distributionMethod: NONE` or
/// `emailSettings.recipientSigningRequest: false`: the owner hands out the links).
pub fn signing_requests(
    tx: &Conn,
    doc: DocumentId,
    recipients: &[RecipientId],
    app_url: &str,
    now: i64,
) -> Result<(), AppError> {
    requests(tx, doc, recipients, app_url, now, false).map(drop)
}

/// Queues a reminder (a signing request whose subject starts "Reminder: ") for each of
/// `recipients`, under the same settings; answers who was e-mailed.
pub fn reminders(
    tx: &Conn,
    doc: DocumentId,
    recipients: &[RecipientId],
    app_url: &str,
    now: i64,
) -> Result<Vec<RecipientId>, AppError> {
    requests(tx, doc, recipients, app_url, now, true)
}

fn requests(
    tx: &Conn,
    doc: DocumentId,
    recipients: &[RecipientId],
    app_url: &str,
    now: i64,
    reminder: bool,
) -> Result<Vec<RecipientId>, AppError> {
    if recipients.is_empty() {
        return Ok(Vec::new());
    }
    let a = about(tx, doc)?;
    if !a.doc.meta.effective_email().recipient_signing_request {
        return Ok(Vec::new());
    }
    let mut queued = Vec::new();
    for r in a
        .doc
        .recipients
        .iter()
        .filter(|r| recipients.contains(&r.id))
    {
        let link = format!("{app_url}/sign/{}", r.token);
        // The sender's own words, with the signing service's placeholders for this recipient.
        let own = |s: &Option<String>| {
            s.as_deref()
                .map(|s| compose::placeholders(s, &r.name, &r.email, &a.doc.title))
        };
        let (subject, message) = (own(&a.doc.meta.subject), own(&a.doc.meta.message));
        let meta = &a.doc.meta;
        let deadline = r.expires_at.map(|at| {
            let date =
                super::dates::format_date_in(at, &meta.timezone, &meta.date_format, meta.language);
            format!("{date} ({})", meta.timezone)
        });
        let mut content = SigningRequest {
            title: &a.doc.title,
            sender_name: &a.shown_as,
            recipient_name: &r.name,
            action: action(r.role),
            subject: subject.as_deref(),
            message: message.as_deref(),
            link: &link,
            deadline: deadline.as_deref(),
            lang: a.doc.meta.language,
        }
        .compose();
        if reminder {
            let tr = a.doc.meta.language.tr();
            content.subject = tr.t1("mail-reminder-subject", "subject", &content.subject);
        }
        let mut m = mail(doc, Kind::SigningRequest, &r.email, content);
        m.recipient_id = Some(r.id);
        queue(tx, m, now)?;
        queued.push(r.id);
    }
    Ok(queued)
}

/// The sealed PDF, attached, to every recipient (unless `emailSettings.documentCompleted` is
/// off or the document is not distributed by e-mail) and to the owner (unless
/// `ownerDocumentCompleted` is off; once only when the owner is also a recipient); and
/// DOCUMENT_COMPLETED.
pub fn completed(
    tx: &Conn,
    doc: DocumentId,
    sealed_blob: &str,
    app_url: &str,
    now: i64,
) -> Result<(), AppError> {
    let a = about(tx, doc)?;
    let file = crate::signing::documents::file_name(&a.doc.title, true);
    let settings = a.doc.meta.effective_email();
    let mut sent_to: Vec<String> = Vec::new();
    let to_recipients = a
        .doc
        .recipients
        .iter()
        .filter(|_| settings.document_completed);
    for r in to_recipients {
        if sent_to.contains(&r.email) {
            continue;
        }
        let content = compose::Completed {
            title: &a.doc.title,
            recipient_name: &r.name,
            lang: a.doc.meta.language,
        }
        .compose();
        let attach = Some((sealed_blob.to_string(), file.clone()));
        let mut m = mail(doc, Kind::Completed, &r.email, content);
        m.attachment = attach;
        queue(tx, m, now)?;
        sent_to.push(r.email.clone());
    }
    if settings.owner_document_completed && !sent_to.contains(&a.sender_email) {
        let content = compose::Completed {
            title: &a.doc.title,
            recipient_name: &a.sender_name,
            lang: Lang::En,
        }
        .compose();
        let attach = Some((sealed_blob.to_string(), file));
        let mut m = mail(doc, Kind::Completed, &a.sender_email, content);
        m.attachment = attach;
        queue(tx, m, now)?;
    }
    event(tx, doc, Event::DocumentCompleted, app_url, now)
}

/// Tells the owner that sealing failed (`error`, as they may read it) and when it is retried
/// (`next_attempt`, unix seconds); and DOCUMENT_SEAL_FAILED. Called for the first failure only.
pub fn seal_failed(
    tx: &Conn,
    doc: DocumentId,
    error: &str,
    next_attempt: i64,
    app_url: &str,
    now: i64,
) -> Result<(), AppError> {
    let a = about(tx, doc)?;
    let content = compose::SealFailed {
        title: &a.doc.title,
        owner_name: &a.sender_name,
        document_id: doc,
        error,
        next_attempt: &crate::core::timefmt::human(next_attempt),
    }
    .compose();
    queue(
        tx,
        mail(doc, Kind::SealFailed, &a.sender_email, content),
        now,
    )?;
    event(tx, doc, Event::DocumentSealFailed, app_url, now)
}

/// Tells the owner and the other recipients who the rejection came from and why; and
/// DOCUMENT_REJECTED.
pub fn rejected(
    tx: &Conn,
    doc: DocumentId,
    by: RecipientId,
    reason: &str,
    app_url: &str,
    now: i64,
) -> Result<(), AppError> {
    let a = about(tx, doc)?;
    let people = &a.doc.recipients;
    let by_name = people
        .iter()
        .find(|r| r.id == by)
        .map(|r| format!("{} <{}>", r.name, r.email))
        .unwrap_or_default();
    let message = |recipient_name: &str, lang: Lang| {
        compose::Rejected {
            title: &a.doc.title,
            recipient_name,
            by: &by_name,
            reason,
            lang,
        }
        .compose()
    };
    for r in people.iter().filter(|r| r.id != by) {
        let content = message(&r.name, a.doc.meta.language);
        queue(tx, mail(doc, Kind::Rejected, &r.email, content), now)?;
    }
    let m = mail(
        doc,
        Kind::Rejected,
        &a.sender_email,
        message(&a.sender_name, Lang::En),
    );
    queue(tx, m, now)?;
    event(tx, doc, Event::DocumentRejected, app_url, now)
}

/// Tells the owner that `by`, who came through a template's direct link, has signed the
/// document it made, and who is asked now (`next`). Sent whatever the e-mail settings say: the
/// owner learns of the document only so.
pub fn direct_link_signed(
    tx: &Conn,
    doc: DocumentId,
    by: RecipientId,
    next: &[RecipientId],
    app_url: &str,
    now: i64,
) -> Result<(), AppError> {
    let a = about(tx, doc)?;
    let people = &a.doc.recipients;
    let named =
        |r: &crate::signing::documents::model::Recipient| format!("{} <{}>", r.name, r.email);
    let by = people
        .iter()
        .find(|r| r.id == by)
        .map(named)
        .unwrap_or_default();
    let next: Vec<String> = people
        .iter()
        .filter(|r| next.contains(&r.id))
        .map(named)
        .collect();
    let link = format!("{app_url}/documents/{doc}");
    let content = compose::DirectLinkSigned {
        title: &a.doc.title,
        owner_name: &a.sender_name,
        by: &by,
        next: &next,
        link: &link,
    }
    .compose();
    queue(
        tx,
        mail(doc, Kind::DirectLinkSigned, &a.sender_email, content),
        now,
    )
}

/// Tells the recipients who were already e-mailed that the document was cancelled (unless
/// `emailSettings.documentDeleted` is off); and DOCUMENT_CANCELLED.
pub fn cancelled(tx: &Conn, doc: DocumentId, app_url: &str, now: i64) -> Result<(), AppError> {
    let a = about(tx, doc)?;
    let tell = a.doc.meta.effective_email().document_deleted;
    let emailed = a
        .doc
        .recipients
        .iter()
        .filter(|r| tell && r.send_status == SendStatus::Sent);
    for r in emailed {
        let content = compose::Cancelled {
            title: &a.doc.title,
            recipient_name: &r.name,
            sender_name: &a.shown_as,
            lang: a.doc.meta.language,
        }
        .compose();
        queue(tx, mail(doc, Kind::Cancelled, &r.email, content), now)?;
    }
    event(tx, doc, Event::DocumentCancelled, app_url, now)
}

/// A document was created (through the API or from a template): the CREATED audit event and
/// the DOCUMENT_CREATED webhook, whose payload is `view`.
pub fn created(
    tx: &Conn,
    view: &DocumentView,
    actor: &crate::signing::documents::audit::Actor,
    now: i64,
) -> Result<(), AppError> {
    let title = view.title.clone();
    let created = Happened::Created(audit_data::Created { title });
    audit::record(tx, view.id, actor, &created, now)?;
    crate::signing::documents::webhook::enqueue(tx, Event::DocumentCreated, view, now)
}

/// Queues webhook `name` for the document's owner, with the document as the API shows it.
pub fn event(
    tx: &Conn,
    doc: DocumentId,
    name: Event,
    app_url: &str,
    now: i64,
) -> Result<(), AppError> {
    let view = DocumentView::of(&store::load(tx, doc)?, app_url);
    crate::signing::documents::webhook::enqueue(tx, name, &view, now)
}

/// The owner gave recipient `recipient` of document `doc` a new address, `from` -> `to`
/// (`documents::store::recipients::update` already gave it a new token): records
/// RECIPIENT_CHANGED and withdraws the signing requests still queued for the old address.
/// Returns whether the new address is to be e-mailed its link now: the document is PENDING and
/// the old address had been invited by e-mail (as the recipient's turn had come).
pub fn readdressed(
    tx: &Conn,
    doc: DocumentId,
    recipient: RecipientId,
    (from, to): (&str, &str),
    actor: &Actor,
    now: i64,
) -> Result<bool, AppError> {
    let changed = audit_data::Readdressed {
        from: from.to_string(),
        recipient_id: recipient,
        to: to.to_string(),
    };
    audit::record(tx, doc, actor, &Happened::RecipientChanged(changed), now)?;
    let invited = crate::outbox::mail::store::was_invited(tx, recipient)?;
    crate::outbox::mail::store::withdraw_signing_requests(
        tx,
        recipient,
        "withdrawn: the recipient's address changed",
    )?;
    Ok(invited && store::load(tx, doc)?.status == super::Status::Pending)
}

/// Recipient `recipient`'s time to act passed before they finished: records RECIPIENT_EXPIRED,
/// tells the owner (unless `emailSettings.ownerRecipientExpired` is off) and sends
/// RECIPIENT_EXPIRED to the webhooks. Called once per deadline, by whoever claimed it.
pub fn recipient_expired(
    tx: &Conn,
    doc: DocumentId,
    recipient: RecipientId,
    app_url: &str,
    now: i64,
) -> Result<(), AppError> {
    let a = about(tx, doc)?;
    let r = a
        .doc
        .recipients
        .iter()
        .find(|r| r.id == recipient)
        .ok_or_else(|| AppError::internal("an expired recipient not on its document"))?;
    let ended = r.expires_at.unwrap_or(now);
    let actor = Actor {
        recipient_id: Some(r.id),
        ..Actor::system()
    };
    let expired = audit::Expired {
        email: r.email.clone(),
        expires_at: crate::core::timefmt::iso8601(ended),
    };
    audit::record(tx, doc, &actor, &Happened::Expired(expired), now)?;
    if a.doc.meta.email_settings.owner_recipient_expired {
        let who = if r.name.is_empty() {
            r.email.clone()
        } else {
            format!("{} <{}>", r.name, r.email)
        };
        let link = format!("{app_url}/documents/{doc}");
        let content = compose::RecipientExpired {
            title: &a.doc.title,
            owner_name: &a.sender_name,
            who: &who,
            ended: &crate::core::timefmt::human(ended),
            link: &link,
        }
        .compose();
        let m = mail(doc, Kind::RecipientExpired, &a.sender_email, content);
        queue(tx, m, now)?;
    }
    event(tx, doc, Event::RecipientExpired, app_url, now)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_role_is_asked_in_its_own_words() {
        assert_eq!(action(Role::Signer), compose::Action::Sign);
        assert_eq!(action(Role::Approver), compose::Action::Approve);
        assert_eq!(action(Role::Viewer), compose::Action::View);
        assert_eq!(action(Role::Cc), compose::Action::View);
        assert_eq!(action(Role::Assistant), compose::Action::Prepare);
    }
}
