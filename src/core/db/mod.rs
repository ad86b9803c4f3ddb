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
mod pg;
mod pg_async;
pub mod pg_migrate;
mod pg_tls;
mod revocations;
pub mod sqlite_memory;
mod target;
#[cfg(test)]
pub mod testing;
mod text_enum;
mod value;
mod writer;

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
pub use revocations::{Epoch, SETTLES as REVOCATION_SETTLES};
pub use target::Target;
pub use value::{FromSql, Params, ToSql, Value, ValueRef, params_from_iter};

use crate::core::error::AppError;

pub type Pool = r2d2::Pool<SqliteConnectionManager>;

/// How long a connection waits for a lock before it fails with SQLITE_BUSY.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Applied to every connection, as the spec fixes.
fn configure(conn: &mut Connection) -> rusqlite::Result<()> {
    conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get::<_, String>(0))?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    // When a writer starts the log over, its file is cut back to this (checkpoint.rs).
    conn.pragma_update(None, "journal_size_limit", checkpoint::SIZE_LIMIT)?;
    // The query planner stability guarantee: plans do not depend on bound values. Without it,
    // SQLite (3.53) plans `LIMIT ?n` with the value bound, so every new binding expires the
    // cached statement and the next step prepares it again: every paged list (documents,
    // templates, bookings) parsed and planned its SQL on every request (issue 27's profile
    // of `/listBookings`: `sqlite3Reprepare` under `sqlite3_step`).
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)?;
    conn.set_prepared_statement_cache_capacity(128);
    Ok(())
}

/// The read side's connections refuse every change (`query_only`): a write that slips into
/// `Db::read` fails loudly instead of racing the writer thread.
fn configure_reader(conn: &mut Connection) -> rusqlite::Result<()> {
    configure(conn)?;
    conn.pragma_update(None, "query_only", "ON")
}

