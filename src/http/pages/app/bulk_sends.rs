//! The runs of bulk sends in the web application, over `signing::bulk::manage`: `GET
//! /bulk-sends` lists them, newest first; `GET /bulk-sends/{id}` is one run: its progress (a
//! `<progress>` bar and "12 of 48 sent"), its counts, when the hourly limit holds it back, its
//! rows with their documents and reasons, its report (`.../report.csv`) and, while it runs,
//! "Cancel the rest" (`POST .../cancel`). While a run goes on, `assets/js/bulk-send.js` fetches
//! the page again every two seconds and swaps its progress region; without scripts the page's
//! "Refresh" link does the same. Another workspace's run is the 404 page.

use askama::Template;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::bulk_send::{Posted, posted};
use super::nav::{Nav, Section};
use super::settings::sentence;
use super::workspace::{Place, place};
use crate::core::error::AppError;
use crate::core::ids::{BulkSendId, DocumentId, TemplateId};
use crate::core::timefmt::{human, iso8601};
use crate::http::api::bulk_sends::csv_file;
use crate::http::reply::{self, page, page_as, redirect};
use crate::http::server::state::AppState;
use crate::http::session::{APP, SignedIn, matches_session, signed_in};
use crate::signing::bulk::manage;
use crate::signing::bulk::model::{RowStatus, RunDetail, RunStatus, RunView};

/// Runs on one page of the list.
const PER_PAGE: i64 = 20;

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let list = place()
        .and(warp::path!("bulk-sends"))
        .and(warp::get())
        .and(crate::http::body::query::<PageQuery>())
        .and(signed_in(&state, "/bulk-sends"))
        .and(crate::http::with_state(state.clone()))
        .then(list)
        .map(reply::answer);
    let run = place()
        .and(warp::path!("bulk-sends" / BulkSendId))
        .and(warp::get())
        .and(signed_in(&state, "/bulk-sends"))
        .and(crate::http::with_state(state.clone()))
        .then(run)
        .map(reply::answer);
    let report = place()
        .and(warp::path!("bulk-sends" / BulkSendId / "report.csv"))
        .and(warp::get())
        .and(signed_in(&state, "/bulk-sends"))
        .and(crate::http::with_state(state.clone()))
        .then(report)
        .map(reply::answer);
    let cancel = place()
        .and(warp::path!("bulk-sends" / BulkSendId / "cancel"))
        .and(warp::post())
        .and(signed_in(&state, "/bulk-sends"))
        .and(posted(16 * 1024))
        .and(crate::http::with_state(state))
        .then(cancel)
        .map(reply::answer);
    list.or(run)
        .unify()
        .or(report)
        .unify()
        .or(cancel)
        .unify()
        .boxed()
}

/// `?page=`: which page of the list (the first when absent or not a number).
#[derive(serde::Deserialize)]
struct PageQuery {
    page: Option<String>,
}

/// A run as the pages show it.
struct Shown {
    id: BulkSendId,
    template: Option<TemplateId>,
    template_title: String,
    file_name: String,
    running: bool,
    /// "Running", "Done", "Cancelled".
    status: &'static str,
    /// The status's class: `run`, `ok`, `stop`.
    tone: &'static str,
    send_email: bool,
    started: String,
    started_iso: String,
    to_send: u64,
    sent: u64,
    failed: u64,
    skipped: u64,
    cancelled: u64,
    waiting: u64,
    /// While the hourly limit holds it back: until when (`HH:MM UTC`, and ISO 8601).
    waiting_until: Option<(String, String)>,
}

impl Shown {
    fn of(r: &RunView) -> Shown {
        let c = r.counts;
        let (status, tone) = match r.status {
            RunStatus::Running => ("Running", "run"),
            RunStatus::Done => ("Done", "ok"),
            RunStatus::Cancelled => ("Cancelled", "stop"),
        };
        Shown {
            id: r.id,
            template: r.template_id,
            template_title: r.template_title.clone(),
            file_name: r.file_name.clone(),
            running: r.status == RunStatus::Running,
            status,
            tone,
            send_email: r.send_email,
            started: human(r.created_at),
            started_iso: iso8601(r.created_at),
            to_send: c.to_send(),
            sent: c.sent,
            failed: c.failed,
            skipped: c.skipped,
            cancelled: c.cancelled,
            waiting: c.pending,
            waiting_until: r.waiting_until.map(|t| (clock(t), iso8601(t))),
        }
    }

    /// "12 of 48 sent".
    fn progress(&self) -> String {
        format!("{} of {} sent", self.sent, self.to_send)
    }
}

/// `HH:MM UTC`.
fn clock(ts: i64) -> String {
    let format = time::macros::format_description!("[hour]:[minute] UTC");
    time::OffsetDateTime::from_unix_timestamp(ts)
        .ok()
        .and_then(|t| t.format(&format).ok())
        .unwrap_or_else(|| human(ts))
}

