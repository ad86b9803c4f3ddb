//! Free space where this node writes (its data directory): sampled at most once a second (one
//! `statvfs`, cached), and sooner after a write found the disk full. Below `--min-free-mb` the
//! node is *low*: new work is refused (`Low`, which requests answer as 507), while what is
//! under way (reads, downloads, signing and sealing documents already sent) goes on in the room
//! left, part of which a reserve file holds back until then. One warning a minute while low,
//! one line when it is over (docs/reference/security.md, "A full disk").

use std::fs::{File, OpenOptions};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How old a sample may be before the next question takes a new one.
const FRESH_FOR: Duration = Duration::from_secs(1);
/// Warnings while low come at most this often.
const WARN_EVERY: Duration = Duration::from_secs(60);
/// How often the background watch samples when no request asks (`watch_forever`): the warning
/// is repeated and the recovery noticed on an idle node too.
const IDLE_SAMPLE: Duration = Duration::from_secs(10);
/// The part of the threshold the reserve file holds (a quarter: 64 MiB of the default 256,
/// room to seal one document of the largest upload, 50 MiB, and the database's log).
const RESERVE_PART: u64 = 4;
/// The reserve file, in the data directory.
pub const RESERVE_FILE: &str = "reserved-space";
/// What a client is told to wait before trying new work again.
pub const RETRY_AFTER_SECS: u64 = 60;

/// Writes that found the disk full, in this process: counted where a failed write is turned
/// into an error (`error.rs`, the database's errors), which has no handle on a `DiskSpace`. The
/// disk is the machine's, so one count serves every watcher; each samples again when it moves.
static FULL_SEEN: AtomicU64 = AtomicU64::new(0);

/// A write failed for want of room (ENOSPC, SQLITE_FULL): the watchers sample again at once.
pub fn note_full() {
    FULL_SEEN.fetch_add(1, Ordering::Relaxed);
}

/// New work refused: the disk is below the threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Low {
    pub free: u64,
    pub min_free: u64,
}

impl std::fmt::Display for Low {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(
            "the server is low on disk space and takes no new work until space is freed; \
             documents already sent can still be signed, and everything can be read and \
             downloaded",
        )
    }
}

/// What the last sample found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Status {
    pub low: bool,
    /// Bytes an unprivileged writer may still use, the reserve file's counted in.
    pub free: u64,
    pub min_free: u64,
}

/// The watch on one directory's file system. Cheap to clone.
#[derive(Clone)]
pub struct DiskSpace(Arc<Inner>);

struct Inner {
    dir: PathBuf,
    min_free: u64,
    started: Instant,
    /// Milliseconds after `started` of the last sample.
    sampled_at: AtomicU64,
    free: AtomicU64,
    low: AtomicBool,
    /// The sampler's state: whoever takes it samples; others use the last sample.
    watch: parking_lot::Mutex<Watch>,
    /// Never samples, never low (`unlimited`).
    unlimited: bool,
}

impl DiskSpace {
    /// Watches the file system of `dir` against `min_free` bytes (0: never low, no reserve).
    /// Takes the first sample now; a reserve file left by an earlier run is made anew to size.
    pub fn watch(dir: &Path, min_free: u64) -> DiskSpace {
        DiskSpace::with(dir, min_free, false)
    }

    fn with(dir: &Path, min_free: u64, unlimited: bool) -> DiskSpace {
        let reserve = (min_free > 0).then(|| Reserve {
            path: dir.join(RESERVE_FILE),
            size: min_free / RESERVE_PART,
            held: false,
        });
        if let Some(r) = &reserve {
            let _ = std::fs::remove_file(&r.path);
        }
        let space = DiskSpace(Arc::new(Inner {
            dir: dir.to_path_buf(),
            min_free,
            started: Instant::now(),
            sampled_at: AtomicU64::new(0),
            free: AtomicU64::new(u64::MAX),
            low: AtomicBool::new(false),
            watch: parking_lot::Mutex::new(Watch {
                low: false,
                last_warn: None,
                warned: false,
                full_seen: FULL_SEEN.load(Ordering::Relaxed),
                reserve,
            }),
            unlimited,
        }));
        if !unlimited {
            space.sample();
        }
        space
    }

    /// A watch that never finds the disk low and never samples (unit tests, the admin
    /// commands): not even a write that found a disk full elsewhere in the process moves it.
    pub fn unlimited() -> DiskSpace {
        DiskSpace::with(Path::new("/"), 0, true)
    }

    /// The state now (sampled again when the last sample is over a second old).
    pub fn status(&self) -> Status {
        self.sample_if_stale();
        self.last_sample()
    }

    /// The state as of the last sample.
    fn last_sample(&self) -> Status {
        Status {
            low: self.0.low.load(Ordering::Relaxed),
            free: self.0.free.load(Ordering::Relaxed),
            min_free: self.0.min_free,
        }
    }

