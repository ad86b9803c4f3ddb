//! Point reads on PostgreSQL without leaving the async threads: a few connections of the async
//! client (tokio-postgres, which the synchronous client wraps), shared by every request, each
//! carrying many queries at once (pipelined), with its prepared statements kept.
//!
//! Store code stays synchronous and written once: `Db::point_read` runs its closure against a
//! `Replay` connection. The first query it makes that has no answer yet is recorded and the
//! closure stops there (its error is ignored); the query is sent here, its rows kept, and the
//! closure runs again from the start, this time finding that answer, until it runs through.
//! A point read makes one to three queries, so it runs two to four times, each in
//! microseconds. Anything else (a write, a transaction, a failure of this client) sends the
//! closure down the blocking path (`Db::read`), which answers as it always did.
//!
//! Writes of one statement (`Db::write_one`) go the same way on connections of their own, each
//! statement its own transaction; the closure runs once to learn the statement and once on its
//! answer. A write that PostgreSQL refused, or that found no connection, goes the blocking way;
//! one sent without an answer is reported, never sent again (it may have committed).
//!
//! These connections plan each prepared statement once (`plan_cache_mode =
//! force_generic_plan`). The point reads are index lookups whose plan does not depend on the
//! values, but PostgreSQL's default (`auto`) kept planning some of them at every execution: a
//! page of bookings (`LIMIT $2 OFFSET $3`) costs more as a generic plan by its estimate, so it
//! was planned again each time, 0.06 to 0.1 ms of PostgreSQL's CPU for a query that runs in
//! 0.02 (docs/develop/performance-history.md). The blocking pool keeps the default.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio_postgres::Statement;
use tokio_postgres_rustls::MakeRustlsConnect;

use super::dialect;
use super::pg_tls::PgUrl;
use super::value::Value;

/// How many connections carry the point reads of one process.
const LINKS: usize = 2;

/// How many carry its one-statement writes (`Db::write_one`). Apart from the reads: a
/// connection runs what it is sent in order, and each write waits there for its commit to
/// reach the disk, which a read behind it would wait for too. PostgreSQL flushes the commits
/// of all of them together (group commit), so more connections mean more commits per flush.
const WRITE_LINKS: usize = 4;

/// Sent once on each new connection (PostgreSQL 12 and later; refused by older servers, which
/// then keep their default).
const GENERIC_PLANS: &str = "SET plan_cache_mode = force_generic_plan";

/// How long a connection that could not be made is not tried again (the blocking path answers
/// meanwhile, with its own waits and errors).
const RETRY_AFTER: Duration = Duration::from_secs(1);

/// How long the connecting may take before this request goes the blocking way.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// How long a point read's query may take here before the request goes the blocking way (a
/// connection cut without a word from the other side would otherwise hold it until TCP gives
/// up).
const QUERY_TIMEOUT: Duration = Duration::from_secs(5);

/// The shared connections.
pub struct Fast {
    url: Arc<PgUrl>,
    tls: MakeRustlsConnect,
    slots: Vec<tokio::sync::Mutex<Slot>>,
    write_slots: Vec<tokio::sync::Mutex<Slot>>,
    next: AtomicUsize,
    /// Queries answered here, for tests and benchmarks to tell that this path served.
    answered: AtomicUsize,
}

#[derive(Default)]
struct Slot {
    link: Option<Arc<Link>>,
    /// After a failed connection, when to try again.
    not_before: Option<Instant>,
}

struct Link {
    client: tokio_postgres::Client,
    statements: parking_lot::Mutex<HashMap<String, Statement>>,
}

impl Fast {
    pub fn new(url: Arc<PgUrl>, tls: MakeRustlsConnect) -> Fast {
        Fast {
            url,
            tls,
            slots: (0..LINKS).map(|_| Default::default()).collect(),
            write_slots: (0..WRITE_LINKS).map(|_| Default::default()).collect(),
            next: AtomicUsize::new(0),
            answered: AtomicUsize::new(0),
        }
    }

