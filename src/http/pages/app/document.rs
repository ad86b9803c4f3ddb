//! `GET /documents/{id}`: one of the owner's documents: its status, recipients (with their
//! signing links, reminders and e-mail corrections) and the fields each fills in, the timeline
//! from the audit log, the downloads and the pages: the sealed ones once completed, else the
//! upload's with the fields drawn over them in each recipient's colour (the editor's drawing,
//! `assets/js/editor/canvas.js`). The page's actions call the API (`assets/js/document.js`).
//!
//! `GET /documents/{id}/download/original.pdf` and `.../signed.pdf`: the files, with the session
//! cookie alone (a link sends no header), through the API's download use case (audited); only
//! from our own pages, a bookmark or a typed address (`cross_site`).

use askama::Template;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::nav::{Nav, Section};
use super::timeline::{self, Moment};
use super::workspace::{Place, place};
use crate::core::error::AppError;
use crate::core::ids::{DocumentId, RecipientId};
use crate::http::reply::{self, page, redirect};
use crate::http::server::state::AppState;
use crate::http::session::{SignedIn, optional, urlencode};
use crate::identity::principal::Principal;
use crate::signing::documents::recipients::{ReadStatus, Role, SigningStatus};
use crate::signing::documents::view::FieldView;
use crate::signing::documents::{RecipientView, Status, manage, preview};
use crate::signing::workflow::{flow::Origin, sending};

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let show = place()
        .and(warp::path!("documents" / DocumentId))
        .and(warp::get())
        .and(optional(&state))
        .and(crate::http::with_state(state.clone()))
        .then(show)
        .map(reply::answer);
    let download = place()
        .and(warp::path!("documents" / DocumentId / "download" / String))
        .and(warp::get())
        // The download is audited (DOWNLOADED): never on another site's say-so.
        .and(crate::http::cross_site::from_our_pages(&state))
        .and(optional(&state))
        .and(crate::http::origin())
        .and(crate::http::with_state(state))
        .then(file)
        .map(reply::answer);
    show.or(download).unify().boxed()
}

/// `GET /documents/{id}`: the page, for its signed-in owner.
async fn show(
    at: Place,
    id: DocumentId,
    who: Option<SignedIn>,
    state: AppState,
) -> Result<Response, AppError> {
    let Some((session, user)) = who else {
        return Ok(sign_in_first(&at.link(&format!("/documents/{id}"))));
    };
    Ok(page(document_page(&state, &at, &session, &user, id).await))
}

/// `GET /documents/{id}/download/{file}`: the file, for its signed-in owner.
async fn file(
    at: Place,
    id: DocumentId,
    file: String,
    who: Option<SignedIn>,
    origin: Origin,
    state: AppState,
) -> Result<Response, AppError> {
    let Some((_, user)) = who else {
        return Ok(sign_in_first(&at.link(&format!("/documents/{id}"))));
    };
    download(&state, at.principal(&user), id, &file, origin).await
}

/// The sign-in form, then `back`.
pub(super) fn sign_in_first(back: &str) -> Response {
    redirect(&format!("/auth/login?next={}", urlencode(back)))
}

/// The file `file` (`original.pdf` or `signed.pdf`) of the user's document.
async fn download(
    state: &AppState,
    who: Principal,
    id: DocumentId,
    file: &str,
    origin: Origin,
) -> Result<Response, AppError> {
    let original = match file {
        "original.pdf" => true,
        "signed.pdf" => false,
        "audit-log.csv" => return audit_csv(state, &who, id).await,
        _ => return Err(AppError::not_found("file")),
    };
    let d = sending::download(&state.ctx(), &who, id, original, origin).await?;
    crate::http::api::sending::file_response(state, &d.blob, &d.name).await
}

/// The document's whole audit trail as a CSV attachment.
async fn audit_csv(
    state: &AppState,
    who: &Principal,
    id: DocumentId,
) -> Result<Response, AppError> {
    let ctx = state.ctx();
    let per_page = sending::AUDIT_PAGE_MAX;
    let (mut events, pages) = sending::audit_log(&ctx, who, id, (1, per_page)).await?;
    for page in 2..=pages {
        events.extend(sending::audit_log(&ctx, who, id, (page, per_page)).await?.0);
    }
    let title = manage::get(&ctx, who, id).await?.title;
    let pdf = crate::signing::documents::file_name(&title, false);
    let name = format!("{}-audit-log.csv", pdf.strip_suffix(".pdf").unwrap_or(&pdf));
    let mut resp = Response::new(timeline::csv(&events).into());
    let h = resp.headers_mut();
    h.insert(
        "content-type",
        warp::http::HeaderValue::from_static("text/csv; charset=utf-8"),
    );
    if let Ok(v) = format!("attachment; filename=\"{name}\"").parse() {
        h.insert("content-disposition", v);
    }
    Ok(resp)
}

