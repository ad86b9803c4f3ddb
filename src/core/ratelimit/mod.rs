//! Per-credential rate limiting (`--rate-limit N` requests a minute; 0 turns it off): a fixed
//! one-minute window per credential. Credentials are keyed by their SHA-256, so no secret is
//! held here. On PostgreSQL, where several nodes share the database, the windows are counted
//! there (`store`) and the limit holds for the cluster as a whole; on SQLite, one node by
//! construction, they are counted in memory (`memory`) and cost the one writer nothing.

mod memory;
mod store;
#[cfg(test)]
mod tests;

use std::sync::atomic::{AtomicI64, Ordering};

use crate::core::error::AppError;
use crate::{core::db::Db, core::db::Dialect};

pub struct RateLimiter {
    per_minute: u64,
    counter: Counter,
}

enum Counter {
    Memory(memory::Windows),
    Database {
        db: Db,
        /// The latest window this node swept the older ones before.
        swept: AtomicI64,
    },
}

impl RateLimiter {
    /// `per_minute` requests a minute per credential, counted where `db` calls for: in the
    /// database on PostgreSQL, in memory on SQLite.
    pub fn new(per_minute: u64, db: &Db) -> Self {
        match db.dialect() {
            Dialect::Postgres => Self::in_database(per_minute, db),
            Dialect::Sqlite => Self::in_memory(per_minute),
        }
    }

    fn in_memory(per_minute: u64) -> Self {
        RateLimiter {
            per_minute,
            counter: Counter::Memory(memory::Windows::default()),
        }
    }

    fn in_database(per_minute: u64, db: &Db) -> Self {
        RateLimiter {
            per_minute,
            counter: Counter::Database {
                db: db.clone(),
                swept: AtomicI64::new(i64::MIN),
            },
        }
    }

    /// Counts one request for `key` at `now` (Unix seconds); 429 once the window is full. With
    /// the database, its errors are the request's (503 when it is busy or unreachable).
    pub async fn check(&self, key: &str, now: i64) -> Result<(), AppError> {
        if self.per_minute == 0 {
            return Ok(());
        }
        let window = now - now.rem_euclid(60);
        let allowed = match &self.counter {
            Counter::Memory(windows) => windows.take(key, window, self.per_minute),
            Counter::Database { db, swept } => {
                // Each node deletes the finished windows once a minute, with its first count.
                let sweep = swept.fetch_max(window, Ordering::Relaxed) < window;
                let key = key.to_owned();
                let count = db
                    .write(move |c| {
                        if sweep {
                            store::sweep(c, window)?;
                        }
                        store::count(c, &key, window)
                    })
                    .await?;
                u64::try_from(count).is_ok_and(|n| n <= self.per_minute)
            }
        };
        if allowed {
            return Ok(());
        }
        Err(AppError::TooManyRequests {
            retry_after: (window + 60 - now).max(1) as u64,
            limit: self.per_minute,
        })
    }
}
