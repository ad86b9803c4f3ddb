//! The transitions, each run by the caller inside one write transaction: it checks its
//! precondition (in SQL, through `store`), changes state, records the audit event, and says
//! who must now be told. Mail and webhooks are queued by the caller in the same transaction.

use crate::core::ids::{DocumentId, FieldId, RecipientId};

use super::auth::{Acting, Finishing};
use super::link::Link;
use super::{all_finished, current_turn, parties};
use crate::core::db::Conn;
use crate::core::error::AppError;
use crate::signing::documents::Status;
pub use crate::signing::documents::audit::Origin;
use crate::signing::documents::audit_data::{self, Sent};
use crate::signing::documents::dates::format_date_in;
use crate::signing::documents::fields::FieldType;
use crate::signing::documents::values::{self, Filled, Stored};
use crate::{signing::documents::audit, signing::documents::audit::Happened};
use crate::{signing::documents::recipients::Role, signing::documents::recipients::SigningStatus};
use crate::{signing::documents::store as documents, signing::documents::store::Parent};
use crate::{
    signing::documents::store::fields, signing::documents::store::fields::Value as Entered,
};
use crate::{signing::documents::store::recipients, signing::documents::store::recipients::Finish};

use crate::core::error::FieldError;

fn conflict(msg: impl Into<String>) -> AppError {
    AppError::Conflict(msg.into())
}

/// DRAFT to PENDING, recording SENT with `details` (what filling the form did, the direct
/// link the document came from, or nothing). Returns the recipients to e-mail now. What the document lacks is a 400
/// (the signing service's API v1 answers so), as is a finished or cancelled document; a
/// PENDING one is `send_again`'s.
pub fn send(
    tx: &Conn,
    doc: DocumentId,
    owner_email: &str,
    origin: &Origin,
    details: Sent,
    now: i64,
) -> Result<Vec<RecipientId>, AppError> {
    let d = documents::load(tx, doc)?;
    if d.status != Status::Draft {
        return Err(AppError::wrong_state(format!(
            "the document is {}; only a DRAFT can be sent",
            d.status.as_str()
        )));
    }
    if d.blob_id.is_none() {
        return Err(AppError::wrong_state("upload the PDF before sending"));
    }
    // Uploads refuse a file shorter than the fields need, but fields can predate that check
    // (or come from a template's older file): what cannot be shown or sealed is not sent.
    crate::signing::documents::fields::require_placed(&d.placements(), d.pages().unwrap_or(0))?;
    let people = &d.recipients;
    if people.is_empty() {
        let why = "add at least one recipient before sending";
        return Err(AppError::wrong_state_at(
            why,
            vec![FieldError::new("recipients", why)],
        ));
    }
    let placeholders: Vec<(usize, &str)> = people
        .iter()
        .enumerate()
        .filter(|(_, p)| crate::signing::templates::is_placeholder(&p.email))
        .map(|(i, p)| (i, p.email.as_str()))
        .collect();
    if !placeholders.is_empty() {
        let emails: Vec<&str> = placeholders.iter().map(|(_, e)| *e).collect();
        let why = "a placeholder address: replace it with the recipient's";
        let details = placeholders
            .iter()
            .map(|(i, _)| FieldError::new(format!("recipients[{i}].email"), why))
            .collect();
        return Err(AppError::wrong_state_at(
            format!(
                "replace the placeholder addresses first: {}",
                emails.join(", ")
            ),
            details,
        ));
    }
    let unsigned: Vec<(usize, &str)> = people
        .iter()
        .enumerate()
        .filter(|(_, p)| p.role == Role::Signer && !d.has_signature_field(p.id))
        .map(|(i, p)| (i, p.email.as_str()))
        .collect();
    if !unsigned.is_empty() {
        let emails: Vec<&str> = unsigned.iter().map(|(_, e)| *e).collect();
        let details = unsigned
            .iter()
            .map(|(i, e)| {
                let why = format!("{e} signs but has no signature field");
                FieldError::new(format!("recipients[{i}]"), why)
            })
            .collect();
        return Err(AppError::wrong_state_at(
            format!(
                "every signer needs a SIGNATURE field; missing for {}",
                emails.join(", ")
            ),
            details,
        ));
    }
    d.require_choices()?;
    if !documents::set_status(tx, doc, Status::Draft, Status::Pending, now)? {
        return Err(conflict("the document changed state; try again"));
    }
    let actor = origin.actor(owner_email, None);
    audit::record(tx, doc, &actor, &Happened::Sent(details), now)?;
    let everyone: Vec<RecipientId> = d.recipients.iter().map(|r| r.id).collect();
    super::deadlines::start(tx, &d, &everyone, now)?;
    Ok(current_turn(d.meta.signing_order, &parties(&d.recipients)))
}

