//! One row's document, made and sent inside the caller's transaction: generated from the
//! template as `generate-document` makes one (DOCUMENT_CREATED), then sent as `send` sends a
//! draft (its checks, the SENT audit event, the signing requests unless the run says not to,
//! DOCUMENT_SENT). The worker commits it with the row's new status; the preview runs it for
//! one row and rolls it back (`attempt`), so that what would refuse every row (a signer without a
//! signature field, a template without a file) is known before anything is sent.

use crate::core::db::Conn;
use crate::core::error::AppError;
use crate::core::ids::{DocumentId, TemplateId};
use crate::core::owner::Owner;
use crate::identity::users::Tier;
use crate::outbox::webhooks::Event as Hook;
use crate::signing::documents::audit::{self, Actor, Origin};
use crate::signing::documents::{DocumentView, audit_data, notify, store as documents};
use crate::signing::templates::row::Row;
use crate::signing::templates::{self, GenerateDocument};
use crate::signing::workflow::flow;

/// What a row's document is made from.
pub struct Source<'a> {
    pub owner: &'a Owner,
    pub template: TemplateId,
    /// The template's file as read before (a change meanwhile is a 409).
    pub blob: &'a str,
    pub tier: Tier,
    /// False: nobody is e-mailed; the owner hands out the links.
    pub send_email: bool,
    pub app: &'a str,
}

/// Makes and sends the document of `row`; answers its id.
pub fn make_and_send(
    tx: &Conn,
    source: &Source<'_>,
    row: &Row,
    now: i64,
) -> Result<DocumentId, AppError> {
    let data_id = crate::signing::documents::new_data_id();
    let doc = templates::generate(
        tx,
        source.owner,
        source.template,
        GenerateDocument::Row(row),
        source.tier,
        source.blob,
        &data_id,
        now,
    )?;
    let view = DocumentView::of(&documents::load(tx, doc)?, source.app);
    let owner_email = audit::owner_email(tx, source.owner.user())?;
    let actor = Actor {
        label: owner_email.clone(),
        ..Default::default()
    };
    notify::created(tx, &view, &actor, now)?;
    let first = flow::send(
        tx,
        doc,
        &owner_email,
        &Origin::default(),
        audit_data::Sent::default(),
        now,
    )?;
    if source.send_email {
        notify::signing_requests(tx, doc, &first, source.app, now)?;
    }
    notify::event(tx, doc, Hook::DocumentSent, source.app, now)?;
    Ok(doc)
}

/// `make_and_send` inside a savepoint, undone when it fails or when `keep` is false: the
/// caller's transaction goes on either way, and the outer `Result` is the database's own
/// failure. The worker keeps a sent row's document and records a refused row's reason in the
/// same transaction; the preview's trial keeps nothing.
pub fn attempt(
    tx: &Conn,
    source: &Source<'_>,
    row: &Row,
    now: i64,
    keep: bool,
) -> Result<Result<DocumentId, AppError>, AppError> {
    tx.execute_batch("SAVEPOINT bulk_row")?;
    let tried = make_and_send(tx, source, row, now);
    if keep && tried.is_ok() {
        tx.execute_batch("RELEASE SAVEPOINT bulk_row")?;
    } else {
        tx.execute_batch("ROLLBACK TO SAVEPOINT bulk_row; RELEASE SAVEPOINT bulk_row")?;
    }
    Ok(tried)
}
