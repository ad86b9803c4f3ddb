//! The worker that sends the rows of running bulk sends, on every node: woken when a run
//! starts, and every few seconds for runs that an hourly bound or a low disk held back and for
//! those a stop interrupted. Each row is one transaction: the row is taken (locked on
//! PostgreSQL, passed over by the other nodes), its document made and sent, and the row marked
//! SENT. A row that cannot be sent (the template changed or went, its starter left the team) is
//! marked FAILED with the reason in that same transaction, its half-made document undone (a
//! savepoint, `send_row::attempt`); a failure of the service (the disk, the database) undoes
//! the whole transaction and leaves the row PENDING for the next round.

use std::time::Duration;

use crate::core::context::Context;
use crate::core::db::{Conn, now};
use crate::core::error::AppError;
use crate::core::ids::BulkSendId;
use crate::core::retry::Stop;
use crate::identity::principal::{ActsFor, Principal, Via};
use crate::identity::scope::Scope;
use crate::signing::templates::store as templates;
use crate::teams::access;

use super::model::{RowStatus, Run, RunStatus};
use super::send_row::{Source, attempt};
use super::{HOUR, Limits, is_row_problem, reason, store};

/// How often the worker looks for runs besides being woken.
pub const EVERY: Duration = Duration::from_secs(5);
/// Rows of one run sent before the next run gets its turn.
const TURN: usize = 20;

pub struct Worker {
    pub ctx: Context,
    pub limits: Limits,
    pub every: Duration,
}

/// What became of one row.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    Sent,
    Failed(String),
    /// Nothing is pending (the run is finished, or another node holds the last rows).
    Nothing,
    /// The hour's bound is reached for the run's workspace.
    Bounded,
}

impl Worker {
    pub async fn run(self, mut stop: Stop) {
        let wake = self.ctx.workers.bulk.clone();
        loop {
            if let Err(e) = self.round(&stop).await
                && !e.is_stopping()
            {
                tracing::warn!(error = %e, "a bulk send round failed; it runs again later");
            }
            tokio::select! {
                _ = stop.wait() => return,
                _ = wake.notified() => {}
                _ = tokio::time::sleep(self.every) => {}
            }
        }
    }

    /// Sends what the running runs have pending, a turn of rows for each run at a time, until
    /// none has rows it may send now.
    pub async fn round(&self, stop: &Stop) -> Result<usize, AppError> {
        let mut sent = 0;
        loop {
            let runs = self.ctx.db.read(|c| store::running(c, 100)).await?;
            let mut progressed = false;
            for id in runs {
                for _ in 0..TURN {
                    if stop.requested() {
                        return Ok(sent);
                    }
                    // New work: a low disk holds the run back (the row stays PENDING).
                    if self.ctx.admit_new_work().is_err() {
                        return Ok(sent);
                    }
                    match self.one(id).await? {
                        Outcome::Sent => {
                            sent += 1;
                            progressed = true;
                        }
                        Outcome::Failed(_) => progressed = true,
                        Outcome::Nothing | Outcome::Bounded => break,
                    }
                }
            }
            if !progressed {
                return Ok(sent);
            }
        }
    }

    /// Sends the next row of run `id`, or marks it failed.
    async fn one(&self, id: BulkSendId) -> Result<Outcome, AppError> {
        let (app, limits) = (self.ctx.app.clone(), self.limits);
        let outcome = self
            .ctx
            .db
            .write(move |tx| send_next(tx, id, limits, &app))
            .await?;
        if outcome == Outcome::Sent {
            self.ctx.workers.notices();
        }
        Ok(outcome)
    }
}

/// In one transaction: takes the next pending row of run `id`, makes and sends its document,
/// marks the row SENT. A row whose run's starter or template is gone fails here with the reason.
fn send_next(tx: &Conn, id: BulkSendId, limits: Limits, app: &str) -> Result<Outcome, AppError> {
    let Some(run) = store::get(tx, id)? else {
        return Ok(Outcome::Nothing);
    };
    if run.status != RunStatus::Running {
        return Ok(Outcome::Nothing);
    }
    // One workspace's sends count in turn, so the hour's bound holds across nodes.
    tx.serialize_on(&format!("bulk send of {}/{:?}", run.user_id, run.team_id))?;
    let at = now();
    let sent = store::sent_since(tx, run.user_id, run.team_id, at - HOUR + 1)?;
    if sent.len() >= limits.per_hour {
        return Ok(Outcome::Bounded);
    }
    let Some(row) = store::next_pending(tx, id)? else {
        store::finish_if_done(tx, id, at)?;
        return Ok(Outcome::Nothing);
    };
    let failed = |why: String| -> Result<Outcome, AppError> {
        store::settle(tx, id, row.line, RowStatus::Failed, Some(&why), None, at)?;
        store::finish_if_done(tx, id, at)?;
        Ok(Outcome::Failed(why))
    };
    let who = starter(&run);
    let owner = match access::owner(tx, &who) {
        Ok(o) => o,
        Err(e) => return failed(format!("the run's starter may no longer send: {e}")),
    };
    let Some(template) = run.template_id else {
        return failed("the template was deleted".into());
    };
    let t = match templates::owned(tx, &owner, template) {
        Ok(t) => t,
        Err(AppError::NotFound(_)) => return failed("the template was deleted".into()),
        Err(e) => return Err(e),
    };
    let Some(blob) = t.blob_id.clone() else {
        return failed(crate::signing::templates::no_file().to_string());
    };
    let tier = crate::identity::users::store::tier(tx, run.user_id)?;
    let source = Source {
        owner: &owner,
        template,
        blob: &blob,
        tier,
        send_email: run.send_email,
        app,
    };
    // A refusal is undone and recorded on the row, in this same transaction and on this row.
    let doc = match attempt(tx, &source, &row.request, at, true)? {
        Ok(doc) => doc,
        Err(e) if is_row_problem(&e) => return failed(reason(&e)),
        Err(e) => return Err(e),
    };
    if !store::settle(tx, id, row.line, RowStatus::Sent, None, Some(doc), at)? {
        return Err(AppError::Conflict("the row was taken meanwhile".into()));
    }
    store::finish_if_done(tx, id, at)?;
    Ok(Outcome::Sent)
}

/// Who a run acts as: the member who started it, in the run's workspace, as an API key would.
fn starter(run: &Run) -> Principal {
    Principal {
        user_id: run.user_id,
        scopes: Scope::ALL.to_vec(),
        via: Via::ApiKey,
        acts_for: match run.team_id {
            Some(team) => ActsFor::Team(team),
            None => ActsFor::Personal,
        },
    }
}
