//! Writes: each a transaction on the writer thread (SQLite) or a pooled connection
//! (PostgreSQL), and `write_tx` for connections outside `Db`.
use super::*;

impl Db {
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
    pub(super) fn queue_write<F, T>(
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
    pub(super) fn write_blocking_pg<F, T>(&self, f: F) -> Result<T, AppError>
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

/// `f`, one statement that writes, on PostgreSQL's async client (`Db::write_one`): its
/// outcome, or `None` when it must run on the blocking path (nothing was written).
pub(super) async fn write_one_pg<F, T>(fast: &pg_async::Fast, f: &F) -> Option<Result<T, AppError>>
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
