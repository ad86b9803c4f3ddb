//! The link attachments of a document or template in the web application: the section the
//! editor's Settings step and the document page show (`Section`, `app/attachments_section.html`:
//! each link with its host, edit and remove, and a form to add one), its forms, and
//! `GET [/t/{slug}]/documents/{id}/attachments` (`/templates/{id}/attachments`), the section
//! on a page of its own, where a refused form comes back with what to change.
//!
//! `POST .../attachments` adds, `POST .../attachments/{aid}` changes, `POST
//! .../attachments/{aid}/delete` removes, through `signing::attachments`' use cases; each goes
//! back to where its form was (the form's `back`: the editor, the document page, or this page).

use askama::Template;
use http::StatusCode;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::nav::{Nav, Section as NavSection};
use super::settings::Problems;
use super::workspace::{Place, place};
use crate::core::context::Context;
use crate::core::error::AppError;
use crate::core::ids::{DocumentId, TemplateId};
use crate::http::reply::{self, page_as, redirect};
use crate::http::server::state::AppState;
use crate::http::session::{APP, SignedIn, form_csrf, signed_in};
use crate::identity::principal::Principal;
use crate::signing::attachments::{self, AttachmentId, MAX_PER_PARENT, NewAttachment, Parent};
use crate::signing::documents::Status;

const BACK: &str = "/";

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = {
        let state = state.clone();
        move || crate::http::with_state(state.clone())
    };
    let show = place()
        .and(
            warp::path!("documents" / DocumentId / "attachments")
                .map(Parent::Document)
                .or(warp::path!("templates" / TemplateId / "attachments").map(Parent::Template))
                .unify(),
        )
        .and(warp::get())
        .and(s())
        .and(signed_in(&state, BACK))
        .then(show)
        .map(reply::answer);
    let add = place()
        .and(
            warp::path!("documents" / DocumentId / "attachments")
                .map(Parent::Document)
                .or(warp::path!("templates" / TemplateId / "attachments").map(Parent::Template))
                .unify(),
        )
        .and(warp::post())
        .and(s())
        .and(form_csrf(&state, APP, BACK))
        .then(add)
        .map(reply::answer);
    let change = place()
        .and(
            warp::path!("documents" / DocumentId / "attachments" / AttachmentId)
                .map(|d, a| (Parent::Document(d), a))
                .or(
                    warp::path!("templates" / TemplateId / "attachments" / AttachmentId)
                        .map(|t, a| (Parent::Template(t), a)),
                )
                .unify(),
        )
        .and(warp::post())
        .and(s())
        .and(form_csrf(&state, APP, BACK))
        .then(change)
        .map(reply::answer);
    let remove = place()
        .and(
            warp::path!("documents" / DocumentId / "attachments" / AttachmentId / "delete")
                .map(|d, a| (Parent::Document(d), a))
                .or(
                    warp::path!("templates" / TemplateId / "attachments" / AttachmentId / "delete")
                        .map(|t, a| (Parent::Template(t), a)),
                )
                .unify(),
        )
        .and(warp::post())
        .and(s())
        .and(form_csrf(&state, APP, BACK))
        .then(remove)
        .map(reply::answer);
    show.or(add)
        .unify()
        .or(change)
        .unify()
        .or(remove)
        .unify()
        .boxed()
}

/// Where a form goes back to once it is done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Back {
    /// The editor's Settings step.
    Editor,
    /// The document's page.
    Page,
    /// The attachments' own page.
    Own,
}

impl Back {
    /// The form's `back`: the attachments' own page for none or another value.
    fn parse(s: &str) -> Back {
        match s {
            "editor" => Back::Editor,
            "page" => Back::Page,
            _ => Back::Own,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Back::Editor => "editor",
            Back::Page => "page",
            Back::Own => "own",
        }
    }

    /// The path (in the page's workspace) to go to after a form of `parent` succeeded.
    fn path(self, parent: Parent) -> String {
        let base = base_of(parent);
        match self {
            Back::Editor => format!("{base}/edit?step=settings#attachments"),
            Back::Page => format!("{base}#attachments"),
            Back::Own => format!("{base}/attachments"),
        }
    }
}