    /// A connection of `slots`, made when there is none; `None` when one cannot be had now.
    async fn link(&self, slots: &[tokio::sync::Mutex<Slot>]) -> Option<Arc<Link>> {
        let n = self.next.fetch_add(1, Ordering::Relaxed) % slots.len();
        let mut slot = slots[n].lock().await;
        if let Some(link) = &slot.link {
            if !link.client.is_closed() {
                return Some(link.clone());
            }
            slot.link = None;
        }
        if slot.not_before.is_some_and(|t| Instant::now() < t) {
            return None;
        }
        // Connecting is rare and its future large (tokio-postgres's handshake, about 4 KB):
        // boxed, it does not widen the future of every query that finds its connection made.
        let link = Box::pin(self.connect()).await;
        slot.not_before = match link {
            Some(_) => None,
            None => Some(Instant::now() + RETRY_AFTER),
        };
        slot.link = link.clone();
        link
    }

    /// A new connection, set up for point reads; `None` when it cannot be made now.
    async fn connect(&self) -> Option<Arc<Link>> {
        let connecting = self.url.async_config.connect(self.tls.clone());
        let (client, connection) = match tokio::time::timeout(CONNECT_TIMEOUT, connecting).await {
            Ok(Ok(made)) => made,
            Ok(Err(e)) => {
                tracing::debug!(error = %super::pg::describe(&e), "no point-read connection to PostgreSQL");
                return None;
            }
            Err(_) => return None,
        };
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!(error = %super::pg::describe(&e), "a point-read connection to PostgreSQL ended");
            }
        });
        let setting = client.batch_execute(GENERIC_PLANS);
        match tokio::time::timeout(QUERY_TIMEOUT, setting).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                tracing::debug!(error = %super::pg::describe(&e), "point reads keep PostgreSQL's plan cache mode");
            }
            Err(_) => return None,
        }
        Some(Arc::new(Link {
            client,
            statements: parking_lot::Mutex::new(HashMap::new()),
        }))
    }

    /// The rows of `sql` with `values`; `None` when this client cannot answer now.
    pub async fn query(&self, sql: &str, values: &[Value]) -> Option<Vec<tokio_postgres::Row>> {
        let link = self.link(&self.slots).await?;
        let stmt = link.statement(sql).await?;
        let params = super::pg::as_params(values);
        let rows = tokio::time::timeout(QUERY_TIMEOUT, link.client.query(&stmt, &params))
            .await
            .ok()?
            .ok()?;
        self.answered.fetch_add(1, Ordering::Relaxed);
        Some(rows)
    }

    /// Runs `sql`, a statement that writes, with `values`, as a transaction of its own (these
    /// connections never open one).
    pub async fn write(&self, sql: &str, values: &[Value]) -> Wrote {
        let Some(link) = self.link(&self.write_slots).await else {
            return Wrote::NotSent;
        };
        let Some(stmt) = link.statement(sql).await else {
            return Wrote::NotSent;
        };
        let params = super::pg::as_params(values);
        match tokio::time::timeout(QUERY_TIMEOUT, link.client.query(&stmt, &params)).await {
            Ok(Ok(rows)) => {
                self.answered.fetch_add(1, Ordering::Relaxed);
                Wrote::Rows(rows)
            }
            // PostgreSQL answered with an error: the statement, its own transaction, was
            // rolled back.
            Ok(Err(e)) if e.as_db_error().is_some() => Wrote::NotSent,
            Ok(Err(e)) => {
                tracing::warn!(error = %super::pg::describe(&e), "a write's connection to PostgreSQL failed before its answer");
                Wrote::Unknown
            }
            Err(_) => {
                tracing::warn!("PostgreSQL did not answer a write in time");
                Wrote::Unknown
            }
        }
    }

    /// How many queries this client has answered.
    pub fn answered(&self) -> usize {
        self.answered.load(Ordering::Relaxed)
    }
}

