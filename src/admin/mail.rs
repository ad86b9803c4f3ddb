//! `docket mail ...`: the mail queue and the outbox.

use serde::Serialize;

use super::{CliError, Ctx, fields, table};
use crate::cli::MailCommand;
use crate::outbox::mail::manage;
use crate::outbox::mail::store::Mail;
use crate::{outbox::mail::Kind, outbox::mail::Status};

/// A message without its bodies (they may hold a signing link).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Summary<'a> {
    id: i64,
    created_at: &'a str,
    to: &'a str,
    kind: Kind,
    status: Status,
    attempts: u32,
    last_error: Option<&'a str>,
}

fn summary(m: &Mail) -> Summary<'_> {
    Summary {
        id: m.id,
        created_at: &m.created_at,
        to: &m.to,
        kind: m.kind,
        status: m.status,
        attempts: m.attempts,
        last_error: m.last_error.as_deref(),
    }
}

pub fn run(ctx: &Ctx, cmd: MailCommand) -> Result<(), CliError> {
    match cmd {
        MailCommand::List { status, limit } => {
            list(ctx, status.as_deref().and_then(Status::parse), limit)
        }
        MailCommand::Show { id } => show(ctx, id),
        MailCommand::Test { to } => {
            let to = to.trim().to_string();
            if to.parse::<lettre::Address>().is_err() {
                return Err(CliError {
                    message: format!("{to:?} is not an e-mail address"),
                    code: 2,
                });
            }
            queue_test(ctx, &to)
        }
    }
}

fn list(ctx: &Ctx, status: Option<Status>, limit: i64) -> Result<(), CliError> {
    let mails = manage::list(&ctx.db, status, limit)?;
    let out: Vec<Summary<'_>> = mails.iter().map(summary).collect();
    ctx.print(&out, || {
        let rows: Vec<Vec<String>> = out
            .iter()
            .map(|m| {
                vec![
                    m.id.to_string(),
                    m.created_at.to_string(),
                    m.to.to_string(),
                    m.kind.as_str().to_string(),
                    m.status.as_str().to_string(),
                    m.attempts.to_string(),
                    m.last_error.unwrap_or("").to_string(),
                ]
            })
            .collect();
        table(
            &[
                "ID",
                "CREATED",
                "TO",
                "KIND",
                "STATUS",
                "ATTEMPTS",
                "LAST ERROR",
            ],
            &rows,
        )
    });
    Ok(())
}

fn show(ctx: &Ctx, id: i64) -> Result<(), CliError> {
    let m = manage::show(&ctx.db, id)?;
    ctx.print(&m, || {
        format!(
            "{}\n\n{}\n\n--- HTML part ---\n{}",
            fields(&[
                ("id", m.id.to_string()),
                ("kind", m.kind.as_str().to_string()),
                ("status", m.status.as_str().to_string()),
                ("to", m.to.clone()),
                ("subject", m.subject.clone()),
                ("created", m.created_at.clone()),
                ("sent", m.sent_at.clone().unwrap_or_default()),
                ("attempts", m.attempts.to_string()),
                ("last error", m.last_error.clone().unwrap_or_default()),
                ("attachment", m.attachment_name.clone().unwrap_or_default(),),
            ]),
            m.text,
            m.html
        )
    });
    Ok(())
}

fn queue_test(ctx: &Ctx, to: &str) -> Result<(), CliError> {
    let id = manage::queue_test(&ctx.db, to)?;
    #[derive(Serialize)]
    struct Out<'a> {
        id: i64,
        to: &'a str,
        status: Status,
    }
    ctx.print(&Out { id, to, status: Status::Queued }, || {
        format!(
            "Queued test message {id} to {to}; the running server sends it within seconds.\nCheck with: docket mail list"
        )
    });
    Ok(())
}
