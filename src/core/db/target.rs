//! Which database a process uses: `--database-url` (or `--database-url-file`), `sqlite` (the
//! default: `<data>/docket.db`) or a `postgres://` URL.

use std::path::Path;

/// The database named on the command line.
#[derive(Clone, PartialEq, Eq)]
pub enum Target {
    /// `<data>/docket.db`.
    Sqlite,
    /// A libpq-style URL (`postgres://user:pass@host:port/db?sslmode=...`, or a socket
    /// directory as `host=/run/postgresql`).
    Postgres(String),
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Sqlite => f.write_str("Sqlite"),
            Target::Postgres(url) => write!(f, "Postgres({})", super::pg_migrate::redacted(url)),
        }
    }
}

impl Target {
    /// Opens this database (the SQLite file at `sqlite_file`, upgraded after a backup into
    /// `backups` when older) with a pool of `pool` connections. PostgreSQL's schema is created
    /// or upgraded when `migrate`, and only checked otherwise.
    pub fn open(
        &self,
        sqlite_file: &Path,
        backups: &Path,
        pool: u32,
        migrate: bool,
    ) -> Result<super::Db, super::OpenError> {
        match self {
            Target::Sqlite => super::Db::open(sqlite_file, backups, pool),
            Target::Postgres(url) => {
                super::Db::open_postgres(url, pool, std::time::Duration::from_secs(10), migrate)
            }
        }
    }

    /// From `--database-url` and `--database-url-file` (at most one of them; the file holds
    /// the URL, so its password stays off the command line and out of the environment).
    pub fn from_flags(url: Option<&str>, file: Option<&Path>) -> Result<Target, String> {
        let text = match (url, file) {
            (Some(_), Some(_)) => {
                return Err("give --database-url or --database-url-file, not both".into());
            }
            (Some(u), None) => u.trim().to_string(),
            (None, Some(path)) => std::fs::read_to_string(path)
                .map_err(|e| format!("--database-url-file {}: {e}", path.display()))?
                .trim()
                .to_string(),
            (None, None) => return Ok(Target::Sqlite),
        };
        Target::parse(&text)
    }

    pub fn parse(text: &str) -> Result<Target, String> {
        if text.is_empty() || text == "sqlite" {
            return Ok(Target::Sqlite);
        }
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            super::pg_tls::PgUrl::parse(text)
                .map_err(|e| format!("--database-url: not a usable PostgreSQL URL: {e}"))?;
            return Ok(Target::Postgres(text.to_string()));
        }
        Err("--database-url: expected `sqlite` or a postgres:// URL".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_name_the_database_and_hide_their_password() {
        assert_eq!(Target::from_flags(None, None), Ok(Target::Sqlite));
        assert_eq!(Target::parse("sqlite"), Ok(Target::Sqlite));
        let pg = Target::parse("postgres://docket:s3cret@127.0.0.1:5432/docket").unwrap();
        assert!(matches!(pg, Target::Postgres(_)));
        assert!(!format!("{pg:?}").contains("s3cret"), "{pg:?}");
        assert!(Target::parse("mysql://x").is_err());
        assert!(Target::from_flags(Some("sqlite"), Some(Path::new("/x"))).is_err());
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("url");
        std::fs::write(&file, "postgres://a:b@localhost/d\n").unwrap();
        assert_eq!(
            Target::from_flags(None, Some(&file)),
            Ok(Target::Postgres("postgres://a:b@localhost/d".into()))
        );
    }
}
