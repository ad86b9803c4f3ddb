//! The use cases of bulk sends, for the API and the web application alike: the CSV header for a
//! template, the preview of a file, starting a run, the runs and one run with its rows, its
//! report as CSV, and cancelling it. Each resolves the caller's workspace first
//! (`teams::access`): a run is seen by whoever sees its template's visibility in its workspace.

use std::collections::HashMap;

use serde::Serialize;

use crate::core::context::Context;
use crate::core::db::{Conn, now};
use crate::core::error::{AppError, FieldError};
use crate::core::ids::{BulkSendId, TemplateId};
use crate::core::owner::Owner;
use crate::identity::principal::Principal;
use crate::identity::users::Tier;
use crate::signing::templates::model::Template;
use crate::signing::templates::row::Row;
use crate::signing::templates::{Generate, store as templates};
use crate::teams::access;

use super::layout::{ColumnView, Layout, header_for};
use super::model::{RowStatus, RowView, Run, RunDetail, RunView};
use super::send_row::{Source, attempt};
use super::{HOUR, Limits, sheet, store};

/// A problem of one row, by the column it came from (`row` for the row as a whole).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = BulkSendProblem)]
pub struct Problem {
    pub column: String,
    pub message: String,
}

/// One row as the preview shows it.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = BulkSendPreviewRow)]
pub struct RowCheck {
    /// The file's line the row starts on (the header is line 1).
    pub line: u64,
    /// Whether its document would be sent.
    pub ok: bool,
    pub problems: Vec<Problem>,
    /// Each template recipient's name and address as the document would have them.
    pub recipients: Vec<PreviewRecipient>,
    /// The document's title.
    pub title: String,
    /// The fields' values the row sets, by label.
    pub values: Vec<(String, String)>,
}

#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = BulkSendPreviewRecipient)]
pub struct PreviewRecipient {
    pub name: String,
    pub email: String,
}

/// What a file would send.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = BulkSendPreview)]
pub struct Preview {
    pub template_id: TemplateId,
    pub template_title: String,
    pub columns: Vec<ColumnView>,
    pub rows: Vec<RowCheck>,
    /// Rows that would be sent.
    pub valid: u64,
    /// Rows that would not, each with its problems.
    pub invalid: u64,
    /// Most rows a file may have.
    pub max_rows: u64,
    /// Most documents this workspace's bulk sends send in an hour.
    pub per_hour: u64,
}

/// `GET .../bulk-send.csv`: a file name and the header line of a file for template `id`.
pub async fn csv_template(
    ctx: &Context,
    who: &Principal,
    id: TemplateId,
) -> Result<(String, String), AppError> {
    let who = who.clone();
    let t = ctx
        .db
        .read(move |c| templates::owned(c, &access::owner(c, &who)?, id))
        .await?;
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(header_for(&t.base()))
        .map_err(AppError::internal)?;
    let text = String::from_utf8(w.into_inner().map_err(AppError::internal)?)
        .map_err(AppError::internal)?;
    Ok((format!("{}.csv", file_stem(&t.title)), text))
}

/// The preview of `csv` for template `id`: every row checked, none sent.
pub async fn preview(
    ctx: &Context,
    who: &Principal,
    id: TemplateId,
    csv: Vec<u8>,
    limits: Limits,
) -> Result<Preview, AppError> {
    Ok(check_file(ctx, who, id, csv, limits).await?.preview)
}

/// What a file makes of a template: the preview, and the good rows with their values.
struct Checked {
    preview: Preview,
    good: Vec<(u64, Row)>,
}

/// The checks of `csv` against template `id` as the caller sees it: the template read, the
/// rows checked off the async threads and outside any transaction, then the first good row
/// made and sent in a savepoint that is rolled back, for what would refuse every row.
async fn check_file(
    ctx: &Context,
    who: &Principal,
    id: TemplateId,
    csv: Vec<u8>,
    limits: Limits,
) -> Result<Checked, AppError> {
    let reader = who.clone();
    let (t, tier) = ctx
        .db
        .read(move |c| {
            let owner = access::owner(c, &reader)?;
            let t = templates::owned(c, &owner, id)?;
            Ok((t, crate::identity::users::store::tier(c, owner.user())?))
        })
        .await?;
    let checked = tokio::task::spawn_blocking(move || check_rows(&t, tier, &csv, limits))
        .await
        .map_err(|e| AppError::internal(format!("the bulk-send check failed: {e}")))??;
    if let Some((line, row)) = checked.good.first().cloned() {
        let (who, app) = (who.clone(), ctx.app.clone());
        let why = ctx
            .db
            .write(move |tx| {
                let owner = access::owner(tx, &who)?;
                let t = templates::owned(tx, &owner, id)?;
                trial(tx, &owner, &t, tier, &row, &app)
            })
            .await?;
        if let Some(why) = why {
            return Err(AppError::BadRequest {
                code: "invalid_template",
                message: format!(
                    "no row can be sent from this template (tried line {line}): {why}"
                ),
                details: vec![FieldError::new("template", why)],
            });
        }
    }
    Ok(checked)
}

