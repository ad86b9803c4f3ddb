//! The write-ahead log's checkpoints, off the commit path and bounded.
//!
//! SQLite's own automatic checkpoint runs inside COMMIT, on the writer thread, so every write
//! queued behind it waits for its fsyncs; and while readers always hold a snapshot, it never
//! copies the whole log, so the log never starts over and grows without bound (a soak with
//! steady reads found it at 127 MB beside an 8.7 MB database, every read paying for it).
//!
//! Here the writer's connection notes, after each commit, how many pages its log holds
//! (`watch`, which also turns the automatic checkpoint off), and then (`Checkpoints`):
//! - from `PASSIVE_AT` pages, a thread of its own, on a connection of its own, runs a passive
//!   checkpoint: it copies what no reader still needs, waiting for nobody, while the writer
//!   goes on committing;
//! - from `RESTART_AT` pages (passive checkpoints fell behind because readers kept older
//!   snapshots), the writer itself, between two transactions, runs a restarting checkpoint:
//!   it closes the `ReadGate` (new reads wait; the reads in flight finish), copies the rest and
//!   starts the log over, then opens the gate again. Waiting for SQLite's own locks instead
//!   never ends under steady reads: new readers keep taking the older snapshots' read marks
//!   (there are four) when none is free. A passive copy under way is waited for first (the
//!   writer waits; reads go on). Reads and queued writes then wait at most `FORCE_WAIT` (plus
//!   the copying), and a forced checkpoint that could not finish is tried again once the log
//!   has grown by `FORCE_AGAIN_AFTER` pages;
//! - from `HOLD_AT` pages (a forced checkpoint was refused), the writer holds writes
//!   back and tries again and again, each try waiting `FORCE_WAIT` with reads opened between
//!   tries, until one finishes or `HOLD_LIMIT` has passed. Two refusals in a row were enough
//!   for the log to outgrow its bound on a machine whose two cores were saturated: a reader
//!   descheduled past one wait often is past the next.
//!
//! So the log stays under `HOLD_AT` pages and one commit's, unless one reader keeps a snapshot
//! for longer than `HOLD_LIMIT` (another process: an online backup of a large database, an
//! operator's shell left in a transaction). Writes are not held for longer than that: the log
//! then grows while the snapshot lives, a single try every `FORCE_AGAIN_AFTER` pages, and starts
//! over at the first try after it ends; the writer holds again only after that.
//!
//! The log's file is also cut back to `SIZE_LIMIT` whenever a writer starts it over
//! (`journal_size_limit`), which is above `HOLD_AT`'s pages: under steady load the file is
//! reused as it is and only a log that outgrew its bound (a snapshot held past `HOLD_LIMIT`) is
//! cut. Cutting it runs on the writer, and on a file system mounted with `discard` freeing the
//! blocks waits for the disk: at 4 MiB, below the bound, every start over cut a few blocks, and
//! each commit queued behind it waited (the refresh grant's p99, docs/develop/performance-history.md).

use std::cell::Cell;
use std::ffi::c_int;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::time::{Duration, Instant};

use parking_lot::{Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};
use rusqlite::Connection;
use rusqlite::hooks::Wal;

/// Pages in the log (4 KiB each) from which a passive checkpoint runs: SQLite's own default.
pub const PASSIVE_AT: i32 = 1000;
/// Pages from which the writer forces a checkpoint that readers kept from finishing.
pub const RESTART_AT: i32 = 2 * PASSIVE_AT;
/// The longest a forced checkpoint waits for the readers in flight (and holds writes back).
const FORCE_WAIT: Duration = Duration::from_millis(200);
/// After a forced checkpoint that could not finish, how many more pages before the next try.
const FORCE_AGAIN_AFTER: i32 = PASSIVE_AT / 2;
/// Pages from which the writer holds writes back until a forced checkpoint finishes.
const HOLD_AT: i32 = RESTART_AT + FORCE_AGAIN_AFTER;
/// How long the writer holds writes back at `HOLD_AT`: no try starts after it (one under way
/// may still take its `FORCE_WAIT`s).
const HOLD_LIMIT: Duration = Duration::from_secs(2);
/// Bytes the log's file keeps when it starts over: above `HOLD_AT` pages of log (10.3 MB with
/// their frame headers) and a large commit's.
pub const SIZE_LIMIT: i64 = 16 * 1024 * 1024;
const _: () = assert!(SIZE_LIMIT > HOLD_AT as i64 * FRAME_BYTES);
/// A page of log on disk: the 4 KiB page and its 24-byte frame header.
const FRAME_BYTES: i64 = 4096 + 24;

