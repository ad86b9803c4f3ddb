//! Login throttling: attempts are counted per account and per client address. An attempt is
//! reserved before its password is checked, in one step with the lock check (`reserve`, run in
//! one write transaction), so concurrent attempts cannot all pass the check before any is
//! counted. After `SLOW_AFTER` attempts each further one waits; the attempt that reaches
//! `LOCK_AFTER` locks the key, and every attempt after it is refused with 429 for
//! `LOCK_SECONDS`. Counts older than `WINDOW` start over. A reserved attempt stands as a failure
//! unless it is taken back (`release`: it was never checked, or it succeeded for a shared
//! address); a success clears the account's count.

use std::net::IpAddr;

use crate::core::client_address::client_key_of;
use crate::params;
use crate::{core::db::Conn, core::db::OptionalExtension};

use crate::core::error::AppError;

pub const WINDOW: i64 = 15 * 60;
pub const SLOW_AFTER: i64 = 3;
pub const LOCK_AFTER: i64 = 10;
pub const LOCK_SECONDS: i64 = 15 * 60;
/// Addresses are shared (offices, NAT): they get four times the account limits.
pub const ADDRESS_FACTOR: i64 = 4;

pub fn account_key(email: &str) -> String {
    format!("email:{}", email.trim().to_lowercase())
}

/// The key of the client at `address` (an IPv6 address counts as its /64:
/// `core::client_address`).
pub fn address_key(address: Option<IpAddr>) -> String {
    format!("ip:{}", client_key_of(address))
}

fn factor(key: &str) -> i64 {
    if key.starts_with("ip:") {
        ADDRESS_FACTOR
    } else {
        1
    }
}

fn limit_for(key: &str) -> i64 {
    LOCK_AFTER * factor(key)
}

/// What to do with a login attempt for these keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Allow,
    /// Allowed after waiting this many milliseconds.
    Slow(u64),
    /// Refused for this many more seconds.
    Locked(i64),
}

