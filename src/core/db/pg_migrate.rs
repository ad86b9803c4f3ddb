//! The PostgreSQL schema: a new database gets `schema.sql` rewritten for PostgreSQL
//! (`dialect::schema_to_postgres`) at the version it describes; later migrations are written
//! in the SQL both databases share and applied through the same rewrite. Nodes that start
//! together take an advisory lock, so the schema is created or upgraded once.

use super::{Conn, dialect, migrate};
use crate::core::error::AppError;

/// The first version a PostgreSQL database can have: PostgreSQL support began here, so no
/// PostgreSQL database is older, and the migrations before it (some SQLite-only) never run on it.
pub const BASELINE: i64 = 13;

/// An arbitrary, fixed key for `pg_advisory_xact_lock`: "docket" in ASCII.
const LOCK_KEY: i64 = 0x646f_636b_6574;

/// The version the database has (0: none yet).
pub fn version(conn: &Conn<'_>) -> Result<i64, AppError> {
    let exists: bool =
        conn.query_row("SELECT to_regclass('docket_schema') IS NOT NULL", [], |r| {
            r.get(0)
        })?;
    if !exists {
        return Ok(0);
    }
    Ok(conn.query_row("SELECT version FROM docket_schema", [], |r| r.get(0))?)
}

/// Runs inside one transaction. With `migrate`, brings the schema to `migrate::LATEST`;
/// without, only checks it: a database newer than this docket, or not yet migrated, is refused
/// with what to do.
pub fn check_or_run(conn: &Conn<'_>, migrate: bool) -> Result<(), AppError> {
    conn.query_row("SELECT pg_advisory_xact_lock(?1)", [LOCK_KEY], |_| Ok(()))?;
    let found = version(conn)?;
    if found > migrate::LATEST {
        return Err(AppError::internal(format!(
            "the database has schema version {found}, newer than this docket knows ({}); run a newer docket",
            migrate::LATEST
        )));
    }
    if found == migrate::LATEST {
        return Ok(());
    }
    if !migrate {
        return Err(AppError::internal(format!(
            "the database has schema version {found} and this docket needs {}; run `docket migrate` first",
            migrate::LATEST
        )));
    }
    if found == 0 {
        conn.execute_batch(&dialect::schema_to_postgres(migrate::SCHEMA))?;
        conn.execute_batch("CREATE TABLE docket_schema (version BIGINT NOT NULL)")?;
        conn.execute(
            "INSERT INTO docket_schema (version) VALUES (?1)",
            [migrate::LATEST],
        )?;
        tracing::info!(version = migrate::LATEST, "PostgreSQL schema created");
        return Ok(());
    }
    for (target, sql) in migrate::MIGRATIONS {
        if *target > found.max(BASELINE) {
            conn.execute_batch(&dialect::schema_to_postgres(sql))?;
            conn.execute("UPDATE docket_schema SET version = ?1", [*target])?;
            tracing::info!(version = target, "PostgreSQL schema migrated");
        }
    }
    Ok(())
}

/// `url` without its password, for messages.
pub fn redacted(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) => {
            if u.password().is_some() {
                let _ = u.set_password(Some("***"));
            }
            // libpq also takes the password as a parameter: `?password=...`.
            if u.query_pairs().any(|(k, _)| k == "password") {
                let pairs: Vec<(String, String)> = u
                    .query_pairs()
                    .map(|(k, v)| {
                        let v = if k == "password" {
                            "***".into()
                        } else {
                            v.into_owned()
                        };
                        (k.into_owned(), v)
                    })
                    .collect();
                u.query_pairs_mut().clear().extend_pairs(pairs);
            }
            u.to_string()
        }
        Err(_) => "the configured PostgreSQL URL".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::redacted;

    #[test]
    fn passwords_are_hidden_wherever_the_url_carries_them() {
        assert_eq!(
            redacted("postgres://docket:s3cret@db:5432/docket?sslmode=require"),
            "postgres://docket:***@db:5432/docket?sslmode=require"
        );
        let query = redacted("postgres://db/docket?user=docket&password=s3cret&sslmode=require");
        assert!(!query.contains("s3cret"), "{query}");
        assert!(query.contains("user=docket") && query.contains("sslmode=require"));
        assert_eq!(
            redacted("not a url s3cret"),
            "the configured PostgreSQL URL"
        );
    }
}
