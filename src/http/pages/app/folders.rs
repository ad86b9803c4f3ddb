//! The folders of the web application (`signing::folders`): the bar above the dashboard's
//! documents and the templates list (the path down to the folder shown, its sub-folders
//! pinned first, the forms that make, rename, pin, move and delete a folder, and a team
//! folder's visibility), and the forms' posts:
//!
//! - `POST [/t/{slug}]/folders`: a new folder (`name`, `kind`, `parent`);
//! - `POST [/t/{slug}]/folders/{id}`: a change (`what`: rename, pin, unpin, move, visibility);
//! - `POST [/t/{slug}]/folders/{id}/delete`: the folder and those under it; what they held
//!   goes back to the root;
//! - `POST [/t/{slug}]/documents/{id}/folder` and `/templates/{id}/folder`: an item into a
//!   folder (`folder`, empty for the root), from the item's page.
//!
//! Each answers with the list it changed (303). Plain forms with the page's CSRF token.

use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::nav::Nav;
use super::workspace::{Place, place};
use crate::core::error::AppError;
use crate::core::ids::{DocumentId, TemplateId};
use crate::core::owner::Visibility;
use crate::http::reply::{self, redirect};
use crate::http::server::state::AppState;
use crate::http::session::{APP, SignedIn, form_csrf, urlencode};
use crate::signing::folders::{self, Choice, FolderPatch, Kind, Level, NewFolder};

const BACK: &str = "/";

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = {
        let state = state.clone();
        move || crate::http::with_state(state.clone())
    };
    let create = place()
        .and(warp::path!("folders"))
        .and(warp::post())
        .and(s())
        .and(form_csrf(&state, APP, BACK))
        .then(create)
        .map(reply::answer);
    let change = place()
        .and(warp::path!("folders" / String))
        .and(warp::post())
        .and(s())
        .and(form_csrf(&state, APP, BACK))
        .then(change)
        .map(reply::answer);
    let delete = place()
        .and(warp::path!("folders" / String / "delete"))
        .and(warp::post())
        .and(s())
        .and(form_csrf(&state, APP, BACK))
        .then(delete)
        .map(reply::answer);
    let document = place()
        .and(warp::path!("documents" / DocumentId / "folder"))
        .and(warp::post())
        .and(s())
        .and(form_csrf(&state, APP, BACK))
        .then(document)
        .map(reply::answer);
    let template = place()
        .and(warp::path!("templates" / TemplateId / "folder"))
        .and(warp::post())
        .and(s())
        .and(form_csrf(&state, APP, BACK))
        .then(template)
        .map(reply::answer);
    create
        .or(change)
        .unify()
        .or(delete)
        .unify()
        .or(document)
        .unify()
        .or(template)
        .unify()
        .boxed()
}

/// The list of `kind` in `at`, at folder `folder` (`None`: the root).
pub fn list_link(at: &Place, kind: Kind, folder: Option<&str>) -> String {
    let list = match kind {
        Kind::Document => at.link("/"),
        Kind::Template => at.link("/templates"),
    };
    match folder {
        Some(id) => format!("{list}?folder={}", urlencode(id)),
        None => list,
    }
}

