//! The SQLite database: pragmas, migrations, and the two gateways that run blocking database
//! work off the async threads: `Db::read`, on a pool of read-only connections, and `Db::write`,
//! on the one thread that runs write transactions.

mod app_error;
mod checkpoint;
mod conn;
pub mod counts;
mod dialect;
pub mod migrate;
mod notices;
mod open;
mod pg;
mod pg_async;
pub mod pg_migrate;
mod pg_tls;
mod reads;
mod revocations;
pub mod sqlite_memory;
mod target;
#[cfg(test)]
pub mod testing;
mod text_enum;
mod value;
mod writer;
mod writes;

use std::os::unix::fs::PermissionsExt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;
use std::time::Duration;

use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::Connection;
use rusqlite::config::DbConfig;

pub use crate::params;
pub use app_error::conflict_on_unique;
pub use conn::{Conn, Dialect, Error, OptionalExtension, Result, Row, RowIndex, Stmt};
pub use open::OpenError;
use open::{BUSY_TIMEOUT, configure};
pub use revocations::{Epoch, SETTLES as REVOCATION_SETTLES};
pub use target::Target;
pub use value::{FromSql, Params, ToSql, Value, ValueRef, params_from_iter};
pub use writes::write_tx;

use crate::core::error::AppError;

pub type Pool = r2d2::Pool<SqliteConnectionManager>;

/// A cloneable handle on the database, SQLite or PostgreSQL.
#[derive(Clone)]
pub struct Db {
    backend: Backend,
    /// Turns for the pool's connections (as many as it holds), handed out in the order asked:
    /// a tokio semaphore is fair, r2d2's own wait is not. A thread that gives a connection
    /// back and asks again at once (a blocking thread taking the next queued read) takes it
    /// ahead of the threads already waiting, which then wait again at the back: with 16
    /// readers of 8 PostgreSQL connections some reads waited up to a second
    /// (docs/develop/performance-history.md, "A page's parties in two queries").
    turns: std::sync::Arc<tokio::sync::Semaphore>,
    /// Moves on after each committed write that revoked a credential (`revocations.rs`).
    revocations: std::sync::Arc<revocations::Revocations>,
}

#[derive(Clone)]
enum Backend {
    Sqlite {
        /// Read-only connections (`configure_reader`).
        pool: Pool,
        /// The database file, for `vacuum_into`.
        path: std::path::PathBuf,
        /// The queue of the one thread that runs this process's write transactions. SQLite
        /// allows one writer at a time and its busy handler waits by sleeping (up to 100 ms a
        /// step), which wrecks tail latency under load; queueing writers here instead makes
        /// each wait exactly as long as the writes ahead of it.
        writer: std::sync::mpsc::Sender<writer::Job>,
        /// Every read passes it; a forced checkpoint closes it for a moment (checkpoint.rs).
        gate: checkpoint::ReadGate,
    },
    /// Every node's connections to one PostgreSQL database: reads and write transactions
    /// alike take one from the pool; PostgreSQL orders concurrent writers with row locks.
    Postgres {
        pool: r2d2::Pool<pg::Manager>,
        /// The async client's connections for point reads (`pg_async`).
        fast: std::sync::Arc<pg_async::Fast>,
        /// Makes the connection that hears other processes' revocations (`notices`).
        notices: std::sync::Arc<notices::Listener>,
    },
}

impl Db {
    /// Which database this is.
    pub fn dialect(&self) -> Dialect {
        match self.backend {
            Backend::Sqlite { .. } => Dialect::Sqlite,
            Backend::Postgres { .. } => Dialect::Postgres,
        }
    }

    /// The revocation epoch now: read it before a read that verifies a credential, and trust
    /// what that read found only while the epoch is unchanged.
    pub fn revocation_epoch(&self) -> Epoch {
        self.revocations.current()
    }

    /// On PostgreSQL, starts hearing the revocations other processes commit (`notices`), until
    /// the task is aborted; on SQLite, nothing to hear (`None`): another process writing the
    /// same file (the admin CLI) is seen within `REVOCATION_SETTLES`.
    pub fn listen_for_revocations(&self) -> Option<tokio::task::JoinHandle<()>> {
        let Backend::Postgres { notices, .. } = &self.backend else {
            return None;
        };
        let run = notices.clone().run(self.revocations.clone());
        Some(tokio::spawn(run))
    }

