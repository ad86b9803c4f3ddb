//! `GET /documents/{id}/edit?step=settings|recipients|fields|review`: the editor of a DRAFT
//! document, one server-rendered shell per step; the step's script (`assets/js/editor/`) calls
//! `/api/v1` with the session. Another status goes to the document page; another user's
//! document is the 404 page. What is the document's own (its API path, its pages) is gathered
//! in `Subject`: `GET /templates/{id}/edit` is the same editor over a template (its recipients
//! may be placeholders, and its last step saves instead of sending).

use askama::Template;
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::editor_form::{FieldKind, SettingsForm};
use super::nav::{Nav, Section};
use super::workspace::{Place, place};
use crate::core::error::AppError;
use crate::core::ids::{DocumentId, TemplateId};
use crate::http::reply::{self, page, redirect};
use crate::http::server::state::AppState;
use crate::http::session::{SignedIn, optional, urlencode};
use crate::signing::attachments::Parent;
use crate::signing::documents::{DocumentView, Status, manage, preview};
use crate::signing::templates;

/// What the editor edits.
#[derive(Debug, Clone, Copy)]
enum Edited {
    Document(DocumentId),
    Template(TemplateId),
}

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let documents = warp::path!("documents" / DocumentId / "edit").map(Edited::Document);
    let templates = warp::path!("templates" / TemplateId / "edit").map(Edited::Template);
    place()
        .and(documents.or(templates).unify())
        .and(warp::get())
        .and(crate::http::body::query::<StepQuery>())
        .and(optional(&state))
        .and(crate::http::with_state(state))
        .then(editor)
        .map(reply::answer)
        .boxed()
}

/// `?step=`: which step of the editor to show.
#[derive(serde::Deserialize)]
struct StepQuery {
    step: Option<String>,
}

/// The editor's steps, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Settings,
    Recipients,
    Fields,
    Review,
}

impl Step {
    pub const ALL: [Step; 4] = [Step::Settings, Step::Recipients, Step::Fields, Step::Review];

    /// The step `?step=` names; the first for none or an unknown one.
    pub fn parse(s: Option<&str>) -> Step {
        Self::ALL
            .into_iter()
            .find(|x| Some(x.slug()) == s)
            .unwrap_or(Step::Settings)
    }

    pub fn slug(self) -> &'static str {
        match self {
            Step::Settings => "settings",
            Step::Recipients => "recipients",
            Step::Fields => "fields",
            Step::Review => "review",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Step::Settings => "Settings",
            Step::Recipients => "Recipients",
            Step::Fields => "Fields",
            Step::Review => "Review and send",
        }
    }

    pub fn number(self) -> usize {
        Self::ALL.iter().position(|s| *s == self).unwrap_or(0) + 1
    }

    /// `aria-current="step"` for the current step.
    pub fn current(self, here: &Step) -> &'static str {
        if self == *here { "step" } else { "false" }
    }

    pub fn next(self) -> Option<Step> {
        Self::ALL.get(self.number()).copied()
    }

    pub fn previous(self) -> Option<Step> {
        self.number().checked_sub(2).map(|i| Self::ALL[i])
    }
}

/// What is edited: where its editor, API and page images are. A document here; a template
/// (issue 26) gives its own.
#[derive(Debug, Clone)]
pub struct Subject {
    pub title: String,
    /// `/documents/{id}/edit`: the steps' links add `?step=`.
    pub edit_path: String,
    /// `/api/v1/documents/{id}`: the scripts' calls.
    pub api: String,
    /// `/documents/{id}/pages`: `/{n}.png?w=` follows.
    pub pages: String,
    /// Each page's `width x height` in points, space separated (`612x792 595x842`).
    pub page_sizes: String,
    /// Where Send (or Save template) leads: the document's (template's) page.
    pub done_path: String,
    /// A template: recipients may be placeholders, and the last step saves.
    pub template: bool,
}

impl Subject {
    /// What step `s` is called here.
    pub fn label(&self, s: impl StepRef) -> &'static str {
        match s.step() {
            Step::Review if self.template => "Review and save",
            s => s.label(),
        }
    }
}