thread_local! {
    /// Pages in the log after the last commit on this thread's watched connection.
    static LOG_PAGES: Cell<i32> = const { Cell::new(0) };
}

/// Notes the log's size after each commit on `conn` (for the thread that commits) and turns
/// SQLite's automatic checkpoint off there: a WAL hook replaces it.
pub fn watch(conn: &Connection) {
    fn note(_: &Wal, pages: c_int) -> rusqlite::Result<()> {
        LOG_PAGES.with(|p| p.set(pages));
        Ok(())
    }
    conn.wal_hook(Some(note));
}

/// What every pooled read passes through, so that a forced checkpoint can hold new reads back
/// for a moment and wait for those in flight.
#[derive(Clone, Default)]
pub struct ReadGate(Arc<RwLock<()>>);

impl ReadGate {
    /// Held for the whole of one read.
    pub fn enter(&self) -> RwLockReadGuard<'_, ()> {
        self.0.read()
    }

    /// As `enter`, or `None` at once when the gate is closed or about to close.
    pub fn try_enter(&self) -> Option<RwLockReadGuard<'_, ()>> {
        self.0.try_read()
    }

    /// Closes the gate once the reads in flight finish, waiting at most `wait`.
    pub(super) fn close(&self, wait: Duration) -> Option<RwLockWriteGuard<'_, ()>> {
        self.0.try_write_for(wait)
    }
}

/// The writer's side of the checkpoints.
pub struct Checkpoints {
    gate: ReadGate,
    /// Held by the passive thread while it copies: a forced checkpoint waits for that copy to
    /// end before it closes the gate, rather than close it for a checkpoint lock it cannot
    /// have (reads go on meanwhile; only the writer waits).
    copying: Arc<Mutex<()>>,
    bell: SyncSender<()>,
    /// The log's pages when the last forced checkpoint could not finish.
    refused: Option<i32>,
    /// A hold ran out of time: no more holds until a forced checkpoint finishes.
    held_out: bool,
}

impl Checkpoints {
    /// Starts the passive checkpoints' thread on `conn`, a connection of its own to the
    /// database the writer commits to.
    pub fn start(conn: Connection, gate: ReadGate) -> std::io::Result<Checkpoints> {
        let (bell, rung) = sync_channel(1);
        let copying = Arc::new(Mutex::new(()));
        let theirs = copying.clone();
        std::thread::Builder::new()
            .name("docket-db-checkpoint".into())
            .spawn(move || copy_passively(conn, rung, &theirs))?;
        Ok(Checkpoints {
            gate,
            copying,
            bell,
            refused: None,
            held_out: false,
        })
    }

    /// Called by the writer after each commit on `conn` (watched): asks for a passive
    /// checkpoint, or forces one, as the log's size says. Never fails: a checkpoint that does
    /// not happen now happens after a later commit.
    pub fn after_commit(&mut self, conn: &Connection) {
        let pages = LOG_PAGES.with(|p| p.replace(0));
        let paused = self
            .refused
            .is_some_and(|at| pages < at.saturating_add(FORCE_AGAIN_AFTER));
        if pages >= RESTART_AT && !paused {
            // A passive copy under way ends within its own I/O (it waits for nobody); letting
            // commits go on past it instead let the log outgrow the bound under load.
            let _alone = self.copying.lock();
            let hold = pages >= HOLD_AT && !self.held_out;
            let until = Instant::now() + HOLD_LIMIT;
            self.refused = loop {
                match force(conn, &self.gate) {
                    Ok(Forced::Done | Forced::Crossed) => {
                        self.held_out = false;
                        break None;
                    }
                    Ok(Forced::Refused(_)) if hold && Instant::now() < until => {}
                    Ok(Forced::Refused(by)) => {
                        if hold {
                            self.held_out = true;
                            tracing::warn!(
                                pages,
                                "{by} kept the database's write-ahead log from starting over \
                                 for {HOLD_LIMIT:?}; it grows until that ends"
                            );
                        }
                        break Some(pages);
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "forced database checkpoint failed");
                        break Some(pages);
                    }
                }
            };
        } else if pages >= PASSIVE_AT {
            // Full: a round is already asked for, and copies this commit too. Asked after every
            // commit, not every few hundred pages: the log is then synced in the background in
            // small steps, and a forced checkpoint finds little left to copy and sync on the
            // writer (asking each 250 pages, the writer's syncs went from 0.8 to 4.6 ms and the
            // refresh grant's p99 rose by more than a quarter: docs/develop/performance-history.md).
            let _ = self.bell.try_send(());
        }
    }
}