    /// The schema version the database has.
    pub fn schema_version(&self) -> Result<i64, AppError> {
        self.read_blocking(|c| match c.as_sqlite() {
            Some(sqlite) => Ok(migrate::version(sqlite)?),
            None => pg_migrate::version(c),
        })
    }

    /// Answers once a pooled connection reads the schema: the health check.
    pub async fn ping(&self) -> Result<(), AppError> {
        self.read(|c| {
            let sql = match c.dialect() {
                Dialect::Sqlite => "SELECT count(*) FROM sqlite_master",
                Dialect::Postgres => "SELECT count(*) FROM pg_catalog.pg_tables",
            };
            c.query_row(sql, [], |r| r.get::<_, i64>(0))?;
            Ok(())
        })
        .await
    }

    /// SQLite: copies every transaction committed so far into the database file and syncs it
    /// (a full checkpoint), so that it survives a power loss: in WAL mode with
    /// `synchronous=NORMAL` a commit is synced only at the next checkpoint. Fails when readers
    /// or a writer kept the checkpoint from finishing within the busy timeout. PostgreSQL:
    /// nothing to do here (see `secrets::Shared::make_durable`).
    pub fn checkpoint_fully(&self) -> Result<(), AppError> {
        let Backend::Sqlite { path, gate, .. } = &self.backend else {
            return Ok(());
        };
        let mut conn = Connection::open(path)?;
        configure(&mut conn)?;
        // With new reads held back, only reads in flight and another process can delay it.
        let _closed = gate.close(BUSY_TIMEOUT);
        let started = std::time::Instant::now();
        loop {
            let (busy, log, copied): (i64, i64, i64) =
                conn.query_row("PRAGMA wal_checkpoint(FULL)", [], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?))
                })?;
            match (busy, log) {
                (0, _) if copied >= log => return Ok(()),
                // A passive checkpoint holds the checkpoint lock (it waits for nobody).
                (_, -1) if started.elapsed() < BUSY_TIMEOUT => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                _ => {
                    return Err(AppError::Unavailable(format!(
                        "the database checkpoint did not finish ({copied} of {log} pages copied)"
                    )));
                }
            }
        }
    }

    /// Writes a consistent copy of the database to `dest` (`VACUUM INTO`), on a connection of
    /// its own: the copy changes no data but is refused on the read-only side.
    pub fn vacuum_into(&self, dest: &str) -> Result<(), AppError> {
        let Backend::Sqlite { path, .. } = &self.backend else {
            return Err(AppError::bad_request(
                "docket backup copies a SQLite database; back up PostgreSQL with pg_dump",
            ));
        };
        let mut conn = Connection::open(path)?;
        configure(&mut conn)?;
        conn.execute("VACUUM INTO ?1", [dest])?;
        Ok(())
    }
}

/// A fresh in-memory database with the whole schema, for unit tests of store functions.
#[cfg(test)]
pub fn memory() -> Conn<'static> {
    let mut c = Connection::open_in_memory().expect("in-memory database");
    c.pragma_update(None, "foreign_keys", "ON").unwrap();
    migrate::run(&mut c, std::path::Path::new("/nonexistent")).expect("migrations apply");
    Conn::sqlite_owned(c)
}

/// Statements this SQLite connection has run, over every statement it still holds prepared
/// (its statement cache: every statement of a list is cached).
#[cfg(test)]
pub fn statements_run(conn: &Conn) -> i64 {
    use rusqlite::ffi;
    let raw = conn.as_sqlite().unwrap();
    let mut total = 0;
    // SAFETY: the handle is the live connection's, used on this thread only, and the loop only
    // reads counters of the statements it lists.
    unsafe {
        let db = raw.handle();
        let mut stmt = ffi::sqlite3_next_stmt(db, std::ptr::null_mut());
        while !stmt.is_null() {
            total += i64::from(ffi::sqlite3_stmt_status(
                stmt,
                ffi::SQLITE_STMTSTATUS_RUN,
                0,
            ));
            stmt = ffi::sqlite3_next_stmt(db, stmt);
        }
    }
    total
}