/// Sending a document that is already PENDING changes nothing and records nothing (the
/// signing service's API v1 answers it as a success): returns those whose turn it is and who
/// were never asked by e-mail (sent with `sendEmail: false`, or added since), to e-mail now;
/// those added since get their deadline from now.
pub fn send_again(tx: &Conn, doc: DocumentId, now: i64) -> Result<Vec<RecipientId>, AppError> {
    let d = documents::load(tx, doc)?;
    if d.status != Status::Pending {
        return Err(conflict("the document changed state; try again"));
    }
    let mut due = Vec::new();
    for id in current_turn(d.meta.signing_order, &parties(&d.recipients)) {
        if !crate::outbox::mail::store::was_invited(tx, id)? {
            due.push(id);
        }
    }
    super::deadlines::start(tx, &d, &due, now)?;
    Ok(due)
}

/// The recipients among `ids` who may act now and have not finished (for `resend`); 400 unless
/// the document is PENDING, or for an id that is not one of its recipients.
pub fn resendable(
    tx: &Conn,
    doc: DocumentId,
    ids: &[RecipientId],
) -> Result<Vec<RecipientId>, AppError> {
    let d = documents::load(tx, doc)?;
    if d.status != Status::Pending {
        return Err(AppError::wrong_state(format!(
            "the document is {}; only a PENDING document's recipients can be reminded",
            d.status.as_str()
        )));
    }
    let parties = parties(&d.recipients);
    let unknown: Vec<String> = ids
        .iter()
        .filter(|id| !parties.iter().any(|p| p.id == **id))
        .map(RecipientId::to_string)
        .collect();
    if !unknown.is_empty() {
        return Err(AppError::bad_request(format!(
            "not recipients of this document: {}",
            unknown.join(", ")
        )));
    }
    let turn = current_turn(d.meta.signing_order, &parties);
    Ok(ids.iter().copied().filter(|id| turn.contains(id)).collect())
}

/// 409 unless the document is PENDING (acting on a finished or cancelled document; the page
/// itself shows a cancelled document's link as 410 Gone); 410 `recipient_expired` once the
/// recipient's time to act has passed at `now` (`link` is read in the action's own
/// transaction, so an action racing the deadline cannot slip past it).
pub fn require_usable(link: &Link, now: i64) -> Result<(), AppError> {
    match link.document.status {
        Status::Pending if link.me.expired(now) => Err(AppError::RecipientExpired(format!(
            "your time to act on this document ended {}; ask the sender to send it again",
            crate::core::timefmt::human(link.me.expires_at.unwrap_or(now))
        ))),
        Status::Pending => Ok(()),
        Status::Cancelled => Err(conflict("this document was cancelled by its sender")),
        Status::Draft => Err(AppError::not_found("signing link")),
        other @ (Status::Completed | Status::Rejected) => Err(conflict(format!(
            "this document is {} and can no longer be signed",
            other.as_str().to_lowercase()
        ))),
    }
}