fn copy_passively(conn: Connection, rung: Receiver<()>, copying: &Mutex<()>) {
    // Ends when the writer (the only sender) is gone.
    while rung.recv().is_ok() {
        let _copying = copying.lock();
        if let Err(e) = run_mode(&conn, "PASSIVE") {
            tracing::warn!(error = %e, "database checkpoint failed; a later commit asks again");
        }
    }
}

enum Forced {
    /// The log is empty.
    Done,
    /// A reader (which one: `Holder`) kept it from finishing within `FORCE_WAIT`.
    Refused(Holder),
    /// Another connection (`checkpoint_fully`) held the checkpoint lock; nothing waited.
    Crossed,
}

/// Who kept a forced checkpoint from finishing.
enum Holder {
    /// This process's reads, through the gate.
    Reads,
    /// A snapshot the gate does not see: another process's.
    Snapshot,
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Holder::Reads => "a read in flight",
            Holder::Snapshot => "another process's read transaction",
        })
    }
}

/// A checkpoint that starts the log over (RESTART: the next commit writes from the file's
/// start) on the writer's connection with the read gate closed, waiting for readers at most
/// `FORCE_WAIT`. It does not truncate the file: cutting it waits for the disk on some file
/// systems (see `SIZE_LIMIT`), and the file is reused as it is.
fn force(conn: &Connection, gate: &ReadGate) -> rusqlite::Result<Forced> {
    let Some(closed) = gate.close(FORCE_WAIT) else {
        return Ok(Forced::Refused(Holder::Reads));
    };
    // Only another process (`docket backup`, say) can still hold a snapshot.
    let before = conn.busy_timeout(FORCE_WAIT);
    let outcome = before.and_then(|()| run_mode(conn, "RESTART"));
    // The reads held back go first: an unfair unlock would let a hold's next try close the
    // gate again before any of them ran.
    RwLockWriteGuard::unlock_fair(closed);
    conn.busy_timeout(super::BUSY_TIMEOUT)?;
    Ok(match outcome? {
        (0, _, _) => Forced::Done,
        // Another checkpoint holds the checkpoint lock: no wait happened, retry next commit.
        (_, -1, _) => Forced::Crossed,
        _ => Forced::Refused(Holder::Snapshot),
    })
}

