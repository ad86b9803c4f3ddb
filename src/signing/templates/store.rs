//! SQL for `templates`. Their recipients and fields are rows of `recipients` and `fields`,
//! whose SQL `documents::store` holds for both parents (`Parent::Template`).

use crate::core::db::{ToSql, params_from_iter};
use crate::core::ids::{RecipientId, TeamId, TemplateId};
use crate::core::owner::Visibility;
use crate::core::owner::{Owner, Rows};
use crate::params;
use crate::signing::documents::store::listing::InFolder;
use crate::signing::documents::store::workspace::Heir;
use crate::{core::db::Conn, core::db::OptionalExtension, core::db::Row};

use super::CreateTemplate;
use super::model::Template;
use crate::core::db::stored_json;
use crate::core::error::AppError;
use crate::{
    signing::documents::store::Parent, signing::documents::store::fields,
    signing::documents::store::recipients,
};

const COLUMNS: &str = "t.id, t.user_id, t.external_id, t.type, t.title, t.document_data_id,
    t.blob_id, t.page_sizes, t.meta_id, t.meta, t.auth_options, t.direct_link_token,
    t.direct_link_enabled, t.created_at, t.updated_at, t.direct_link_recipient_id, t.team_id,
    t.visibility, t.folder_id";

/// A template's row, without its recipients and fields yet. Stored JSON the code cannot read
/// is an error, never a default.
fn from_row(r: &Row<'_>) -> crate::core::db::Result<Template> {
    let sizes: Option<String> = r.get(7)?;
    let meta: String = r.get(9)?;
    let auth: String = r.get(10)?;
    Ok(Template {
        id: r.get(0)?,
        user_id: r.get(1)?,
        team_id: r.get(16)?,
        visibility: r.get(17)?,
        folder_id: r.get(18)?,
        external_id: r.get(2)?,
        kind: r.get(3)?,
        title: r.get(4)?,
        document_data_id: r.get(5)?,
        blob_id: r.get(6)?,
        blob_sha256: None,
        page_sizes: sizes.map(|s| stored_json(7, &s)).transpose()?,
        meta_id: r.get(8)?,
        meta: stored_json(9, &meta)?,
        auth_options: if auth.is_empty() {
            Default::default()
        } else {
            stored_json(10, &auth)?
        },
        direct_link_token: r.get(11)?,
        direct_link_enabled: r.get(12)?,
        created_at: r.get(13)?,
        updated_at: r.get(14)?,
        direct_link_recipient: r.get(15)?,
        recipients: Vec::new(),
        fields: Vec::new(),
    })
}

/// The row with its file's digest, its recipients and its fields.
fn complete_aggregate(conn: &Conn, mut t: Template) -> Result<Template, AppError> {
    if let Some(b) = &t.blob_id {
        t.blob_sha256 = crate::core::blob::rows::sha256(conn, b)?;
    }
    t.recipients = recipients::of(conn, Parent::Template(t.id))?;
    t.fields = fields::of(conn, Parent::Template(t.id))?;
    Ok(t)
}

/// The rows of a page with their files' digests, recipients and fields: three queries for
/// the whole page, not three a row.
fn complete_aggregates(conn: &Conn, items: Vec<Template>) -> Result<Vec<Template>, AppError> {
    let parents: Vec<Parent> = items.iter().map(|t| Parent::Template(t.id)).collect();
    let recipients = recipients::of_each(conn, &parents)?;
    let fields = fields::of_each(conn, &parents)?;
    let files: Vec<&str> = items.iter().filter_map(|t| t.blob_id.as_deref()).collect();
    let digests = crate::core::blob::rows::sha256_each(conn, &files)?;
    Ok(items
        .into_iter()
        .zip(recipients.into_iter().zip(fields))
        .map(|(mut t, (recipients, fields))| {
            t.blob_sha256 = t.blob_id.as_ref().and_then(|b| digests.get(b).cloned());
            t.recipients = recipients;
            t.fields = fields;
            t
        })
        .collect())
}

