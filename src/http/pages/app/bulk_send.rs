//! Bulk send from a template in the web application (issue 56, part 3), over
//! `signing::bulk::manage` as the API is: `GET /templates/{id}/bulk-send` says what a bulk send
//! does, the columns of a file for this template, the limits, and takes a file; `GET
//! .../bulk-send.csv` is that file's header line to fill in; `POST .../bulk-send/preview` (the
//! file, `multipart/form-data`) shows every row as it would be sent and each bad row's problems,
//! with the send form carrying the file along (base64 in a hidden field); `POST .../bulk-send`
//! starts the run and goes to its page (`bulk_sends`). A problem of the whole file is said on the
//! upload page, with the form again.

use askama::Template;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use bytes::Bytes;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::http::StatusCode;
use warp::reply::Response;

use super::nav::{Nav, Section};
use super::settings::sentence;
use super::workspace::{Place, place};
use crate::core::error::AppError;
use crate::core::ids::TemplateId;
use crate::http::api::bulk_sends::csv_file;
use crate::http::reply::{self, page, page_as, redirect};
use crate::http::server::state::AppState;
use crate::http::session::{APP, SignedIn, matches_session, signed_in};
use crate::signing::bulk::layout::{ColumnView, Layout, header_for};
use crate::signing::bulk::manage::{self, Preview, StartRun};
use crate::signing::bulk::sheet::MAX_BYTES;
use crate::signing::templates::{is_placeholder, manage as templates, model};

/// Most bytes of an upload form: the file and room for the rest of the form.
const UPLOAD_LIMIT: u64 = MAX_BYTES + 64 * 1024;
/// Most bytes of the send form: the file in base64, escaped, and the rest.
const START_LIMIT: u64 = MAX_BYTES * 3 / 2 + 64 * 1024;

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let explain = place()
        .and(warp::path!("templates" / TemplateId / "bulk-send"))
        .and(warp::get())
        .and(signed_in(&state, "/templates"))
        .and(crate::http::with_state(state.clone()))
        .then(explain)
        .map(reply::answer);
    let header = place()
        .and(warp::path!("templates" / TemplateId / "bulk-send.csv"))
        .and(warp::get())
        .and(signed_in(&state, "/templates"))
        .and(crate::http::with_state(state.clone()))
        .then(header)
        .map(reply::answer);
    let preview = place()
        .and(warp::path!(
            "templates" / TemplateId / "bulk-send" / "preview"
        ))
        .and(warp::post())
        .and(signed_in(&state, "/templates"))
        .and(posted(UPLOAD_LIMIT))
        .and(crate::http::with_state(state.clone()))
        .then(preview)
        .map(reply::answer);
    let start = place()
        .and(warp::path!("templates" / TemplateId / "bulk-send"))
        .and(warp::post())
        .and(signed_in(&state, "/templates"))
        .and(posted(START_LIMIT))
        .and(crate::http::with_state(state))
        .then(start)
        .map(reply::answer);
    explain
        .or(header)
        .unify()
        .or(preview)
        .unify()
        .or(start)
        .unify()
        .boxed()
}

/// A posted form as it came: its type and its body, within `limit` bytes.
pub(super) struct Posted {
    content_type: String,
    pub(super) body: Bytes,
}

pub(super) fn posted(
    limit: u64,
) -> impl Filter<Extract = (Posted,), Error = warp::Rejection> + Clone {
    warp::header::optional::<String>("content-type")
        .and(crate::http::body::capped_bytes(limit))
        .map(|ct: Option<String>, body| Posted {
            content_type: ct.unwrap_or_default(),
            body,
        })
}

/// What the upload and send forms hold.
#[derive(Debug, Default)]
struct Fields {
    csrf_token: Option<String>,
    send_email: bool,
    file_name: String,
    /// The file's bytes (the upload form), or the file as the preview passed it on (base64).
    file: Option<Vec<u8>>,
    csv: Option<String>,
}

