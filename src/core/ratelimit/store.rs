//! The counts every node shares, in `rate_windows`: one row per credential key and one-minute
//! window, counted up by one atomic upsert, so concurrent requests at any nodes each see a
//! different count.

use crate::core::error::AppError;
use crate::params;
use crate::{core::db::Conn, core::db::Dialect};

/// Counts one request for `key` in the window starting at `window`; answers the window's count
/// with it (1 for the first). Requests past the limit are counted too: the window ends anyway.
pub fn count(conn: &Conn, key: &str, window: i64) -> Result<i64, AppError> {
    if conn.dialect() == Dialect::Postgres {
        // A count lost in a crash is harmless (its window ends within the minute): the
        // transaction commits without waiting for its WAL to reach the disk.
        conn.execute_batch("SET LOCAL synchronous_commit TO OFF")?;
    }
    Ok(conn.query_row(
        "INSERT INTO rate_windows (window_start, key, count) VALUES (?1, ?2, 1)
         ON CONFLICT (window_start, key) DO UPDATE SET count = rate_windows.count + 1
         RETURNING count",
        params![window, key],
        |r| r.get(0),
    )?)
}

/// Deletes the windows that started before `window`; answers how many.
pub fn sweep(conn: &Conn, window: i64) -> Result<usize, AppError> {
    Ok(conn.execute("DELETE FROM rate_windows WHERE window_start < ?1", [window])?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(c: &Conn) -> i64 {
        c.query_row("SELECT count(*) FROM rate_windows", [], |r| r.get(0))
            .unwrap()
    }

    #[test]
    fn each_request_gets_the_next_count_of_its_key_and_window() {
        let c = crate::core::db::memory();
        assert_eq!(count(&c, "a", 60).unwrap(), 1);
        assert_eq!(count(&c, "a", 60).unwrap(), 2);
        assert_eq!(count(&c, "b", 60).unwrap(), 1);
        assert_eq!(count(&c, "a", 120).unwrap(), 1);
        assert_eq!(count(&c, "a", 60).unwrap(), 3);
        assert_eq!(rows(&c), 3);
    }

    #[test]
    fn the_sweep_keeps_the_current_window_only() {
        let c = crate::core::db::memory();
        for w in [0, 60, 120] {
            count(&c, "a", w).unwrap();
            count(&c, "b", w).unwrap();
        }
        assert_eq!(sweep(&c, 120).unwrap(), 4);
        assert_eq!(rows(&c), 2);
        assert_eq!(count(&c, "a", 120).unwrap(), 2);
    }
}