/// Template `id` with its recipients and fields when `owner` reaches it, or a 404 (also for
/// another user's or another team's template, and for a team template of a visibility the
/// caller's role does not see).
pub fn owned(conn: &Conn, owner: &Owner, id: TemplateId) -> Result<Template, AppError> {
    let mut args = vec![id.to_sql()];
    let clause = owner.clause("t", Rows::WithVisibility, &mut args);
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM templates t WHERE t.id = ?1 AND {clause}"
    ))?;
    match stmt
        .query_row(params_from_iter(args), from_row)
        .optional()?
    {
        Some(t) => complete_aggregate(conn, t),
        None => Err(AppError::not_found("template")),
    }
}

/// The templates of `ids` that `owner` reaches, each with its recipients and fields, in no
/// particular order; those it does not reach are left out. `ids` is a page.
pub fn owned_each(
    conn: &Conn,
    owner: &Owner,
    ids: &[TemplateId],
) -> Result<Vec<Template>, AppError> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut args: Vec<crate::core::db::Value> = ids.iter().map(|id| id.to_sql()).collect();
    let marks: Vec<String> = (1..=ids.len()).map(|n| format!("?{n}")).collect();
    let clause = owner.clause("t", Rows::WithVisibility, &mut args);
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM templates t WHERE t.id IN ({}) AND {clause}",
        marks.join(", ")
    ))?;
    let rows = stmt.query_map(params_from_iter(args), from_row)?;
    complete_aggregates(conn, rows.collect::<Result<Vec<_>, _>>()?)
}

/// The template whose direct link has the token `token` (turned on or not), with its
/// recipients and fields; `None` while its owner is disabled (nothing of a disabled account
/// acts: the link answers as an unknown one and starts nothing).
pub fn by_direct_token(conn: &Conn, token: &str) -> Result<Option<Template>, AppError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM templates t JOIN users u ON u.id = t.user_id
          WHERE t.direct_link_token = ?1 AND u.disabled_at IS NULL"
    ))?;
    match stmt.query_row([token], from_row).optional()? {
        Some(t) => Ok(Some(complete_aggregate(conn, t)?)),
        None => Ok(None),
    }
}

/// Writes a template's direct link: on or off, the recipient a visitor becomes, and its token.
pub fn set_direct_link(
    tx: &Conn,
    id: TemplateId,
    (enabled, recipient, token): (bool, Option<RecipientId>, &str),
    now: i64,
) -> Result<(), AppError> {
    tx.execute(
        "UPDATE templates SET direct_link_enabled = ?2, direct_link_recipient_id = ?3,
                direct_link_token = ?4, updated_at = ?5 WHERE id = ?1",
        params![id, enabled, recipient, token, now],
    )?;
    Ok(())
}

/// The template behind an upload URL's `documentDataId`.
pub fn by_data_id(conn: &Conn, data_id: &str) -> Result<Option<TemplateId>, AppError> {
    Ok(conn
        .query_row(
            "SELECT id FROM templates WHERE document_data_id = ?1",
            [data_id],
            |r| r.get(0),
        )
        .optional()?)
}

/// A page of the templates `owner` reaches in `folder`, newest first, and how many there are
/// in all (counted by a trigger, `crate::core::db::counts`, when `folder` holds them all).
pub fn list(
    conn: &Conn,
    owner: &Owner,
    folder: &InFolder,
    limit: i64,
    offset: i64,
) -> Result<(Vec<Template>, i64), AppError> {
    let mut args = Vec::new();
    let mut clause = owner.clause("t", Rows::WithVisibility, &mut args);
    clause.push_str(&folder.clause("t", owner, &mut args));
    let total = if folder.is_everything(conn, owner, "TEMPLATE")? {
        owner.counted(conn, crate::core::db::counts::List::Templates, None)?
    } else {
        conn.query_row(
            &format!("SELECT count(*) FROM templates t WHERE {clause}"),
            params_from_iter(args.clone()),
            |r| r.get(0),
        )?
    };
    let n = args.len();
    args.push(limit.to_sql());
    args.push(offset.to_sql());
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM templates t WHERE {clause}
          ORDER BY t.created_at DESC, t.id DESC LIMIT ?{} OFFSET ?{}",
        n + 1,
        n + 2
    ))?;
    let rows = stmt.query_map(params_from_iter(args), from_row)?;
    let items = rows.collect::<Result<Vec<_>, _>>()?;
    Ok((complete_aggregates(conn, items)?, total))
}

