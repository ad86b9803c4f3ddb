//! Opening the database: SQLite's pragmas and pools, or PostgreSQL's, with the schema brought
//! up to date.
use super::*;

/// How long a connection waits for a lock before it fails with SQLITE_BUSY.
pub(super) const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Applied to every connection, as the spec fixes.
pub(super) fn configure(conn: &mut Connection) -> rusqlite::Result<()> {
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
pub(super) fn configure_reader(conn: &mut Connection) -> rusqlite::Result<()> {
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
}