/// `/documents/{id}` or `/templates/{id}`.
fn base_of(parent: Parent) -> String {
    format!("/{}s/{}", parent.noun(), parent.id())
}

/// A form as typed.
#[derive(Debug, Clone, Default, serde::Deserialize)]
struct Typed {
    #[serde(default)]
    label: String,
    #[serde(default)]
    url: String,
    #[serde(default)]
    back: String,
}

/// One link as the section lists it.
#[derive(Debug, Clone)]
pub struct Item {
    pub id: String,
    pub label: String,
    pub url: String,
    pub host: String,
    /// The values in its edit form (as typed, after a refusal).
    pub typed_label: String,
    pub typed_url: String,
    /// Its edit form was refused: open, with these problems.
    pub problems: Option<Problems>,
}

impl Item {
    /// Its edit form's message for field `name`, or "".
    pub fn error(&self, name: &str) -> String {
        self.problems
            .as_ref()
            .map(|p| p.at(name))
            .unwrap_or_default()
    }
}

/// The attachments section of a page.
#[derive(Debug, Clone)]
pub struct Section {
    /// `[/t/{slug}]/documents/{id}/attachments`: where its forms post.
    pub action: String,
    /// Where the forms go back to.
    pub back: Back,
    /// "document" or "template".
    pub noun: &'static str,
    pub items: Vec<Item>,
    /// Links may be added, changed and removed (a template's; a document's while it is a
    /// draft or pending).
    pub editable: bool,
    /// The add form: as typed, with its problems after a refusal.
    pub typed_label: String,
    pub typed_url: String,
    pub problems: Problems,
    pub max: usize,
}

impl Section {
    /// The section of `parent` as it is, for a page of the workspace `at`.
    pub async fn load(
        ctx: &Context,
        who: &Principal,
        at: &Place,
        parent: Parent,
        editable: bool,
        back: Back,
    ) -> Result<Section, AppError> {
        let items = attachments::list(ctx, who, parent)
            .await?
            .into_iter()
            .map(|a| Item {
                id: a.id.to_string(),
                host: a.host(),
                typed_label: a.label.clone(),
                typed_url: a.url.clone(),
                label: a.label,
                url: a.url,
                problems: None,
            })
            .collect();
        Ok(Section {
            action: at.link(&format!("{}/attachments", base_of(parent))),
            back,
            noun: parent.noun(),
            items,
            editable,
            typed_label: String::new(),
            typed_url: String::new(),
            problems: Problems::default(),
            max: MAX_PER_PARENT,
        })
    }

    /// Another may be added.
    pub fn room(&self) -> bool {
        self.items.len() < self.max
    }
}

/// Whether a document of `status` lets its links change (`signing::attachments::manage`).
pub fn editable(status: Status) -> bool {
    matches!(status, Status::Draft | Status::Pending)
}

#[derive(Template)]
#[template(path = "app/attachments.html")]
struct AttachmentsPage {
    nav: Nav,
    title: String,
    /// Where "back" leads: the editor, or the document's or template's page.
    back_link: String,
    back_label: &'static str,
    attachments: Section,
}

/// `GET .../attachments`.
async fn show(
    at: Place,
    parent: Parent,
    state: AppState,
    who: SignedIn,
) -> Result<Response, AppError> {
    render(&state, &at, parent, who, StatusCode::OK, |_| {}).await
}

/// The page, its section changed by `adjust` (a refusal's problems and typed values).
async fn render(
    state: &AppState,
    at: &Place,
    parent: Parent,
    (session, user): SignedIn,
    status: StatusCode,
    adjust: impl FnOnce(&mut Section),
) -> Result<Response, AppError> {
    let ctx = state.ctx();
    let who = at.principal(&user);
    let (title, editable_now, section, draft) = match parent {
        Parent::Document(id) => {
            let doc = crate::signing::documents::manage::get(&ctx, &who, id).await?;
            let draft = doc.status == Status::Draft;
            (
                doc.title,
                editable(doc.status),
                NavSection::Documents,
                draft,
            )
        }
        Parent::Template(id) => {
            let t = crate::signing::templates::manage::read(&ctx, &who, id).await?;
            (t.title, true, NavSection::Templates, true)
        }
    };
    let mut attachments = Section::load(&ctx, &who, at, parent, editable_now, Back::Own).await?;
    adjust(&mut attachments);
    let (back_link, back_label) = if draft {
        (at.link(&Back::Editor.path(parent)), "Back to the editor")
    } else {
        (at.link(&base_of(parent)), "Back to the document")
    };
    let page = AttachmentsPage {
        nav: Nav::of(state, &session, &user, section, at).await?,
        title,
        back_link,
        back_label,
        attachments,
    };
    Ok(page_as(status, Ok(page)))
}