/// A step, however many references away (the pages' loops hand out `&&Step`).
pub trait StepRef {
    fn step(&self) -> Step;
}

impl StepRef for Step {
    fn step(&self) -> Step {
        *self
    }
}

impl<T: StepRef + ?Sized> StepRef for &T {
    fn step(&self) -> Step {
        (**self).step()
    }
}

/// `[w, h]` page sizes as `#editor` carries them: `612x792 595x842`.
pub(super) fn sizes_attr(sizes: &[[f64; 2]]) -> String {
    sizes
        .iter()
        .map(|[w, h]| format!("{w}x{h}"))
        .collect::<Vec<_>>()
        .join(" ")
}

#[derive(Template)]
#[template(path = "app/editor.html")]
struct EditorPage {
    nav: Nav,
    subject: Subject,
    step: Step,
    steps: [Step; 4],
    settings: SettingsForm,
    field_kinds: Vec<FieldKind>,
    /// The Settings step's attachments section.
    attachments: Option<super::attachments::Section>,
}

async fn editor(
    at: Place,
    edited: Edited,
    q: StepQuery,
    who: Option<SignedIn>,
    state: AppState,
) -> Result<Response, AppError> {
    let step = Step::parse(q.step.as_deref());
    let base = at.link(&match edited {
        Edited::Document(id) => format!("/documents/{id}"),
        Edited::Template(id) => format!("/templates/{id}"),
    });
    let api = match edited {
        Edited::Document(id) => format!("/api/v1/documents/{id}"),
        Edited::Template(id) => format!("/api/v1/templates/{id}"),
    };
    let here = format!("{base}/edit?step={}", step.slug());
    let Some((session, user)) = who else {
        return Ok(redirect(&format!("/auth/login?next={}", urlencode(&here))));
    };
    let ctx = state.ctx();
    let principal = at.principal(&user);
    let subject = |title: &str, sizes: &[[f64; 2]], template: bool| Subject {
        title: title.to_string(),
        edit_path: format!("{base}/edit"),
        api: api.clone(),
        pages: format!("{base}/pages"),
        page_sizes: sizes_attr(sizes),
        done_path: base.clone(),
        template,
    };
    let teams = {
        let id = user.id;
        state
            .db
            .read(move |c| crate::teams::store::memberships(c, id))
            .await?
    };
    let role = at
        .slug()
        .and_then(|slug| teams.iter().find(|m| m.team.slug == slug))
        .map(|m| m.role);
    let (subject, settings, section) = match edited {
        Edited::Document(id) => {
            let doc: DocumentView = manage::get(&ctx, &principal, id).await?;
            if doc.status != Status::Draft {
                return Ok(redirect(&base));
            }
            let sizes = preview::page_sizes(&ctx, &principal, id).await?;
            let ext = doc.external_id.as_deref();
            let form = SettingsForm::of(&doc.title, ext, &doc.meta, &doc.auth_options)
                .in_team(role, doc.visibility);
            (subject(&doc.title, &sizes, false), form, Section::Documents)
        }
        Edited::Template(id) => {
            let t = templates::manage::read(&ctx, &principal, id).await?;
            let sizes = t.page_sizes.clone().unwrap_or_default();
            let ext = t.external_id.as_deref();
            let form = SettingsForm::of(&t.title, ext, &t.meta, &t.auth_options)
                .in_team(role, t.visibility);
            (subject(&t.title, &sizes, true), form, Section::Templates)
        }
    };
    let attachments = match step {
        Step::Settings => {
            let parent = match edited {
                Edited::Document(id) => Parent::Document(id),
                Edited::Template(id) => Parent::Template(id),
            };
            let back = super::attachments::Back::Editor;
            let s = super::attachments::Section::load(&ctx, &principal, &at, parent, true, back);
            Some(s.await?)
        }
        _ => None,
    };
    Ok(page(Ok(EditorPage {
        nav: Nav::with(&state, &session, &user, section, &at, &teams)?,
        subject,
        step,
        steps: Step::ALL,
        settings,
        field_kinds: FieldKind::all(),
        attachments,
    })))
}