/// What became of a write sent here.
pub enum Wrote {
    /// Committed: its rows.
    Rows(Vec<tokio_postgres::Row>),
    /// Nothing was written: no connection, or PostgreSQL refused the statement. The blocking
    /// path may run it (and report the refusal as it reports any).
    NotSent,
    /// Sent, but no answer came: it may or may not have committed, so it must not be sent again.
    Unknown,
}

impl Link {
    /// The prepared statement for `sql`, prepared on first use; `None` if it cannot be.
    async fn statement(&self, sql: &str) -> Option<Statement> {
        if let Some(s) = self.statements.lock().get(sql).cloned() {
            return Some(s);
        }
        let s = self.client.prepare(&dialect::to_postgres(sql)).await.ok()?;
        let mut kept = self.statements.lock();
        if kept.len() >= super::pg::MAX_STATEMENTS {
            kept.clear();
        }
        kept.insert(sql.to_owned(), s.clone());
        Some(s)
    }
}

/// The answers a point read's closure has had so far, and the one it asks next.
#[derive(Default)]
pub struct Replay {
    answers: RefCell<Vec<Answer>>,
    /// How many queries this run of the closure has made.
    asked: Cell<usize>,
    /// The query without an answer that stopped this run.
    wanted: RefCell<Option<(String, Vec<Value>)>>,
    /// The closure did something a replay cannot (a write, a transaction).
    unsupported: Cell<bool>,
}

struct Answer {
    sql: String,
    values: Vec<Value>,
    rows: Vec<tokio_postgres::Row>,
}

/// What a run of the closure came to.
pub enum Run {
    /// It ran through on recorded answers: its outcome stands.
    Done,
    /// It stopped at this query.
    Wants(String, Vec<Value>),
    /// It must run on the blocking path.
    Blocking,
}

impl Replay {
    /// Before each run of the closure.
    pub fn rewind(&self) {
        self.asked.set(0);
        *self.wanted.borrow_mut() = None;
    }

    pub fn outcome(&self) -> Run {
        if self.unsupported.get() {
            return Run::Blocking;
        }
        match self.wanted.borrow_mut().take() {
            Some((sql, values)) => Run::Wants(sql, values),
            None => Run::Done,
        }
    }

    /// Keeps the rows of the query the last run stopped at.
    pub fn record(&self, sql: String, values: Vec<Value>, rows: Vec<tokio_postgres::Row>) {
        self.answers.borrow_mut().push(Answer { sql, values, rows });
    }

    /// Runs `f` over the rows of `sql` with `values` when they are known; otherwise notes the
    /// query and answers `Error::Pending`.
    pub(super) fn with_rows<T>(
        &self,
        sql: &str,
        values: Vec<Value>,
        f: impl FnOnce(&[tokio_postgres::Row]) -> Result<T, super::Error>,
    ) -> Result<T, super::Error> {
        if self.wanted.borrow().is_some() || self.unsupported.get() {
            return Err(super::Error::Pending);
        }
        let i = self.asked.get();
        self.asked.set(i + 1);
        let answers = self.answers.borrow();
        match answers.get(i) {
            Some(a) if a.sql == sql && a.values == values => f(&a.rows),
            _ => {
                drop(answers);
                // A different query than last time at this place (a time read inside the
                // closure moved on): what followed it is stale too.
                self.answers.borrow_mut().truncate(i);
                *self.wanted.borrow_mut() = Some((sql.to_owned(), values));
                Err(super::Error::Pending)
            }
        }
    }

    /// The closure tried what a replay cannot do.
    pub(super) fn refuse(&self) -> super::Error {
        self.unsupported.set(true);
        super::Error::Pending
    }
}

#[cfg(test)]
mod tests {
    use crate::core::db::{Db, OptionalExtension, params};
    use crate::core::error::AppError;

