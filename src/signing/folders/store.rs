//! SQL for `folders`, and for putting a document or a template into one. Every read names the
//! owner (`Owner::clause`), so a folder of another workspace, or of a visibility the caller's
//! role does not see, is never found. The tree's walks (ancestors, descendants) are recursive
//! queries both databases run, inside the transaction that changes the tree.

use crate::core::db::{Conn, OptionalExtension, Row, ToSql, Value, params_from_iter};
use crate::core::error::AppError;
use crate::core::ids::{DocumentId, TemplateId};
use crate::core::owner::{Owner, Rows};
use crate::params;

use super::model::{Folder, Kind};

const COLUMNS: &str = "f.id, f.user_id, f.team_id, f.parent_id, f.type, f.name, f.visibility,
    f.pinned, f.created_at, f.updated_at";

/// How deep a walk of the tree goes at most: past any depth the rules allow, so that a tree
/// broken by hand still ends.
const WALK: i64 = 64;

fn from_row(r: &Row<'_>) -> crate::core::db::Result<Folder> {
    Ok(Folder {
        id: r.get(0)?,
        user_id: r.get(1)?,
        team_id: r.get(2)?,
        parent_id: r.get(3)?,
        kind: r.get(4)?,
        name: r.get(5)?,
        visibility: r.get(6)?,
        pinned: r.get(7)?,
        created_at: r.get(8)?,
        updated_at: r.get(9)?,
    })
}

fn folders(conn: &Conn, sql: &str, args: Vec<Value>) -> Result<Vec<Folder>, AppError> {
    let mut stmt = conn.prepare_cached(sql)?;
    let rows = stmt.query_map(params_from_iter(args), from_row)?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

/// The key the writes of one workspace's tree take turns on (`Conn::serialize_on`), so that
/// two moves on PostgreSQL cannot make a cycle between them.
pub fn workspace_key(owner: &Owner) -> String {
    match owner.team() {
        Some(team) => format!("folders:team:{team}"),
        None => format!("folders:user:{}", owner.user()),
    }
}

/// Folder `id` when `owner` reaches it, or a 404 (`what`: "folder", "parent folder").
pub fn owned(conn: &Conn, owner: &Owner, id: &str, what: &str) -> Result<Folder, AppError> {
    let mut args = vec![id.to_sql()];
    let clause = owner.clause("f", Rows::WithVisibility, &mut args);
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM folders f WHERE f.id = ?1 AND {clause}"
    ))?;
    stmt.query_row(params_from_iter(args), from_row)
        .optional()?
        .ok_or_else(|| AppError::not_found(what))
}

/// How many folders `owner`'s workspace holds, of both kinds and every visibility.
pub fn count_in_workspace(conn: &Conn, owner: &Owner) -> Result<i64, AppError> {
    let mut args = Vec::new();
    let clause = owner.clause("f", Rows::WithoutVisibility, &mut args);
    Ok(conn.query_row(
        &format!("SELECT count(*) FROM folders f WHERE {clause}"),
        params_from_iter(args),
        |r| r.get(0),
    )?)
}

/// What a search of folders asks for: a text in the name, the parent (`None`: at any
/// depth), the kind (`None`: both).
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub name: Option<String>,
    pub parent: Option<String>,
    pub kind: Option<Kind>,
}

/// A page of the folders `owner` reaches that `filter` keeps, pinned first then newest first,
/// and how many it keeps in all.
pub fn find(
    conn: &Conn,
    owner: &Owner,
    filter: &Filter,
    limit: i64,
    offset: i64,
) -> Result<(Vec<Folder>, i64), AppError> {
    let mut args = Vec::new();
    let mut clause = owner.clause("f", Rows::WithVisibility, &mut args);
    if let Some(parent) = &filter.parent {
        args.push(parent.to_sql());
        clause.push_str(&format!(" AND f.parent_id = ?{}", args.len()));
    }
    if let Some(kind) = filter.kind {
        args.push(kind.to_sql());
        clause.push_str(&format!(" AND f.type = ?{}", args.len()));
    }
    if let Some(name) = &filter.name {
        args.push(like_pattern(name).to_sql());
        clause.push_str(&format!(
            " AND lower(f.name) LIKE ?{} ESCAPE '\\'",
            args.len()
        ));
    }
    let total: i64 = conn.query_row(
        &format!("SELECT count(*) FROM folders f WHERE {clause}"),
        params_from_iter(args.clone()),
        |r| r.get(0),
    )?;
    let n = args.len();
    args.push(limit.to_sql());
    args.push(offset.to_sql());
    let items = folders(
        conn,
        &format!(
            "SELECT {COLUMNS} FROM folders f WHERE {clause}
              ORDER BY f.pinned DESC, f.created_at DESC, f.id LIMIT ?{} OFFSET ?{}",
            n + 1,
            n + 2
        ),
        args,
    )?;
    Ok((items, total))
}

