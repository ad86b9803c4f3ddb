//! Folders: a workspace's documents or templates sorted into a tree (issue 57; the other
//! signing service's folders, as its API v2 shows them). A folder belongs to a workspace by
//! the one ownership rule (`teams::access`): another workspace's folder, or a team folder of a
//! visibility the caller's role does not see, is a 404. It holds documents or templates
//! (`Kind`), and sub-folders of its kind.
//!
//! The rules, each checked inside the transaction that writes (the tree's writes of one
//! workspace take turns: `store::workspace_key`):
//! - a name of 1 to 255 characters, trimmed;
//! - a parent of the same workspace and kind; no folder under itself or a folder inside it;
//! - at most `MAX_DEPTH` levels (400) and `MAX_FOLDERS` folders a workspace (409);
//! - a document goes only into a DOCUMENT folder, a template only into a TEMPLATE one;
//! - deleting a folder deletes the folders under it and puts every document and template they
//!   held back at the root (decision 0128); a team's members do not delete its folders (its
//!   managers and admins do), as for its documents.
//!
//! The use cases are the API v2's (`find`, `create`, `update`, `delete`) and the web
//! application's (`level`, `choices`, `move_document`, `move_template`).

pub mod model;
pub mod store;

use crate::core::context::Context;
use crate::core::db::{Conn, now};
use crate::core::error::{AppError, FieldError};
use crate::core::ids::{DocumentId, TemplateId};
use crate::core::owner::{Owner, Visibility};
use crate::identity::principal::Principal;
use crate::teams::access::{self, Access};

pub use model::{Folder, FolderView, Kind, MAX_DEPTH, MAX_FOLDERS, MAX_NAME};

/// The most folders one page of `find` holds.
pub const MAX_PER_PAGE: i64 = 100;

/// What `find` asks for: a text in the names, the parent (`None`: folders at any depth, as
/// the other service's `GET /folder` without `parentId`), the kind, and the page.
#[derive(Debug, Clone)]
pub struct FolderQuery {
    pub query: Option<String>,
    pub parent: Option<String>,
    pub kind: Option<Kind>,
    pub page: i64,
    pub per_page: i64,
}

impl Default for FolderQuery {
    fn default() -> Self {
        FolderQuery {
            query: None,
            parent: None,
            kind: None,
            page: 1,
            per_page: 10,
        }
    }
}

pub use crate::core::page::Page;

/// A new folder: its name, its parent (`None`: at the root), its kind (`None`: DOCUMENT).
#[derive(Debug, Clone, Default)]
pub struct NewFolder {
    pub name: String,
    pub parent_id: Option<String>,
    pub kind: Option<Kind>,
}

/// A change of a folder: each member given changes, the others stay. `parent_id`:
/// `Some(None)` moves it to the root.
#[derive(Debug, Clone, Default)]
pub struct FolderPatch {
    pub name: Option<String>,
    pub parent_id: Option<Option<String>>,
    pub visibility: Option<Visibility>,
    pub pinned: Option<bool>,
}

/// The page of folders `q` asks for.
pub async fn find(
    ctx: &Context,
    who: &Principal,
    q: FolderQuery,
) -> Result<Page<FolderView>, AppError> {
    if !(1..=MAX_PER_PAGE).contains(&q.per_page) {
        return Err(AppError::validation(vec![FieldError::new(
            "perPage",
            format!("perPage is from 1 to {MAX_PER_PAGE}"),
        )]));
    }
    let page = q.page.max(1);
    let filter = store::Filter {
        name: q
            .query
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty()),
        parent: q.parent,
        kind: q.kind,
    };
    let per_page = q.per_page;
    let caller = who.clone();
    let (items, count) = ctx
        .db
        .read(move |c| {
            let owner = access::owner(c, &caller)?;
            // A parent the caller does not reach is a 404, as every folder of another's.
            if let Some(p) = &filter.parent {
                store::owned(c, &owner, p, "parent folder")?;
            }
            store::find(c, &owner, &filter, per_page, (page - 1) * per_page)
        })
        .await?;
    Ok(Page::of(
        items.iter().map(FolderView::of).collect(),
        count,
        (page, per_page),
    ))
}