impl Posted {
    /// The form's fields: a `multipart/form-data` upload, or a form-encoded body.
    async fn fields(self) -> Result<Fields, AppError> {
        let mut out = Fields::default();
        if let Ok(boundary) = multer::parse_boundary(&self.content_type) {
            let body = self.body;
            let stream = futures_util::stream::once(async move { Ok::<_, std::io::Error>(body) });
            let mut parts = multer::Multipart::new(stream, boundary);
            let bad = |e: multer::Error| {
                AppError::bad_request(format!("the form could not be read: {e}"))
            };
            while let Some(part) = parts.next_field().await.map_err(bad)? {
                let name = part.name().unwrap_or_default().to_string();
                let file_name = part.file_name().map(str::to_string);
                let bytes = part.bytes().await.map_err(bad)?;
                let text = || String::from_utf8_lossy(&bytes).into_owned();
                match name.as_str() {
                    "csrf_token" => out.csrf_token = Some(text()),
                    "send_email" => out.send_email = true,
                    "file" => {
                        out.file_name = file_name.unwrap_or_default();
                        out.file = Some(bytes.to_vec());
                    }
                    _ => {}
                }
            }
            return Ok(out);
        }
        for (k, v) in url::form_urlencoded::parse(&self.body) {
            match k.as_ref() {
                "csrf_token" => out.csrf_token = Some(v.into_owned()),
                "send_email" => out.send_email = v == "on" || v == "true",
                "file_name" => out.file_name = v.into_owned(),
                "csv" => out.csv = Some(v.into_owned()),
                _ => {}
            }
        }
        Ok(out)
    }
}

/// The form's fields once its CSRF token is the session's (else the page's 403).
async fn checked(state: &AppState, session: &str, posted: Posted) -> Result<Fields, AppError> {
    let f = posted.fields().await?;
    if !matches_session(state, APP, session, f.csrf_token.as_deref()) {
        return Err(AppError::Forbidden(
            "the form expired; reload the page".into(),
        ));
    }
    Ok(f)
}

#[derive(Template)]
#[template(path = "app/bulk_send.html")]
struct UploadPage {
    nav: Nav,
    id: TemplateId,
    title: String,
    columns: Vec<Column>,
    /// The template has no recipients: no file can be sent.
    no_recipients: bool,
    max_rows: usize,
    per_hour: usize,
    send_email: bool,
    /// A problem of the whole file, as a sentence, and what it lists.
    error: Option<String>,
    problems: Vec<String>,
}

/// A column of a file for the template, as the upload page lists it.
struct Column {
    header: String,
    meaning: String,
    /// Whether a row must fill it, and what an empty cell means.
    required: bool,
    note: String,
}

/// The columns of a file for `t`: each recipient's e-mail and name, then each field label.
fn columns(t: &model::Template) -> Vec<Column> {
    let base = t.base();
    let header = header_for(&base);
    let views: Vec<ColumnView> = Layout::of(&header, &base)
        .map(|l| l.views)
        .unwrap_or_default();
    header
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let view = views.get(i);
            let meaning = view.map(|v| v.meaning.clone()).unwrap_or_default();
            let who = view
                .and_then(|v| v.recipient)
                .and_then(|n| base.recipients.get(n - 1))
                .map(|(_, r)| r);
            let (required, note) = match (view.map(|v| v.kind), who) {
                (Some("recipient email"), Some(r)) if is_placeholder(&r.email) => (
                    true,
                    "Required: the template has no address for this recipient.".to_string(),
                ),
                (Some("recipient email"), Some(r)) => (
                    false,
                    format!("Left empty: the template's address, {}.", r.email),
                ),
                (Some("recipient name"), Some(r)) if !r.name.trim().is_empty() => (
                    false,
                    format!("Left empty: the template's name, {}.", r.name),
                ),
                (Some("recipient name"), _) => (false, "Optional.".to_string()),
                _ => (
                    false,
                    "Filled in before anyone signs; left empty, the recipient fills it in."
                        .to_string(),
                ),
            };
            Column {
                header: h.clone(),
                meaning,
                required,
                note,
            }
        })
        .collect()
}

fn upload_page(nav: Nav, t: &model::Template, state: &AppState, send_email: bool) -> UploadPage {
    let limits = state.config.bulk_send;
    UploadPage {
        nav,
        id: t.id,
        title: t.title.clone(),
        columns: columns(t),
        no_recipients: t.recipients.is_empty(),
        max_rows: limits.max_rows,
        per_hour: limits.per_hour,
        send_email,
        error: None,
        problems: Vec::new(),
    }
}

impl UploadPage {
    /// The page again with `e`, a refusal of the whole file.
    fn refused(mut self, e: &AppError) -> Response {
        self.error = Some(sentence(&e.public_message()));
        self.problems = e
            .details()
            .iter()
            .filter(|d| d.path != "file" && d.path != "template")
            .map(|d| format!("{}: {}", d.path, d.message))
            .collect();
        page_as(e.status(), Ok(self))
    }
}

