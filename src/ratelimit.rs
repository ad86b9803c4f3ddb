//! Per-credential rate limiting (`--rate-limit N` requests a minute; 0 turns it off): a fixed
//! one-minute window per credential, kept in memory. Credentials are keyed by their SHA-256, so
//! no secret is held here.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::error::AppError;

pub struct RateLimiter {
    per_minute: u64,
    windows: Mutex<HashMap<String, (i64, u64)>>,
}

impl RateLimiter {
    pub fn new(per_minute: u64) -> Self {
        RateLimiter {
            per_minute,
            windows: Mutex::new(HashMap::new()),
        }
    }

    /// Counts one request for `key` at `now` (Unix seconds); 429 once the window is full.
    pub fn check(&self, key: &str, now: i64) -> Result<(), AppError> {
        if self.per_minute == 0 {
            return Ok(());
        }
        let window = now - now.rem_euclid(60);
        let mut map = self.windows.lock().unwrap_or_else(|p| p.into_inner());
        if map.len() > 100_000 {
            map.retain(|_, (w, _)| *w == window);
        }
        let entry = map.entry(key.to_string()).or_insert((window, 0));
        if entry.0 != window {
            *entry = (window, 0);
        }
        if entry.1 >= self.per_minute {
            return Err(AppError::TooManyRequests {
                retry_after: (window + 60 - now).max(1) as u64,
                limit: self.per_minute,
            });
        }
        entry.1 += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allows_the_limit_then_refuses_until_the_next_minute() {
        let l = RateLimiter::new(3);
        for _ in 0..3 {
            l.check("k", 120).unwrap();
        }
        match l.check("k", 130) {
            Err(AppError::TooManyRequests { retry_after, limit }) => {
                assert_eq!((retry_after, limit), (50, 3));
            }
            other => panic!("{other:?}"),
        }
        l.check("other", 130).unwrap();
        l.check("k", 180).unwrap();
    }

    #[test]
    fn zero_means_off() {
        let l = RateLimiter::new(0);
        for _ in 0..10_000 {
            l.check("k", 0).unwrap();
        }
    }
}