/// 409 unless `link`'s recipient may act now (410 once their time has passed).
pub(super) fn require_turn(link: &Link, now: i64) -> Result<(), AppError> {
    require_usable(link, now)?;
    if link.me.role == Role::Cc {
        return Err(conflict("you receive a copy; there is nothing to sign"));
    }
    if link.me.signing_status != SigningStatus::NotSigned {
        return Err(conflict(format!(
            "you have already {} this document",
            if link.me.signing_status == SigningStatus::Rejected {
                "rejected"
            } else {
                "finished"
            }
        )));
    }
    let parties = parties(&link.document.recipients);
    if !current_turn(link.document.meta.signing_order, &parties).contains(&link.me.id) {
        return Err(conflict(
            "it is not your turn yet: you will get an e-mail when it is",
        ));
    }
    Ok(())
}

/// First visit of a link: OPENED, once.
pub fn open(tx: &Conn, link: &Link, origin: &Origin, now: i64) -> Result<bool, AppError> {
    let first = recipients::mark_opened(tx, link.me.id, now)?;
    if first {
        let actor = origin.actor(&link.me.email, Some(link.me.id));
        audit::record(tx, link.document.id, &actor, &Happened::Opened, now)?;
    }
    Ok(first)
}

/// Stores a value for one of the recipient's fields, or, for an ASSISTANT, for one of the
/// fields they may fill in for the recipients after them (`assistable`).
pub fn fill(
    tx: &Conn,
    link: &Link,
    field: FieldId,
    value: &Filled,
    acting: &Acting<'_>,
    now: i64,
) -> Result<(), AppError> {
    let f = fillable(link, field, acting, now)?;
    let stored = values::check(f.kind, f.meta.as_ref(), value)?;
    let entered = match &stored {
        Stored::Text(t) => Entered::Text(t),
        Stored::Drawn(p) => Entered::Drawn(p),
    };
    // The field's own recipient must not have finished (for an assistant's filling, the one
    // it is filled in for).
    if !fields::save_value(tx, field, f.recipient_id, entered, now)? {
        return Err(conflict("the document changed state; reload the page"));
    }
    let for_other = (f.recipient_id != link.me.id).then_some(f.recipient_id);
    let fill = audit::Filled::first(field, f.kind, for_other);
    let actor = acting.origin.actor(&link.me.email, Some(link.me.id));
    audit::record_fill(tx, link.document.id, &actor, fill, now)?;
    Ok(())
}

/// Field `field` if the recipient behind `link` may fill it now: their own, or one they fill
/// for a recipient after them (`assistable`), in their turn, with the account asked for.
fn fillable<'a>(
    link: &'a Link,
    field: FieldId,
    acting: &Acting<'_>,
    now: i64,
) -> Result<&'a crate::signing::documents::model::Field, AppError> {
    acting.require_account(link)?;
    require_turn(link, now)?;
    link.document
        .fields_of(link.me.id)
        .into_iter()
        .chain(super::assistable(&link.document, &link.me))
        .find(|f| f.id == field)
        .ok_or_else(|| AppError::not_found("field"))
}

/// Empties one of the fields `fill` may fill, before the recipient finishes; a field already
/// empty stays so, and nothing is recorded. A DATE or read-only field is the document's to
/// fill, never the recipient's to clear (409).
pub fn clear(
    tx: &Conn,
    link: &Link,
    field: FieldId,
    acting: &Acting<'_>,
    now: i64,
) -> Result<(), AppError> {
    let f = fillable(link, field, acting, now)?;
    let read_only = f.meta.as_ref().is_some_and(|m| m.read_only());
    if f.kind == FieldType::Date || read_only {
        return Err(conflict("this field is filled by the document, not by you"));
    }
    if !fields::clear_value(tx, field, f.recipient_id)? {
        return Ok(());
    }
    let for_other = (f.recipient_id != link.me.id).then_some(f.recipient_id);
    let cleared = audit::Filled::first(field, f.kind, for_other);
    let actor = acting.origin.actor(&link.me.email, Some(link.me.id));
    audit::record_clear(tx, link.document.id, &actor, cleared, now)?;
    Ok(())
}

