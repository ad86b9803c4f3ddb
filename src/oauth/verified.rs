//! The verified-credential cache: an API key or access token that the database found live is
//! remembered for a moment, so that the next request with it needs no trip to the database.
//! Three of them, held together in `Caches`, one per server (the application state holds it, so
//! two servers in one process, as in the tests, remember nothing of each other's): `bearers`,
//! the principal behind a bearer credential; `introspected`, what introspection showed a client
//! about a live access token (with the client, which must still authenticate at every request);
//! and `clients`, the clients that proved themselves at the token endpoint (which authenticate
//! at every request too).
//!
//! - **Keyed by the credential's SHA-256**, never the credential itself; only credentials the
//!   database found live are kept (nothing is remembered of an unknown or refused one, so a
//!   flood of made-up tokens adds nothing), in `SHARDS` maps of at most `capacity / SHARDS`
//!   entries each: a full shard first drops its entries past their trust, then one more.
//! - **Trusted for `TRUST_FOR` (one second) from the moment its database read began**: a
//!   revocation committed by another node (or the admin CLI, another process) is seen within
//!   that second, whatever this process hears of it (usually far sooner: on PostgreSQL its
//!   notice moves the epoch here, `core::db::notices`).
//! - **Labelled with the revocation epoch** read before that database read
//!   (`Db::revocation_epoch`): a revocation committed by this process moves the epoch on
//!   (`Conn::note_revocation`), and an entry of an older epoch is not used, so the next request
//!   after it is checked against the database, at once. A read that began before such a commit
//!   keeps its older epoch, so what it found is never trusted after it.
//! - **Expiry is checked on every use**, from the expiry time the database gave.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use sha2::{Digest, Sha256};

use crate::core::db::Epoch;
use crate::identity::principal::Principal;
use crate::oauth::clients::Client;
use crate::oauth::tokens::store::Introspection;

/// How long an entry is trusted after its database read began.
pub const TRUST_FOR: Duration = crate::core::db::REVOCATION_SETTLES;
const SHARDS: usize = 16;
/// Entries a server keeps at most (a few hundred bytes each).
const CAPACITY: usize = 8192;

/// A server's verified-credential caches: built once with its state, never process-wide.
pub struct Caches {
    /// The principal behind a bearer credential, by the credential's SHA-256.
    pub bearers: Cache<Principal>,
    /// Introspected access tokens, by the token's SHA-256: the client that asked (as stored,
    /// with its secret's hash) and what it was shown. Only a client that proved itself and a
    /// token that was live are remembered; a request naming another client, or a refresh
    /// token, goes to the database.
    pub introspected: Cache<(Client, Introspection)>,
    /// Clients that proved themselves at the token endpoint, by the SHA-256 of their
    /// `client_id`: the client as stored, with its secret's hash, which every request is
    /// checked against again. A client's secret rotated or the client removed is a revocation
    /// (`clients::store`); nothing else of a client changes.
    pub clients: Cache<Client>,
}

impl Caches {
    pub fn new() -> Caches {
        Caches {
            bearers: Cache::new(CAPACITY, TRUST_FOR),
            introspected: Cache::new(CAPACITY / 2, TRUST_FOR),
            clients: Cache::new(CAPACITY / 8, TRUST_FOR),
        }
    }
}

impl Default for Caches {
    fn default() -> Caches {
        Caches::new()
    }
}

/// The SHA-256 of a presented credential.
pub type Key = [u8; 32];

pub fn key(secret: &str) -> Key {
    Sha256::digest(secret.as_bytes()).into()
}

#[derive(Debug, Clone)]
struct Entry<V> {
    value: V,
    /// Unix seconds; `None` for an API key that does not expire.
    expires_at: Option<i64>,
    verified: Instant,
    epoch: Epoch,
}

impl<V> Entry<V> {
    fn trusted(&self, epoch: Epoch, now: i64, trust_for: Duration) -> bool {
        self.epoch == epoch
            && self.verified.elapsed() < trust_for
            && self.expires_at.is_none_or(|e| e > now)
    }
}

/// What a database read verified, for `Cache::put`.
pub struct Verified<V> {
    pub value: V,
    pub expires_at: Option<i64>,
    /// When the read began, and the revocation epoch read before it.
    pub since: Instant,
    pub epoch: Epoch,
}

pub struct Cache<V> {
    shards: Vec<Mutex<HashMap<Key, Entry<V>>>>,
    per_shard: usize,
    trust_for: Duration,
}

