//! The writer thread: takes write jobs from a queue, runs those that are waiting in one
//! `BEGIN IMMEDIATE` transaction (each in its own savepoint), commits once, then answers each.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::mpsc;

use rusqlite::{Connection, TransactionBehavior};

use super::checkpoint::Checkpoints;
use crate::core::error::AppError;

/// Called after the commit with its outcome.
pub type Finish = Box<dyn FnOnce(Result<(), AppError>) + Send>;
/// Runs one write on the shared transaction (None: there is none, do nothing) and says how to
/// answer once it commits.
pub type Job = Box<dyn FnOnce(Option<&Connection>) -> Finish + Send>;

/// Most jobs one transaction takes, so that a long queue still commits often.
const MAX_BATCH: usize = 64;

/// Starts the writer thread on `conn`; after each commit, `checkpoints` (a database file's;
/// none in memory) copy the log as its size says.
pub fn start(
    conn: Connection,
    checkpoints: Option<Checkpoints>,
) -> Result<mpsc::Sender<Job>, super::OpenError> {
    let (tx, rx) = mpsc::channel::<Job>();
    std::thread::Builder::new()
        .name("docket-db-writer".into())
        .spawn(move || run(conn, rx, checkpoints))
        .map_err(|e| {
            super::OpenError::Migration(format!("cannot start the database writer: {e}"))
        })?;
    Ok(tx)
}

fn run(mut conn: Connection, rx: mpsc::Receiver<Job>, mut checkpoints: Option<Checkpoints>) {
    // Ends when every `Db` (and so every sender) is gone.
    while let Ok(first) = rx.recv() {
        let mut batch = vec![first];
        while batch.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        let tx = match conn.transaction_with_behavior(TransactionBehavior::Immediate) {
            Ok(tx) => tx,
            Err(e) => {
                let err = AppError::from(e);
                for job in batch {
                    job(None)(Err(err.clone()));
                }
                continue;
            }
        };
        let finishes: Vec<Finish> = batch.into_iter().map(|job| job(Some(&tx))).collect();
        let committed = tx.commit().map_err(AppError::from);
        if let Some(checkpoints) = &mut checkpoints {
            checkpoints.after_commit(&conn);
        }
        for finish in finishes {
            finish(committed.clone());
        }
    }
}

/// Runs `f` in a savepoint on `conn`: released on success, rolled back on error or panic.
/// Also answers whether `f` noted a revocation (`Conn::note_revocation`; when in doubt, yes).
pub fn in_savepoint<T>(
    conn: &Connection,
    f: impl FnOnce(&super::Conn<'_>) -> Result<T, AppError>,
) -> (Result<T, AppError>, bool) {
    if let Err(e) = run_cached(conn, "SAVEPOINT job") {
        return (Err(e.into()), false);
    }
    let lent = super::Conn::sqlite(conn);
    let outcome = catch_unwind(AssertUnwindSafe(|| f(&lent)))
        .unwrap_or_else(|_| Err(AppError::internal("a database write panicked")));
    let revoked = lent.noted_revocation();
    let closed = match &outcome {
        Ok(_) => run_cached(conn, "RELEASE job"),
        Err(_) => {
            run_cached(conn, "ROLLBACK TO job").and_then(|()| run_cached(conn, "RELEASE job"))
        }
    };
    match closed {
        Ok(()) => (outcome, revoked),
        Err(e) => (Err(e.into()), revoked),
    }
}

/// Runs `sql` from the connection's statement cache: a savepoint's statements are parsed
/// once, not for every job (running them as text was about a tenth of the writer thread's CPU
/// in a profile of the refresh grant).
fn run_cached(conn: &Connection, sql: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(sql)?.execute([]).map(drop)
}

#[cfg(test)]
mod tests {
    use crate::core::db::Db;
    use crate::core::error::AppError;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_failed_write_undoes_only_itself_even_in_a_shared_batch() {
        let tmp = tempfile::tempdir().unwrap();
        let db = Db::open(&tmp.path().join("t.db"), tmp.path(), 4).unwrap();
        let mut handles = Vec::new();
        for i in 0..50 {
            let db = db.clone();
            handles.push(tokio::spawn(async move {
                db.write(move |c| {
                    crate::core::settings::set(c, &format!("k{i}"), "v", 0)?;
                    if i % 2 == 1 {
                        return Err(AppError::Conflict("odd".into()));
                    }
                    Ok(i)
                })
                .await
            }));
        }
        let mut ok = 0;
        for h in handles {
            if h.await.unwrap().is_ok() {
                ok += 1;
            }
        }
        assert_eq!(ok, 25);
        let kept = db
            .read(|c| {
                (0..50)
                    .map(|i| crate::core::settings::get(c, &format!("k{i}")).map(|v| v.is_some()))
                    .collect::<Result<Vec<bool>, AppError>>()
            })
            .await
            .unwrap();
        let expected: Vec<bool> = (0..50).map(|i| i % 2 == 0).collect();
        assert_eq!(kept, expected, "only the successful writes were kept");
    }

    #[tokio::test]
    async fn a_panicking_write_fails_alone_and_the_writer_goes_on() {
        let tmp = tempfile::tempdir().unwrap();
        let db = Db::open(&tmp.path().join("t.db"), tmp.path(), 2).unwrap();
        let r: Result<(), AppError> = db.write(|_| panic!("boom")).await;
        assert!(r.is_err());
        let v = db
            .write(|c| Ok(c.query_row("SELECT 41 + 1", [], |r| r.get::<_, i64>(0))?))
            .await;
        assert_eq!(v.unwrap(), 42);
    }
}