    /// Whether new work may start: `Low` while the disk is below the threshold.
    pub fn admit_new_work(&self) -> Result<(), Low> {
        let s = self.status();
        if s.low {
            return Err(Low {
                free: s.free,
                min_free: s.min_free,
            });
        }
        Ok(())
    }

    /// Samples every `IDLE_SAMPLE` for as long as the runtime runs.
    pub async fn watch_forever(self) {
        let mut tick = tokio::time::interval(IDLE_SAMPLE);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            let me = self.clone();
            let _ = tokio::task::spawn_blocking(move || me.sample_if_stale()).await;
        }
    }

    fn sample_if_stale(&self) {
        if self.0.unlimited {
            return;
        }
        let now = self.0.started.elapsed().as_millis() as u64;
        let at = self.0.sampled_at.load(Ordering::Relaxed);
        let full_moved = self
            .0
            .watch
            .try_lock()
            .is_some_and(|w| w.full_seen != FULL_SEEN.load(Ordering::Relaxed));
        if now.saturating_sub(at) >= FRESH_FOR.as_millis() as u64 || full_moved {
            self.sample();
        }
    }

    /// Takes a sample unless another thread is taking one.
    fn sample(&self) {
        let Some(mut watch) = self.0.watch.try_lock() else {
            return;
        };
        let full = FULL_SEEN.load(Ordering::Relaxed);
        let saw_full = full != watch.full_seen;
        watch.full_seen = full;
        let Some(avail) = available(&self.0.dir) else {
            return;
        };
        let free = avail + watch.reserve.as_ref().map_or(0, Reserve::held_bytes);
        let now = Instant::now();
        let said = watch.observe(free, self.0.min_free, saw_full, now);
        let low = watch.low;
        if let Some(r) = &mut watch.reserve {
            // Counted as free either way: giving it up or taking it back moves no threshold.
            if low {
                r.release();
            } else {
                r.take();
            }
        }
        self.0.free.store(free, Ordering::Relaxed);
        self.0.low.store(low, Ordering::Relaxed);
        self.0.sampled_at.store(
            self.0.started.elapsed().as_millis() as u64,
            Ordering::Relaxed,
        );
        let (dir, mib) = (self.0.dir.display(), |b: u64| b >> 20);
        match said {
            Said::Warn if saw_full && free >= self.0.min_free => tracing::warn!(
                dir = %dir, free_mib = mib(free),
                "a write found the disk full; requests that need room answer 507"
            ),
            Said::Warn => tracing::warn!(
                dir = %dir, free_mib = mib(free), min_free_mib = mib(self.0.min_free),
                "low on disk space: new work is refused (507) until space is freed; reads, \
                 downloads and documents already out for signing go on"
            ),
            Said::Recovered => tracing::info!(
                dir = %dir, free_mib = mib(free),
                "disk space is back above the threshold: new work is taken again"
            ),
            Said::Nothing => {}
        }
    }
}

/// Bytes an unprivileged writer may still use on the file system of `dir` (`f_bavail`).
fn available(dir: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
    let mut st = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `path` is a NUL-terminated string that outlives the call, and `st` is written
    // whole by a call that returns 0, the only case in which it is read.
    let st = unsafe {
        if libc::statvfs(path.as_ptr(), st.as_mut_ptr()) != 0 {
            return None;
        }
        st.assume_init()
    };
    #[allow(clippy::unnecessary_cast)] // the fields' widths differ between libcs
    Some((st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
}

/// What one sample has the watch say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Said {
    Warn,
    Recovered,
    Nothing,
}

/// The threshold's logic, apart from the file system: low or not, and what to log.
struct Watch {
    low: bool,
    last_warn: Option<Instant>,
    /// A warning was logged since the node was last fine (so its recovery is worth a line).
    warned: bool,
    /// `FULL_SEEN` as of the last sample.
    full_seen: u64,
    reserve: Option<Reserve>,
}

impl Watch {
    /// Takes a sample of `free` bytes against `min_free` (`full`: a write found the disk full
    /// since the last one): low below the threshold or after a full write; a warning at most
    /// every `WARN_EVERY` while low, one recovery line after a warning.
    fn observe(&mut self, free: u64, min_free: u64, full: bool, now: Instant) -> Said {
        self.low = free < min_free || full;
        if self.low {
            let due = self
                .last_warn
                .is_none_or(|t| now.duration_since(t) >= WARN_EVERY);
            if due {
                self.last_warn = Some(now);
                self.warned = true;
                return Said::Warn;
            }
            return Said::Nothing;
        }
        if std::mem::take(&mut self.warned) {
            return Said::Recovered;
        }
        Said::Nothing
    }
}

/// A file that keeps `size` bytes of the disk for the work that goes on while it is low.
struct Reserve {
    path: PathBuf,
    size: u64,
    held: bool,
}

impl Reserve {
    fn held_bytes(&self) -> u64 {
        if self.held { self.size } else { 0 }
    }

    /// Gives the room back to the file system.
    fn release(&mut self) {
        if self.held {
            let _ = std::fs::remove_file(&self.path);
            self.held = false;
        }
    }

    /// Takes the room (allocated, not written where the file system allows it); a failure
    /// leaves no file and is tried again at the next sample.
    fn take(&mut self) {
        if self.held || self.size == 0 {
            return;
        }
        let made = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&self.path)
            .and_then(|f| allocate(&f, self.size));
        match made {
            Ok(()) => self.held = true,
            Err(e) => {
                let _ = std::fs::remove_file(&self.path);
                tracing::debug!(error = %e, "the disk space reserve could not be taken");
            }
        }
    }
}