/// Runs `PRAGMA wal_checkpoint(mode)`: (busy, pages in the log, pages copied).
fn run_mode(conn: &Connection, mode: &str) -> rusqlite::Result<(i64, i64, i64)> {
    conn.query_row(&format!("PRAGMA wal_checkpoint({mode})"), [], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?))
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::{Duration, Instant};

    use super::{FORCE_AGAIN_AFTER, HOLD_AT, HOLD_LIMIT, RESTART_AT};
    use crate::core::db::Db;
    use crate::core::error::AppError;

    /// Three readers, staggered, each keeping its snapshot for 15 ms: at every commit some
    /// reader holds an older snapshot, so no passive checkpoint ever copies the whole log.
    fn starving_readers(db: &Db, stop: &Arc<AtomicBool>) -> Vec<std::thread::JoinHandle<()>> {
        (0..3u64)
            .map(|i| {
                let (db, stop) = (db.clone(), stop.clone());
                std::thread::spawn(move || {
                    std::thread::sleep(Duration::from_millis(5 * i));
                    while !stop.load(Ordering::Relaxed) {
                        db.read_blocking(|c| {
                            c.consistent_read(|c| {
                                c.query_row("SELECT count(*) FROM settings", [], |r| {
                                    r.get::<_, i64>(0)
                                })?;
                                std::thread::sleep(Duration::from_millis(15));
                                Ok::<_, AppError>(())
                            })
                        })
                        .unwrap();
                    }
                })
            })
            .collect()
    }

    #[test]
    fn the_log_stays_bounded_while_readers_always_hold_a_snapshot() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("t.db");
        let db = Db::open(&path, tmp.path(), 8).unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let readers = starving_readers(&db, &stop);
        let (largest, cut) = largest_log_over_commits(&db, tmp.path());
        stop.store(true, Ordering::Relaxed);
        for r in readers {
            r.join().unwrap();
        }
        // Within its bound the file is reused as it is: cutting it waits for the disk on the
        // writer (`SIZE_LIMIT`).
        assert!(!cut, "the log's file was cut back while within its bound");
        // Forced from 2,000 pages, and at most 500 more if one could not finish (a reader
        // descheduled past `FORCE_WAIT` on a busy machine), plus the pages of the commit that
        // crossed the line (a 4 KB value: its page, an overflow page, the index's and the
        // table's, with room) and the file's 32-byte header.
        let bound = bytes_of(RESTART_AT + FORCE_AGAIN_AFTER + 8);
        assert!(
            largest <= bound,
            "the log reached {largest} bytes, over {bound}"
        );
    }

    /// 3,000 commits of a 4 KB value each (some 9,000 pages of log, 37 MB, if it never started
    /// over), answering the largest the log (`t.db-wal` in `dir`) was on disk after any of them,
    /// and whether its file ever got smaller (was cut back).
    fn largest_log_over_commits(db: &Db, dir: &std::path::Path) -> (u64, bool) {
        let value = "x".repeat(4000);
        let (mut largest, mut last, mut cut) = (0, 0, false);
        for i in 0..3000 {
            let value = value.clone();
            db.write_blocking(move |c| crate::core::settings::set(c, &format!("k{i}"), &value, 0))
                .unwrap();
            let log = std::fs::metadata(dir.join("t.db-wal")).map_or(0, |m| m.len());
            largest = largest.max(log);
            cut |= log < last;
            last = log;
        }
        (largest, cut)
    }

    /// The bytes `pages` pages of log take on disk, with the file's 32-byte header.
    fn bytes_of(pages: i32) -> u64 {
        u64::try_from(i64::from(pages) * super::FRAME_BYTES).unwrap() + 32
    }

    #[test]
    fn writes_wait_at_the_hold_line_for_a_snapshot_held_longer_than_two_forced_waits() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("t.db");
        let db = Db::open(&path, tmp.path(), 8).unwrap();
        db.write_blocking(|c| crate::core::settings::set(c, "k", "v", 0))
            .unwrap();
        // Another process's read transaction, the gate unaware of it, held for a second: past
        // the forced checkpoint at `RESTART_AT` and the one after it, well within `HOLD_LIMIT`.
        let held = Duration::from_secs(1);
        assert!(held < HOLD_LIMIT);
        let (began, begun) = std::sync::mpsc::channel();
        let holder = {
            let path = path.clone();
            std::thread::spawn(move || {
                let conn = rusqlite::Connection::open(path).unwrap();
                conn.execute_batch("BEGIN").unwrap();
                conn.query_row("SELECT count(*) FROM settings", [], |r| r.get::<_, i64>(0))
                    .unwrap();
                began.send(Instant::now()).unwrap();
                std::thread::sleep(held);
                conn.execute_batch("COMMIT").unwrap();
                Instant::now()
            })
        };
        let since = begun.recv().unwrap();
        let (largest, _) = largest_log_over_commits(&db, tmp.path());
        let ended = holder.join().unwrap();
        // It proves the hold only if the writes outlasted the snapshot.
        assert!(
            since.elapsed() > ended.duration_since(since),
            "the writes ended while the snapshot was still held"
        );
        let bound = bytes_of(HOLD_AT + 8);
        assert!(
            largest <= bound,
            "the log reached {largest} bytes, over {bound}"
        );
    }
}