/// A new template of `owner`: its `user` is the creator, its team `owner`'s team.
pub fn insert(
    tx: &Conn,
    owner: &Owner,
    t: &CreateTemplate,
    data_id: &str,
    now: i64,
) -> Result<TemplateId, AppError> {
    let inserted_id = tx.insert(
        "INSERT INTO templates (user_id, external_id, title, type, document_data_id, meta_id, meta, auth_options,
                                direct_link_token, created_at, updated_at, team_id, visibility)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10, ?11, ?12)",
        params![
            owner.user(),
            t.external_id,
            t.title,
            t.kind,
            data_id,
            format!("tm_{}", crate::core::crypto::random_base62(24)),
            serde_json::to_string(&t.meta).unwrap_or_default(),
            serde_json::to_string(&t.auth_options).unwrap_or_default(),
            crate::core::crypto::random_base62(32),
            now,
            owner.team(),
            t.visibility.unwrap_or(Visibility::Everyone)
        ],
    )?;
    let id = TemplateId::new(inserted_id);
    for r in &t.recipients {
        recipients::insert(tx, Parent::Template(id), r, now)?;
    }
    Ok(id)
}

/// Gives template `id` a file another row already refers to (a document saved as a template
/// shares the document's PDF): no new row of `blobs`. Call after `blob::rows::hold` of `blob`
/// and a read that found it still referred to, in the same transaction.
pub fn share_file(
    tx: &Conn,
    id: TemplateId,
    blob: &str,
    page_sizes: &str,
    now: i64,
) -> Result<(), AppError> {
    tx.execute(
        "UPDATE templates SET blob_id = ?2, page_sizes = ?3, updated_at = ?4 WHERE id = ?1",
        params![id, blob, page_sizes, now],
    )?;
    Ok(())
}

/// Gives template `id` copies of `recipients` and of their `fields` (place, type and
/// settings; a value never travels): a template's duplicate, a document saved as a template.
pub fn copy_parts(
    tx: &Conn,
    id: TemplateId,
    recipients: &[crate::signing::documents::model::Recipient],
    fields: &[crate::signing::documents::model::Field],
    at: i64,
) -> Result<(), AppError> {
    use crate::signing::documents::store as doc_store;
    let parent = doc_store::Parent::Template(id);
    let mut ids = std::collections::HashMap::new();
    for r in recipients {
        ids.insert(
            r.id,
            doc_store::recipients::insert(tx, parent, &r.as_new(), at)?,
        );
    }
    for source in fields {
        let mut f = source.as_new();
        f.recipient_id = *ids
            .get(&f.recipient_id)
            .ok_or_else(|| AppError::internal("a field without its recipient"))?;
        doc_store::fields::insert(tx, parent, &f, at)?;
    }
    Ok(())
}

/// Deletes the template with its recipients and fields, and releases its file: answers the
/// blob to remove after commit, if nothing else refers to it. Documents made from it keep
/// theirs, the same file (`template_id` becomes NULL).
pub fn delete(tx: &Conn, t: &Template) -> Result<Option<String>, AppError> {
    if let Some(b) = &t.blob_id {
        crate::core::blob::rows::hold(tx, b)?;
    }
    tx.execute("DELETE FROM templates WHERE id = ?1", [t.id])?;
    crate::core::blob::rows::released(tx, t.blob_id.as_deref())
}

