//! The documents' lists, one query for all of them: the API's `GET /api/v1/documents` (the
//! owner's documents, newest created first, optionally of one status) and the web
//! application's dashboard (the same, newest changed first, with a search; and the Inbox, the
//! documents of any owner waiting for one account's signature). Each page comes in order from
//! an index (`documents_listed*`, `documents_changed*`, `recipients_awaiting`); the owner's
//! totals without a search come from the counts the triggers keep (`core::db::counts`).

use crate::core::db::{Conn, ToSql, Value, params_from_iter};
use crate::core::error::AppError;
use crate::core::owner::{Owner, Rows};

use super::super::Status;
use super::super::model::Document;
use super::{COLUMNS, complete_aggregates, from_row};

/// Which folder's rows a list of documents or templates holds (`signing::folders`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum InFolder {
    /// Every folder's and the root's (the API v1's lists).
    #[default]
    Any,
    /// The root's: those in no folder, and those in a folder the caller's role does not see
    /// (a team member reaches them there, as nowhere else).
    Root,
    /// Those in the folder of this id.
    Folder(String),
}

impl InFolder {
    /// The condition on the row `alias` (of `table`: "documents" or "templates") that keeps
    /// the rows of this place for `owner`, starting with ` AND `; its parameters are appended
    /// to `args`.
    pub fn clause(&self, alias: &str, owner: &Owner, args: &mut Vec<Value>) -> String {
        match self {
            InFolder::Any => String::new(),
            InFolder::Folder(id) => {
                args.push(id.to_sql());
                format!(" AND {alias}.folder_id = ?{}", args.len())
            }
            InFolder::Root => match owner {
                Owner::Team { seen, .. }
                    if seen.len() < crate::core::owner::Visibility::ALL.len() =>
                {
                    let names: Vec<String> =
                        seen.iter().map(|v| format!("'{}'", v.as_str())).collect();
                    let names = if names.is_empty() {
                        "NULL".to_string()
                    } else {
                        names.join(", ")
                    };
                    format!(
                        " AND ({alias}.folder_id IS NULL OR NOT EXISTS (SELECT 1 FROM folders f
                              WHERE f.id = {alias}.folder_id AND f.visibility IN ({names})))"
                    )
                }
                _ => format!(" AND {alias}.folder_id IS NULL"),
            },
        }
    }

    /// Whether this place holds every row `owner` reaches of `kind` ("DOCUMENT",
    /// "TEMPLATE"): any folder, or the root of a workspace without folders of that kind, so
    /// that the counts the triggers keep are its counts.
    pub fn is_everything(&self, conn: &Conn, owner: &Owner, kind: &str) -> Result<bool, AppError> {
        match self {
            InFolder::Any => Ok(true),
            InFolder::Folder(_) => Ok(false),
            InFolder::Root => {
                let mut args = vec![kind.to_sql()];
                let clause = owner.clause("f", Rows::WithoutVisibility, &mut args);
                let any: bool = conn.query_row(
                    &format!(
                        "SELECT EXISTS (SELECT 1 FROM folders f WHERE f.type = ?1 AND {clause})"
                    ),
                    params_from_iter(args),
                    |r| r.get(0),
                )?;
                Ok(!any)
            }
        }
    }
}

/// Which documents a list holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Whose {
    /// The listed documents `owner` reaches (those hidden after completion are not), of
    /// `status` or of every status, in `folder`.
    Owned {
        owner: Owner,
        status: Option<Status>,
        folder: InFolder,
    },
    /// The documents of any owner of this instance waiting for the recipient with e-mail
    /// `email` (lowercase, as stored): PENDING, where that recipient acts (any role but CC)
    /// and has neither signed nor rejected.
    Awaiting { email: String },
}

/// The order of a list, newest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// By creation (the API's order).
    Created,
    /// By last change (the dashboard's).
    Changed,
}

/// A page of a list: whose documents, a search (text in the title or in a recipient's
/// e-mail; `None` for all), the order, and the page's place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    pub whose: Whose,
    pub search: Option<String>,
    pub order: Order,
    pub limit: i64,
    pub offset: i64,
}