/// `len` bytes of `file` allocated: `fallocate`, or zeros written where it is not supported.
fn allocate(file: &File, len: u64) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::fd::AsRawFd;
    // SAFETY: the descriptor is `file`'s, open for writing for the whole call.
    let rc = unsafe { libc::fallocate(file.as_raw_fd(), 0, 0, len as libc::off_t) };
    if rc == 0 {
        return Ok(());
    }
    let e = std::io::Error::last_os_error();
    if e.raw_os_error() != Some(libc::EOPNOTSUPP) {
        return Err(e);
    }
    let zeros = vec![0u8; 1 << 20];
    let mut left = len;
    let mut w = std::io::BufWriter::new(file);
    while left > 0 {
        let n = left.min(zeros.len() as u64) as usize;
        w.write_all(&zeros[..n])?;
        left -= n as u64;
    }
    w.flush()?;
    file.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn watch() -> Watch {
        Watch {
            low: false,
            last_warn: None,
            warned: false,
            full_seen: 0,
            reserve: None,
        }
    }

    const MIB: u64 = 1 << 20;

    #[test]
    fn low_below_the_threshold_with_one_warning_a_minute_and_one_line_on_recovery() {
        let mut w = watch();
        let t0 = Instant::now();
        assert_eq!(w.observe(300 * MIB, 256 * MIB, false, t0), Said::Nothing);
        assert!(!w.low);
        assert_eq!(w.observe(255 * MIB, 256 * MIB, false, t0), Said::Warn);
        assert!(w.low);
        // A sample a second for a minute: no second warning.
        for s in 1..60 {
            let at = t0 + Duration::from_secs(s);
            assert_eq!(w.observe(10 * MIB, 256 * MIB, false, at), Said::Nothing);
        }
        let minute = t0 + Duration::from_secs(60);
        assert_eq!(w.observe(10 * MIB, 256 * MIB, false, minute), Said::Warn);
        // Exactly the threshold is enough.
        let later = minute + Duration::from_secs(1);
        assert_eq!(
            w.observe(256 * MIB, 256 * MIB, false, later),
            Said::Recovered
        );
        assert!(!w.low);
        assert_eq!(w.observe(256 * MIB, 256 * MIB, false, later), Said::Nothing);
        // Back and forth across the line: still one warning a minute.
        let soon = later + Duration::from_secs(5);
        assert_eq!(w.observe(1, 256 * MIB, false, soon), Said::Nothing);
        assert!(
            w.low,
            "low again, without a second warning within the minute"
        );
        assert_eq!(w.observe(400 * MIB, 256 * MIB, false, soon), Said::Nothing);
    }

    #[test]
    fn a_write_that_found_the_disk_full_makes_the_node_low_even_without_a_threshold() {
        let mut w = watch();
        let t0 = Instant::now();
        assert_eq!(w.observe(0, 0, false, t0), Said::Nothing);
        assert_eq!(w.observe(5 * MIB, 0, true, t0), Said::Warn);
        assert!(w.low);
        assert_eq!(
            w.observe(5 * MIB, 0, false, t0 + FRESH_FOR),
            Said::Recovered
        );
    }

    #[test]
    fn a_threshold_above_the_free_space_makes_the_node_low_and_keeps_no_reserve() {
        let tmp = tempfile::tempdir().unwrap();
        let space = DiskSpace::watch(tmp.path(), u64::MAX / 2);
        let s = space.status();
        assert!(s.low, "{s:?}");
        let refused = space.admit_new_work().unwrap_err();
        assert_eq!(refused.min_free, u64::MAX / 2);
        assert!(!tmp.path().join(RESERVE_FILE).exists());
        assert!(DiskSpace::unlimited().admit_new_work().is_ok());
    }

    #[test]
    fn the_reserve_is_held_while_fine_and_counted_as_free() {
        let tmp = tempfile::tempdir().unwrap();
        let space = DiskSpace::watch(tmp.path(), 8 * MIB);
        // The sample taken when the watch began: a later one would also see the full disks
        // that other tests of this process simulate (`note_full` counts for the process).
        let s = space.last_sample();
        assert!(!s.low, "{s:?}");
        let file = tmp.path().join(RESERVE_FILE);
        assert_eq!(std::fs::metadata(&file).unwrap().len(), 2 * MIB);
        let avail = available(tmp.path()).unwrap();
        // Held, it is counted back in (other writers may move `avail` a little meanwhile).
        assert!(s.free.abs_diff(avail + 2 * MIB) < 64 * MIB, "{s:?} {avail}");
    }
}