/// A form's text: `None` when absent or blank.
fn given(s: &Option<String>) -> Option<String> {
    s.as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// The new folder's form.
#[derive(Debug, Clone, Default, serde::Deserialize)]
struct Create {
    #[serde(default)]
    name: String,
    kind: Option<String>,
    parent: Option<String>,
}

async fn create(
    at: Place,
    state: AppState,
    (_, user): SignedIn,
    form: Create,
) -> Result<Response, AppError> {
    let kind = match form.kind.as_deref() {
        None | Some("") => Kind::Document,
        Some(k) => Kind::parse(k).ok_or_else(|| AppError::bad_request("no such kind of folder"))?,
    };
    let parent = given(&form.parent);
    let new = NewFolder {
        name: form.name,
        parent_id: parent.clone(),
        kind: Some(kind),
    };
    let made = folders::create(&state.ctx(), &at.principal(&user), new).await?;
    Ok(redirect(&list_link(&at, made.kind, parent.as_deref())))
}

/// A change's form: what changes, and its value.
#[derive(Debug, Clone, Default, serde::Deserialize)]
struct Change {
    #[serde(default)]
    what: String,
    name: Option<String>,
    parent: Option<String>,
    visibility: Option<String>,
}

async fn change(
    at: Place,
    id: String,
    state: AppState,
    (_, user): SignedIn,
    form: Change,
) -> Result<Response, AppError> {
    let mut patch = FolderPatch::default();
    match form.what.as_str() {
        "rename" => patch.name = Some(form.name.unwrap_or_default()),
        "pin" => patch.pinned = Some(true),
        "unpin" => patch.pinned = Some(false),
        "move" => patch.parent_id = Some(given(&form.parent)),
        "visibility" => {
            let v = form.visibility.as_deref().and_then(Visibility::parse);
            patch.visibility = Some(v.ok_or_else(|| AppError::bad_request("no such visibility"))?);
        }
        _ => return Err(AppError::bad_request("no such change of a folder")),
    }
    let f = folders::update(&state.ctx(), &at.principal(&user), &id, patch).await?;
    Ok(redirect(&list_link(&at, f.kind, Some(&f.id))))
}

async fn delete(
    at: Place,
    id: String,
    state: AppState,
    (_, user): SignedIn,
    _form: Change,
) -> Result<Response, AppError> {
    let gone = folders::delete(&state.ctx(), &at.principal(&user), &id).await?;
    let f = gone.folder;
    Ok(redirect(&list_link(&at, f.kind, f.parent_id.as_deref())))
}

/// An item's form: the folder chosen (empty: the root).
#[derive(Debug, Clone, Default, serde::Deserialize)]
struct Into {
    folder: Option<String>,
}

async fn document(
    at: Place,
    id: DocumentId,
    state: AppState,
    (_, user): SignedIn,
    form: Into,
) -> Result<Response, AppError> {
    let folder = given(&form.folder);
    folders::move_document(&state.ctx(), &at.principal(&user), id, folder).await?;
    Ok(redirect(&at.link(&format!("/documents/{id}"))))
}

async fn template(
    at: Place,
    id: TemplateId,
    state: AppState,
    (_, user): SignedIn,
    form: Into,
) -> Result<Response, AppError> {
    let folder = given(&form.folder);
    folders::move_template(&state.ctx(), &at.principal(&user), id, folder).await?;
    Ok(redirect(&at.link(&format!("/templates/{id}"))))
}

/// The folder bar of a list page (`pages/app/folder_parts.html`).
pub struct Bar {
    pub kind: Kind,
    /// The form's `kind` value.
    pub kind_value: &'static str,
    /// Where the forms post: `/folders` in the page's workspace.
    pub action: String,
    /// The list at the root.
    pub root: String,
    /// The folders from the root down to the one shown (the last), as links.
    pub path: Vec<Crumb>,
    /// The folder shown, for its forms; `None` at the root.
    pub current: Option<Current>,
    /// Its sub-folders, pinned first.
    pub children: Vec<Crumb>,
    /// Where the folder shown may move: the root ("") and every folder not under it.
    pub parents: Vec<Choice>,
    /// The visibilities the caller may give (empty on personal pages).
    pub visibilities: Vec<(&'static str, &'static str)>,
    /// Whether the caller may delete the folder shown.
    pub may_delete: bool,
}

/// A folder as a link.
pub struct Crumb {
    pub name: String,
    pub href: String,
    pub pinned: bool,
    /// Who in the team sees it, in words, when not everyone.
    pub seen_by: Option<&'static str>,
}

/// The folder shown.
pub struct Current {
    pub id: String,
    pub name: String,
    pub pinned: bool,
    pub visibility: &'static str,
    /// The folder it is in ("" at the root).
    pub parent: String,
}

fn seen_by(v: Visibility) -> Option<&'static str> {
    match v {
        Visibility::Everyone => None,
        Visibility::ManagerAndAbove => Some("managers and admins"),
        Visibility::Admin => Some("admins"),
    }
}

fn visibility_words(v: Visibility) -> &'static str {
    match v {
        Visibility::Everyone => "Everyone in the team",
        Visibility::ManagerAndAbove => "Managers and admins",
        Visibility::Admin => "Admins only",
    }
}

impl Bar {
    /// The bar of `level` of `kind` on a page with `nav`, every folder of the kind in `all`.
    pub fn of(nav: &Nav, kind: Kind, level: Level, all: &[folders::Folder]) -> Bar {
        let crumb = |f: &folders::Folder| Crumb {
            name: f.name.clone(),
            href: list_link(&nav.place, kind, Some(&f.id)),
            pinned: f.pinned,
            seen_by: if nav.role.is_some() {
                seen_by(f.visibility)
            } else {
                None
            },
        };
        let current = level.folder.as_ref().map(|f| Current {
            id: f.id.clone(),
            name: f.name.clone(),
            pinned: f.pinned,
            visibility: f.visibility.as_str(),
            parent: f.parent_id.clone().unwrap_or_default(),
        });
        let parents = match &level.folder {
            Some(f) => folders::choices_outside(all, &f.id),
            None => Vec::new(),
        };
        let visibilities = match nav.role {
            Some(role) => role
                .seen()
                .into_iter()
                .map(|v| (v.as_str(), visibility_words(v)))
                .collect(),
            None => Vec::new(),
        };
        Bar {
            kind,
            kind_value: kind.as_str(),
            action: nav.link("/folders"),
            root: list_link(&nav.place, kind, None),
            path: level.path.iter().map(crumb).collect(),
            current,
            children: level.children.iter().map(crumb).collect(),
            parents,
            visibilities,
            may_delete: nav.role.is_none_or(|r| r.may_delete()),
        }
    }

    /// What the kind's items are called, for the page's words.
    pub fn items(&self) -> &'static str {
        self.kind.items()
    }

    pub fn is_parent(&self, id: &str) -> bool {
        self.current.as_ref().is_some_and(|c| c.parent == id)
    }
}

/// The "Folder" section of a document's or template's page: the folder it is in and the
/// folders of its kind.
pub struct Pick {
    pub action: String,
    pub current: Option<String>,
    pub choices: Vec<Choice>,
}

impl Pick {
    pub fn is_current(&self, id: &str) -> bool {
        self.current.as_deref() == Some(id)
    }

    /// The label of the folder it is in, if any.
    pub fn where_now(&self) -> Option<&str> {
        let id = self.current.as_deref()?;
        self.choices
            .iter()
            .find(|c| c.id == id)
            .map(|c| c.label.as_str())
    }
}
