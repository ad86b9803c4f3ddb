//! SQL for bulk sends (`bulk_sends`, `bulk_send_rows`, v32). A row changes status only from
//! PENDING, by a statement that says so, so whoever changes it (the node that sends it, or a
//! cancel) is the only one to.

use crate::core::db::{Conn, OptionalExtension, ToSql, params_from_iter};
use crate::core::error::AppError;
use crate::core::ids::{BulkSendId, DocumentId, TeamId, UserId};
use crate::core::owner::{Owner, Rows};
use crate::params;

use super::model::{Counts, RowStatus, Run, StoredRow};

const COLUMNS: &str = "b.id, b.template_id, b.template_title, b.user_id, b.team_id, b.visibility, \
                       b.file_name, b.send_email, b.status, b.created_at, b.finished_at";

fn run(r: &crate::core::db::Row<'_>) -> crate::core::db::Result<Run> {
    Ok(Run {
        id: r.get(0)?,
        template_id: r.get(1)?,
        template_title: r.get(2)?,
        user_id: r.get(3)?,
        team_id: r.get(4)?,
        visibility: r.get(5)?,
        file_name: r.get(6)?,
        send_email: r.get::<_, i64>(7)? != 0,
        status: r.get(8)?,
        created_at: r.get(9)?,
        finished_at: r.get(10)?,
    })
}

/// What a new run is.
pub struct NewRun<'a> {
    pub template: &'a crate::signing::templates::model::Template,
    pub file_name: &'a str,
    pub send_email: bool,
}

/// A new RUNNING run of `owner`'s (its team's, with the template's visibility).
pub fn insert(
    tx: &Conn,
    owner: &Owner,
    new: &NewRun<'_>,
    now: i64,
) -> Result<BulkSendId, AppError> {
    let visibility = new.template.visibility;
    Ok(tx.query_row(
        "INSERT INTO bulk_sends (template_id, template_title, user_id, team_id, visibility,
                                 file_name, send_email, status, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'RUNNING', ?8) RETURNING id",
        params![
            new.template.id,
            new.template.title,
            owner.user(),
            owner.team(),
            visibility,
            new.file_name,
            i64::from(new.send_email),
            now
        ],
        |r| r.get(0),
    )?)
}

/// Row `line` of run `id`.
pub fn insert_row(
    tx: &Conn,
    id: BulkSendId,
    line: u64,
    request: &crate::signing::templates::row::Row,
    status: RowStatus,
    reason: Option<&str>,
) -> Result<(), AppError> {
    let request = serde_json::to_string(request).map_err(AppError::internal)?;
    tx.execute(
        "INSERT INTO bulk_send_rows (bulk_send_id, line, request, status, reason)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![id, line as i64, request, status, reason],
    )?;
    Ok(())
}

/// Run `id` if `owner` reaches it, else a 404.
pub fn owned(conn: &Conn, owner: &Owner, id: BulkSendId) -> Result<Run, AppError> {
    let mut args = vec![id.to_sql()];
    let seen = owner.clause("b", Rows::WithVisibility, &mut args);
    conn.query_row(
        &format!("SELECT {COLUMNS} FROM bulk_sends b WHERE b.id = ?1 AND {seen}"),
        params_from_iter(args),
        run,
    )
    .optional()?
    .ok_or_else(|| AppError::not_found("bulk send"))
}

/// Run `id` as stored, whoever's it is (the worker's read).
pub fn get(conn: &Conn, id: BulkSendId) -> Result<Option<Run>, AppError> {
    Ok(conn
        .query_row(
            &format!("SELECT {COLUMNS} FROM bulk_sends b WHERE b.id = ?1"),
            [id],
            run,
        )
        .optional()?)
}

/// The runs `owner` reaches, newest first: `limit` from `offset`.
pub fn list(conn: &Conn, owner: &Owner, limit: i64, offset: i64) -> Result<Vec<Run>, AppError> {
    let mut args = Vec::new();
    let seen = owner.clause("b", Rows::WithVisibility, &mut args);
    args.push(limit.to_sql());
    let l = args.len();
    args.push(offset.to_sql());
    let o = args.len();
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM bulk_sends b WHERE {seen}
          ORDER BY b.created_at DESC, b.id DESC LIMIT ?{l} OFFSET ?{o}"
    ))?;
    let rows = stmt.query_map(params_from_iter(args), run)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// How many runs `owner` reaches.
pub fn count(conn: &Conn, owner: &Owner) -> Result<i64, AppError> {
    let mut args = Vec::new();
    let seen = owner.clause("b", Rows::WithVisibility, &mut args);
    Ok(conn.query_row(
        &format!("SELECT count(*) FROM bulk_sends b WHERE {seen}"),
        params_from_iter(args),
        |r| r.get(0),
    )?)
}

