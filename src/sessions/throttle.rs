//! Login throttling: failures are counted per account and per client address. After
//! `SLOW_AFTER` failures each attempt waits; after `LOCK_AFTER` the key is refused with 429 for
//! `LOCK_SECONDS`. Counts older than `WINDOW` start over; a success clears the account's count.

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::AppError;

pub const WINDOW: i64 = 15 * 60;
pub const SLOW_AFTER: i64 = 3;
pub const LOCK_AFTER: i64 = 10;
pub const LOCK_SECONDS: i64 = 15 * 60;
/// Addresses are shared (offices, NAT): they get four times the account limits.
pub const ADDRESS_FACTOR: i64 = 4;

pub fn account_key(email: &str) -> String {
    format!("email:{}", email.trim().to_lowercase())
}

pub fn address_key(ip: &str) -> String {
    format!("ip:{ip}")
}

fn limit_for(key: &str) -> i64 {
    if key.starts_with("ip:") {
        LOCK_AFTER * ADDRESS_FACTOR
    } else {
        LOCK_AFTER
    }
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

pub fn check(conn: &Connection, keys: &[&str], now: i64) -> Result<Verdict, AppError> {
    let mut verdict = Verdict::Allow;
    for key in keys {
        let row: Option<(i64, i64, Option<i64>)> = conn
            .query_row(
                "SELECT failures, first_at, locked_until FROM login_failures WHERE key = ?1",
                [key],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?;
        let Some((failures, first_at, locked_until)) = row else {
            continue;
        };
        if let Some(until) = locked_until
            && until > now
        {
            return Ok(Verdict::Locked(until - now));
        }
        if first_at + WINDOW <= now {
            continue;
        }
        let slow_after = if key.starts_with("ip:") {
            SLOW_AFTER * ADDRESS_FACTOR
        } else {
            SLOW_AFTER
        };
        if failures >= slow_after {
            let wait = (250 * (failures - slow_after + 1)).min(2000) as u64;
            verdict = match verdict {
                Verdict::Slow(w) if w >= wait => verdict,
                _ => Verdict::Slow(wait),
            };
        }
    }
    Ok(verdict)
}

pub fn record_failure(conn: &Connection, keys: &[&str], now: i64) -> Result<(), AppError> {
    for key in keys {
        conn.execute(
            "INSERT INTO login_failures (key, failures, first_at, last_at) VALUES (?1, 1, ?2, ?2)
             ON CONFLICT (key) DO UPDATE SET
               failures = CASE WHEN first_at + ?3 <= ?2 THEN 1 ELSE failures + 1 END,
               first_at = CASE WHEN first_at + ?3 <= ?2 THEN ?2 ELSE first_at END,
               last_at = ?2",
            params![key, now, WINDOW],
        )?;
        conn.execute(
            "UPDATE login_failures SET locked_until = ?2 + ?3, failures = 0, first_at = ?2
              WHERE key = ?1 AND failures >= ?4",
            params![key, now, LOCK_SECONDS, limit_for(key)],
        )?;
    }
    Ok(())
}

pub fn clear(conn: &Connection, key: &str) -> Result<(), AppError> {
    conn.execute("DELETE FROM login_failures WHERE key = ?1", [key])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::Db;

    #[test]
    fn failures_slow_then_lock_then_expire() {
        let tmp = tempfile::tempdir().unwrap();
        let db = Db::open(&tmp.path().join("t.db"), tmp.path(), 1).unwrap();
        db.call_blocking(|c| {
            let k = account_key("Ada@x.org");
            let keys = [k.as_str()];
            assert_eq!(check(c, &keys, 0)?, Verdict::Allow);
            for i in 0..SLOW_AFTER {
                record_failure(c, &keys, i)?;
            }
            assert!(matches!(check(c, &keys, 10)?, Verdict::Slow(_)));
            for i in SLOW_AFTER..LOCK_AFTER {
                record_failure(c, &keys, i)?;
            }
            assert_eq!(check(c, &keys, 20)?, Verdict::Locked(LOCK_SECONDS - 11));
            assert_eq!(check(c, &keys, 9 + LOCK_SECONDS + 1)?, Verdict::Allow);
            record_failure(c, &keys, 5000)?;
            clear(c, &k)?;
            assert_eq!(check(c, &keys, 5001)?, Verdict::Allow);
            Ok(())
        })
        .unwrap();
    }
}
