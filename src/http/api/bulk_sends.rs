//! Bulk sends through the API, over `signing::bulk::manage`: a template's CSV header
//! (`GET /api/v1/templates/{id}/bulk-send/csv`), the preview of a file (`POST
//! .../bulk-send/preview`), starting a run (`POST .../bulk-send`), and the runs under
//! `/api/v1/bulk-sends` (list, one with its rows, its report as CSV, cancel). The file comes as
//! the raw body (`text/csv`) or the `file` part of `multipart/form-data`, bounded by
//! `sheet::MAX_BYTES`.

use bytes::Buf;
use futures_util::{Stream, StreamExt};
use serde::{Deserialize, Serialize};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::http::StatusCode;
use warp::reply::Response;

use crate::core::error::AppError;
use crate::core::ids::{BulkSendId, TemplateId};
use crate::http::api::uploads::{file_of, within};
use crate::http::auth::caller;
use crate::http::reply::{answer, json_response, json_result};
use crate::http::server::state::AppState;
use crate::identity::principal::Principal;
use crate::identity::scope::Scope;
use crate::signing::bulk::manage::{self, Preview, StartRun};
use crate::signing::bulk::model::{RunDetail, RunView};
use crate::signing::bulk::sheet::MAX_BYTES;

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let (read, write) = (Scope::ReadDocument, Scope::WriteDocument);
    let header = warp::path!("api" / "v1" / "templates" / TemplateId / "bulk-send" / "csv")
        .and(warp::get())
        .and(caller(&state, read))
        .then(csv_template)
        .map(answer);
    let preview = warp::path!("api" / "v1" / "templates" / TemplateId / "bulk-send" / "preview")
        .and(warp::post())
        .and(caller(&state, write))
        .and(upload())
        .then(preview)
        .map(json_result);
    let start = warp::path!("api" / "v1" / "templates" / TemplateId / "bulk-send")
        .and(warp::post())
        .and(caller(&state, write))
        .and(crate::http::body::query::<StartQuery>())
        .and(upload())
        .then(start)
        .map(answer);
    let list = warp::path!("api" / "v1" / "bulk-sends")
        .and(warp::get())
        .and(caller(&state, read))
        .and(crate::http::body::query::<ListQuery>())
        .then(list)
        .map(json_result);
    let get = warp::path!("api" / "v1" / "bulk-sends" / BulkSendId)
        .and(warp::get())
        .and(caller(&state, read))
        .then(get)
        .map(json_result);
    let report = warp::path!("api" / "v1" / "bulk-sends" / BulkSendId / "report")
        .and(warp::get())
        .and(caller(&state, read))
        .then(report)
        .map(answer);
    let cancel = warp::path!("api" / "v1" / "bulk-sends" / BulkSendId / "cancel")
        .and(warp::post())
        .and(caller(&state, write))
        .then(cancel)
        .map(json_result);
    header
        .or(preview)
        .unify()
        .or(start)
        .unify()
        .or(list)
        .unify()
        .or(get)
        .unify()
        .or(report)
        .unify()
        .or(cancel)
        .unify()
        .boxed()
}

/// The uploaded file's bytes, read within `MAX_BYTES` (413 past it).
fn upload() -> impl Filter<Extract = (Upload,), Error = warp::Rejection> + Clone {
    warp::header::optional::<String>("content-type")
        .and(warp::header::optional::<u64>("content-length"))
        .and(warp::body::stream())
        .map(|ct: Option<String>, len: Option<u64>, body| Upload::new(ct, len, body))
}

/// A request's file, not yet read.
pub struct Upload(
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<Vec<u8>, AppError>> + Send>>,
);

impl Upload {
    fn new<S, B>(content_type: Option<String>, length: Option<u64>, body: S) -> Upload
    where
        S: Stream<Item = Result<B, warp::Error>> + Send + 'static,
        B: Buf + Send + 'static,
    {
        Upload(Box::pin(async move {
            let ct = content_type.as_deref();
            within(ct, length, MAX_BYTES)?;
            let kinds = [
                "text/csv",
                "text/plain",
                "application/csv",
                "application/vnd.ms-excel",
            ];
            let mut stream = file_of(ct, body, MAX_BYTES, &kinds, "the CSV file")?;
            let mut out = Vec::new();
            while let Some(piece) = stream.next().await {
                let piece = piece?;
                if (out.len() + piece.len()) as u64 > MAX_BYTES {
                    return Err(crate::signing::uploads::too_large(MAX_BYTES));
                }
                out.extend_from_slice(&piece);
            }
            Ok(out)
        }))
    }