/// Every row of `csv` checked against template `t` for an account of `tier`.
fn check_rows(t: &Template, tier: Tier, csv: &[u8], limits: Limits) -> Result<Checked, AppError> {
    let base = t.base();
    if base.recipients.is_empty() {
        return Err(super::layout::no_recipients());
    }
    let sheet = sheet::read(csv, limits.max_rows)?;
    let layout = Layout::of(&sheet.header, &base)?;
    let mut rows = Vec::new();
    let mut good: Vec<(u64, Row)> = Vec::new();
    let mut seen: HashMap<Row, u64> = HashMap::new();
    for (line, read) in super::layout::rows(&sheet, &layout, base.recipients.len()) {
        let (problems, row) = match read {
            Err(why) => (vec![problem("row", why)], Row::default()),
            Ok(row) => (row_problems(&base, tier, &row, &seen), row),
        };
        let check = row_check(&base, line, &row, problems);
        if check.ok {
            seen.insert(row.clone(), line);
            good.push((line, row));
        }
        rows.push(check);
    }
    let valid = good.len() as u64;
    let preview = Preview {
        template_id: t.id,
        template_title: t.title.clone(),
        columns: layout.views,
        invalid: rows.len() as u64 - valid,
        rows,
        valid,
        max_rows: limits.max_rows as u64,
        per_hour: limits.per_hour as u64,
    };
    Ok(Checked { preview, good })
}

/// Why `row` cannot be sent: the checks of `Generate::for_row`, and a row that repeats one
/// already taken (`earlier`).
fn row_problems(
    base: &crate::signing::templates::Base,
    tier: Tier,
    row: &Row,
    earlier: &HashMap<Row, u64>,
) -> Vec<Problem> {
    let mut out = match Generate::for_row(base, tier, row) {
        Ok(_) => Vec::new(),
        Err(e) if e.details().is_empty() => vec![problem("row", e.to_string())],
        Err(e) => e
            .details()
            .iter()
            .map(|d| problem(&d.path, d.message.clone()))
            .collect(),
    };
    if out.is_empty()
        && let Some(line) = earlier.get(row)
    {
        out.push(problem(
            "row",
            format!("repeats line {line}: the same document twice"),
        ));
    }
    out
}

fn problem(column: &str, message: impl Into<String>) -> Problem {
    Problem {
        column: column.to_string(),
        message: message.into(),
    }
}

fn row_check(
    base: &crate::signing::templates::Base,
    line: u64,
    row: &Row,
    problems: Vec<Problem>,
) -> RowCheck {
    let recipients = base
        .recipients
        .iter()
        .enumerate()
        .map(|(i, (_, r))| {
            let given = row.recipients.get(i);
            PreviewRecipient {
                name: given
                    .and_then(|p| p.name.clone())
                    .unwrap_or_else(|| r.name.clone()),
                email: given
                    .and_then(|p| p.email.clone())
                    .unwrap_or_else(|| r.email.clone()),
            }
        })
        .collect();
    RowCheck {
        line,
        ok: problems.is_empty(),
        problems,
        recipients,
        title: row.title.clone().unwrap_or_else(|| base.title.clone()),
        values: row.values.clone(),
    }
}

/// Makes and sends `row`'s document inside a savepoint and undoes it: why it fails, if it does.
fn trial(
    tx: &Conn,
    owner: &Owner,
    t: &Template,
    tier: Tier,
    row: &Row,
    app: &str,
) -> Result<Option<String>, AppError> {
    let Some(blob) = t.blob_id.as_deref() else {
        return Ok(Some(crate::signing::templates::no_file().to_string()));
    };
    let source = Source {
        owner,
        template: t.id,
        blob,
        tier,
        send_email: false,
        app,
    };
    match attempt(tx, &source, row, now(), false)? {
        Ok(_) => Ok(None),
        Err(e) if super::is_row_problem(&e) => Ok(Some(super::reason(&e))),
        Err(e) => Err(e),
    }
}

/// The command to start a run.
#[derive(Debug, Clone)]
pub struct StartRun {
    pub csv: Vec<u8>,
    /// The uploaded file's name, for the run's list and report.
    pub file_name: String,
    /// False: the documents are sent without e-mails (the owner hands out the links).
    pub send_email: bool,
}

