//! `docket secrets check`: where this node's secrets live and, with a secret key, whether it
//! is the database's (the same check `docket serve` makes at start, and one more: every shared
//! secret opens). Names only: no value is ever printed.

use serde::Serialize;

use super::{CliError, Ctx};
use crate::cli::SecretsCommand;
use crate::core::secrets::Source;

#[derive(Serialize)]
struct Report {
    /// `files` or `database`.
    store: &'static str,
    /// Files: the directories; the database: the names of the shared secrets.
    secrets: Vec<String>,
}

pub fn run(ctx: &Ctx, cmd: SecretsCommand) -> Result<(), CliError> {
    match cmd {
        SecretsCommand::Check => check(ctx),
    }
}

fn check(ctx: &Ctx) -> Result<(), CliError> {
    let report = match ctx.secrets()? {
        Source::Files(dirs) => Report {
            store: "files",
            secrets: vec![
                dirs.secrets.display().to_string(),
                dirs.tls.display().to_string(),
            ],
        },
        Source::Database(shared) => Report {
            store: "database",
            secrets: shared.names().map_err(CliError::runtime)?,
        },
    };
    ctx.print(&report, || match report.store {
        "files" => format!(
            "no secret key: the secrets are files in {}",
            report.secrets.join(" and ")
        ),
        _ => format!(
            "the secret key opens this database's {} shared secrets\n  {}",
            report.secrets.len(),
            report.secrets.join(", ")
        ),
    });
    Ok(())
}
