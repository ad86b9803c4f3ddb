//! The counts of one node, in memory: what the SQLite appliance (one node by construction) uses,
//! so an API request costs no write on its single-writer database.

use std::collections::HashMap;
use std::sync::Mutex;

/// Past this many keys, windows other than the current one are dropped.
const MAX_KEYS: usize = 100_000;

/// Requests counted per key in its current window: `key -> (window start, count)`.
#[derive(Default)]
pub struct Windows(Mutex<HashMap<String, (i64, u64)>>);

impl Windows {
    /// Counts one request for `key` in `window` when fewer than `limit` were counted there;
    /// answers whether it was (a refused request is not counted).
    pub fn take(&self, key: &str, window: i64, limit: u64) -> bool {
        let mut map = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if map.len() > MAX_KEYS {
            map.retain(|_, (w, _)| *w == window);
        }
        let entry = map.entry(key.to_string()).or_insert((window, 0));
        if entry.0 != window {
            *entry = (window, 0);
        }
        if entry.1 >= limit {
            return false;
        }
        entry.1 += 1;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_up_to_the_limit_per_key_and_starts_over_in_a_new_window() {
        let w = Windows::default();
        for _ in 0..3 {
            assert!(w.take("k", 120, 3));
        }
        assert!(!w.take("k", 120, 3));
        assert!(w.take("other", 120, 3));
        assert!(w.take("k", 180, 3));
    }

    #[test]
    fn old_windows_are_dropped_when_the_map_is_full() {
        let w = Windows::default();
        for i in 0..=MAX_KEYS {
            w.take(&i.to_string(), 0, 1);
        }
        w.take("new", 60, 1);
        assert_eq!(w.0.lock().unwrap().len(), 1);
    }
}