/// `POST .../bulk-send`: the run of `command`'s file over template `id`, every row stored (the
/// bad ones SKIPPED with their problems) and the good ones left to the worker. A file without
/// a good row is a 400 listing each row's problems.
pub async fn start(
    ctx: &Context,
    who: &Principal,
    id: TemplateId,
    command: StartRun,
    limits: Limits,
) -> Result<RunDetail, AppError> {
    ctx.admit_new_work()?;
    let Checked { preview, good } = check_file(ctx, who, id, command.csv, limits).await?;
    if good.is_empty() {
        return Err(no_good_rows(&preview));
    }
    let who = who.clone();
    let run = ctx
        .db
        .write(move |tx| {
            let owner = access::owner(tx, &who)?;
            let t = templates::owned(tx, &owner, id)?;
            let at = now();
            let name = file_name(&command.file_name);
            let new = store::NewRun {
                template: &t,
                file_name: &name,
                send_email: command.send_email,
            };
            let run = store::insert(tx, &owner, &new, at)?;
            let mut good = good.into_iter().peekable();
            for check in &preview.rows {
                let sent = good.next_if(|(line, _)| *line == check.line);
                match sent {
                    Some((line, row)) => {
                        store::insert_row(tx, run, line, &row, RowStatus::Pending, None)?
                    }
                    None => {
                        let why: Vec<String> = check
                            .problems
                            .iter()
                            .map(|p| format!("{}: {}", p.column, p.message))
                            .collect();
                        let row = as_given(check);
                        let why = why.join("; ");
                        store::insert_row(
                            tx,
                            run,
                            check.line,
                            &row,
                            RowStatus::Skipped,
                            Some(&why),
                        )?
                    }
                }
            }
            detail(tx, &store::owned(tx, &owner, run)?, limits)
        })
        .await?;
    ctx.workers.bulk.wake();
    Ok(run)
}

/// A skipped row's addresses as the preview read them, for the report.
fn as_given(check: &RowCheck) -> Row {
    Row {
        title: None,
        external_id: None,
        recipients: check
            .recipients
            .iter()
            .map(|r| crate::signing::templates::row::Party {
                name: Some(r.name.clone()),
                email: Some(r.email.clone()),
            })
            .collect(),
        values: Vec::new(),
    }
}

fn no_good_rows(preview: &Preview) -> AppError {
    let details = preview
        .rows
        .iter()
        .flat_map(|r| {
            r.problems.iter().map(move |p| {
                FieldError::new(format!("line {}.{}", r.line, p.column), p.message.clone())
            })
        })
        .take(100)
        .collect();
    AppError::BadRequest {
        code: "invalid_csv",
        message: format!(
            "no row of the file can be sent ({} rows, each with a problem); nothing was sent",
            preview.rows.len()
        ),
        details,
    }
}

/// A safe name for a file named by its uploader: its last path part, at most 100 characters.
fn file_name(given: &str) -> String {
    let last = given.rsplit(['/', '\\']).next().unwrap_or("").trim();
    let name: String = last.chars().filter(|c| !c.is_control()).take(100).collect();
    if name.is_empty() {
        "upload.csv".into()
    } else {
        name
    }
}

/// A title as a file name's stem: letters, digits, `-` and `_`.
fn file_stem(title: &str) -> String {
    let s: String = title
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .take(60)
        .collect();
    let s = s.trim_matches('-').to_string();
    if s.is_empty() { "bulk-send".into() } else { s }
}

/// Run `run` with its counts, when it waits for the hourly bound, and its rows.
fn detail(c: &Conn, run: &Run, limits: Limits) -> Result<RunDetail, AppError> {
    let rows = store::rows(c, run.id)?;
    Ok(RunDetail {
        run: view(c, run, limits)?,
        rows: rows.iter().map(RowView::of).collect(),
    })
}

fn view(c: &Conn, run: &Run, limits: Limits) -> Result<RunView, AppError> {
    let counts = store::counts(c, run.id)?;
    let waiting_until = if counts.pending > 0 && run.status == super::model::RunStatus::Running {
        waiting_until(c, run, limits, now())?
    } else {
        None
    };
    Ok(RunView {
        id: run.id,
        template_id: run.template_id,
        template_title: run.template_title.clone(),
        file_name: run.file_name.clone(),
        send_email: run.send_email,
        status: run.status,
        counts,
        waiting_until,
        created_at: run.created_at,
        finished_at: run.finished_at,
    })
}

/// When the hourly bound lets the workspace of `run` send again, while it holds it back.
pub fn waiting_until(
    c: &Conn,
    run: &Run,
    limits: Limits,
    now: i64,
) -> Result<Option<i64>, AppError> {
    let sent = store::sent_since(c, run.user_id, run.team_id, now - HOUR + 1)?;
    if sent.len() < limits.per_hour {
        return Ok(None);
    }
    // Sending goes on once the oldest of the hour's last `per_hour` sends is an hour old.
    let oldest = sent[sent.len() - limits.per_hour];
    Ok(Some(oldest + HOUR))
}

