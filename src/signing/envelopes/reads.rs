//! The v2 read use cases: one envelope, several, a page of a find, and a document's audit log;
//! and their legacy forms for documents and templates. Each reads in one transaction through
//! the ownership rule (`teams::access`), so another workspace's envelope is a 404 here as in
//! v1 and the web application.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use serde_json::Value;

use super::envelope::{Full, Loaded, Shown, Summary, UserBrief, Whose};
use super::legacy::{LegacyDocument, LegacyDocumentSummary, LegacyTemplate, LegacyTemplateSummary};
use super::{Many, Page, Reader, audit_log};
use crate::core::context::Context;
use crate::core::db::{Conn, OptionalExtension, ToSql, Value as Sql, params_from_iter};
use crate::core::error::AppError;
use crate::core::ids::{DocumentId, TeamId, TemplateId, UserId};
use crate::core::owner::{Owner, Rows};
use crate::identity::principal::Principal;
use crate::signing::documents::store::listing::like_pattern;
use crate::signing::documents::{Status, audit, store as documents};
use crate::signing::envelope_ids::Envelope;
use crate::signing::folders::model::FolderView;
use crate::signing::folders::store as folders;
use crate::signing::templates::store as templates;
use crate::teams::access;

/// Most ids one get-many takes.
pub const MAX_MANY: usize = 100;

/// Which envelopes a find lists.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Find {
    /// Documents, templates, or both (none).
    pub kind: Option<Kind>,
    /// Documents of this status only (templates have none, so none are listed).
    pub status: Option<Status>,
    /// Text in the title.
    pub query: Option<String>,
    /// Only those directly in this folder (none: in any folder or none).
    pub folder: Option<String>,
    /// Oldest first instead of newest first.
    pub ascending: bool,
    pub page: i64,
    pub per_page: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Document,
    Template,
}

/// The owners and teams of loaded envelopes, each read once.
#[derive(Default)]
struct People {
    users: HashMap<UserId, UserBrief>,
    teams: HashMap<TeamId, (i64, String, String)>,
}

impl People {
    fn whose(&mut self, c: &Conn, user: UserId, team: Option<TeamId>) -> Result<Whose, AppError> {
        let brief = match self.users.entry(user) {
            Entry::Occupied(e) => e.get().clone(),
            Entry::Vacant(e) => e
                .insert(
                    c.query_row("SELECT name, email FROM users WHERE id = ?1", [user], |r| {
                        Ok(UserBrief {
                            id: user,
                            name: r.get(0)?,
                            email: r.get(1)?,
                        })
                    })
                    .optional()?
                    .ok_or_else(|| AppError::not_found("user"))?,
                )
                .clone(),
        };
        let team = match team.map(|t| (t, self.teams.entry(t))) {
            None => None,
            Some((_, Entry::Occupied(e))) => Some(e.get().clone()),
            Some((t, Entry::Vacant(e))) => Some(
                e.insert(
                    c.query_row("SELECT slug, name FROM teams WHERE id = ?1", [t], |r| {
                        Ok((t.get(), r.get(0)?, r.get(1)?))
                    })?,
                )
                .clone(),
            ),
        };
        Ok(Whose { user: brief, team })
    }

    fn of(&mut self, c: &Conn, l: &Loaded) -> Result<Whose, AppError> {
        match l {
            Loaded::Document(d) => self.whose(c, d.user_id, d.team_id),
            Loaded::Template(t) => self.whose(c, t.user_id, t.team_id),
        }
    }
}

/// The envelopes of `ids` `owner` reaches, in that order, those it does not left out (and an
/// id given twice answered once).
fn load_each(c: &Conn, owner: &Owner, ids: &[Envelope]) -> Result<Vec<Loaded>, AppError> {
    let (mut doc_ids, mut tpl_ids) = (Vec::new(), Vec::new());
    for id in ids {
        match id {
            Envelope::Document(d) => doc_ids.push(*d),
            Envelope::Template(t) => tpl_ids.push(*t),
        }
    }
    let mut docs: HashMap<DocumentId, _> = documents::owned_each(c, owner, &doc_ids)?
        .into_iter()
        .map(|d| (d.id, d))
        .collect();
    let mut tpls: HashMap<TemplateId, _> = templates::owned_each(c, owner, &tpl_ids)?
        .into_iter()
        .map(|t| (t.id, t))
        .collect();
    Ok(ids
        .iter()
        .filter_map(|id| match id {
            Envelope::Document(d) => docs.remove(d).map(|d| Loaded::Document(Box::new(d))),
            Envelope::Template(t) => tpls.remove(t).map(|t| Loaded::Template(Box::new(t))),
        })
        .collect())
}

/// One envelope `owner` reaches, or a 404.
fn load(c: &Conn, owner: &Owner, id: Envelope) -> Result<Loaded, AppError> {
    Ok(match id {
        Envelope::Document(d) => Loaded::Document(Box::new(documents::owned(c, owner, d)?)),
        Envelope::Template(t) => Loaded::Template(Box::new(templates::owned(c, owner, t)?)),
    })
}