/// What finishing one recipient led to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finished {
    /// Recipients whose turn it now is and who were not before (SEQUENTIAL: the next one).
    pub newly_current: Vec<RecipientId>,
    /// Every acting recipient has finished: the document is to be sealed.
    pub all_done: bool,
}

/// Signs (SIGNER), approves (APPROVER) or marks viewed (VIEWER).
pub fn complete(
    tx: &Conn,
    link: &Link,
    acting: &Acting<'_>,
    now: i64,
) -> Result<Finished, AppError> {
    acting.require_account(link)?;
    require_turn(link, now)?;
    let doc = link.document.id;
    let order = link.document.meta.signing_order;
    let before = current_turn(order, &parties(&link.document.recipients));
    if link.me.role == Role::Signer {
        let missing: Vec<String> = link
            .document
            .fields_of(link.me.id)
            .into_iter()
            .filter(|f| f.required() && !f.inserted)
            .map(|f| format!("{} on page {}", f.kind.as_str().to_lowercase(), f.page))
            .collect();
        if !missing.is_empty() {
            return Err(AppError::bad_request(format!(
                "fill in every required field first: {}",
                missing.join(", ")
            )));
        }
    }
    // Checked last of all the preconditions, so a proof is used up only by an action that
    // then happens (in this transaction).
    let proved = acting.prove(tx, link, Finishing::Agree, now)?;
    if link.me.role == Role::Signer {
        let meta = &link.document.meta;
        fields::fill_dates(
            tx,
            link.me.id,
            &format_date_in(now, &meta.timezone, &meta.date_format, meta.language),
            now,
        )?;
    }
    let origin = acting.origin;
    let finish = Finish {
        status: SigningStatus::Signed,
        reason: None,
        ip: origin.ip.as_deref(),
        user_agent: origin.user_agent.as_deref(),
    };
    if !recipients::finish(tx, link.me.id, finish, now)? {
        return Err(conflict("the document changed state; reload the page"));
    }
    recipients::record_auth(tx, link.me.id, proved.method, proved.user_id)?;
    // A recipient's signature changes the document: its last change (the dashboard's order).
    documents::touch(tx, doc, now)?;
    let finished = Happened::finished(link.me.role, acting.audit(&proved));
    let actor = origin.actor(&link.me.email, Some(link.me.id));
    audit::record(tx, doc, &actor, &finished, now)?;
    let parties = parties(&recipients::of(tx, Parent::Document(doc))?);
    let after = current_turn(order, &parties);
    Ok(Finished {
        newly_current: after
            .into_iter()
            .filter(|id| !before.contains(id))
            .collect(),
        all_done: all_finished(&parties),
    })
}

/// Rejects with a reason: the document becomes REJECTED.
pub fn reject(
    tx: &Conn,
    link: &Link,
    reason: &str,
    acting: &Acting<'_>,
    now: i64,
) -> Result<(), AppError> {
    acting.require_account(link)?;
    let reason = reason.trim();
    if reason.is_empty() || reason.chars().count() > 500 {
        return Err(AppError::bad_request(
            "give a reason for rejecting, at most 500 characters",
        ));
    }
    require_turn(link, now)?;
    let proved = acting.prove(tx, link, Finishing::Reject, now)?;
    let origin = acting.origin;
    let doc = link.document.id;
    let finish = Finish {
        status: SigningStatus::Rejected,
        reason: Some(reason),
        ip: origin.ip.as_deref(),
        user_agent: origin.user_agent.as_deref(),
    };
    if !recipients::finish(tx, link.me.id, finish, now)?
        || !documents::set_status(tx, doc, Status::Pending, Status::Rejected, now)?
    {
        return Err(conflict("the document changed state; reload the page"));
    }
    recipients::record_auth(tx, link.me.id, proved.method, proved.user_id)?;
    let rejected = Happened::Rejected(audit_data::Rejected {
        auth: Some(acting.audit(&proved)),
        reason: reason.to_string(),
    });
    let actor = origin.actor(&link.me.email, Some(link.me.id));
    audit::record(tx, doc, &actor, &rejected, now)?;
    Ok(())
}