/// Writes a template's settings (`PATCH /api/v1/templates/{id}`), each kept when `None`.
pub fn set_settings(
    tx: &Conn,
    t: &Template,
    change: &crate::signing::documents::settings::SettingsChange,
    now: i64,
) -> Result<(), AppError> {
    let title = change.title.as_ref().unwrap_or(&t.title);
    let external_id = change.external_id.as_ref().unwrap_or(&t.external_id);
    tx.execute(
        "UPDATE templates SET title = ?2, external_id = ?3, meta = ?4, auth_options = ?5,
                updated_at = ?6, visibility = ?7 WHERE id = ?1",
        params![
            t.id,
            title,
            external_id,
            serde_json::to_string(&change.meta).unwrap_or_default(),
            serde_json::to_string(&change.auth_options).unwrap_or_default(),
            now,
            change.visibility.unwrap_or(t.visibility)
        ],
    )?;
    Ok(())
}

/// Moves template `id` from `from` (`None`: its creator's personal templates) into `to` with
/// `visibility`; false when it is no longer where it was.
pub fn into_team(
    tx: &Conn,
    id: TemplateId,
    from: Option<TeamId>,
    to: TeamId,
    visibility: Visibility,
    now: i64,
) -> Result<bool, AppError> {
    let n = match from {
        None => tx.execute(
            "UPDATE templates SET team_id = ?2, visibility = ?3, updated_at = ?4, folder_id = NULL
              WHERE id = ?1 AND team_id IS NULL",
            params![id, to, visibility, now],
        )?,
        Some(from) => tx.execute(
            "UPDATE templates SET team_id = ?2, visibility = ?3, updated_at = ?4, folder_id = NULL
              WHERE id = ?1 AND team_id = ?5",
            params![id, to, visibility, now, from],
        )?,
    };
    Ok(n == 1)
}

/// How many templates `team` has.
pub fn count_of_team(c: &Conn, team: TeamId) -> Result<i64, AppError> {
    Ok(c.query_row(
        "SELECT COUNT(*) FROM templates WHERE team_id = ?1",
        [team],
        |r| r.get(0),
    )?)
}

/// Hands every template of `team` to `heir`; how many.
pub fn hand_over(tx: &Conn, team: TeamId, heir: Heir, now: i64) -> Result<usize, AppError> {
    Ok(match heir {
        Heir::Personal(user) => tx.execute(
            "UPDATE templates SET team_id = NULL, user_id = ?2, visibility = 'EVERYONE', folder_id = NULL,
                    updated_at = ?3
              WHERE team_id = ?1",
            params![team, user, now],
        )?,
        Heir::Team(to) => tx.execute(
            "UPDATE templates SET team_id = ?2, updated_at = ?3, folder_id = NULL WHERE team_id = ?1",
            params![team, to, now],
        )?,
    })
}