/// Folder `id` of the caller's workspace (a 404 for another's).
pub async fn get(ctx: &Context, who: &Principal, id: &str) -> Result<FolderView, AppError> {
    let (caller, id) = (who.clone(), id.to_string());
    ctx.db
        .read(move |c| {
            let owner = access::owner(c, &caller)?;
            Ok(FolderView::of(&store::owned(c, &owner, &id, "folder")?))
        })
        .await
}

/// Makes a folder in the caller's workspace.
pub async fn create(
    ctx: &Context,
    who: &Principal,
    new: NewFolder,
) -> Result<FolderView, AppError> {
    let name = model::checked_name(&new.name, "name")?;
    let caller = who.clone();
    ctx.db
        .write(move |tx| {
            let owner = access::owner(tx, &caller)?;
            let f = create_in(tx, &owner, &name, new.parent_id.as_deref(), new.kind, now())?;
            Ok(FolderView::of(&f))
        })
        .await
}

/// Inside a transaction: the new folder `name` (checked here) of `owner` under `parent`.
pub fn create_in(
    tx: &Conn,
    owner: &Owner,
    name: &str,
    parent: Option<&str>,
    kind: Option<Kind>,
    now: i64,
) -> Result<Folder, AppError> {
    let name = model::checked_name(name, "name")?;
    tx.serialize_on(&store::workspace_key(owner))?;
    let kind = match parent {
        Some(p) => {
            let parent = store::owned(tx, owner, p, "parent folder")?;
            if kind.is_some_and(|k| k != parent.kind) {
                return Err(AppError::validation(vec![FieldError::new(
                    "parentId",
                    format!(
                        "the parent folder holds {}, not {}",
                        parent.kind.items(),
                        kind.map_or("", Kind::items)
                    ),
                )]));
            }
            let (depth, _) = store::depth(tx, p, "")?;
            if depth + 1 > MAX_DEPTH {
                return Err(too_deep());
            }
            parent.kind
        }
        None => kind.unwrap_or(Kind::Document),
    };
    if store::count_in_workspace(tx, owner)? >= MAX_FOLDERS {
        return Err(AppError::Conflict(format!(
            "a workspace holds at most {MAX_FOLDERS} folders; delete some first"
        )));
    }
    let f = Folder {
        id: crate::core::crypto::random_base62(model::ID_LEN),
        user_id: owner.user(),
        team_id: owner.team(),
        parent_id: parent.map(str::to_string),
        kind,
        name,
        visibility: Visibility::Everyone,
        pinned: false,
        created_at: now,
        updated_at: now,
    };
    store::insert(tx, &f)?;
    Ok(f)
}

fn too_deep() -> AppError {
    AppError::validation(vec![FieldError::new(
        "parentId",
        format!("folders go at most {MAX_DEPTH} levels deep"),
    )])
}

/// Changes folder `id` of the caller's workspace.
pub async fn update(
    ctx: &Context,
    who: &Principal,
    id: &str,
    patch: FolderPatch,
) -> Result<FolderView, AppError> {
    let name = patch
        .name
        .as_deref()
        .map(|n| model::checked_name(n, "name"))
        .transpose()?;
    let (caller, id) = (who.clone(), id.to_string());
    ctx.db
        .write(move |tx| {
            let access = access::resolve(tx, &caller)?;
            let f = update_in(tx, &access, &id, FolderPatch { name, ..patch }, now())?;
            Ok(FolderView::of(&f))
        })
        .await
}

