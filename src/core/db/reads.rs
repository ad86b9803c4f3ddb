//! Reads: on the pool of read-only connections, or (a point read) on PostgreSQL's async client.
use super::*;

impl Db {
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
    pub(super) async fn on_pool(&self, job: Box<dyn FnOnce() + Send>) -> Result<(), AppError> {
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
    pub(super) async fn pooled<T: Send + 'static>(
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
}

/// Most runs of a point read's closure on PostgreSQL before it goes the blocking way.
pub(super) const MAX_RUNS: usize = 8;

/// `f` on PostgreSQL's async client (`pg_async`): its outcome, or `None` when it must run on
/// the blocking path (it writes, or the async client cannot answer now).
pub(super) async fn point_read_pg<F, T>(fast: &pg_async::Fast, f: &F) -> Option<Result<T, AppError>>
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