#[derive(Template)]
#[template(path = "app/bulk_runs.html")]
struct ListPage {
    nav: Nav,
    runs: Vec<Shown>,
    page: i64,
    pages: i64,
    previous: Option<String>,
    next: Option<String>,
}

/// `GET /bulk-sends?page=`.
async fn list(
    at: Place,
    q: PageQuery,
    (session, user): SignedIn,
    state: AppState,
) -> Result<Response, AppError> {
    let who = at.principal(&user);
    let nav = Nav::of(&state, &session, &user, Section::Templates, &at).await?;
    let n: i64 = q.page.and_then(|p| p.parse().ok()).unwrap_or(1);
    let n = n.clamp(1, 1_000_000);
    let limits = state.config.bulk_send;
    let (runs, total) = manage::list(&state.ctx(), &who, n, PER_PAGE, limits).await?;
    let pages = (total + PER_PAGE - 1) / PER_PAGE;
    let link = |p: i64| match p {
        1 => at.link("/bulk-sends"),
        p => at.link(&format!("/bulk-sends?page={p}")),
    };
    Ok(page(Ok(ListPage {
        nav,
        runs: runs.iter().map(Shown::of).collect(),
        page: n,
        pages,
        previous: (n > 1).then(|| link((n - 1).min(pages.max(1)))),
        next: (n < pages).then(|| link(n + 1)),
    })))
}

#[derive(Template)]
#[template(path = "app/bulk_run.html")]
struct RunPage {
    nav: Nav,
    run: Shown,
    rows: Vec<RowShown>,
    error: Option<String>,
}

/// A row of the run's table.
struct RowShown {
    line: u64,
    emails: Vec<String>,
    /// "Sent", "Waiting"...
    status: &'static str,
    tone: &'static str,
    document: Option<DocumentId>,
    reason: String,
}

fn run_page(nav: Nav, d: RunDetail) -> RunPage {
    let rows = d
        .rows
        .iter()
        .map(|r| {
            let (status, tone) = match r.status {
                RowStatus::Pending => ("Waiting", "run"),
                RowStatus::Sent => ("Sent", "ok"),
                RowStatus::Failed => ("Failed", "bad"),
                RowStatus::Skipped => ("Skipped", "bad"),
                RowStatus::Cancelled => ("Cancelled", "stop"),
            };
            RowShown {
                line: r.line,
                emails: r
                    .emails
                    .iter()
                    .filter(|e| !crate::signing::templates::is_placeholder(e))
                    .cloned()
                    .collect(),
                status,
                tone,
                document: r.document_id,
                reason: r.reason.clone().unwrap_or_default(),
            }
        })
        .collect();
    RunPage {
        nav,
        run: Shown::of(&d.run),
        rows,
        error: None,
    }
}

/// `GET /bulk-sends/{id}`.
async fn run(
    at: Place,
    id: BulkSendId,
    (session, user): SignedIn,
    state: AppState,
) -> Result<Response, AppError> {
    let limits = state.config.bulk_send;
    let d = manage::get(&state.ctx(), &at.principal(&user), id, limits).await?;
    let nav = Nav::of(&state, &session, &user, Section::Templates, &at).await?;
    Ok(page(Ok(run_page(nav, d))))
}

/// `GET /bulk-sends/{id}/report.csv`.
async fn report(
    at: Place,
    id: BulkSendId,
    (_, user): SignedIn,
    state: AppState,
) -> Result<Response, AppError> {
    let (name, text) = manage::report(&state.ctx(), &at.principal(&user), id).await?;
    Ok(csv_file(&name, text))
}

/// `POST /bulk-sends/{id}/cancel`: the rows not yet sent are not; back to the run's page.
async fn cancel(
    at: Place,
    id: BulkSendId,
    (session, user): SignedIn,
    posted: Posted,
    state: AppState,
) -> Result<Response, AppError> {
    let token = url::form_urlencoded::parse(&posted.body)
        .filter(|(k, _)| k == "csrf_token")
        .last()
        .map(|(_, v)| v.into_owned());
    if !matches_session(&state, APP, &session, token.as_deref()) {
        return Err(AppError::Forbidden(
            "the form expired; reload the page".into(),
        ));
    }
    let (ctx, who, limits) = (state.ctx(), at.principal(&user), state.config.bulk_send);
    match manage::cancel(&ctx, &who, id, limits).await {
        Ok(_) => Ok(redirect(&at.link(&format!("/bulk-sends/{id}")))),
        Err(e) if e.status().is_client_error() && e.status().as_u16() != 404 => {
            let d = manage::get(&ctx, &who, id, limits).await?;
            let nav = Nav::of(&state, &session, &user, Section::Templates, &at).await?;
            let mut shown = run_page(nav, d);
            shown.error = Some(sentence(&e.public_message()));
            Ok(page_as(e.status(), Ok(shown)))
        }
        Err(e) => Err(e),
    }
}