fn shown(who: &Principal, reader: Reader) -> Shown {
    Shown {
        reader,
        links: who.sees_signing_links(),
    }
}

/// `GET /envelope/{id}`.
pub async fn get(
    ctx: &Context,
    who: &Principal,
    id: Envelope,
    reader: Reader,
) -> Result<Full, AppError> {
    let (caller, shown) = (who.clone(), shown(who, reader));
    ctx.db
        .read(move |c| {
            let loaded = load(c, &access::owner(c, &caller)?, id)?;
            let whose = People::default().of(c, &loaded)?;
            Ok(loaded.full(&whose, shown))
        })
        .await
}

/// `POST /envelope/get-many`: those of `ids` the caller reaches, in the order asked.
pub async fn get_many(
    ctx: &Context,
    who: &Principal,
    ids: Vec<Envelope>,
    reader: Reader,
) -> Result<Many<Full>, AppError> {
    let (caller, shown) = (who.clone(), shown(who, reader));
    ctx.db
        .read(move |c| {
            let mut people = People::default();
            let loaded = load_each(c, &access::owner(c, &caller)?, &ids)?;
            let data = loaded
                .iter()
                .map(|l| Ok(l.full(&people.of(c, l)?, shown)))
                .collect::<Result<_, AppError>>()?;
            Ok(Many { data })
        })
        .await
}

/// `GET /envelope`: a page of the caller's envelopes, newest created first.
pub async fn find(
    ctx: &Context,
    who: &Principal,
    q: Find,
    reader: Reader,
) -> Result<Page<Summary>, AppError> {
    let (caller, shown) = (who.clone(), shown(who, reader));
    ctx.db
        .read(move |c| {
            let owner = access::owner(c, &caller)?;
            let (ids, count) = page_of(c, &owner, &q)?;
            let mut people = People::default();
            let data = load_each(c, &owner, &ids)?
                .iter()
                .map(|l| Ok(l.summary(&people.of(c, l)?, shown)))
                .collect::<Result<_, AppError>>()?;
            Ok(Page::of(data, count, (q.page, q.per_page)))
        })
        .await
}

/// `GET /document/{id}`.
pub async fn legacy_document(
    ctx: &Context,
    who: &Principal,
    id: DocumentId,
    reader: Reader,
) -> Result<LegacyDocument, AppError> {
    let (caller, shown) = (who.clone(), shown(who, reader));
    ctx.db
        .read(move |c| {
            let owner = access::owner(c, &caller)?;
            let d = documents::owned(c, &owner, id)?;
            let whose = People::default().whose(c, d.user_id, d.team_id)?;
            let folder = folder_of(c, &owner, d.folder_id.as_deref());
            Ok(LegacyDocument::of(&d, &whose, shown, folder))
        })
        .await
}

/// `GET /template/{id}`.
pub async fn legacy_template(
    ctx: &Context,
    who: &Principal,
    id: TemplateId,
    reader: Reader,
) -> Result<LegacyTemplate, AppError> {
    let (caller, shown) = (who.clone(), shown(who, reader));
    ctx.db
        .read(move |c| {
            let owner = access::owner(c, &caller)?;
            let t = templates::owned(c, &owner, id)?;
            let whose = People::default().whose(c, t.user_id, t.team_id)?;
            let folder = folder_of(c, &owner, t.folder_id.as_deref());
            Ok(LegacyTemplate::of(&t, &whose, shown, folder))
        })
        .await
}

/// The folder `id` as the caller sees it (none when the caller's role does not see it).
fn folder_of(c: &Conn, owner: &Owner, id: Option<&str>) -> Option<FolderView> {
    let folder = folders::owned(c, owner, id?, "folder").ok()?;
    Some(FolderView::of(&folder))
}

/// The legacy summaries of a find or a get-many: documents and templates apart.
#[derive(Debug, Default)]
pub struct Legacy {
    pub documents: Vec<LegacyDocumentSummary>,
    pub templates: Vec<LegacyTemplateSummary>,
}

fn legacy_of(c: &Conn, loaded: &[Loaded], shown: Shown) -> Result<Legacy, AppError> {
    let mut people = People::default();
    let mut out = Legacy::default();
    for l in loaded {
        let whose = people.of(c, l)?;
        match l {
            Loaded::Document(d) => out
                .documents
                .push(LegacyDocumentSummary::of(d, &whose, shown)),
            Loaded::Template(t) => out
                .templates
                .push(LegacyTemplateSummary::of(t, &whose, shown)),
        }
    }
    Ok(out)
}

/// `GET /document` and `GET /template` (`q.kind` set): a page of legacy summaries.
pub async fn legacy_find(
    ctx: &Context,
    who: &Principal,
    q: Find,
    reader: Reader,
) -> Result<(Legacy, i64), AppError> {
    let (caller, shown) = (who.clone(), shown(who, reader));
    ctx.db
        .read(move |c| {
            let owner = access::owner(c, &caller)?;
            let (ids, count) = page_of(c, &owner, &q)?;
            Ok((legacy_of(c, &load_each(c, &owner, &ids)?, shown)?, count))
        })
        .await
}