    pub async fn read(self) -> Result<Vec<u8>, AppError> {
        self.0.await
    }
}

/// `POST .../bulk-send`'s query.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct StartQuery {
    /// The file's name for the run's list and report.
    file_name: Option<String>,
    /// `false`: the documents are sent without e-mails.
    send_email: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ListQuery {
    page: Option<String>,
    per_page: Option<String>,
}

/// `GET /api/v1/bulk-sends`.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = BulkSendList)]
pub struct RunList {
    pub bulk_sends: Vec<RunView>,
    pub total_pages: i64,
}

/// A CSV file as an attachment named `name` (kept to letters, digits, `-`, `_` and `.`): the
/// answer of the API's and the pages' CSV downloads.
pub(crate) fn csv_file(name: &str, text: String) -> Response {
    let mut resp = Response::new(text.into());
    let h = resp.headers_mut();
    h.insert(
        "content-type",
        "text/csv; charset=utf-8".parse().expect("static"),
    );
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect();
    if let Ok(v) = format!("attachment; filename=\"{safe}\"").parse() {
        h.insert("content-disposition", v);
    }
    h.insert(
        "cache-control",
        "private, no-store".parse().expect("static"),
    );
    resp
}

/// `GET /api/v1/templates/{id}/bulk-send/csv`: the header line of a file for the template.
async fn csv_template(
    id: TemplateId,
    who: Principal,
    state: AppState,
) -> Result<Response, AppError> {
    let (name, text) = manage::csv_template(&state.ctx(), &who, id).await?;
    Ok(csv_file(&name, text))
}

/// `POST /api/v1/templates/{id}/bulk-send/preview`.
async fn preview(
    id: TemplateId,
    who: Principal,
    state: AppState,
    file: Upload,
) -> Result<Preview, AppError> {
    let csv = file.read().await?;
    manage::preview(&state.ctx(), &who, id, csv, state.config.bulk_send).await
}

/// `POST /api/v1/templates/{id}/bulk-send?fileName&sendEmail`: 201 with the run and its rows.
async fn start(
    id: TemplateId,
    who: Principal,
    state: AppState,
    q: StartQuery,
    file: Upload,
) -> Result<Response, AppError> {
    let send_email = match q.send_email.as_deref() {
        None | Some("true") => true,
        Some("false") => false,
        Some(other) => {
            return Err(AppError::bad_request(format!(
                "sendEmail must be true or false, not {other:?}"
            )));
        }
    };
    let csv = file.read().await?;
    let command = StartRun {
        csv,
        file_name: q.file_name.unwrap_or_default(),
        send_email,
    };
    let run = manage::start(&state.ctx(), &who, id, command, state.config.bulk_send).await?;
    let value = serde_json::to_value(run).map_err(AppError::internal)?;
    let shown = crate::signing::documents::receipt::shown_to(&who, value);
    Ok(json_response(StatusCode::CREATED, &shown))
}

/// `GET /api/v1/bulk-sends?page&perPage`.
async fn list(who: Principal, state: AppState, q: ListQuery) -> Result<RunList, AppError> {
    let (page, per_page) =
        crate::signing::documents::parse_paging(q.page.as_deref(), q.per_page.as_deref())?;
    let limits = state.config.bulk_send;
    let (runs, total) = manage::list(&state.ctx(), &who, page, per_page, limits).await?;
    Ok(RunList {
        bulk_sends: runs,
        total_pages: (total + per_page - 1) / per_page,
    })
}

/// `GET /api/v1/bulk-sends/{id}`.
async fn get(id: BulkSendId, who: Principal, state: AppState) -> Result<RunDetail, AppError> {
    manage::get(&state.ctx(), &who, id, state.config.bulk_send).await
}

/// `GET /api/v1/bulk-sends/{id}/report`: the report as CSV.
async fn report(id: BulkSendId, who: Principal, state: AppState) -> Result<Response, AppError> {
    let (name, text) = manage::report(&state.ctx(), &who, id).await?;
    Ok(csv_file(&name, text))
}

/// `POST /api/v1/bulk-sends/{id}/cancel`.
async fn cancel(id: BulkSendId, who: Principal, state: AppState) -> Result<RunDetail, AppError> {
    manage::cancel(&state.ctx(), &who, id, state.config.bulk_send).await
}
