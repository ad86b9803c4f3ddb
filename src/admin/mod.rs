//! The admin commands (`user`, `client`, `apikey`, `team`, `mail`, `secrets`, `backup`, `version`): each opens the data
//! dir and database (safe while the server runs: WAL, busy timeout), does one thing, and prints
//! either aligned text or exactly one JSON value.

pub mod apikey;
pub mod backup;
pub mod client;
pub mod mail;
pub mod secrets;
pub mod team;
pub mod user;

use std::io::BufRead;
use std::path::PathBuf;

use serde::Serialize;

use crate::core::datadir::DataDir;
use crate::core::db::Db;
use crate::core::error::AppError;

/// A failed command: its message (one line on stderr) and exit code.
#[derive(Debug)]
pub struct CliError {
    pub message: String,
    pub code: i32,
}

impl From<AppError> for CliError {
    fn from(e: AppError) -> Self {
        // Bad arguments are usage errors (2); everything else is a runtime failure (1).
        let code = if matches!(e, AppError::BadRequest { .. }) {
            2
        } else {
            1
        };
        let message = match &e {
            AppError::Internal(cause) => cause.clone(),
            other => other.public_message(),
        };
        CliError { message, code }
    }
}

impl CliError {
    pub fn runtime(message: impl Into<String>) -> Self {
        CliError {
            message: message.into(),
            code: 1,
        }
    }
}

/// What an admin command works on.
pub struct Ctx {
    pub data: DataDir,
    pub db: Db,
    pub json: bool,
    /// `--secret-key-file` / `DOCKET_SECRET_KEY`, for the commands that need the secrets.
    secret_key: Option<crate::core::secrets::NodeKey>,
}

impl Ctx {
    pub fn open(
        data_dir: Option<PathBuf>,
        database: &crate::core::db::Target,
        secret_key: Option<crate::core::secrets::NodeKey>,
        json: bool,
    ) -> Result<Ctx, CliError> {
        let root = data_dir
            .or_else(DataDir::default_path)
            .ok_or_else(|| CliError::runtime("no home directory: pass --data-dir DIR"))?;
        let data = DataDir::open(&root)
            .map_err(|e| CliError::runtime(format!("data directory {}: {e}", root.display())))?;
        let db = database
            .open(&data.database(), &data.backups(), 2, true)
            .map_err(|e| CliError::runtime(e.to_string()))?;
        Ok(Ctx {
            data,
            db,
            json,
            secret_key,
        })
    }

    /// Where the secrets live, as `docket serve` with the same flags finds them: the data
    /// dir's files, or the database under the secret key (checked, so a wrong key is refused
    /// with the same message the server gives).
    pub fn secrets(&self) -> Result<crate::core::secrets::Source, CliError> {
        crate::core::secrets::Source::open(&self.db, &self.data, self.secret_key.as_ref())
            .map_err(CliError::runtime)
    }

    /// Prints `value` as JSON, or `text()` for people.
    pub fn print<T: Serialize>(&self, value: &T, text: impl FnOnce() -> String) {
        if self.json {
            println!(
                "{}",
                serde_json::to_string_pretty(value).unwrap_or_else(|_| "null".into())
            );
        } else {
            println!("{}", text());
        }
    }
}

/// Aligned `label  value` lines.
pub fn fields(rows: &[(&str, String)]) -> String {
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    rows.iter()
        .map(|(k, v)| format!("  {k:<width$}  {v}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A table with a header row; columns padded to their widest cell.
pub fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    if rows.is_empty() {
        return "(none)".to_string();
    }
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(cell.chars().count());
        }
    }
    let line = |cells: Vec<String>| {
        cells
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{c:<w$}", w = widths[i]))
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_string()
    };
    let mut out = vec![line(header.iter().map(|h| h.to_string()).collect())];
    out.extend(rows.iter().map(|r| line(r.clone())));
    out.join("\n")
}

/// The first line of standard input, without its line ending (for `--password-stdin`).
pub fn read_password_stdin() -> Result<String, CliError> {
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| CliError::runtime(format!("reading standard input: {e}")))?;
    let password = line.trim_end_matches(['\n', '\r']).to_string();
    crate::identity::users::password::check_policy(&password)?;
    Ok(password)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_aligns_columns() {
        let t = table(
            &["ID", "NAME"],
            &[
                vec!["1".into(), "Ada".into()],
                vec!["10".into(), "B".into()],
            ],
        );
        assert_eq!(t, "ID  NAME\n1   Ada\n10  B");
        assert_eq!(table(&["X"], &[]), "(none)");
    }

    #[test]
    fn bad_input_is_a_usage_error() {
        assert_eq!(CliError::from(AppError::bad_request("x")).code, 2);
        assert_eq!(CliError::from(AppError::Conflict("x".into())).code, 1);
    }
}