/// `POST /document/get-many` and `POST /template/get-many`.
pub async fn legacy_many(
    ctx: &Context,
    who: &Principal,
    ids: Vec<Envelope>,
    reader: Reader,
) -> Result<Legacy, AppError> {
    let (caller, shown) = (who.clone(), shown(who, reader));
    ctx.db
        .read(move |c| {
            let owner = access::owner(c, &caller)?;
            legacy_of(c, &load_each(c, &owner, &ids)?, shown)
        })
        .await
}

/// `GET /envelope/{id}/audit-log`: a page of a document's audit log, oldest first (a template
/// has none: an empty page).
pub async fn audit_log(
    ctx: &Context,
    who: &Principal,
    id: Envelope,
    (page, per_page): (i64, i64),
    reader: Reader,
) -> Result<Page<Value>, AppError> {
    let caller = who.clone();
    ctx.db
        .read(move |c| {
            let owner = access::owner(c, &caller)?;
            let Envelope::Document(doc) = id else {
                load(c, &owner, id)?;
                return Ok(Page::of(Vec::new(), 0, (page, per_page)));
            };
            let d = documents::owned(c, &owner, doc)?;
            let events = audit::coalesce_fills(audit::list(c, doc)?);
            let all = audit_log::entries(&d, &events, reader);
            let count = all.len() as i64;
            let from = ((page - 1) * per_page).min(count) as usize;
            let data = all.into_iter().skip(from).take(per_page as usize).collect();
            Ok(Page::of(data, count, (page, per_page)))
        })
        .await
}

/// The ids of the page `q` asks for, and how many the whole find holds: documents (listed,
/// not hidden after completion) and templates in one order by creation.
fn page_of(c: &Conn, owner: &Owner, q: &Find) -> Result<(Vec<Envelope>, i64), AppError> {
    let mut args: Vec<Sql> = Vec::new();
    let mut parts = Vec::new();
    let pattern = q.query.as_deref().map(like_pattern);
    if q.kind != Some(Kind::Template) {
        let clause = owner.clause("d", Rows::WithVisibility, &mut args);
        let mut s = format!(
            "SELECT 'D' AS kind, d.id AS id, d.created_at AS at FROM documents d
              WHERE d.hidden = 0 AND {clause}"
        );
        if let Some(status) = q.status {
            args.push(status.to_sql());
            s.push_str(&format!(" AND d.status = ?{}", args.len()));
        }
        if let Some(p) = &pattern {
            args.push(p.to_sql());
            s.push_str(&format!(
                " AND lower(d.title) LIKE ?{} ESCAPE '\\'",
                args.len()
            ));
        }
        if let Some(f) = &q.folder {
            args.push(f.to_sql());
            s.push_str(&format!(" AND d.folder_id = ?{}", args.len()));
        }
        parts.push(s);
    }
    if q.kind != Some(Kind::Document) && q.status.is_none() {
        let clause = owner.clause("t", Rows::WithVisibility, &mut args);
        let mut s = format!(
            "SELECT 'T' AS kind, t.id AS id, t.created_at AS at FROM templates t WHERE {clause}"
        );
        if let Some(p) = &pattern {
            args.push(p.to_sql());
            s.push_str(&format!(
                " AND lower(t.title) LIKE ?{} ESCAPE '\\'",
                args.len()
            ));
        }
        if let Some(f) = &q.folder {
            args.push(f.to_sql());
            s.push_str(&format!(" AND t.folder_id = ?{}", args.len()));
        }
        parts.push(s);
    }
    if parts.is_empty() {
        return Ok((Vec::new(), 0));
    }
    let union = parts.join(" UNION ALL ");
    let count: i64 = c.query_row(
        &format!("SELECT count(*) FROM ({union}) AS e"),
        params_from_iter(args.clone()),
        |r| r.get(0),
    )?;
    let dir = if q.ascending { "ASC" } else { "DESC" };
    let n = args.len();
    args.push(q.per_page.to_sql());
    args.push(((q.page - 1) * q.per_page).to_sql());
    let mut stmt = c.prepare(&format!(
        "SELECT kind, id FROM ({union}) AS e ORDER BY at {dir}, kind, id {dir}
          LIMIT ?{} OFFSET ?{}",
        n + 1,
        n + 2
    ))?;
    let rows = stmt.query_map(params_from_iter(args), |r| {
        let (kind, id): (String, i64) = (r.get(0)?, r.get(1)?);
        Ok(match kind.as_str() {
            "D" => Envelope::Document(DocumentId::new(id)),
            _ => Envelope::Template(TemplateId::new(id)),
        })
    })?;
    Ok((rows.collect::<Result<_, _>>()?, count))
}