/// The folders of `kind` directly in `parent` (`None`: at the root) that `owner` reaches,
/// pinned first, then by name.
pub fn children(
    conn: &Conn,
    owner: &Owner,
    kind: Kind,
    parent: Option<&str>,
) -> Result<Vec<Folder>, AppError> {
    let mut args = vec![kind.to_sql()];
    let mut clause = owner.clause("f", Rows::WithVisibility, &mut args);
    match parent {
        Some(p) => {
            args.push(p.to_sql());
            clause.push_str(&format!(" AND f.parent_id = ?{}", args.len()));
        }
        None => clause.push_str(" AND f.parent_id IS NULL"),
    }
    folders(
        conn,
        &format!(
            "SELECT {COLUMNS} FROM folders f WHERE f.type = ?1 AND {clause}
              ORDER BY f.pinned DESC, lower(f.name), f.created_at, f.id"
        ),
        args,
    )
}

/// Every folder of `kind` that `owner` reaches, by name (the "Move to" lists).
pub fn all(conn: &Conn, owner: &Owner, kind: Kind) -> Result<Vec<Folder>, AppError> {
    let mut args = vec![kind.to_sql()];
    let clause = owner.clause("f", Rows::WithVisibility, &mut args);
    folders(
        conn,
        &format!(
            "SELECT {COLUMNS} FROM folders f WHERE f.type = ?1 AND {clause}
              ORDER BY lower(f.name), f.id"
        ),
        args,
    )
}

/// Folder `id` and the folders above it that `owner` reaches, from the root down.
pub fn path(conn: &Conn, owner: &Owner, id: &str) -> Result<Vec<Folder>, AppError> {
    let mut args = vec![id.to_sql(), WALK.to_sql()];
    let clause = owner.clause("f", Rows::WithVisibility, &mut args);
    folders(
        conn,
        &format!(
            "WITH RECURSIVE up (id, parent_id, n) AS (
                 SELECT id, parent_id, 1 FROM folders WHERE id = ?1
                 UNION ALL
                 SELECT p.id, p.parent_id, up.n + 1 FROM folders p JOIN up ON p.id = up.parent_id
                  WHERE up.n < ?2)
             SELECT {COLUMNS} FROM up JOIN folders f ON f.id = up.id WHERE {clause}
              ORDER BY up.n DESC"
        ),
        args,
    )
}

/// How deep folder `id` sits (1 at the root), and whether `seek` is it or above it.
pub fn depth(conn: &Conn, id: &str, seek: &str) -> Result<(i64, bool), AppError> {
    Ok(conn.query_row(
        "WITH RECURSIVE up (id, parent_id, n) AS (
             SELECT id, parent_id, 1 FROM folders WHERE id = ?1
             UNION ALL
             SELECT p.id, p.parent_id, up.n + 1 FROM folders p JOIN up ON p.id = up.parent_id
              WHERE up.n < ?3)
         SELECT CAST(count(*) AS BIGINT),
                CAST(COALESCE(SUM(CASE WHEN id = ?2 THEN 1 ELSE 0 END), 0) AS BIGINT)
           FROM up",
        params![id, seek, WALK],
        |r| Ok((r.get(0)?, r.get::<_, i64>(1)? > 0)),
    )?)
}

/// How many levels the tree under folder `id` has, it included (1 without sub-folders).
pub fn height(conn: &Conn, id: &str) -> Result<i64, AppError> {
    Ok(conn.query_row(
        "WITH RECURSIVE down (id, n) AS (
             SELECT id, 1 FROM folders WHERE id = ?1
             UNION ALL
             SELECT c.id, down.n + 1 FROM folders c JOIN down ON c.parent_id = down.id
              WHERE down.n < ?2)
         SELECT CAST(COALESCE(max(n), 0) AS BIGINT) FROM down",
        params![id, WALK],
        |r| r.get(0),
    )?)
}