/// Inside a transaction: `patch` applied to folder `id`.
pub fn update_in(
    tx: &Conn,
    access: &Access,
    id: &str,
    patch: FolderPatch,
    now: i64,
) -> Result<Folder, AppError> {
    let owner = access.owner();
    tx.serialize_on(&store::workspace_key(&owner))?;
    let mut f = store::owned(tx, &owner, id, "folder")?;
    if let Some(v) = patch.visibility {
        access.may_give(v, "folders")?;
        f.visibility = v;
    }
    if let Some(parent) = patch.parent_id {
        if let Some(p) = &parent {
            let target = store::owned(tx, &owner, p, "parent folder")?;
            if target.kind != f.kind {
                return Err(AppError::validation(vec![FieldError::new(
                    "parentId",
                    format!(
                        "the parent folder holds {}, this folder {}",
                        target.kind.items(),
                        f.kind.items()
                    ),
                )]));
            }
            let (depth, inside) = store::depth(tx, p, &f.id)?;
            if inside {
                return Err(AppError::validation(vec![FieldError::new(
                    "parentId",
                    "a folder cannot move into itself or a folder inside it",
                )]));
            }
            if depth + store::height(tx, &f.id)? > MAX_DEPTH {
                return Err(too_deep());
            }
        }
        f.parent_id = parent;
    }
    if let Some(name) = patch.name {
        f.name = model::checked_name(&name, "name")?;
    }
    if let Some(pinned) = patch.pinned {
        f.pinned = pinned;
    }
    f.updated_at = now;
    store::update(tx, &f)?;
    Ok(f)
}

/// What deleting a folder did: the folder as it was, how many folders went with it, and how
/// many documents and templates went back to the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deleted {
    pub folder: FolderView,
    pub subfolders: i64,
    pub items: i64,
}

/// Deletes folder `id` and the folders under it; what they held goes back to the root.
pub async fn delete(ctx: &Context, who: &Principal, id: &str) -> Result<Deleted, AppError> {
    let (caller, id) = (who.clone(), id.to_string());
    ctx.db
        .write(move |tx| {
            let access = access::resolve(tx, &caller)?;
            delete_in(tx, &access, &id)
        })
        .await
}

/// Inside a transaction: `delete`.
pub fn delete_in(tx: &Conn, access: &Access, id: &str) -> Result<Deleted, AppError> {
    let owner = access.owner();
    tx.serialize_on(&store::workspace_key(&owner))?;
    let f = store::owned(tx, &owner, id, "folder")?;
    access.require_delete("folders")?;
    let (subfolders, items) = store::contents(tx, &f.id)?;
    store::delete(tx, &f.id)?;
    Ok(Deleted {
        folder: FolderView::of(&f),
        subfolders,
        items,
    })
}

/// Puts the caller's document `id` in its folder `folder` (`None`: back at the root).
pub async fn move_document(
    ctx: &Context,
    who: &Principal,
    id: DocumentId,
    folder: Option<String>,
) -> Result<(), AppError> {
    let caller = who.clone();
    ctx.db
        .write(move |tx| {
            let owner = access::owner(tx, &caller)?;
            move_in(tx, &owner, Kind::Document, folder.as_deref(), |f| {
                store::move_document(tx, &owner, id, f)
            })
        })
        .await
}

/// Puts the caller's template `id` in its folder `folder` (`None`: back at the root).
pub async fn move_template(
    ctx: &Context,
    who: &Principal,
    id: TemplateId,
    folder: Option<String>,
) -> Result<(), AppError> {
    let caller = who.clone();
    ctx.db
        .write(move |tx| {
            let owner = access::owner(tx, &caller)?;
            move_in(tx, &owner, Kind::Template, folder.as_deref(), |f| {
                store::move_template(tx, &owner, id, f)
            })
        })
        .await
}

/// The folder checked (the caller's, of `kind`), then the item moved by `moved`.
fn move_in(
    tx: &Conn,
    owner: &Owner,
    kind: Kind,
    folder: Option<&str>,
    moved: impl FnOnce(Option<&str>) -> Result<bool, AppError>,
) -> Result<(), AppError> {
    if let Some(id) = folder {
        let f = store::owned(tx, owner, id, "folder")?;
        if f.kind != kind {
            return Err(AppError::validation(vec![FieldError::new(
                "folderId",
                format!("this folder holds {}", f.kind.items()),
            )]));
        }
    }
    let what = match kind {
        Kind::Document => "document",
        Kind::Template => "template",
    };
    if !moved(folder)? {
        return Err(AppError::not_found(what));
    }
    Ok(())
}