/// A recipient as the document page shows them.
struct RecipientRow {
    id: RecipientId,
    name: String,
    email: String,
    role: &'static str,
    /// "Opened" (at `read_at`) or "Not opened yet".
    read: &'static str,
    read_at: Option<timeline::Stamp>,
    read_done: bool,
    /// "Signed" (at `signing_at`), "Rejected", "Not signed yet" (in the role's own words).
    signing: String,
    signing_at: Option<timeline::Stamp>,
    signing_tone: &'static str,
    /// The signing link, while the document waits for this recipient.
    link: Option<String>,
    /// A reminder and an e-mail correction make sense (pending document, not finished).
    waiting: bool,
    /// What they are asked to fill in, in page order.
    fields: Vec<FieldLine>,
    /// Their deadline, while they have not finished: when, and whether it has passed.
    deadline: Option<(timeline::Stamp, bool)>,
    /// When their next automatic reminder goes.
    next_reminder: Option<timeline::Stamp>,
}

/// One of a recipient's fields as the document page lists it: "Signature on page 1", filled
/// or not.
struct FieldLine {
    what: &'static str,
    page: i64,
    filled: bool,
}

#[derive(Template)]
#[template(path = "app/document.html")]
struct DocumentPage {
    nav: Nav,
    id: DocumentId,
    title: String,
    status: &'static str,
    status_tone: &'static str,
    /// What the status means, in a sentence.
    status_text: String,
    draft: bool,
    pending: bool,
    completed: bool,
    /// The removal the document allows: delete a draft, cancel a pending document or hide
    /// one that ended.
    removal: Removal,
    recipients: Vec<RecipientRow>,
    /// Automatic reminders are scheduled: the page offers to stop them.
    reminding: bool,
    timeline: Vec<Moment>,
    timeline_cut: bool,
    pages: Vec<usize>,
    /// Each page's `width x height` in points, space separated, for the fields drawn over them.
    page_sizes: String,
    /// The folder it is in, and where it may go.
    folder: super::folders::Pick,
    /// The link attachments recipients see (changed here while the document is pending).
    attachments: super::attachments::Section,
}

impl DocumentPage {
    /// Where its page images are: `/documents/{id}` in the page's workspace.
    fn pages_base(&self) -> String {
        self.nav.link(&format!("/documents/{}", self.id))
    }
}

async fn document_page(
    state: &AppState,
    at: &Place,
    session: &str,
    user: &crate::identity::users::User,
    id: DocumentId,
) -> Result<DocumentPage, AppError> {
    let ctx = state.ctx();
    let who = at.principal(user);
    let doc = manage::get(&ctx, &who, id).await?;
    let (mut events, pages) =
        sending::audit_log(&ctx, &who, id, (1, sending::AUDIT_PAGE_MAX)).await?;
    if pages > 1 {
        // The newest events: the last two pages.
        let (before, _) =
            sending::audit_log(&ctx, &who, id, (pages - 1, sending::AUDIT_PAGE_MAX)).await?;
        let (last, _) =
            sending::audit_log(&ctx, &who, id, (pages, sending::AUDIT_PAGE_MAX)).await?;
        events = before.into_iter().chain(last).collect();
    }
    let sizes = preview::page_sizes(&ctx, &who, id).await?;
    let reminders = sending::next_reminders(&ctx, &who, id).await?;
    let timeline = timeline::of(&events, &user.email, &doc.recipients);
    let pending = doc.status == Status::Pending;
    let recipients = doc
        .recipients
        .iter()
        .map(|r| {
            let mut row = recipient_row(r, &events, pending, &doc.fields);
            row.next_reminder = reminders
                .iter()
                .find(|(id, _)| *id == r.id)
                .filter(|_| row.waiting && !r.expired)
                .map(|(_, at)| timeline::Stamp::at(*at));
            row
        })
        .collect::<Vec<RecipientRow>>();
    let reminding = recipients.iter().any(|r| r.next_reminder.is_some());
    let (status, status_tone, status_text) = status_words(doc.status);
    let folder = super::folders::Pick {
        action: at.link(&format!("/documents/{id}/folder")),
        current: doc.folder_id.clone(),
        choices: crate::signing::folders::choices(
            &ctx,
            &who,
            crate::signing::folders::Kind::Document,
        )
        .await?,
    };
    let attachments = super::attachments::Section::load(
        &ctx,
        &who,
        at,
        crate::signing::attachments::Parent::Document(id),
        super::attachments::editable(doc.status),
        super::attachments::Back::Page,
    )
    .await?;
    Ok(DocumentPage {
        nav: Nav::of(state, session, user, Section::Documents, at).await?,
        id,
        title: doc.title,
        status,
        status_tone,
        status_text: status_text.into(),
        draft: doc.status == Status::Draft,
        pending,
        completed: doc.status == Status::Completed,
        removal: removal(doc.status),
        recipients,
        reminding,
        timeline,
        timeline_cut: pages > 2,
        pages: (1..=sizes.len()).collect(),
        page_sizes: super::editor::sizes_attr(&sizes),
        folder,
        attachments,
    })
}