/// `?1, ?2, …, ?n`: the numbered parameters of an `IN` list of `n` values.
pub fn numbered_marks(n: usize) -> String {
    (1..=n)
        .map(|i| format!("?{i}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// JSON text stored in column `col`, read as `T`: what the code cannot read is a conversion
/// error, never a default.
pub fn stored_json<T: serde::de::DeserializeOwned>(col: usize, text: &str) -> Result<T> {
    serde_json::from_str(text).map_err(|e| Error::Conversion {
        col,
        message: e.to_string(),
    })
}

/// Unix seconds now.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// Whether a credential last used at `last_used` (a `last_used_at` column) is to be written as
/// used at `now`. These columns are kept at minute resolution, so that most requests stay
/// read-only.
pub fn last_use_is_stale(last_used: Option<i64>, now: i64) -> bool {
    last_used.is_none_or(|t| t < now - 60)
}

/// One run of `f` on the answers `replay` has: its outcome, where it stopped, and whether it
/// noted a revocation.
pub(super) fn run_replayed<F, T>(
    replay: &pg_async::Replay,
    f: &F,
) -> (Result<T, AppError>, pg_async::Run, bool)
where
    F: Fn(&Conn<'_>) -> Result<T, AppError>,
{
    replay.rewind();
    let conn = Conn::replay(replay);
    let out = catch_unwind(AssertUnwindSafe(|| f(&conn)))
        .unwrap_or_else(|_| Err(AppError::internal("a database call panicked")));
    (out, replay.outcome(), conn.noted_revocation())
}

/// The turns of a pool of `connections`.
pub(super) fn turns(connections: u32) -> std::sync::Arc<tokio::sync::Semaphore> {
    std::sync::Arc::new(tokio::sync::Semaphore::new(connections as usize))
}

/// What a database call whose blocking task did not run becomes: the runtime cancels the tasks
/// it has not started when it shuts down, and a worker that meets `AppError::is_stopping` stops
/// instead of retrying (its retry would be cancelled too, at once, in a loop).
pub(super) fn task_failed(e: tokio::task::JoinError) -> AppError {
    if e.is_cancelled() {
        AppError::Unavailable(crate::core::error::STOPPING.into())
    } else {
        AppError::internal(format!("database task failed: {e}"))
    }
}

#[cfg(test)]
mod tests {
    /// A cached statement with a bound `LIMIT` is prepared once: binding the next page does
    /// not expire it (QPSG, `configure`).
    #[test]
    fn a_paged_query_is_not_prepared_again_for_each_binding() {
        use rusqlite::StatementStatus::RePrepare;
        let mut conn = rusqlite::Connection::open_in_memory().unwrap();
        super::configure(&mut conn).unwrap();
        conn.execute_batch("CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2), (3);")
            .unwrap();
        let sql = "SELECT x FROM t ORDER BY x DESC LIMIT ?1 OFFSET ?2";
        for (limit, offset) in [(2, 0), (1, 1), (3, 0), (2, 1)] {
            let mut stmt = conn.prepare_cached(sql).unwrap();
            let rows: Vec<i64> = stmt
                .query_map([limit, offset], |r| r.get(0))
                .unwrap()
                .map(Result::unwrap)
                .collect();
            assert_eq!(rows.len(), limit.min(3 - offset) as usize);
        }
        assert_eq!(conn.prepare_cached(sql).unwrap().get_status(RePrepare), 0);
    }

    /// Reads beyond the pool's size take their connections in the order they asked, however
    /// the blocking threads that run them race for the pool.
    #[test]
    fn reads_beyond_the_pool_take_their_turns_in_the_order_they_asked() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let tmp = tempfile::tempdir().unwrap();
        let db = Db::open(&tmp.path().join("t.db"), tmp.path(), 1).unwrap();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let ran = std::sync::Arc::new(parking_lot::Mutex::new(Vec::new()));
        let asked = std::sync::Arc::new(AtomicUsize::new(0));
        runtime.block_on(async {
            let reads: Vec<_> = (0..200)
                .map(|_| {
                    let (db, ran, asked) = (db.clone(), ran.clone(), asked.clone());
                    // On this one thread a task's first poll, which counts it and asks for
                    // its turn, runs whole before the next task's.
                    tokio::spawn(async move {
                        let me = asked.fetch_add(1, Ordering::SeqCst);
                        db.read(move |c| {
                            c.query_row("SELECT 1", [], |r| r.get::<_, i64>(0))?;
                            ran.lock().push(me);
                            Ok(())
                        })
                        .await
                    })
                })
                .collect();
            for read in reads {
                read.await.unwrap().unwrap();
            }
        });
        let ran = ran.lock().clone();
        assert_eq!(ran, (0..200).collect::<Vec<_>>(), "a read overtook another");
    }

    /// A blocking task the runtime cancelled (as it does with those not started when it shuts
    /// down) is the `STOPPING` error the workers stop on; another failure is not.
    #[tokio::test]
    async fn a_cancelled_task_means_the_server_is_stopping() {
        let h = tokio::spawn(std::future::pending::<()>());
        h.abort();
        assert!(super::task_failed(h.await.unwrap_err()).is_stopping());
        let h = tokio::spawn(async { panic!("boom") });
        assert!(!super::task_failed(h.await.unwrap_err()).is_stopping());
    }

    use super::*;

    /// Bytes a database call's future may take (a debug build's futures are larger than a
    /// release build's).
    const SMALL_FUTURE: usize = 1024;

    #[test]
    fn pragmas_apply_to_every_pooled_connection() {
        let tmp = tempfile::tempdir().unwrap();
        let db = Db::open(&tmp.path().join("t.db"), tmp.path(), 2).unwrap();
        let (mode, fk, busy, sync) = db
            .read_blocking(|c| {
                Ok((
                    c.query_row("PRAGMA journal_mode", [], |r| r.get::<_, String>(0))?,
                    c.query_row("PRAGMA foreign_keys", [], |r| r.get::<_, i64>(0))?,
                    c.query_row("PRAGMA busy_timeout", [], |r| r.get::<_, i64>(0))?,
                    c.query_row("PRAGMA synchronous", [], |r| r.get::<_, i64>(0))?,
                ))
            })
            .unwrap();
        assert_eq!((mode.as_str(), fk, busy, sync), ("wal", 1, 5000, 1));
    }

    /// A point read's future and a one-statement write's are small on either database:
    /// PostgreSQL's path, whose client's futures take kilobytes, is boxed. Every request's
    /// future holds one of these, and warp moves a request's future whole several times (into
    /// each boxed group of routes), so each kilobyte here was copied several times per request
    /// (docs/develop/performance-history.md, "Every request's future, moved whole").
    #[test]
    fn point_reads_and_one_statement_writes_have_small_futures() {
        let tmp = tempfile::tempdir().unwrap();
        let db = Db::open(&tmp.path().join("t.db"), tmp.path(), 2).unwrap();
        let read = db.point_read(|c| crate::core::settings::get(c, "a"));
        let write = db.write_one(|c| crate::core::settings::set(c, "a", "b", 0));
        let (read, write) = (size_of_val(&read), size_of_val(&write));
        assert!(
            read <= SMALL_FUTURE,
            "a point read's future takes {read} bytes"
        );
        assert!(
            write <= SMALL_FUTURE,
            "a one-statement write's future takes {write} bytes"
        );
    }

    #[test]
    fn failed_write_tx_rolls_back() {
        let c = memory();
        let r: Result<(), AppError> = write_tx(&c, |tx| {
            crate::core::settings::set(tx, "a", "b", 0)?;
            Err(AppError::Conflict("stop".into()))
        });
        assert!(r.is_err());
        assert_eq!(crate::core::settings::get(&c, "a").unwrap(), None);
    }

    #[test]
    fn the_read_side_refuses_writes_and_the_write_side_takes_them() {
        let tmp = tempfile::tempdir().unwrap();
        let db = Db::open(&tmp.path().join("t.db"), tmp.path(), 2).unwrap();
        let insert = |c: &Conn| crate::core::settings::set(c, "a", "b", 0);
        let refused = db.read_blocking(insert).unwrap_err();
        assert!(refused.to_string().contains("readonly"), "{refused}");
        db.write_blocking(insert).unwrap();
        let stored = db
            .read_blocking(|c| crate::core::settings::get(c, "a"))
            .unwrap();
        assert_eq!(stored.as_deref(), Some("b"));
    }
}
