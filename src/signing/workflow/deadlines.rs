//! Deadlines and reminders at work (issue 56, decision 0123). A document's period
//! (`meta.envelopeExpirationPeriod`) becomes each acting recipient's `expiresAt` when it is
//! sent, and its reminders (`meta.reminders`) a first reminder time; a resend gives the
//! recipients it reaches a fresh period. The scan (`Deadlines`, every node, every `every`)
//! reads only the timers due (`store::timers`), and handles each one it takes: a passed
//! deadline is recorded, told to the owner and sent to the webhooks once; a due reminder goes
//! to a recipient whose turn it is and who has neither finished nor run out of time, and the
//! next is set one interval after now, so reminders missed while the service was down
//! become one.

use std::time::Duration;

use super::{current_turn, parties};
use crate::core::db::{Conn, Db, now};
use crate::core::error::AppError;
use crate::core::ids::RecipientId;
use crate::core::retry::{Stop, Workers};
use crate::signing::documents::model::Document;
use crate::signing::documents::recipients::{Role, SigningStatus};
use crate::signing::documents::store::timers::{self, Due, Kind};
use crate::signing::documents::{Status, notify, store as documents};

/// Timers handled in one transaction.
const BATCH: i64 = 100;

/// How often the scan looks by default.
pub const EVERY: Duration = Duration::from_secs(60);

/// Fixes the deadline of each of `ids` (acting recipients of the PENDING document `d` who have
/// not finished) from `d`'s period, counted from `now`, and schedules their first reminder.
/// Called as the document is sent, and for recipients first invited later.
pub fn start(tx: &Conn, d: &Document, ids: &[RecipientId], now: i64) -> Result<(), AppError> {
    for r in d.recipients.iter().filter(|r| ids.contains(&r.id)) {
        if r.role == Role::Cc || r.signing_status != SigningStatus::NotSigned {
            continue;
        }
        if r.expires_at.is_none() {
            let at = d
                .meta
                .envelope_expiration_period
                .as_ref()
                .and_then(|p| p.expires_at(now, &d.meta.timezone));
            if at.is_some() {
                timers::set_deadline(tx, r.id, at)?;
            }
        }
        if let Some(rem) = d.meta.reminders {
            timers::set(tx, r.id, Kind::Remind, rem.first(now))?;
        }
    }
    Ok(())
}

/// A resend to `ids`: each gets a fresh period from `now` (when the document has one), and the
/// owner may be told again when it passes; one whose reminders stopped when their time ran out
/// gets them again, one interval on, while the document's reminders last (count and window).
pub fn refresh(tx: &Conn, d: &Document, ids: &[RecipientId], now: i64) -> Result<(), AppError> {
    let sent = timers::sent_at(tx, d.id)?.unwrap_or(now);
    for r in d.recipients.iter().filter(|r| ids.contains(&r.id)) {
        let period = d.meta.envelope_expiration_period.as_ref();
        if let Some(at) = period.and_then(|p| p.expires_at(now, &d.meta.timezone)) {
            timers::set_deadline(tx, r.id, Some(at))?;
        }
        let so_far = u32::try_from(r.reminders_sent).unwrap_or(u32::MAX);
        let next = d.meta.reminders.and_then(|rem| rem.next(sent, so_far, now));
        if let Some(next) = next
            && r.expired(now)
        {
            timers::set(tx, r.id, Kind::Remind, next)?;
        }
    }
    Ok(())
}

/// Stops the automatic reminders of document `d`: none is scheduled any more, and its `meta`
/// no longer asks for them. Answers how many were scheduled.
pub fn stop_reminders(tx: &Conn, d: &Document, now: i64) -> Result<usize, AppError> {
    let mut meta = d.meta.clone();
    meta.reminders = None;
    documents::set_meta(tx, d.id, &meta, now)?;
    timers::stop_reminders(tx, d.id)
}

/// The scan: what it needs, and how often it looks.
#[derive(Clone)]
pub struct Deadlines {
    pub db: Db,
    pub workers: Workers,
    /// The base of links (mail, webhook payloads).
    pub app: String,
    pub every: Duration,
}

impl Deadlines {
    /// Runs at once, then every `every` until a stop is requested.
    pub async fn run(self, mut stop: Stop) {
        for round in 0u64.. {
            if round > 0 {
                tokio::select! {
                    _ = stop.wait() => return,
                    _ = tokio::time::sleep(self.every) => {}
                }
            }
            match self.scan().await {
                Ok(0) => {}
                Ok(n) => tracing::info!(handled = n, "deadlines and reminders handled"),
                Err(e) => {
                    tracing::warn!(error = %e, "the deadline scan failed; it runs again later")
                }
            }
        }
    }

    /// Handles every timer due now; answers how many deadlines were reported and reminders
    /// sent.
    pub async fn scan(&self) -> Result<usize, AppError> {
        let mut handled = 0;
        loop {
            let app = self.app.clone();
            let (read, done) = self
                .db
                .write(move |tx| {
                    let at = now();
                    let due = timers::due(tx, at, BATCH)?;
                    let mut done = 0;
                    for d in &due {
                        done += usize::from(handle(tx, *d, &app, at)?);
                    }
                    Ok((due.len(), done))
                })
                .await?;
            handled += done;
            if done > 0 {
                self.workers.notices();
            }
            if read < BATCH as usize {
                return Ok(handled);
            }
        }
    }
}

/// Handles one due timer if this transaction takes it; answers whether it reported or sent
/// anything.
fn handle(tx: &Conn, due: Due, app: &str, now: i64) -> Result<bool, AppError> {
    let Some(doc) = timers::document_of(tx, due.recipient)? else {
        timers::take(tx, due)?;
        return Ok(false);
    };
    let d = documents::load(tx, doc)?;
    let Some(r) = d.recipients.iter().find(|r| r.id == due.recipient) else {
        timers::take(tx, due)?;
        return Ok(false);
    };
    let open = d.status == Status::Pending && r.signing_status == SigningStatus::NotSigned;
    match due.kind {
        Kind::Expire => {
            if !timers::take(tx, due)? || !open || !timers::mark_expired(tx, r.id, now)? {
                return Ok(false);
            }
            timers::clear(tx, r.id, Kind::Remind)?;
            notify::recipient_expired(tx, doc, r.id, app, now)?;
            Ok(true)
        }
        Kind::Remind => {
            let reminders = d.meta.reminders.filter(|_| {
                open && !r.expired(now) && d.meta.effective_email().recipient_signing_request
            });
            let Some(rem) = reminders else {
                timers::take(tx, due)?;
                return Ok(false);
            };
            let sent = timers::sent_at(tx, doc)?.unwrap_or(now);
            let turn = current_turn(d.meta.signing_order, &parties(&d.recipients));
            let so_far = u32::try_from(r.reminders_sent).unwrap_or(u32::MAX);
            if !turn.contains(&r.id) {
                // Not their turn yet: look again one interval later, within the window.
                match rem.next(sent, 0, now) {
                    Some(next) => timers::move_on(tx, due, next)?,
                    None => timers::take(tx, due)?,
                };
                return Ok(false);
            }
            let claimed = match rem.next(sent, so_far.saturating_add(1), now) {
                Some(next) => timers::move_on(tx, due, next)?,
                None => timers::take(tx, due)?,
            };
            if !claimed || so_far >= rem.max {
                return Ok(false);
            }
            timers::count_reminder(tx, r.id)?;
            notify::reminders(tx, doc, &[r.id], app, now)?;
            Ok(true)
        }
    }
}
