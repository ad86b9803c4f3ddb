//! How database errors reach a request: a transient one (busy, a lost connection) is a 503, a
//! unique-constraint violation can become a 409, a full disk is a 507 (like new work refused
//! below `--min-free-mb`), anything else is a 500 whose cause is logged.

use crate::core::error::AppError;

impl From<super::Error> for AppError {
    fn from(e: super::Error) -> Self {
        if e.is_transient() {
            return AppError::Unavailable("the database is busy; try again".into());
        }
        if e.is_disk_full() {
            return AppError::disk_full();
        }
        AppError::Internal(format!("database: {e}"))
    }
}

impl From<rusqlite::Error> for AppError {
    fn from(e: rusqlite::Error) -> Self {
        super::Error::from(e).into()
    }
}

impl From<r2d2::Error> for AppError {
    fn from(e: r2d2::Error) -> Self {
        AppError::Unavailable(format!("no database connection available: {e}"))
    }
}

/// Turns a unique-constraint violation into a 409 with `message`; other errors pass through.
pub fn conflict_on_unique(e: super::Error, message: &str) -> AppError {
    if e.is_unique_violation() {
        AppError::Conflict(message.to_string())
    } else {
        e.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::StatusCode;

    #[test]
    fn unique_violation_becomes_conflict() {
        let c = crate::core::db::Conn::sqlite_memory();
        c.execute_batch("CREATE TABLE t(x UNIQUE); INSERT INTO t VALUES (1);")
            .unwrap();
        let err = c.execute("INSERT INTO t VALUES (1)", []).unwrap_err();
        let mapped = conflict_on_unique(err, "already there");
        assert_eq!(mapped.status(), StatusCode::CONFLICT);
    }

    /// SQLite out of room (a page limit stands in for the disk) is 507, not a 500.
    #[test]
    fn a_full_database_is_insufficient_storage() {
        let c = crate::core::db::Conn::sqlite_memory();
        c.execute_batch("CREATE TABLE t(x); PRAGMA max_page_count = 3;")
            .unwrap();
        let err = (0..100)
            .find_map(|_| {
                c.execute("INSERT INTO t VALUES (randomblob(2000))", [])
                    .err()
            })
            .expect("the database fills up");
        assert!(err.is_disk_full(), "{err}");
        let mapped = AppError::from(err);
        assert_eq!(mapped.status(), StatusCode::INSUFFICIENT_STORAGE);
        assert_eq!(mapped.code(), "insufficient_storage");
    }
}