impl<V: Clone> Cache<V> {
    pub fn new(capacity: usize, trust_for: Duration) -> Cache<V> {
        Cache {
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
            per_shard: capacity.div_ceil(SHARDS).max(1),
            trust_for,
        }
    }

    fn shard(&self, key: &Key) -> &Mutex<HashMap<Key, Entry<V>>> {
        &self.shards[key[0] as usize % SHARDS]
    }

    /// What is remembered for `key` when an entry of `epoch` (the epoch now) is still trusted
    /// at `now` (unix seconds); an entry that is not is dropped.
    pub fn get(&self, key: &Key, epoch: Epoch, now: i64) -> Option<V> {
        let mut shard = self.shard(key).lock();
        let entry = shard.get(key)?;
        if entry.trusted(epoch, now, self.trust_for) {
            return Some(entry.value.clone());
        }
        shard.remove(key);
        None
    }

    /// Remembers what a database read verified, unless a revocation was committed since it
    /// began (`current`, the epoch now, differs from the read's).
    pub fn put(&self, key: Key, verified: Verified<V>, current: Epoch) {
        if verified.epoch != current {
            return;
        }
        let now = crate::core::db::now();
        let mut shard = self.shard(&key).lock();
        if shard.len() >= self.per_shard && !shard.contains_key(&key) {
            shard.retain(|_, e| e.trusted(current, now, self.trust_for));
            if shard.len() >= self.per_shard
                && let Some(victim) = shard.keys().next().copied()
            {
                shard.remove(&victim);
            }
        }
        shard.insert(
            key,
            Entry {
                value: verified.value,
                expires_at: verified.expires_at,
                verified: verified.since,
                epoch: verified.epoch,
            },
        );
    }

    /// Entries held, trusted or not.
    pub fn len(&self) -> usize {
        self.shards.iter().map(|s| s.lock().len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::ids::UserId;

    fn verified(epoch: Epoch, expires_at: Option<i64>) -> Verified<Principal> {
        Verified {
            value: Principal::browser(UserId::new(1)),
            expires_at,
            since: Instant::now(),
            epoch,
        }
    }

    fn epochs() -> (crate::core::db::Db, Epoch) {
        let db = crate::core::db::Db::memory();
        let e = db.revocation_epoch();
        (db, e)
    }

    /// Many distinct live credentials (a flood, or simply many users) never hold more than the
    /// capacity, and the newest of them is kept.
    #[test]
    fn the_cache_stays_bounded_under_many_distinct_credentials() {
        let (_db, e) = epochs();
        let cache = Cache::new(256, TRUST_FOR);
        for i in 0..20_000 {
            let k = key(&format!("dka_token-{i}"));
            cache.put(k, verified(e, None), e);
            assert!(cache.len() <= 256, "{} entries", cache.len());
        }
        assert!(cache.len() >= 200, "{} entries", cache.len());
        assert!(cache.get(&key("dka_token-19999"), e, 0).is_some());
    }

    /// Two servers' caches (two states in one process) share nothing: what one verified, the
    /// other has not seen.
    #[test]
    fn two_servers_caches_are_independent() {
        let (_db, e) = epochs();
        let (a, b) = (Caches::new(), Caches::new());
        a.bearers.put(key("dka_one"), verified(e, None), e);
        assert!(a.bearers.get(&key("dka_one"), e, 0).is_some());
        assert!(b.bearers.get(&key("dka_one"), e, 0).is_none());
        assert!(b.bearers.is_empty());
    }

    #[tokio::test]
    async fn an_entry_is_refused_after_a_revocation_its_expiry_or_its_second() {
        let (db, e) = epochs();
        let cache = Cache::new(64, Duration::from_millis(50));
        let k = key("dka_a");
        cache.put(k, verified(e, Some(100)), e);
        assert!(cache.get(&k, e, 99).is_some());
        assert!(cache.get(&k, e, 100).is_none(), "expired");
        cache.put(k, verified(e, None), e);
        std::thread::sleep(Duration::from_millis(60));
        assert!(cache.get(&k, e, 0).is_none(), "trusted for 50 ms only");
        cache.put(k, verified(e, None), e);
        db.write(|c| {
            c.note_revocation();
            Ok(())
        })
        .await
        .unwrap();
        let after = db.revocation_epoch();
        assert!(cache.get(&k, after, 0).is_none(), "a revocation since");
        // A read that began before the revocation is not remembered after it.
        cache.put(k, verified(e, None), after);
        assert!(cache.get(&k, after, 0).is_none());
        assert!(cache.is_empty());
    }
}