/// Reserves one attempt for every key at `now`, in one step: `Locked` (and nothing counted) when
/// any key is locked; otherwise each key's count goes up by one and the verdict says how long
/// to wait before checking the password. Run it inside one write transaction (`Db::write`).
pub fn reserve(conn: &Conn, keys: &[&str], now: i64) -> Result<Verdict, AppError> {
    let mut counts = Vec::with_capacity(keys.len());
    for key in keys {
        // Nodes counting the same key at once take turns, so no failure goes uncounted.
        conn.serialize_on(&format!("login:{key}"))?;
    }
    for key in keys {
        let row: Option<(i64, i64, Option<i64>)> = conn
            .query_row(
                "SELECT failures, first_at, locked_until FROM login_failures WHERE key = ?1",
                [key],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?;
        let before = match row {
            Some((_, _, Some(until))) if until > now => return Ok(Verdict::Locked(until - now)),
            // An expired lock or window starts over.
            Some((_, _, Some(_))) => 0,
            Some((_, first_at, None)) if first_at + WINDOW <= now => 0,
            Some((failures, _, None)) => failures.max(0),
            None => 0,
        };
        counts.push((*key, before));
    }
    let mut verdict = Verdict::Allow;
    for (key, before) in counts {
        let slow_after = SLOW_AFTER * factor(key);
        if before >= slow_after {
            let wait = (250 * (before - slow_after + 1)).min(2000) as u64;
            if !matches!(verdict, Verdict::Slow(w) if w >= wait) {
                verdict = Verdict::Slow(wait);
            }
        }
        let after = before + 1;
        let locked_until = (after >= limit_for(key)).then_some(now + LOCK_SECONDS);
        conn.execute(
            "INSERT INTO login_failures (key, failures, first_at, last_at, locked_until)
             VALUES (?1, ?2, ?3, ?3, ?4)
             ON CONFLICT (key) DO UPDATE SET
               failures = excluded.failures,
               first_at = CASE WHEN ?5 THEN excluded.first_at ELSE login_failures.first_at END,
               last_at = excluded.last_at,
               locked_until = excluded.locked_until",
            params![key, after, now, locked_until, before == 0],
        )?;
    }
    Ok(verdict)
}

/// Takes back one attempt reserved for `key` (it was never checked, or it succeeded from a
/// shared address); a lock that attempt set is lifted with it.
pub fn release(conn: &Conn, key: &str) -> Result<(), AppError> {
    conn.execute(
        "UPDATE login_failures SET failures = failures - 1,
           locked_until = CASE WHEN failures - 1 < ?2 THEN NULL ELSE locked_until END
         WHERE key = ?1 AND failures > 0",
        params![key, limit_for(key)],
    )?;
    Ok(())
}

/// Counts one request (not a password attempt: a mailed link, say) for each `(key, limit)`,
/// in windows of `window` seconds, in the same table as the logins under keys of their own
/// (`"reset:..."`). `Some(seconds to wait)`, with nothing counted, when any key has reached its
/// limit in its current window. Run it inside one write transaction.
pub fn take(
    conn: &Conn,
    keys: &[(&str, i64)],
    window: i64,
    now: i64,
) -> Result<Option<i64>, AppError> {
    let mut counts = Vec::with_capacity(keys.len());
    for (key, _) in keys {
        conn.serialize_on(&format!("login:{key}"))?;
    }
    for (key, limit) in keys {
        let row: Option<(i64, i64)> = conn
            .query_row(
                "SELECT failures, first_at FROM login_failures WHERE key = ?1",
                [key],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?;
        let (before, first_at) = match row {
            Some((n, first)) if first + window > now => (n.max(0), first),
            _ => (0, now),
        };
        if before >= *limit {
            return Ok(Some((first_at + window - now).max(1)));
        }
        counts.push((*key, before + 1, first_at));
    }
    for (key, count, first_at) in counts {
        conn.execute(
            "INSERT INTO login_failures (key, failures, first_at, last_at, locked_until)
             VALUES (?1, ?2, ?3, ?4, NULL)
             ON CONFLICT (key) DO UPDATE SET failures = excluded.failures,
               first_at = excluded.first_at, last_at = excluded.last_at, locked_until = NULL",
            params![key, count, first_at, now],
        )?;
    }
    Ok(None)
}

pub fn clear(conn: &Conn, key: &str) -> Result<(), AppError> {
    conn.execute("DELETE FROM login_failures WHERE key = ?1", [key])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `f` on a fresh in-memory database.
    fn with_memory(f: impl FnOnce(&Conn) -> Result<(), AppError>) {
        f(&crate::core::db::memory()).unwrap()
    }

    #[test]
    fn attempts_slow_then_lock_then_expire() {
        with_memory(|c| {
            let k = account_key("Ada@x.org");
            let keys = [k.as_str()];
            for i in 0..SLOW_AFTER {
                assert_eq!(reserve(c, &keys, i)?, Verdict::Allow, "attempt {i}");
            }
            assert_eq!(reserve(c, &keys, 10)?, Verdict::Slow(250));
            for i in SLOW_AFTER + 1..LOCK_AFTER {
                assert!(matches!(reserve(c, &keys, 10 + i)?, Verdict::Slow(_)));
            }
            // The tenth attempt was allowed and locked the key: the eleventh is refused.
            assert_eq!(reserve(c, &keys, 20)?, Verdict::Locked(LOCK_SECONDS - 1));
            assert_eq!(reserve(c, &keys, 21)?, Verdict::Locked(LOCK_SECONDS - 2));
            assert_eq!(reserve(c, &keys, 19 + LOCK_SECONDS)?, Verdict::Allow);
            reserve(c, &keys, 5000)?;
            clear(c, &k)?;
            assert_eq!(reserve(c, &keys, 5001)?, Verdict::Allow);
            Ok(())
        });
    }

    #[test]
    fn a_locked_key_counts_nothing_for_the_others() {
        with_memory(|c| {
            let (acct, ip) = (
                account_key("a@x.org"),
                address_key("192.0.2.1".parse().ok()),
            );
            for i in 0..LOCK_AFTER {
                reserve(c, &[&acct, &ip], i)?;
            }
            assert!(matches!(reserve(c, &[&acct, &ip], 20)?, Verdict::Locked(_)));
            // The address counted the ten reserved attempts, not the refused one.
            let other = account_key("b@x.org");
            for i in LOCK_AFTER..LOCK_AFTER * ADDRESS_FACTOR {
                assert!(
                    !matches!(reserve(c, &[&other, &ip], 30)?, Verdict::Locked(_)),
                    "{i}"
                );
                clear(c, &other)?;
            }
            assert!(matches!(
                reserve(c, &[&other, &ip], 31)?,
                Verdict::Locked(_)
            ));
            Ok(())
        });
    }

    #[test]
    fn requests_are_counted_per_window_and_refused_past_the_limit() {
        with_memory(|c| {
            let keys = [("reset:email:a@x.org", 2), ("reset:ip:192.0.2.1", 3)];
            assert_eq!(take(c, &keys, 3600, 0)?, None);
            assert_eq!(take(c, &keys, 3600, 10)?, None);
            assert_eq!(
                take(c, &keys, 3600, 100)?,
                Some(3500),
                "the address is at its limit"
            );
            // Another address from the same client counts once more, then the client is full.
            let other = [("reset:email:b@x.org", 2), ("reset:ip:192.0.2.1", 3)];
            assert_eq!(take(c, &other, 3600, 200)?, None);
            assert_eq!(take(c, &other, 3600, 300)?, Some(3300));
            assert_eq!(
                take(c, &keys, 3600, 3600)?,
                None,
                "a new window starts over"
            );
            Ok(())
        });
    }

    #[test]
    fn a_released_attempt_is_not_counted_and_lifts_the_lock_it_set() {
        with_memory(|c| {
            let k = account_key("a@x.org");
            for i in 0..LOCK_AFTER {
                reserve(c, &[&k], i)?;
            }
            assert!(matches!(reserve(c, &[&k], 20)?, Verdict::Locked(_)));
            release(c, &k)?;
            assert!(matches!(reserve(c, &[&k], 21)?, Verdict::Slow(_)));
            assert!(matches!(reserve(c, &[&k], 22)?, Verdict::Locked(_)));
            Ok(())
        });
    }
}