/// How many folders there are under folder `id` (at any depth), and how many documents and
/// templates they and it hold: what its deletion sends back to the root.
pub fn contents(conn: &Conn, id: &str) -> Result<(i64, i64), AppError> {
    Ok(conn.query_row(
        "WITH RECURSIVE down (id, n) AS (
             SELECT id, 1 FROM folders WHERE id = ?1
             UNION ALL
             SELECT c.id, down.n + 1 FROM folders c JOIN down ON c.parent_id = down.id
              WHERE down.n < ?2)
         SELECT CAST(count(*) - 1 AS BIGINT),
                CAST((SELECT count(*) FROM documents d WHERE d.folder_id IN (SELECT id FROM down))
                   + (SELECT count(*) FROM templates t WHERE t.folder_id IN (SELECT id FROM down))
                   AS BIGINT)
           FROM down",
        params![id, WALK],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?)
}

pub fn insert(tx: &Conn, f: &Folder) -> Result<(), AppError> {
    tx.execute(
        "INSERT INTO folders (id, user_id, team_id, parent_id, type, name, visibility, pinned,
                              created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        params![
            f.id,
            f.user_id,
            f.team_id,
            f.parent_id,
            f.kind,
            f.name,
            f.visibility,
            f.pinned,
            f.created_at,
            f.updated_at
        ],
    )?;
    Ok(())
}

/// Writes the name, parent, visibility, pin and time of `f`.
pub fn update(tx: &Conn, f: &Folder) -> Result<(), AppError> {
    tx.execute(
        "UPDATE folders SET name = ?2, parent_id = ?3, visibility = ?4, pinned = ?5,
                updated_at = ?6 WHERE id = ?1",
        params![
            f.id,
            f.name,
            f.parent_id,
            f.visibility,
            f.pinned,
            f.updated_at
        ],
    )?;
    Ok(())
}

/// Deletes folder `id`; the folders under it go with it, what they held goes to the root
/// (the foreign keys' ON DELETE).
pub fn delete(tx: &Conn, id: &str) -> Result<(), AppError> {
    tx.execute("DELETE FROM folders WHERE id = ?1", [id])?;
    Ok(())
}

/// Puts document `id`, when `owner` reaches it and it is listed, in `folder` (`None`: the
/// root); false when there is no such document.
pub fn move_document(
    tx: &Conn,
    owner: &Owner,
    id: DocumentId,
    folder: Option<&str>,
) -> Result<bool, AppError> {
    let mut args = vec![id.to_sql(), folder.to_sql()];
    let clause = owner.clause("d", Rows::WithVisibility, &mut args);
    let n = tx.execute(
        &format!(
            "UPDATE documents SET folder_id = ?2
              WHERE id = ?1 AND hidden = 0 AND id IN (SELECT d.id FROM documents d
                                                    WHERE d.id = ?1 AND {clause})"
        ),
        params_from_iter(args),
    )?;
    Ok(n == 1)
}

/// As `move_document`, for template `id`.
pub fn move_template(
    tx: &Conn,
    owner: &Owner,
    id: TemplateId,
    folder: Option<&str>,
) -> Result<bool, AppError> {
    let mut args = vec![id.to_sql(), folder.to_sql()];
    let clause = owner.clause("t", Rows::WithVisibility, &mut args);
    let n = tx.execute(
        &format!(
            "UPDATE templates SET folder_id = ?2
              WHERE id = ?1 AND id IN (SELECT t.id FROM templates t WHERE t.id = ?1 AND {clause})"
        ),
        params_from_iter(args),
    )?;
    Ok(n == 1)
}

/// `%term%` in lowercase, with `%`, `_` and `\` standing for themselves.
fn like_pattern(term: &str) -> String {
    let mut p = String::from("%");
    for c in term.to_lowercase().chars() {
        if matches!(c, '%' | '_' | '\\') {
            p.push('\\');
        }
        p.push(c);
    }
    p.push('%');
    p
}