/// `GET /templates/{id}/bulk-send`.
async fn explain(
    at: Place,
    id: TemplateId,
    (session, user): SignedIn,
    state: AppState,
) -> Result<Response, AppError> {
    let t = templates::read(&state.ctx(), &at.principal(&user), id).await?;
    let nav = Nav::of(&state, &session, &user, Section::Templates, &at).await?;
    Ok(page(Ok(upload_page(nav, &t, &state, true))))
}

/// `GET /templates/{id}/bulk-send.csv`: the header line of a file for the template.
async fn header(
    at: Place,
    id: TemplateId,
    (_, user): SignedIn,
    state: AppState,
) -> Result<Response, AppError> {
    let (name, text) = manage::csv_template(&state.ctx(), &at.principal(&user), id).await?;
    Ok(csv_file(&name, text))
}

#[derive(Template)]
#[template(path = "app/bulk_preview.html")]
struct PreviewPage {
    nav: Nav,
    id: TemplateId,
    template_title: String,
    file_name: String,
    send_email: bool,
    /// The file, passed on to the send form.
    csv: String,
    summary: String,
    /// What the hourly limit means for this file, if anything.
    pace: Option<String>,
    columns: Vec<ColumnView>,
    ignored: usize,
    /// The template's recipients, as the table's headings name them.
    people: Vec<String>,
    labels: Vec<String>,
    rows: Vec<ShownRow>,
    valid: u64,
}

/// A row as the preview shows it.
struct ShownRow {
    line: u64,
    ok: bool,
    /// Each recipient's name and e-mail (empty: none given).
    recipients: Vec<(String, String)>,
    title: String,
    /// The row's value for each label of `PreviewPage::labels` (empty: none).
    values: Vec<String>,
    /// Each problem: the column it came from ("" for the row as a whole) and the message.
    problems: Vec<(String, String)>,
}

fn preview_page(
    nav: Nav,
    t: &model::Template,
    p: Preview,
    file_name: String,
    send_email: bool,
    csv: &[u8],
) -> PreviewPage {
    let labels: Vec<String> = p
        .columns
        .iter()
        .filter(|c| c.kind == "field")
        .map(|c| c.header.clone())
        .collect();
    let rows = p
        .rows
        .iter()
        .map(|r| ShownRow {
            line: r.line,
            ok: r.ok,
            recipients: r
                .recipients
                .iter()
                .map(|x| {
                    let email = if is_placeholder(&x.email) {
                        String::new()
                    } else {
                        x.email.clone()
                    };
                    (x.name.clone(), email)
                })
                .collect(),
            title: r.title.clone(),
            values: labels
                .iter()
                .map(|l| {
                    r.values
                        .iter()
                        .find(|(k, _)| crate::signing::templates::row::same_label(k, l))
                        .map(|(_, v)| v.clone())
                        .unwrap_or_default()
                })
                .collect(),
            problems: r
                .problems
                .iter()
                .map(|x| {
                    let column = if x.column == "row" {
                        String::new()
                    } else {
                        x.column.clone()
                    };
                    (column, sentence(&x.message))
                })
                .collect(),
        })
        .collect();
    let people = super::templates::Person::all(t)
        .into_iter()
        .map(|p| p.label)
        .collect();
    let pace = (p.valid > p.per_hour).then(|| {
        format!(
            "At most {} documents go out in an hour: the rest wait their turn, and the run's page says until when.",
            p.per_hour
        )
    });
    PreviewPage {
        nav,
        id: p.template_id,
        template_title: p.template_title.clone(),
        file_name,
        send_email,
        csv: URL_SAFE_NO_PAD.encode(csv),
        summary: summary(p.valid, p.invalid),
        pace,
        ignored: p.columns.iter().filter(|c| c.kind == "ignored").count(),
        columns: p.columns,
        people,
        labels,
        rows,
        valid: p.valid,
    }
}

/// "48 documents will be sent. 2 rows have problems and will be skipped."
fn summary(valid: u64, invalid: u64) -> String {
    let sent = match valid {
        0 => "No document can be sent: every row has a problem. Fix the file and check it again."
            .to_string(),
        1 => "1 document will be sent.".to_string(),
        n => format!("{n} documents will be sent."),
    };
    let skipped = match (valid, invalid) {
        (0, _) | (_, 0) => String::new(),
        (_, 1) => " 1 row has a problem and will be skipped.".to_string(),
        (_, n) => format!(" {n} rows have problems and will be skipped."),
    };
    sent + &skipped
}

