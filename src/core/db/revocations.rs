//! The revocation epoch of one `Db`: a counter that moves on after every committed write whose
//! store code revoked a credential (`Conn::note_revocation`). Whatever this process verified
//! against the database under an older epoch is no longer trusted, so a revocation made here is
//! seen by this process's next request at once. On PostgreSQL the other processes (nodes, the
//! admin CLI) are told too (`notices.rs`), and a notice from one moves the epoch here. A notice
//! can be lost, so the verified-credential cache (`oauth::verified`) trusts an entry for at most
//! `SETTLES` whatever it hears, and the CLI's revoking commands wait that long before they
//! answer.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// How long a process may trust a credential it verified, after which a revocation committed
/// by another process (another node, the admin CLI) is seen.
pub const SETTLES: Duration = Duration::from_secs(1);

/// Which `Db` and how many revocations it had committed: two values are equal only when they
/// come from the same `Db` (its clones included) with no revocation committed in between.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Epoch {
    db: u64,
    n: u64,
}

/// Shared by a `Db` and its clones.
#[derive(Debug)]
pub struct Revocations {
    db: u64,
    n: AtomicU64,
    /// Names this process's revocation notices (`notices.rs`), so that it skips its own: random,
    /// as the processes sharing a database may run on different machines.
    origin: u64,
}

impl Revocations {
    pub fn new() -> Arc<Revocations> {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Arc::new(Revocations {
            db: NEXT.fetch_add(1, Ordering::Relaxed),
            n: AtomicU64::new(0),
            origin: rand::random(),
        })
    }

    /// The epoch now. Read it before the database read whose outcome it will label: a
    /// revocation committed after that read began moves it on.
    pub fn current(&self) -> Epoch {
        Epoch {
            db: self.db,
            n: self.n.load(Ordering::SeqCst),
        }
    }

    /// What this process's revocation notices carry.
    pub fn origin(&self) -> u64 {
        self.origin
    }

    /// A revocation was committed: called after the COMMIT and before its request is answered,
    /// and when another process's notice of one is heard (or may have been missed).
    pub fn committed(&self) {
        self.n.fetch_add(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epochs_differ_between_databases_and_after_a_revocation() {
        let (a, b) = (Revocations::new(), Revocations::new());
        let before = a.current();
        assert_eq!(before, a.current());
        assert_ne!(before, b.current());
        a.committed();
        assert_ne!(before, a.current());
    }
}