/// The runs the caller sees, newest first: a page of `per_page` and how many there are.
pub async fn list(
    ctx: &Context,
    who: &Principal,
    page: i64,
    per_page: i64,
    limits: Limits,
) -> Result<(Vec<RunView>, i64), AppError> {
    let who = who.clone();
    ctx.db
        .read(move |c| {
            let owner = access::owner(c, &who)?;
            let runs = store::list(c, &owner, per_page, (page - 1).max(0) * per_page)?;
            let views = runs
                .iter()
                .map(|r| view(c, r, limits))
                .collect::<Result<_, _>>()?;
            Ok((views, store::count(c, &owner)?))
        })
        .await
}

/// Run `id` with its rows (404 unless the caller sees it).
pub async fn get(
    ctx: &Context,
    who: &Principal,
    id: BulkSendId,
    limits: Limits,
) -> Result<RunDetail, AppError> {
    let who = who.clone();
    ctx.db
        .read(move |c| {
            let owner = access::owner(c, &who)?;
            detail(c, &store::owned(c, &owner, id)?, limits)
        })
        .await
}

/// `POST .../cancel`: stops run `id`; its rows not yet sent are not. A run already finished
/// is a 400.
pub async fn cancel(
    ctx: &Context,
    who: &Principal,
    id: BulkSendId,
    limits: Limits,
) -> Result<RunDetail, AppError> {
    let who = who.clone();
    ctx.db
        .write(move |tx| {
            let owner = access::owner(tx, &who)?;
            let run = store::owned(tx, &owner, id)?;
            if store::cancel(tx, id, now())?.is_none() {
                return Err(AppError::wrong_state(format!(
                    "the bulk send is {}; only a RUNNING one can be cancelled",
                    run.status.as_str()
                )));
            }
            detail(tx, &store::owned(tx, &owner, id)?, limits)
        })
        .await
}

/// The report of run `id` as CSV: one line per row of the file, with what became of it.
pub async fn report(
    ctx: &Context,
    who: &Principal,
    id: BulkSendId,
) -> Result<(String, String), AppError> {
    let who = who.clone();
    let app = ctx.app.clone();
    let (run, rows) = ctx
        .db
        .read(move |c| {
            let owner = access::owner(c, &who)?;
            let run = store::owned(c, &owner, id)?;
            Ok((run.clone(), store::rows(c, run.id)?))
        })
        .await?;
    let recipients = rows
        .iter()
        .map(|r| r.request.recipients.len())
        .max()
        .unwrap_or(0);
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header = vec![
        "line".to_string(),
        "status".into(),
        "document_id".into(),
        "document_url".into(),
    ];
    for n in 1..=recipients {
        header.push(crate::signing::templates::row::email_column(n));
    }
    header.push("reason".into());
    w.write_record(&header).map_err(AppError::internal)?;
    for r in &rows {
        let mut record = vec![
            r.line.to_string(),
            r.status.as_str().to_string(),
            r.document_id.map(|d| d.to_string()).unwrap_or_default(),
            r.document_id
                .map(|d| format!("{app}/documents/{d}"))
                .unwrap_or_default(),
        ];
        for n in 0..recipients {
            let email = r.request.recipients.get(n).and_then(|p| p.email.clone());
            record.push(csv_safe(&email.unwrap_or_default()));
        }
        record.push(csv_safe(r.reason.as_deref().unwrap_or("")));
        w.write_record(&record).map_err(AppError::internal)?;
    }
    let text = String::from_utf8(w.into_inner().map_err(AppError::internal)?)
        .map_err(AppError::internal)?;
    let name = format!("bulk-send-{}-report.csv", run.id);
    Ok((name, text))
}

/// A cell a spreadsheet will not take for a formula: text that starts with `=`, `+`, `-`, `@`
/// or a tab gets a leading apostrophe (the uploader's own cells come back in the report).
fn csv_safe(cell: &str) -> String {
    if cell.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{cell}")
    } else {
        cell.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_made_safe() {
        assert_eq!(file_name("C:\\Users\\ann\\leases.csv"), "leases.csv");
        assert_eq!(file_name("../../etc/passwd"), "passwd");
        assert_eq!(file_name("  "), "upload.csv");
        assert_eq!(file_stem("Lease: Flat 2"), "Lease--Flat-2");
        assert_eq!(file_stem("***"), "bulk-send");
        assert_eq!(csv_safe("=HYPERLINK(1)"), "'=HYPERLINK(1)");
        assert_eq!(csv_safe("ann@example.com"), "ann@example.com");
    }
}