/// A form's outcome: back where it came from, or this page with what to change (a 400) or
/// why nothing may change (a 409). Anything else is the error page.
async fn answer(
    state: &AppState,
    at: &Place,
    parent: Parent,
    who: SignedIn,
    back: Back,
    done: Result<(), AppError>,
    adjust: impl FnOnce(&mut Section, Problems),
) -> Result<Response, AppError> {
    match done {
        Ok(()) => Ok(redirect(&at.link(&back.path(parent)))),
        Err(e) if matches!(e.status(), StatusCode::BAD_REQUEST | StatusCode::CONFLICT) => {
            let problems = Problems::of(&e);
            render(state, at, parent, who, e.status(), |s| adjust(s, problems)).await
        }
        Err(e) => Err(e),
    }
}

/// `POST .../attachments`: a new link.
async fn add(
    at: Place,
    parent: Parent,
    state: AppState,
    who: SignedIn,
    typed: Typed,
) -> Result<Response, AppError> {
    let principal = at.principal(&who.1);
    let done = match NewAttachment::parse(&typed.label, &typed.url) {
        Ok(new) => attachments::create(&state.ctx(), &principal, parent, new)
            .await
            .map(|_| ()),
        Err(e) => Err(e),
    };
    let back = Back::parse(&typed.back);
    let Typed { label, url, .. } = typed;
    answer(&state, &at, parent, who, back, done, |s, problems| {
        s.typed_label = label;
        s.typed_url = url;
        s.problems = problems;
    })
    .await
}

/// `POST .../attachments/{aid}`: a link's new label and address.
async fn change(
    at: Place,
    (parent, id): (Parent, AttachmentId),
    state: AppState,
    who: SignedIn,
    typed: Typed,
) -> Result<Response, AppError> {
    let principal = at.principal(&who.1);
    let ctx = state.ctx();
    within(&ctx, &principal, parent, &id).await?;
    let done = match NewAttachment::parse(&typed.label, &typed.url) {
        Ok(new) => attachments::update(&ctx, &principal, &id, new).await,
        Err(e) => Err(e),
    };
    let back = Back::parse(&typed.back);
    let Typed { label, url, .. } = typed;
    answer(&state, &at, parent, who, back, done, |s, problems| match s
        .items
        .iter_mut()
        .find(|i| i.id == id.as_str())
    {
        Some(item) => {
            item.typed_label = label;
            item.typed_url = url;
            item.problems = Some(problems);
        }
        None => s.problems = problems,
    })
    .await
}

/// `POST .../attachments/{aid}/delete`.
async fn remove(
    at: Place,
    (parent, id): (Parent, AttachmentId),
    state: AppState,
    who: SignedIn,
    typed: Typed,
) -> Result<Response, AppError> {
    let principal = at.principal(&who.1);
    let ctx = state.ctx();
    within(&ctx, &principal, parent, &id).await?;
    let done = attachments::delete(&ctx, &principal, &id).await;
    let back = Back::parse(&typed.back);
    answer(&state, &at, parent, who, back, done, |s, problems| {
        s.problems = problems
    })
    .await
}

/// A 404 unless attachment `id` is one of `parent`'s (the path names both).
async fn within(
    ctx: &Context,
    who: &Principal,
    parent: Parent,
    id: &AttachmentId,
) -> Result<(), AppError> {
    let listed = attachments::list(ctx, who, parent).await?;
    match listed.iter().any(|a| &a.id == id) {
        true => Ok(()),
        false => Err(AppError::not_found("attachment")),
    }
}