fn status_words(s: Status) -> (&'static str, &'static str, &'static str) {
    match s {
        Status::Draft => (
            "Draft",
            "",
            "Not sent yet: add recipients and fields, then send it.",
        ),
        Status::Pending => (
            "Waiting for signatures",
            "warn",
            "Sent: waiting for the recipients.",
        ),
        Status::Completed => (
            "Completed",
            "ok",
            "Everyone has finished; the signed PDF is ready.",
        ),
        Status::Rejected => ("Rejected", "bad", "A recipient rejected the document."),
        Status::Cancelled => (
            "Cancelled",
            "bad",
            "You cancelled the document; its links no longer work.",
        ),
    }
}

/// The removal a document's state allows, as the page's last section (its "danger" area) and
/// its confirmation word it.
struct Removal {
    /// The button, in the area and in the dialog.
    button: &'static str,
    /// The area's heading.
    heading: &'static str,
    /// The dialog's question.
    question: &'static str,
    /// What happens.
    effect: &'static str,
}

fn removal(s: Status) -> Removal {
    match s {
        Status::Draft => Removal {
            button: "Delete draft",
            heading: "Delete this draft",
            question: "Delete this draft?",
            effect: "The draft and its PDF are deleted for good.",
        },
        Status::Pending => Removal {
            button: "Cancel document",
            heading: "Cancel this document",
            question: "Cancel this document?",
            effect: "Nobody can sign it any more: every signing link stops working. The document stays in your list as cancelled.",
        },
        _ => Removal {
            button: "Hide document",
            heading: "Hide this document",
            question: "Hide this document?",
            effect: "It disappears from your document list. Its audit log and files are kept.",
        },
    }
}

pub fn role_name(r: Role) -> &'static str {
    match r {
        Role::Signer => "Signer",
        Role::Approver => "Approver",
        Role::Viewer => "Viewer",
        Role::Cc => "Receives a copy",
        Role::Assistant => "Assistant",
    }
}

/// When recipient `id` first opened the document, from the audit log.
fn opened_at(
    events: &[crate::signing::documents::audit::AuditEvent],
    id: RecipientId,
) -> Option<&str> {
    use crate::signing::documents::audit::Event;
    events
        .iter()
        .find(|e| e.kind == Event::Opened && e.recipient_id == Some(id))
        .map(|e| e.created_at.as_str())
}

fn recipient_row(
    r: &RecipientView,
    events: &[crate::signing::documents::audit::AuditEvent],
    pending: bool,
    fields: &[FieldView],
) -> RecipientRow {
    let (read, read_at) = match r.read_status {
        ReadStatus::Opened => ("Opened", opened_at(events, r.id).map(timeline::stamp)),
        ReadStatus::NotOpened => ("Not opened yet", None),
    };
    let finished = match r.role {
        Role::Approver => "Approved",
        Role::Viewer => "Viewed",
        Role::Assistant => "Prepared",
        Role::Signer | Role::Cc => "Signed",
    };
    let (signing, signing_at, signing_tone) = match r.signing_status {
        SigningStatus::Signed => (
            finished.to_string(),
            r.signed_at.as_deref().map(timeline::stamp),
            "ok",
        ),
        SigningStatus::Rejected => ("Rejected".to_string(), None, "bad"),
        SigningStatus::NotSigned => (format!("Not {} yet", finished.to_lowercase()), None, ""),
    };
    let waiting = pending && r.signing_status == SigningStatus::NotSigned;
    RecipientRow {
        id: r.id,
        name: timeline::display(&r.name, &r.email),
        email: r.email.clone(),
        role: role_name(r.role),
        read_done: r.read_status == ReadStatus::Opened,
        read,
        read_at,
        signing,
        signing_at,
        signing_tone,
        link: r.signing_url.clone().filter(|_| waiting),
        waiting,
        fields: fields_of(fields, r.id),
        deadline: r
            .expires_at
            .as_deref()
            .filter(|_| r.signing_status == SigningStatus::NotSigned)
            .map(|at| (timeline::stamp(at), r.expired)),
        next_reminder: None,
    }
}

/// Recipient `id`'s fields, by page and then from the top.
fn fields_of(fields: &[FieldView], id: RecipientId) -> Vec<FieldLine> {
    let mut mine: Vec<&FieldView> = fields.iter().filter(|f| f.recipient_id == id).collect();
    mine.sort_by(|a, b| {
        (a.page_number, a.page_y, a.page_x)
            .partial_cmp(&(b.page_number, b.page_y, b.page_x))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    mine.into_iter()
        .map(|f| FieldLine {
            what: super::editor_form::field_label(f.kind),
            page: f.page_number,
            filled: f.inserted,
        })
        .collect()
}