/// Deletes every template of `team` with its recipients and fields (documents made from them
/// keep theirs); the files to remove after commit, those nothing else refers to any more.
pub fn delete_of_team(tx: &Conn, team: TeamId) -> Result<Vec<String>, AppError> {
    let mut stmt = tx.prepare_cached(
        "SELECT DISTINCT blob_id FROM templates WHERE team_id = ?1 AND blob_id IS NOT NULL",
    )?;
    let files = stmt
        .query_map([team], |r| r.get::<_, String>(0))?
        .collect::<Result<Vec<_>, _>>()?;
    for f in &files {
        crate::core::blob::rows::hold(tx, f)?;
    }
    tx.execute("DELETE FROM templates WHERE team_id = ?1", [team])?;
    let mut gone = Vec::new();
    for f in files {
        if crate::core::blob::rows::release(tx, &f)? {
            gone.push(f);
        }
    }
    Ok(gone)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::ids::UserId;

    /// Three templates of user 1: the first with no recipient and no file, the second with
    /// one recipient and its field, the third with two, each with a field; the second and the
    /// third share one file.
    fn templates_with_parties(conn: &Conn) {
        conn.execute_batch(
            "INSERT INTO users (id, email, username, name, password_hash, created_at, updated_at)
             VALUES (1, 'ada@x.org', 'ada', 'Ada', 'x', 0, 0);",
        )
        .unwrap();
        conn.execute_batch(
            "INSERT INTO blobs (id, size, sha256, content_type, created_at)
             VALUES ('b2', 1, 'digest-of-b2', 'application/pdf', 0);",
        )
        .unwrap();
        let meta =
            serde_json::to_string(&crate::signing::documents::meta::Meta::default()).unwrap();
        for id in 1..=3_i64 {
            conn.execute(
                "INSERT INTO templates (id, user_id, title, document_data_id, meta_id, meta,
                                        direct_link_token, created_at, updated_at)
                 VALUES (?1, 1, ?2, ?3, ?3, ?4, ?3, ?1, ?1)",
                params![id, format!("T{id}"), format!("t{id}"), meta],
            )
            .unwrap();
            if id > 1 {
                conn.execute("UPDATE templates SET blob_id = 'b2' WHERE id = ?1", [id])
                    .unwrap();
            }
            for n in 1..id {
                conn.execute(
                    "INSERT INTO recipients (template_id, email, name, role, token, created_at)
                     VALUES (?1, ?2, 'R', 'SIGNER', ?3, 0)",
                    params![id, format!("r{n}@x.org"), format!("k{id}-{n}")],
                )
                .unwrap();
                conn.execute(
                    "INSERT INTO fields (template_id, recipient_id, type, page_number, page_x,
                                         page_y, page_width, page_height, created_at)
                     VALUES (?1, (SELECT max(id) FROM recipients), 'SIGNATURE', ?2, 1, 2, 3, 4, 0)",
                    params![id, n],
                )
                .unwrap();
            }
        }
    }

    #[test]
    fn each_template_of_a_page_carries_its_own_recipients_and_fields() {
        let conn = crate::core::db::memory();
        templates_with_parties(&conn);
        let (items, total) = list(
            &conn,
            &Owner::Personal(UserId::new(1)),
            &InFolder::Any,
            10,
            0,
        )
        .unwrap();
        assert_eq!(total, 3);
        let seen = |t: &Template| {
            (
                t.id,
                t.blob_sha256.clone(),
                t.recipients
                    .iter()
                    .map(|r| r.email.clone())
                    .collect::<Vec<_>>(),
                t.fields
                    .iter()
                    .map(|f| (f.recipient_id, f.page))
                    .collect::<Vec<_>>(),
            )
        };
        for t in &items {
            let alone = owned(&conn, &Owner::Personal(UserId::new(1)), t.id).unwrap();
            assert_eq!(seen(t), seen(&alone));
            assert_eq!(t.recipients.len() as i64, t.id.get() - 1);
            assert_eq!(t.fields.len(), t.recipients.len());
        }
        assert_eq!(items.len(), 3);
        let digests: Vec<Option<&str>> = items.iter().map(|t| t.blob_sha256.as_deref()).collect();
        assert_eq!(digests, [Some("digest-of-b2"), Some("digest-of-b2"), None]);
    }

    /// A page's recipients, fields and files' digests come in one query each, whatever its
    /// size.
    #[test]
    fn a_page_costs_the_same_statements_whatever_its_size() {
        let conn = crate::core::db::memory();
        templates_with_parties(&conn);
        let run = |limit: i64| {
            list(
                &conn,
                &Owner::Personal(UserId::new(1)),
                &InFolder::Any,
                limit,
                0,
            )
            .unwrap();
            let before = crate::core::db::statements_run(&conn);
            let (items, _) = list(
                &conn,
                &Owner::Personal(UserId::new(1)),
                &InFolder::Any,
                limit,
                0,
            )
            .unwrap();
            assert_eq!(items.len() as i64, limit);
            crate::core::db::statements_run(&conn) - before
        };
        let (one, three) = (run(1), run(3));
        assert!(one > 0, "no statement was counted");
        assert_eq!(
            three, one,
            "a page of 3 ran {three} statements, a page of 1 {one}"
        );
    }
}
