//! `Conn`: one database connection, SQLite or PostgreSQL, with the small API every store module
//! uses (`execute`, `query_row`, `prepare_cached` + `query_map`, `exists`). Store code is written
//! once against it, in SQL both databases understand; numbered parameters (`?1`) are rewritten
//! for PostgreSQL (`$1`) by `dialect`, and where the two must differ, `Conn::dialect` tells which.

use std::cell::Cell;

use super::pg::PgClient;
use super::pg_async::Replay;
use super::value::{FromSql, Params, Value, ValueRef, convert};

/// Which SQL the connection speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

/// What went wrong talking to the database.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("query returned no rows")]
    QueryReturnedNoRows,
    #[error("column {col}: {message}")]
    Conversion { col: usize, message: String },
    #[error("{0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("{}", pg_message(.0))]
    Postgres(#[from] postgres::Error),
    /// A PostgreSQL URL that cannot be used (its TLS settings, its root certificate file).
    #[error("{0}")]
    Config(String),
    /// A point read on PostgreSQL asked for rows not fetched yet (`pg_async`): the closure's
    /// run ends here and is started again once they are.
    #[error("the rows are being fetched")]
    Pending,
    /// A write that must be one statement (`Db::write_one`) asked for another.
    #[error("a one-statement write asked for a second statement")]
    OverBudget,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

fn pg_message(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("{} ({})", db.message(), db.code().code()),
        None => super::pg::describe(e),
    }
}

impl Error {
    /// A UNIQUE or PRIMARY KEY constraint refused the change.
    pub fn is_unique_violation(&self) -> bool {
        match self {
            Error::Sqlite(rusqlite::Error::SqliteFailure(f, _)) => {
                f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
                    || f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY
            }
            Error::Postgres(e) => e.code() == Some(&postgres::error::SqlState::UNIQUE_VIOLATION),
            _ => false,
        }
    }

    /// The database had no room for the write: SQLite's SQLITE_FULL (the disk, or the file
    /// system, is full) or PostgreSQL's `disk_full` class (53100).
    pub fn is_disk_full(&self) -> bool {
        match self {
            Error::Sqlite(rusqlite::Error::SqliteFailure(code, _)) => {
                code.code == rusqlite::ErrorCode::DiskFull
            }
            Error::Postgres(e) => e.code() == Some(&postgres::error::SqlState::DISK_FULL),
            _ => false,
        }
    }

    /// The database could not take the work now (locked, a serialization conflict, or its
    /// connection is gone): worth a 503 and a retry, not a 500.
    pub fn is_transient(&self) -> bool {
        use postgres::error::SqlState;
        match self {
            Error::Sqlite(rusqlite::Error::SqliteFailure(code, _)) => matches!(
                code.code,
                rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
            ),
            Error::Postgres(e) => match e.code() {
                Some(c) => {
                    c == &SqlState::T_R_SERIALIZATION_FAILURE
                        || c == &SqlState::T_R_DEADLOCK_DETECTED
                        || c == &SqlState::LOCK_NOT_AVAILABLE
                        || c == &SqlState::ADMIN_SHUTDOWN
                        || c == &SqlState::CANNOT_CONNECT_NOW
                        || c.code().starts_with("08")
                }
                None => e.is_closed() || e.as_db_error().is_none(),
            },
            _ => false,
        }
    }
}

/// `.optional()` on a query's result: no row is `None`, not an error.
pub trait OptionalExtension<T> {
    fn optional(self) -> Result<Option<T>>;
}