    /// A query's future and a write's stay small: making a connection (tokio-postgres's
    /// handshake, kilobytes of future) is boxed, and every point read on PostgreSQL carries one
    /// of these (docs/develop/performance-history.md, "Every request's future, moved whole"). Nothing is
    /// polled, so nothing connects.
    #[test]
    fn a_query_future_does_not_carry_the_connecting() {
        let url = super::PgUrl::parse("postgres://docket@127.0.0.1:1/docket").unwrap();
        let tls = url.connector().unwrap();
        let fast = super::Fast::new(std::sync::Arc::new(url), tls);
        let query = size_of_val(&fast.query("SELECT 1", &[]));
        let write = size_of_val(&fast.write("SELECT 1", &[]));
        // 1,312 bytes each (debug and release alike); 4,424 in a debug build with the
        // connecting inline.
        assert!(query <= 2048, "a query's future takes {query} bytes");
        assert!(write <= 2048, "a write's future takes {write} bytes");
    }

    /// On PostgreSQL a point read of two dependent queries is answered by the async client,
    /// the same as the blocking path answers it; one that needs a transaction goes the blocking way.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn point_reads_run_on_the_async_client_and_transactions_do_not() {
        let Some(url) = crate::core::db::testing::postgres_database("pgasync") else {
            return;
        };
        let db = tokio::task::spawn_blocking(move || {
            Db::open_postgres(&url, 4, std::time::Duration::from_secs(10), true).unwrap()
        })
        .await
        .unwrap();
        db.write(|c| {
            c.execute(
                "INSERT INTO users (email, username, name, password_hash, created_at, updated_at)
                 VALUES (?1, 'ann', 'Ann Archer', 'x', 0, 0)",
                params!["ann@example.com"],
            )?;
            Ok(())
        })
        .await
        .unwrap();
        let read = |c: &crate::core::db::Conn<'_>| -> Result<Option<String>, AppError> {
            let id: Option<i64> = c
                .query_row(
                    "SELECT id FROM users WHERE email = ?1",
                    ["ann@example.com"],
                    |r| r.get(0),
                )
                .optional()?;
            let Some(id) = id else { return Ok(None) };
            Ok(Some(c.query_row(
                "SELECT name FROM users WHERE id = ?1",
                [id],
                |r| r.get(0),
            )?))
        };
        let fast = db.point_reads_answered();
        let blocking = db.read(read).await.unwrap();
        assert_eq!(
            db.point_reads_answered(),
            fast,
            "db.read is the blocking path"
        );
        let via_async = db.point_read(read).await.unwrap();
        assert_eq!(via_async, Some("Ann Archer".to_string()));
        assert_eq!(via_async, blocking);
        assert_eq!(
            db.point_reads_answered(),
            fast + 2,
            "both queries went async"
        );
        // No row: the first query's empty answer ends the read.
        let none = db
            .point_read(|c| {
                Ok(c.query_row(
                    "SELECT id FROM users WHERE email = ?1",
                    ["nobody@x.org"],
                    |r| r.get::<_, i64>(0),
                )
                .optional()?)
            })
            .await
            .unwrap();
        assert_eq!(none, None);
        // A read that needs a transaction of its own (reads that must agree) goes the
        // blocking way.
        let before = db.point_reads_answered();
        let agreed = db
            .point_read(move |c| c.consistent_read(read))
            .await
            .unwrap();
        assert_eq!(agreed, Some("Ann Archer".to_string()));
        assert_eq!(db.point_reads_answered(), before);

        // The async connections plan each statement once; the blocking pool keeps the default.
        let mode = |c: &crate::core::db::Conn<'_>| -> Result<String, AppError> {
            Ok(
                c.query_row("SELECT current_setting('plan_cache_mode')", [], |r| {
                    r.get(0)
                })?,
            )
        };
        let before = db.point_reads_answered();
        assert_eq!(db.point_read(mode).await.unwrap(), "force_generic_plan");
        assert_eq!(db.point_reads_answered(), before + 1);
        assert_eq!(db.read(mode).await.unwrap(), "auto");
    }
}