/// One level of a workspace's tree as the web application shows it: the folder (`None`: the
/// root), the path down to it, and its sub-folders (pinned first, then by name).
#[derive(Debug, Clone, Default)]
pub struct Level {
    pub folder: Option<Folder>,
    pub path: Vec<Folder>,
    pub children: Vec<Folder>,
}

/// The level of `kind` at folder `at` (`None`: the root) in the caller's workspace; a 404 for
/// a folder it does not reach or of the other kind.
pub async fn level(
    ctx: &Context,
    who: &Principal,
    kind: Kind,
    at: Option<String>,
) -> Result<Level, AppError> {
    let caller = who.clone();
    ctx.db
        .read(move |c| {
            c.consistent_read(|c| {
                let owner = access::owner(c, &caller)?;
                level_in(c, &owner, kind, at.as_deref())
            })
        })
        .await
}

/// Inside a read: `level`.
pub fn level_in(c: &Conn, owner: &Owner, kind: Kind, at: Option<&str>) -> Result<Level, AppError> {
    let folder = match at {
        Some(id) => {
            let f = store::owned(c, owner, id, "folder")?;
            if f.kind != kind {
                return Err(AppError::not_found("folder"));
            }
            Some(f)
        }
        None => None,
    };
    let path = match &folder {
        Some(f) => store::path(c, owner, &f.id)?,
        None => Vec::new(),
    };
    let children = store::children(c, owner, kind, at)?;
    Ok(Level {
        folder,
        path,
        children,
    })
}

/// The level of `kind` at `at`, as `level`, and every folder of `kind` the caller reaches
/// (for the "Move to" lists): one read.
pub async fn browse(
    ctx: &Context,
    who: &Principal,
    kind: Kind,
    at: Option<String>,
) -> Result<(Level, Vec<Folder>), AppError> {
    let caller = who.clone();
    ctx.db
        .read(move |c| {
            c.consistent_read(|c| {
                let owner = access::owner(c, &caller)?;
                let level = level_in(c, &owner, kind, at.as_deref())?;
                Ok((level, store::all(c, &owner, kind)?))
            })
        })
        .await
}

/// A folder as a "Move to" list offers it: its id and its path's names ("Leases / 2026").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    pub id: String,
    pub label: String,
}

/// Every folder of `kind` the caller reaches, as "Move to" lists offer them, by path.
pub async fn choices(ctx: &Context, who: &Principal, kind: Kind) -> Result<Vec<Choice>, AppError> {
    let caller = who.clone();
    ctx.db
        .read(move |c| {
            let owner = access::owner(c, &caller)?;
            Ok(choices_of(&store::all(c, &owner, kind)?))
        })
        .await
}

/// The choices of `folders` but folder `id` and those under it: where `id` may move.
pub fn choices_outside(folders: &[Folder], id: &str) -> Vec<Choice> {
    let mut under = std::collections::HashSet::from([id.to_string()]);
    loop {
        let before = under.len();
        for f in folders {
            if f.parent_id.as_ref().is_some_and(|p| under.contains(p)) {
                under.insert(f.id.clone());
            }
        }
        if under.len() == before {
            break;
        }
    }
    choices_of(folders)
        .into_iter()
        .filter(|c| !under.contains(&c.id))
        .collect()
}

/// `folders` labelled with their paths (through the folders among them), sorted by label.
pub fn choices_of(folders: &[Folder]) -> Vec<Choice> {
    let by_id: std::collections::HashMap<&str, &Folder> =
        folders.iter().map(|f| (f.id.as_str(), f)).collect();
    let mut out: Vec<Choice> = folders
        .iter()
        .map(|f| {
            let mut names = vec![f.name.as_str()];
            let mut at = f.parent_id.as_deref();
            while let Some(p) = at.and_then(|p| by_id.get(p)) {
                if names.len() > MAX_DEPTH as usize {
                    break;
                }
                names.push(&p.name);
                at = p.parent_id.as_deref();
            }
            names.reverse();
            Choice {
                id: f.id.clone(),
                label: names.join(" / "),
            }
        })
        .collect();
    out.sort_by_key(|c| c.label.to_lowercase());
    out
}

#[cfg(test)]
mod tests;