/// The rows of run `id` in each status.
pub fn counts(conn: &Conn, id: BulkSendId) -> Result<Counts, AppError> {
    let mut stmt = conn.prepare_cached(
        "SELECT status, CAST(count(*) AS BIGINT) FROM bulk_send_rows
          WHERE bulk_send_id = ?1 GROUP BY status",
    )?;
    let mut out = Counts::default();
    for r in stmt.query_map([id], |r| {
        Ok((r.get::<_, RowStatus>(0)?, r.get::<_, i64>(1)?))
    })? {
        let (status, n) = r?;
        out.add(status, n as u64);
    }
    Ok(out)
}

fn stored_row(r: &crate::core::db::Row<'_>) -> crate::core::db::Result<StoredRow> {
    let request: String = r.get(1)?;
    Ok(StoredRow {
        line: r.get::<_, i64>(0)? as u64,
        request: serde_json::from_str(&request).unwrap_or_default(),
        status: r.get(2)?,
        reason: r.get(3)?,
        document_id: r.get(4)?,
        done_at: r.get(5)?,
    })
}

const ROW_COLUMNS: &str = "line, request, status, reason, document_id, done_at";

/// Every row of run `id`, in the file's order.
pub fn rows(conn: &Conn, id: BulkSendId) -> Result<Vec<StoredRow>, AppError> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {ROW_COLUMNS} FROM bulk_send_rows WHERE bulk_send_id = ?1 ORDER BY line"
    ))?;
    let rows = stmt.query_map([id], stored_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The ids of the runs still RUNNING, oldest first (at most `limit`).
pub fn running(conn: &Conn, limit: i64) -> Result<Vec<BulkSendId>, AppError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id FROM bulk_sends WHERE status = 'RUNNING' ORDER BY id LIMIT ?1",
    )?;
    let rows = stmt.query_map([limit], |r| r.get(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The first PENDING row of run `id`; on PostgreSQL locked for this transaction and passed
/// over while another node's transaction holds it.
pub fn next_pending(tx: &Conn, id: BulkSendId) -> Result<Option<StoredRow>, AppError> {
    let sql = format!(
        "SELECT {ROW_COLUMNS} FROM bulk_send_rows
          WHERE bulk_send_id = ?1 AND status = 'PENDING' ORDER BY line LIMIT 1{}",
        tx.claim_clause(None)
    );
    Ok(tx.query_row(&sql, [id], stored_row).optional()?)
}

/// Moves row `line` of run `id` from PENDING to `status`; answers whether this call did.
pub fn settle(
    tx: &Conn,
    id: BulkSendId,
    line: u64,
    status: RowStatus,
    reason: Option<&str>,
    document: Option<DocumentId>,
    now: i64,
) -> Result<bool, AppError> {
    let n = tx.execute(
        "UPDATE bulk_send_rows SET status = ?3, reason = ?4, document_id = ?5, done_at = ?6
          WHERE bulk_send_id = ?1 AND line = ?2 AND status = 'PENDING'",
        params![id, line as i64, status, reason, document, now],
    )?;
    Ok(n == 1)
}

/// Marks run `id` DONE once no row is PENDING; answers whether this call did.
pub fn finish_if_done(tx: &Conn, id: BulkSendId, now: i64) -> Result<bool, AppError> {
    let n = tx.execute(
        "UPDATE bulk_sends SET status = 'DONE', finished_at = ?2
          WHERE id = ?1 AND status = 'RUNNING'
            AND NOT EXISTS (SELECT 1 FROM bulk_send_rows
                             WHERE bulk_send_id = ?1 AND status = 'PENDING')",
        params![id, now],
    )?;
    Ok(n == 1)
}

/// Cancels run `id` if it is RUNNING: its PENDING rows become CANCELLED. Answers how many
/// rows it stopped, or `None` when the run was not running.
pub fn cancel(tx: &Conn, id: BulkSendId, now: i64) -> Result<Option<usize>, AppError> {
    let n = tx.execute(
        "UPDATE bulk_sends SET status = 'CANCELLED', finished_at = ?2
          WHERE id = ?1 AND status = 'RUNNING'",
        params![id, now],
    )?;
    if n == 0 {
        return Ok(None);
    }
    Ok(Some(tx.execute(
        "UPDATE bulk_send_rows SET status = 'CANCELLED', done_at = ?2
          WHERE bulk_send_id = ?1 AND status = 'PENDING'",
        params![id, now],
    )?))
}

/// The times (oldest first) of the rows sent since `since` by the runs of the workspace of
/// `user` (its team's when `team` is set).
pub fn sent_since(
    conn: &Conn,
    user: UserId,
    team: Option<TeamId>,
    since: i64,
) -> Result<Vec<i64>, AppError> {
    let mut args = vec![since.to_sql()];
    let mine = Owner::of_row(user, team).clause("b", Rows::WithoutVisibility, &mut args);
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT r.done_at FROM bulk_send_rows r JOIN bulk_sends b ON b.id = r.bulk_send_id
          WHERE r.status = 'SENT' AND r.done_at >= ?1 AND {mine} ORDER BY r.done_at"
    ))?;
    let rows = stmt.query_map(params_from_iter(args), |r| r.get(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}