impl Query {
    /// A page of the documents `owner` reaches of `status` (or all), newest created first.
    pub fn owned(owner: Owner, status: Option<Status>, limit: i64, offset: i64) -> Query {
        Query {
            whose: Whose::Owned {
                owner,
                status,
                folder: InFolder::Any,
            },
            search: None,
            order: Order::Created,
            limit,
            offset,
        }
    }
}

/// The page of documents `q` asks for, each with its recipients and fields, and how many the
/// whole list holds.
pub fn list(conn: &Conn, q: &Query) -> Result<(Vec<Document>, i64), AppError> {
    let total = count(conn, &q.whose, q.search.as_deref())?;
    let (sql, args) = page_sql(q);
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map(params_from_iter(args), from_row)?;
    let docs = rows.collect::<Result<Vec<_>, _>>()?;
    Ok((complete_aggregates(conn, docs)?, total))
}

/// The statement of a page of `q` and its parameters.
fn page_sql(q: &Query) -> (String, Vec<Value>) {
    let (from, mut args) = filter(&q.whose, q.search.as_deref());
    let order = match q.order {
        Order::Created => "d.created_at DESC, d.id DESC",
        Order::Changed => "d.updated_at DESC, d.id DESC",
    };
    let n = args.len();
    let sql = format!(
        "SELECT {} {from} ORDER BY {order} LIMIT ?{} OFFSET ?{}",
        qualified(),
        n + 1,
        n + 2
    );
    args.push(q.limit.to_sql());
    args.push(q.offset.to_sql());
    (sql, args)
}

/// How many documents the list of `whose` holds, or those of them `search` finds.
pub fn count(conn: &Conn, whose: &Whose, search: Option<&str>) -> Result<i64, AppError> {
    use crate::core::db::counts;
    if let (
        Whose::Owned {
            owner,
            status,
            folder,
        },
        None,
    ) = (whose, search)
        && folder.is_everything(conn, owner, "DOCUMENT")?
    {
        return owner.counted(conn, counts::List::Documents, status.map(Status::as_str));
    }
    let (from, args) = filter(whose, search);
    Ok(conn.query_row(
        &format!("SELECT count(*) {from}"),
        params_from_iter(args),
        |r| r.get(0),
    )?)
}

/// `FROM ... WHERE ...` of the list and its parameters (`?1`...).
fn filter(whose: &Whose, search: Option<&str>) -> (String, Vec<Value>) {
    let mut args = Vec::new();
    let mut sql = match whose {
        Whose::Owned {
            owner,
            status,
            folder,
        } => {
            let clause = owner.clause("d", Rows::WithVisibility, &mut args);
            let mut s = format!("FROM documents d WHERE d.hidden = 0 AND {clause}");
            if let Some(status) = status {
                args.push(status.to_sql());
                s.push_str(&format!(" AND d.status = ?{}", args.len()));
            }
            s.push_str(&folder.clause("d", owner, &mut args));
            s
        }
        // One recipient per document and e-mail (`recipients_document_email`): no duplicates.
        // The recipient's conditions are those of the partial index `recipients_awaiting`.
        Whose::Awaiting { email } => {
            args.push(email.to_sql());
            String::from(
                "FROM recipients r JOIN documents d ON d.id = r.document_id
                 WHERE r.email = ?1 AND r.document_id IS NOT NULL AND r.role <> 'CC'
                   AND r.signing_status = 'NOT_SIGNED' AND d.status = 'PENDING'",
            )
        }
    };
    if let Some(term) = search {
        args.push(like_pattern(term).to_sql());
        let n = args.len();
        sql.push_str(&format!(
            " AND (lower(d.title) LIKE ?{n} ESCAPE '\\'
                   OR EXISTS (SELECT 1 FROM recipients s
                               WHERE s.document_id = d.id AND lower(s.email) LIKE ?{n} ESCAPE '\\'))"
        ));
    }
    (sql, args)
}

/// `COLUMNS` of the documents' row `d`.
fn qualified() -> String {
    COLUMNS
        .split(',')
        .map(|c| format!("d.{}", c.trim()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `%term%` in lowercase, with `%`, `_` and `\` standing for themselves.
/// A `LIKE` pattern (with `ESCAPE '\\'`) finding `term` anywhere, case-folded.
pub fn like_pattern(term: &str) -> String {
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

#[cfg(test)]
#[path = "listing_tests.rs"]
mod tests;