/// `POST /templates/{id}/bulk-send/preview`: the file checked, nothing sent.
async fn preview(
    at: Place,
    id: TemplateId,
    (session, user): SignedIn,
    posted: Posted,
    state: AppState,
) -> Result<Response, AppError> {
    let f = checked(&state, &session, posted).await?;
    let (ctx, who) = (state.ctx(), at.principal(&user));
    let csv = f.file.unwrap_or_default();
    let limits = state.config.bulk_send;
    let checked = if csv.len() as u64 > MAX_BYTES {
        Err(crate::signing::uploads::too_large(MAX_BYTES))
    } else {
        manage::preview(&ctx, &who, id, csv.clone(), limits).await
    };
    let t = templates::read(&ctx, &who, id).await?;
    let nav = Nav::of(&state, &session, &user, Section::Templates, &at).await?;
    match checked {
        Ok(p) => {
            let name = f.file_name;
            Ok(page(Ok(preview_page(nav, &t, p, name, f.send_email, &csv))))
        }
        Err(e) if e.status().is_client_error() => {
            Ok(upload_page(nav, &t, &state, f.send_email).refused(&e))
        }
        Err(e) => Err(e),
    }
}

/// `POST /templates/{id}/bulk-send`: the run started, and its page.
async fn start(
    at: Place,
    id: TemplateId,
    (session, user): SignedIn,
    posted: Posted,
    state: AppState,
) -> Result<Response, AppError> {
    let f = checked(&state, &session, posted).await?;
    let (ctx, who) = (state.ctx(), at.principal(&user));
    let csv = URL_SAFE_NO_PAD
        .decode(f.csv.as_deref().unwrap_or_default().trim())
        .map_err(|_| {
            AppError::bad_request(
                "the file did not come back as the preview sent it; check it again",
            )
        });
    let started = match csv {
        Ok(csv) => {
            let command = StartRun {
                csv,
                file_name: f.file_name,
                send_email: f.send_email,
            };
            manage::start(&ctx, &who, id, command, state.config.bulk_send).await
        }
        Err(e) => Err(e),
    };
    match started {
        Ok(run) => Ok(redirect(&at.link(&format!("/bulk-sends/{}", run.run.id)))),
        Err(e) if e.status().is_client_error() && e.status() != StatusCode::NOT_FOUND => {
            let t = templates::read(&ctx, &who, id).await?;
            let nav = Nav::of(&state, &session, &user, Section::Templates, &at).await?;
            Ok(upload_page(nav, &t, &state, f.send_email).refused(&e))
        }
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_counts_in_words() {
        assert_eq!(
            summary(48, 2),
            "48 documents will be sent. 2 rows have problems and will be skipped."
        );
        assert_eq!(
            summary(1, 1),
            "1 document will be sent. 1 row has a problem and will be skipped."
        );
        assert_eq!(summary(3, 0), "3 documents will be sent.");
        assert!(summary(0, 4).starts_with("No document can be sent"));
    }

    #[tokio::test]
    async fn a_form_is_read_as_multipart_or_form_encoded() {
        let body = "--x\r\nContent-Disposition: form-data; name=\"csrf_token\"\r\n\r\nt\r\n--x\r\nContent-Disposition: form-data; name=\"send_email\"\r\n\r\non\r\n--x\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.csv\"\r\nContent-Type: text/csv\r\n\r\nrecipient_1_email\r\na@b.c\r\n--x--\r\n";
        let f = Posted {
            content_type: "multipart/form-data; boundary=x".into(),
            body: Bytes::from(body),
        }
        .fields()
        .await
        .unwrap();
        assert_eq!(f.csrf_token.as_deref(), Some("t"));
        assert!(f.send_email);
        assert_eq!(f.file_name, "a.csv");
        assert_eq!(f.file.as_deref(), Some(&b"recipient_1_email\r\na@b.c"[..]));
        let f = Posted {
            content_type: "application/x-www-form-urlencoded".into(),
            body: Bytes::from("csrf_token=t&csv=eA&file_name=a.csv"),
        }
        .fields()
        .await
        .unwrap();
        assert!(!f.send_email);
        assert_eq!(f.csv.as_deref(), Some("eA"));
        assert_eq!(f.file_name, "a.csv");
    }
}