#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("cannot open the database {path}: {source}")]
    Sqlite {
        path: String,
        source: rusqlite::Error,
    },
    #[error("cannot connect to PostgreSQL at {target}: {message}")]
    Postgres { target: String, message: String },
    #[error("{0}")]
    Migration(String),
    #[error("database pool: {0}")]
    Pool(#[from] r2d2::Error),
}

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
    /// Opens (creating when new) the database at `path`, brings its schema up to date, and
    /// builds a pool of `max_connections`. Before upgrading an existing database, a copy is
    /// written into `backup_dir`.
    pub fn open(path: &Path, backup_dir: &Path, max_connections: u32) -> Result<Db, OpenError> {
        Self::open_with(path, backup_dir, max_connections, Duration::from_secs(10))
    }

    /// As `open`, waiting at most `acquire_timeout` for a free connection before a call fails
    /// with 503.
    pub fn open_with(
        path: &Path,
        backup_dir: &Path,
        max_connections: u32,
        acquire_timeout: Duration,
    ) -> Result<Db, OpenError> {
        let sqlite_err = |source| OpenError::Sqlite {
            path: path.display().to_string(),
            source,
        };
        let is_new = !path.exists();
        let mut conn = Connection::open(path).map_err(sqlite_err)?;
        configure(&mut conn).map_err(sqlite_err)?;
        if is_new {
            // SQLite creates files with the umask; the database holds hashes, keep it private.
            // The -wal and -shm files copy this mode.
            let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600));
        }
        migrate::run(&mut conn, backup_dir).map_err(|e| OpenError::Migration(e.to_string()))?;

        let manager = SqliteConnectionManager::file(path).with_init(configure_reader);
        let pool = r2d2::Pool::builder()
            .max_size(max_connections)
            .min_idle(Some(1))
            .connection_timeout(acquire_timeout)
            // A connection to a local file does not go stale; checking it at each checkout
            // (r2d2_sqlite runs `SELECT 1;`, parsed and prepared anew) cost every read a
            // statement (issue 27's profile of introspection).
            .test_on_check_out(false)
            .build(manager)?;
        // The connection that migrated the schema runs every write from now on; a connection
        // of its own copies the log into the database, off the commit path.
        checkpoint::watch(&conn);
        let mut copier = Connection::open(path).map_err(sqlite_err)?;
        configure(&mut copier).map_err(sqlite_err)?;
        let gate = checkpoint::ReadGate::default();
        let checkpoints = checkpoint::Checkpoints::start(copier, gate.clone()).map_err(|e| {
            OpenError::Migration(format!("cannot start the database checkpoints: {e}"))
        })?;
        let writer = writer::start(conn, Some(checkpoints))?;
        Ok(Db {
            turns: turns(max_connections),
            backend: Backend::Sqlite {
                pool,
                path: path.to_path_buf(),
                writer,
                gate,
            },
            revocations: revocations::Revocations::new(),
        })
    }

    /// Connects to the PostgreSQL database at `url` with a pool of `max_connections`. With
    /// `migrate`, brings its schema up to date first (under an advisory lock, so nodes that
    /// start together migrate once); without, refuses a schema this docket does not know.
    pub fn open_postgres(
        url: &str,
        max_connections: u32,
        acquire_timeout: Duration,
        migrate: bool,
    ) -> Result<Db, OpenError> {
        let failed = |message: String| OpenError::Postgres {
            target: pg_migrate::redacted(url),
            message,
        };
        let manager = pg::Manager::new(url).map_err(failed)?;
        // One connection first, so that a refusal (a certificate, a password) stops the start
        // at once with its reason; a server not up yet gets the pool's timeout to come up.
        // It also tells whether the link is encrypted, which is logged (once the server is
        // up, from a second try, when this one found it starting).
        let first = manager.connect_watched();
        match &first {
            Err(e) if pg::refused(&e.0) => return Err(failed(e.to_string())),
            Err(_) => {}
            Ok((_, link)) => pg::report(link),
        }
        let watcher = first.is_err().then(|| manager.clone());
        let fast = std::sync::Arc::new(manager.point_reads());
        let notices = std::sync::Arc::new(manager.notices());
        drop(first);
        let pool = r2d2::Pool::builder()
            .max_size(max_connections)
            .min_idle(Some(1))
            .connection_timeout(acquire_timeout)
            .error_handler(Box::new(r2d2::NopErrorHandler))
            .build(manager)
            .map_err(|e| failed(e.to_string()))?;
        let db = Db {
            turns: turns(max_connections),
            backend: Backend::Postgres {
                pool,
                fast,
                notices,
            },
            revocations: revocations::Revocations::new(),
        };
        db.write_blocking_pg(move |c| pg_migrate::check_or_run(c, migrate))
            .map_err(|e| OpenError::Migration(e.to_string()))?;
        if let Some(Ok((_, link))) = watcher.map(|m| m.connect_watched()) {
            pg::report(&link);
        }
        Ok(db)
    }

    /// Which database this is.
    pub fn dialect(&self) -> Dialect {
        match self.backend {
            Backend::Sqlite { .. } => Dialect::Sqlite,
            Backend::Postgres { .. } => Dialect::Postgres,
        }
    }

    /// A database of its own in memory, with the whole schema, read and written through the
    /// same two gateways as a file: for unit tests of use cases. (Shared-cache memory, so the
    /// pool and the writer see one database; it lives as long as this `Db`'s connections.)
    #[cfg(test)]
    pub fn memory() -> Db {
        use rusqlite::OpenFlags;
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let uri = format!("file:docket-test-{n}?mode=memory&cache=shared");
        let flags = OpenFlags::default() | OpenFlags::SQLITE_OPEN_URI;
        let mut conn = Connection::open_with_flags(&uri, flags).expect("in-memory database");
        configure(&mut conn).unwrap();
        migrate::run(&mut conn, Path::new("/nonexistent")).expect("migrations apply");
        let manager = SqliteConnectionManager::file(&uri)
            .with_flags(flags)
            .with_init(configure_reader);
        let pool = r2d2::Pool::builder()
            .max_size(2)
            .min_idle(Some(1))
            .build(manager)
            .expect("pool");
        let writer = writer::start(conn, None).expect("writer");
        Db {
            turns: turns(2),
            backend: Backend::Sqlite {
                pool,
                path: std::path::PathBuf::new(),
                writer,
                gate: checkpoint::ReadGate::default(),
            },
            revocations: revocations::Revocations::new(),
        }
    }

    /// Runs `f` with a pooled connection on the blocking thread pool (with SQLite, one that
    /// refuses writes). Several reads that must agree go in one `Conn::consistent_read`.
    pub async fn read<F, T>(&self, f: F) -> Result<T, AppError>
    where
        F: FnOnce(&Conn<'_>) -> Result<T, AppError> + Send + 'static,
        T: Send + 'static,
    {
        let db = self.clone();
        self.pooled(move || db.read_blocking(f)).await
    }

    /// Runs `job`, which takes a pooled connection, on a blocking thread once it is its turn
    /// (`turns`): reads and writes beyond the pool's size wait here, in order, not on blocking
    /// threads in the pool's unfair wait. Not generic, so that it and the blocking task are
    /// compiled once, not for every read's closure (the turn's wait, compiled into each, added
    /// 114 KB to the binary). An error is the blocking task's: it panicked or was cancelled.
    async fn on_pool(&self, job: Box<dyn FnOnce() + Send>) -> Result<(), AppError> {
        let turn = self
            .turns
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| AppError::Unavailable("the database is closed".into()))?;
        tokio::task::spawn_blocking(move || {
            job();
            drop(turn);
        })
        .await
        .map_err(task_failed)
    }

    /// `f`'s outcome, run by `on_pool`.
    async fn pooled<T: Send + 'static>(
        &self,
        f: impl FnOnce() -> Result<T, AppError> + Send + 'static,
    ) -> Result<T, AppError> {
        let (done, answer) = tokio::sync::oneshot::channel();
        self.on_pool(Box::new(move || {
            let _ = done.send(f());
        }))
        .await?;
        answer
            .await
            .map_err(|_| AppError::internal("a database call ended without an answer"))?
    }

    /// Runs `f`, a point read (a row or a few by an index: microseconds on SQLite), without
    /// leaving the calling thread when that costs no waiting. On SQLite with a pooled
    /// connection free and the read gate open, `f` runs here, on the async thread, and saves
    /// the two thread switches of `read` (which cost more than such a read itself). On
    /// PostgreSQL its queries go through the async client, `f` run again as each answer comes
    /// (`pg_async`: so `f` is `Fn`, and must not depend on anything but what it reads). When
    /// neither can serve, it is `read`. Never for a read whose cost grows with the data.
    pub async fn point_read<F, T>(&self, f: F) -> Result<T, AppError>
    where
        F: Fn(&Conn<'_>) -> Result<T, AppError> + Send + 'static,
        T: Send + 'static,
    {
        match &self.backend {
            Backend::Sqlite { pool, gate, .. } => {
                if let Some(conn) = pool.try_get()
                    && let Some(_open) = gate.try_enter()
                {
                    return f(&Conn::sqlite(&conn));
                }
            }
            Backend::Postgres { fast, .. } => {
                // Boxed, PostgreSQL's path (its client's futures) does not widen the future of
                // every SQLite point read, which each request's future then carries and moves.
                if let Some(done) = Box::pin(point_read_pg(fast, &f)).await {
                    return done;
                }
            }
        }
        self.read(f).await
    }

    /// How many queries PostgreSQL's async client has answered for point reads (0 on SQLite).
    pub fn point_reads_answered(&self) -> usize {
        match &self.backend {
            Backend::Postgres { fast, .. } => fast.answered(),
            Backend::Sqlite { .. } => 0,
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

    /// Runs `f` inside a write transaction and returns its result once that transaction is
    /// committed. With SQLite it runs on the writer thread in its own savepoint (when it fails,
    /// only its changes are undone) and writes that arrive together share one transaction
    /// (group commit). With PostgreSQL it is one transaction on a pooled connection.
    pub async fn write<F, T>(&self, f: F) -> Result<T, AppError>
    where
        F: FnOnce(&Conn<'_>) -> Result<T, AppError> + Send + 'static,
        T: Send + 'static,
    {
        match &self.backend {
            Backend::Sqlite { .. } => self
                .queue_write(f)?
                .await
                .map_err(|_| AppError::internal("the database writer dropped a request"))?,
            Backend::Postgres { .. } => {
                let db = self.clone();
                self.pooled(move || db.write_blocking_pg(f)).await
            }
        }
    }

    /// Runs `f`, a write made of one statement, which is atomic on its own. On SQLite it is
    /// `write`. On PostgreSQL the statement is its own transaction, saving the round trips of
    /// BEGIN and COMMIT (half of a short write's): sent on the async client's write
    /// connections (`pg_async`, `f` run again on its answer, so `f` is `Fn` and must not depend
    /// on anything but what it reads), or, when they cannot take it, on a pooled connection. A
    /// second statement is refused before it is sent, so `f` cannot split what must stay whole.
    pub async fn write_one<F, T>(&self, f: F) -> Result<T, AppError>
    where
        F: Fn(&Conn<'_>) -> Result<T, AppError> + Send + 'static,
        T: Send + 'static,
    {
        let Backend::Postgres { pool, fast, .. } = &self.backend else {
            return self.write(f).await;
        };
        // Boxed for the reason `point_read`'s PostgreSQL path is.
        if let Some(done) = Box::pin(write_one_pg(fast, &f)).await {
            return done;
        }
        let (pool, revocations) = (pool.clone(), self.revocations.clone());
        self.pooled(move || {
            let client = pool.get()?;
            client.limit_statements(Some(1));
            let conn = Conn::postgres(&client);
            let out = catch_unwind(AssertUnwindSafe(|| f(&conn)))
                .unwrap_or_else(|_| Err(AppError::internal("a database write panicked")));
            client.limit_statements(None);
            if conn.noted_revocation() {
                revocations.committed();
                // The statement was its own transaction: its notice goes in one of its own.
                if let Err(e) = notices::publish(&conn, &revocations) {
                    tracing::warn!(error = %e, "a revocation's notice to the other nodes was not sent; they see it within a second");
                }
            }
            out
        })
        .await
    }

    /// Hands `f` to the SQLite writer thread; the receiver gets its outcome once committed.
    fn queue_write<F, T>(
        &self,
        f: F,
    ) -> Result<tokio::sync::oneshot::Receiver<Result<T, AppError>>, AppError>
    where
        F: FnOnce(&Conn<'_>) -> Result<T, AppError> + Send + 'static,
        T: Send + 'static,
    {
        let Backend::Sqlite { writer, .. } = &self.backend else {
            return Err(AppError::internal("no SQLite writer"));
        };
        let (done, result) = tokio::sync::oneshot::channel();
        let revocations = self.revocations.clone();
        let job: writer::Job = Box::new(move |conn| {
            let (outcome, revoked) = match conn {
                Some(conn) => writer::in_savepoint(conn, f),
                None => (
                    Err(AppError::Unavailable("the write could not start".into())),
                    false,
                ),
            };
            Box::new(move |commit: Result<(), AppError>| {
                if revoked {
                    revocations.committed();
                }
                let _ = done.send(commit.and(outcome));
            })
        });
        writer
            .send(job)
            .map_err(|_| AppError::Unavailable("the database writer has stopped".into()))?;
        Ok(result)
    }

    /// One PostgreSQL write transaction on the current thread: committed when `f` succeeds,
    /// rolled back when it fails or panics.
    fn write_blocking_pg<F, T>(&self, f: F) -> Result<T, AppError>
    where
        F: FnOnce(&Conn<'_>) -> Result<T, AppError>,
    {
        let Backend::Postgres { pool, .. } = &self.backend else {
            return Err(AppError::internal("not PostgreSQL"));
        };
        let client = pool.get()?;
        let conn = Conn::postgres(&client);
        conn.execute_batch("BEGIN")?;
        let outcome = catch_unwind(AssertUnwindSafe(|| f(&conn)))
            .unwrap_or_else(|_| Err(AppError::internal("a database write panicked")))
            .and_then(|value| {
                // Told to the other processes with the COMMIT (`notices`).
                if conn.noted_revocation() {
                    notices::publish(&conn, &self.revocations)?;
                }
                Ok(value)
            });
        match outcome {
            Ok(value) => {
                let committed = conn.execute_batch("COMMIT");
                if conn.noted_revocation() {
                    // Also when the COMMIT's answer was lost: it may have committed.
                    self.revocations.committed();
                }
                if let Err(e) = committed {
                    client.reset();
                    return Err(e.into());
                }
                Ok(value)
            }
            Err(e) => {
                client.reset();
                Err(e)
            }
        }
    }

    /// Takes a connection and keeps it until the guard drops: lets tests exhaust the pool.
    #[cfg(test)]
    pub(crate) fn hold(&self) -> r2d2::PooledConnection<SqliteConnectionManager> {
        match &self.backend {
            Backend::Sqlite { pool, .. } => pool.get().expect("a free connection"),
            Backend::Postgres { .. } => panic!("hold is for SQLite tests"),
        }
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

    /// `read` on the current thread: for the admin CLI, which has no async runtime.
    pub fn read_blocking<F, T>(&self, f: F) -> Result<T, AppError>
    where
        F: FnOnce(&Conn<'_>) -> Result<T, AppError>,
    {
        match &self.backend {
            Backend::Sqlite { pool, gate, .. } => {
                let conn = pool.get()?;
                let _open = gate.enter();
                f(&Conn::sqlite(&conn))
            }
            Backend::Postgres { pool, .. } => {
                let client = pool.get()?;
                let out = f(&Conn::postgres(&client));
                client.reset();
                out
            }
        }
    }

    /// `write`, waiting on the current thread: for the admin CLI, which has no async runtime
    /// (it must not be called from one). A write that revoked a credential answers only once
    /// every server has stopped trusting what it verified before (`revocations::SETTLES`, a
    /// second): the servers are other processes, which this one cannot tell, so when the
    /// command returns the revocation holds everywhere.
    pub fn write_blocking<F, T>(&self, f: F) -> Result<T, AppError>
    where
        F: FnOnce(&Conn<'_>) -> Result<T, AppError> + Send + 'static,
        T: Send + 'static,
    {
        let before = self.revocations.current();
        let out = match &self.backend {
            Backend::Sqlite { .. } => self
                .queue_write(f)?
                .blocking_recv()
                .map_err(|_| AppError::internal("the database writer dropped a request"))?,
            Backend::Postgres { .. } => self.write_blocking_pg(f),
        };
        if self.revocations.current() != before {
            std::thread::sleep(revocations::SETTLES);
        }
        out
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

/// Runs `f` inside one `BEGIN IMMEDIATE` transaction: committed when `f` succeeds, rolled back
/// otherwise. For connections outside `Db` (migrations, tests); `Db::write` already runs in one.
pub fn write_tx<T>(
    conn: &Conn<'_>,
    f: impl FnOnce(&Conn<'_>) -> Result<T, AppError>,
) -> Result<T, AppError> {
    conn.execute_batch(match conn.dialect() {
        Dialect::Sqlite => "BEGIN IMMEDIATE",
        Dialect::Postgres => "BEGIN",
    })?;
    match f(conn) {
        Ok(value) => {
            conn.execute_batch("COMMIT")?;
            Ok(value)
        }
        Err(e) => {
            conn.execute_batch("ROLLBACK")?;
            Err(e)
        }
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

/// Most runs of a point read's closure on PostgreSQL before it goes the blocking way.
const MAX_RUNS: usize = 8;

/// `f` on PostgreSQL's async client (`pg_async`): its outcome, or `None` when it must run on
/// the blocking path (it writes, or the async client cannot answer now).
async fn point_read_pg<F, T>(fast: &pg_async::Fast, f: &F) -> Option<Result<T, AppError>>
where
    F: Fn(&Conn<'_>) -> Result<T, AppError>,
{
    let replay = pg_async::Replay::default();
    for _ in 0..MAX_RUNS {
        match run_replayed(&replay, f) {
            (out, pg_async::Run::Done, _) => return Some(out),
            (_, pg_async::Run::Blocking, _) => return None,
            (out, pg_async::Run::Wants(sql, values), _) => {
                drop(out);
                let rows = fast.query(&sql, &values).await?;
                replay.record(sql, values, rows);
            }
        }
    }
    None
}

/// `f`, one statement that writes, on PostgreSQL's async client (`Db::write_one`): its
/// outcome, or `None` when it must run on the blocking path (nothing was written).
async fn write_one_pg<F, T>(fast: &pg_async::Fast, f: &F) -> Option<Result<T, AppError>>
where
    F: Fn(&Conn<'_>) -> Result<T, AppError>,
{
    let replay = pg_async::Replay::default();
    let (sql, values) = match run_replayed(&replay, f) {
        // A write that revokes a credential goes the blocking way, which moves the
        // revocation epoch on once it has committed.
        (_, _, true) => return None,
        (out, pg_async::Run::Wants(sql, values), false) => {
            drop(out);
            (sql, values)
        }
        // It asked nothing of the database, or something the async client cannot do.
        (out, pg_async::Run::Done, false) => return Some(out),
        (_, pg_async::Run::Blocking, false) => return None,
    };
    let rows = match fast.write(&sql, &values).await {
        pg_async::Wrote::Rows(rows) => rows,
        pg_async::Wrote::NotSent => return None,
        pg_async::Wrote::Unknown => {
            return Some(Err(AppError::Unavailable(
                "the database did not confirm the write; try again".into(),
            )));
        }
    };
    replay.record(sql, values, rows);
    match run_replayed(&replay, f) {
        (out, pg_async::Run::Done, _) => Some(out),
        _ => Some(Err(AppError::internal(
            "a one-statement write asked for a second statement",
        ))),
    }
}

/// One run of `f` on the answers `replay` has: its outcome, where it stopped, and whether it
/// noted a revocation.
fn run_replayed<F, T>(
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
fn turns(connections: u32) -> std::sync::Arc<tokio::sync::Semaphore> {
    std::sync::Arc::new(tokio::sync::Semaphore::new(connections as usize))
}

/// What a database call whose blocking task did not run becomes: the runtime cancels the tasks
/// it has not started when it shuts down, and a worker that meets `AppError::is_stopping` stops
/// instead of retrying (its retry would be cancelled too, at once, in a loop).
fn task_failed(e: tokio::task::JoinError) -> AppError {
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