impl<T> OptionalExtension<T> for Result<T> {
    fn optional(self) -> Result<Option<T>> {
        match self {
            Ok(v) => Ok(Some(v)),
            Err(Error::QueryReturnedNoRows) => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// A connection lent to store code for the length of one call. The flag is set by store code
/// that revoked a credential (`note_revocation`), so that `Db::write` can tell the process's
/// verified-credential cache once the change is committed.
pub struct Conn<'a>(Inner<'a>, Cell<bool>);

enum Inner<'a> {
    Sqlite(&'a rusqlite::Connection),
    SqliteOwned(rusqlite::Connection),
    Postgres(&'a PgClient),
    PostgresOwned(Box<PgClient>),
    /// A point read's run on PostgreSQL's async client (`pg_async`).
    PgReplay(&'a Replay),
}

impl<'a> Conn<'a> {
    pub fn sqlite(conn: &'a rusqlite::Connection) -> Conn<'a> {
        Conn(Inner::Sqlite(conn), Cell::new(false))
    }

    pub fn postgres(client: &'a PgClient) -> Conn<'a> {
        Conn(Inner::Postgres(client), Cell::new(false))
    }

    pub(super) fn replay(replay: &'a Replay) -> Conn<'a> {
        Conn(Inner::PgReplay(replay), Cell::new(false))
    }

    /// Says that this work revokes a credential (a token, a grant, an API key, a client or a
    /// user's access): once it commits, `Db::write` moves the revocation epoch on, and every
    /// credential this process verified before that is checked against the database again.
    /// Store code calls it next to the UPDATE or DELETE that revokes.
    pub fn note_revocation(&self) {
        self.1.set(true);
    }

    /// Whether `note_revocation` was called on this connection.
    pub fn noted_revocation(&self) -> bool {
        self.1.get()
    }

    pub fn dialect(&self) -> Dialect {
        match self.0 {
            Inner::Postgres(_) | Inner::PostgresOwned(_) | Inner::PgReplay(_) => Dialect::Postgres,
            _ => Dialect::Sqlite,
        }
    }

    /// The SQLite connection underneath (for what only SQLite has: pragmas, backups).
    pub fn as_sqlite(&self) -> Option<&rusqlite::Connection> {
        match &self.0 {
            Inner::Sqlite(c) => Some(c),
            Inner::SqliteOwned(c) => Some(c),
            Inner::Postgres(_) | Inner::PostgresOwned(_) | Inner::PgReplay(_) => None,
        }
    }

    /// Runs one statement and answers how many rows it changed.
    pub fn execute<P: Params>(&self, sql: &str, params: P) -> Result<usize> {
        self.prepare_cached(sql)?.execute(params)
    }

    /// Runs one INSERT into a table with an `id` key and answers the new row's id.
    pub fn insert<P: Params>(&self, sql: &str, params: P) -> Result<i64> {
        self.prepare_cached(&returning_id(sql))?
            .query_row(params, |r| r.get(0))
    }

    /// The first row of a query, through `f`; no row is `Error::QueryReturnedNoRows`.
    pub fn query_row<T, P, F>(&self, sql: &str, params: P, f: F) -> Result<T>
    where
        P: Params,
        F: FnOnce(&Row<'_>) -> Result<T>,
    {
        self.prepare_cached(sql)?.query_row(params, f)
    }

    /// A statement, prepared once per connection and kept.
    pub fn prepare_cached(&self, sql: &str) -> Result<Stmt<'_>> {
        Ok(Stmt(match &self.0 {
            Inner::Sqlite(c) => StmtInner::Sqlite(c.prepare_cached(sql)?),
            Inner::SqliteOwned(c) => StmtInner::Sqlite(c.prepare_cached(sql)?),
            Inner::Postgres(c) => StmtInner::Postgres(c, sql.to_owned()),
            Inner::PostgresOwned(c) => StmtInner::Postgres(c, sql.to_owned()),
            Inner::PgReplay(r) => StmtInner::PgReplay(r, sql.to_owned()),
        }))
    }

    /// As `prepare_cached`: the statement cache is bounded, so one-off SQL costs nothing more.
    pub fn prepare(&self, sql: &str) -> Result<Stmt<'_>> {
        self.prepare_cached(sql)
    }

    /// Runs several statements without parameters (schema changes, tests' fixtures).
    pub fn execute_batch(&self, sql: &str) -> Result<()> {
        match &self.0 {
            Inner::Sqlite(c) => Ok(c.execute_batch(sql)?),
            Inner::SqliteOwned(c) => Ok(c.execute_batch(sql)?),
            Inner::Postgres(c) => c.batch(sql),
            Inner::PostgresOwned(c) => c.batch(sql),
            Inner::PgReplay(r) => Err(r.refuse()),
        }
    }

    /// What a query that claims queued rows ends with: on PostgreSQL, lock the rows it picks
    /// and pass over those another node's transaction holds (`FOR UPDATE SKIP LOCKED`), so two
    /// nodes never claim one item; SQLite's one writer needs nothing. `of` names the table
    /// alias to lock when the query joins others.
    pub fn claim_clause(&self, of: Option<&str>) -> String {
        match (self.dialect(), of) {
            (Dialect::Sqlite, _) => String::new(),
            (Dialect::Postgres, None) => " FOR UPDATE SKIP LOCKED".into(),
            (Dialect::Postgres, Some(alias)) => format!(" FOR UPDATE OF {alias} SKIP LOCKED"),
        }
    }

    /// Makes write transactions that name the same `key` take turns until they end, for a
    /// read-then-write that no single statement can guard. SQLite already runs one write at a
    /// time; PostgreSQL takes a transaction-scoped advisory lock on the key's hash.
    pub fn serialize_on(&self, key: &str) -> Result<()> {
        if self.dialect() == Dialect::Postgres {
            self.query_row(
                "SELECT pg_advisory_xact_lock(hashtextextended(?1, 0))",
                [key],
                |_| Ok(()),
            )?;
        }
        Ok(())
    }

    /// Runs `f` in a transaction of its own that only reads, so that what it reads agrees.
    /// Inside a write transaction (which already agrees with itself) it just runs `f`.
    pub fn consistent_read<T, E: From<Error>>(
        &self,
        f: impl FnOnce(&Conn<'_>) -> Result<T, E>,
    ) -> Result<T, E> {
        let (begin, end) = match self.dialect() {
            Dialect::Sqlite if !self.as_sqlite().is_some_and(|c| c.is_autocommit()) => {
                return f(self);
            }
            Dialect::Sqlite => ("BEGIN DEFERRED", "COMMIT"),
            Dialect::Postgres if self.pg_in_transaction() => return f(self),
            Dialect::Postgres => ("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", "COMMIT"),
        };
        self.execute_batch(begin)?;
        let out = f(self);
        let close = if out.is_ok() { end } else { "ROLLBACK" };
        self.execute_batch(close)?;
        out
    }

    fn pg_in_transaction(&self) -> bool {
        match &self.0 {
            Inner::Postgres(c) => c.in_transaction(),
            Inner::PostgresOwned(c) => c.in_transaction(),
            _ => false,
        }
    }
}

impl Conn<'static> {
    /// An owned SQLite connection (tests, migrations, the admin CLI's one-off work).
    pub fn sqlite_owned(conn: rusqlite::Connection) -> Conn<'static> {
        Conn(Inner::SqliteOwned(conn), Cell::new(false))
    }

    /// A connection of its own to the PostgreSQL database at `url` (tools and tests; the
    /// server uses its pool). Not on a thread that drives async tasks: the client blocks.
    pub fn postgres_connect(url: &str) -> Result<Conn<'static>> {
        Ok(Conn(
            Inner::PostgresOwned(Box::new(PgClient::connect(url)?)),
            Cell::new(false),
        ))
    }

    /// An empty SQLite database in memory, with foreign keys on: for tests.
    #[cfg(test)]
    pub fn sqlite_memory() -> Conn<'static> {
        let c = rusqlite::Connection::open_in_memory().expect("in-memory database");
        c.pragma_update(None, "foreign_keys", "ON").unwrap();
        Conn::sqlite_owned(c)
    }
}

/// A prepared statement.
pub struct Stmt<'c>(StmtInner<'c>);

enum StmtInner<'c> {
    Sqlite(rusqlite::CachedStatement<'c>),
    Postgres(&'c PgClient, String),
    PgReplay(&'c Replay, String),
}

/// `sql` (one INSERT) answering the new row's id.
fn returning_id(sql: &str) -> String {
    format!("{} RETURNING id", sql.trim_end().trim_end_matches(';'))
}

impl Stmt<'_> {
    pub fn execute<P: Params>(&mut self, params: P) -> Result<usize> {
        let values = params.values();
        match &mut self.0 {
            StmtInner::Sqlite(s) => Ok(s.execute(rusqlite::params_from_iter(values))?),
            StmtInner::Postgres(c, sql) => c.execute(sql, &values),
            StmtInner::PgReplay(r, _) => Err(r.refuse()),
        }
    }

    /// Every row, each through `f`, read to the end before the first is handed back.
    pub fn query_map<T, P, F>(
        &mut self,
        params: P,
        mut f: F,
    ) -> Result<std::vec::IntoIter<Result<T>>>
    where
        P: Params,
        F: FnMut(&Row<'_>) -> Result<T>,
    {
        let values = params.values();
        let mut out = Vec::new();
        match &mut self.0 {
            StmtInner::Sqlite(s) => {
                let mut rows = s.query(rusqlite::params_from_iter(values))?;
                while let Some(r) = rows.next()? {
                    out.push(f(&Row(RowInner::Sqlite(r))));
                }
            }
            StmtInner::Postgres(c, sql) => {
                for r in c.query(sql, &values)? {
                    out.push(f(&Row(RowInner::Postgres(&r))));
                }
            }
            StmtInner::PgReplay(replay, sql) => replay.with_rows(sql, values, |rows| {
                for r in rows {
                    out.push(f(&Row(RowInner::Postgres(r))));
                }
                Ok(())
            })?,
        }
        Ok(out.into_iter())
    }

    pub fn query_row<T, P, F>(&mut self, params: P, f: F) -> Result<T>
    where
        P: Params,
        F: FnOnce(&Row<'_>) -> Result<T>,
    {
        let values = params.values();
        match &mut self.0 {
            StmtInner::Sqlite(s) => {
                let mut rows = s.query(rusqlite::params_from_iter(values))?;
                match rows.next()? {
                    Some(r) => f(&Row(RowInner::Sqlite(r))),
                    None => Err(Error::QueryReturnedNoRows),
                }
            }
            StmtInner::Postgres(c, sql) => match c.query(sql, &values)?.first() {
                Some(r) => f(&Row(RowInner::Postgres(r))),
                None => Err(Error::QueryReturnedNoRows),
            },
            StmtInner::PgReplay(replay, sql) => {
                replay.with_rows(sql, values, |rows| match rows.first() {
                    Some(r) => f(&Row(RowInner::Postgres(r))),
                    None => Err(Error::QueryReturnedNoRows),
                })
            }
        }
    }

    /// Whether the query finds at least one row.
    pub fn exists<P: Params>(&mut self, params: P) -> Result<bool> {
        match self.query_row(params, |_| Ok(())) {
            Ok(()) => Ok(true),
            Err(Error::QueryReturnedNoRows) => Ok(false),
            Err(e) => Err(e),
        }
    }
}

/// One row of a result.
pub struct Row<'r>(RowInner<'r>);

enum RowInner<'r> {
    Sqlite(&'r rusqlite::Row<'r>),
    Postgres(&'r postgres::Row),
}

/// A column, by position or by name.
pub trait RowIndex {
    /// The position when it is given as one: the row's column names are then not read (for
    /// SQLite, reading them takes every column's name from the statement on each call).
    fn given(&self) -> Option<usize> {
        None
    }

    fn position(&self, names: &mut dyn Iterator<Item = &str>) -> Option<usize>;
}

impl RowIndex for usize {
    fn given(&self) -> Option<usize> {
        Some(*self)
    }

    fn position(&self, _: &mut dyn Iterator<Item = &str>) -> Option<usize> {
        Some(*self)
    }
}

impl RowIndex for &str {
    fn position(&self, names: &mut dyn Iterator<Item = &str>) -> Option<usize> {
        names
            .enumerate()
            .find_map(|(i, n)| n.eq_ignore_ascii_case(self).then_some(i))
    }
}

impl Row<'_> {
    /// Column `idx`, read as `T`.
    pub fn get<I: RowIndex, T: FromSql>(&self, idx: I) -> Result<T> {
        let col = match (idx.given(), &self.0) {
            (Some(i), _) => Some(i),
            (None, RowInner::Sqlite(r)) => {
                let stmt = r.as_ref();
                idx.position(&mut stmt.column_names().into_iter())
            }
            (None, RowInner::Postgres(r)) => {
                idx.position(&mut r.columns().iter().map(|c| c.name()))
            }
        }
        .ok_or_else(|| Error::Conversion {
            col: usize::MAX,
            message: "no such column".into(),
        })?;
        match &self.0 {
            RowInner::Sqlite(r) => {
                let v = r.get_ref(col)?;
                let v = match v {
                    rusqlite::types::ValueRef::Null => ValueRef::Null,
                    rusqlite::types::ValueRef::Integer(i) => ValueRef::Integer(i),
                    rusqlite::types::ValueRef::Real(f) => ValueRef::Real(f),
                    rusqlite::types::ValueRef::Text(t) => {
                        ValueRef::Text(std::str::from_utf8(t).map_err(|e| Error::Conversion {
                            col,
                            message: e.to_string(),
                        })?)
                    }
                    rusqlite::types::ValueRef::Blob(b) => ValueRef::Blob(b),
                };
                convert(col, v)
            }
            RowInner::Postgres(r) => {
                let v: super::pg::PgValue = r.try_get(col)?;
                convert(col, v.0.as_ref())
            }
        }
    }

    /// How many columns the row has.
    pub fn len(&self) -> usize {
        match &self.0 {
            RowInner::Sqlite(r) => r.as_ref().column_count(),
            RowInner::Postgres(r) => r.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A `Value` bound into SQLite as itself.
impl rusqlite::ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        use rusqlite::types::ToSqlOutput::Borrowed;
        use rusqlite::types::ValueRef as V;
        Ok(Borrowed(match self {
            Value::Null => V::Null,
            Value::Integer(i) => V::Integer(*i),
            Value::Real(f) => V::Real(*f),
            Value::Text(s) => V::Text(s.as_bytes()),
            Value::Blob(b) => V::Blob(b),
        }))
    }
}
