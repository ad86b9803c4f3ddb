//! SQL that moves documents between workspaces: one personal document into a team, and every
//! document of a team that ends (handed to a user's personal documents or another team, or
//! deleted). Each statement says in its WHERE where the rows must still be, so a document that
//! moved or was sent meanwhile is left alone and the caller sees it.

use crate::core::db::{Conn, Row};
use crate::core::error::AppError;
use crate::core::ids::{DocumentId, TeamId, UserId};
use crate::core::owner::Visibility;
use crate::params;

/// Where a team's rows go when the team ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Heir {
    /// The user's personal rows (they become the rows' holder).
    Personal(UserId),
    /// Another team's rows, with the visibility each had.
    Team(TeamId),
}

/// Moves personal document `id` into `team` with `visibility`; false when it is no longer a
/// personal document.
pub fn into_team(
    tx: &Conn,
    id: DocumentId,
    team: TeamId,
    visibility: Visibility,
    now: i64,
) -> Result<bool, AppError> {
    let n = tx.execute(
        "UPDATE documents SET team_id = ?2, visibility = ?3, updated_at = ?4, folder_id = NULL
          WHERE id = ?1 AND team_id IS NULL",
        params![id, team, visibility, now],
    )?;
    Ok(n == 1)
}

/// How many of `team`'s documents there are, and how many of them wait for signatures.
pub fn count_of_team(c: &Conn, team: TeamId) -> Result<(i64, i64), AppError> {
    Ok(c.query_row(
        "SELECT COUNT(*), CAST(COALESCE(SUM(CASE WHEN status = 'PENDING' THEN 1 ELSE 0 END), 0)
                                AS BIGINT)
           FROM documents WHERE team_id = ?1",
        [team],
        |r: &Row<'_>| Ok((r.get(0)?, r.get(1)?)),
    )?)
}

/// Hands every document of `team` but the pending ones to `heir`; how many moved.
pub fn hand_over(tx: &Conn, team: TeamId, heir: Heir, now: i64) -> Result<usize, AppError> {
    Ok(match heir {
        Heir::Personal(user) => tx.execute(
            "UPDATE documents SET team_id = NULL, user_id = ?2, visibility = 'EVERYONE',
                    updated_at = ?3, folder_id = NULL
              WHERE team_id = ?1 AND status <> 'PENDING'",
            params![team, user, now],
        )?,
        Heir::Team(to) => tx.execute(
            "UPDATE documents SET team_id = ?2, updated_at = ?3, folder_id = NULL
              WHERE team_id = ?1 AND status <> 'PENDING'",
            params![team, to, now],
        )?,
    })
}

/// The files `team`'s documents refer to (their PDFs and sealed PDFs), held for the deletion
/// that follows (`core::blob::rows::hold`).
pub fn files_of_team(tx: &Conn, team: TeamId) -> Result<Vec<String>, AppError> {
    let mut stmt = tx.prepare_cached(
        "SELECT blob_id FROM documents WHERE team_id = ?1 AND blob_id IS NOT NULL
         UNION SELECT sealed_blob_id FROM documents WHERE team_id = ?1 AND sealed_blob_id IS NOT NULL",
    )?;
    let files = stmt
        .query_map([team], |r| r.get::<_, String>(0))?
        .collect::<Result<Vec<_>, _>>()?;
    for f in &files {
        crate::core::blob::rows::hold(tx, f)?;
    }
    Ok(files)
}

/// Deletes every document of `team` but the pending ones, finished ones included, with their
/// recipients, fields and audit logs; how many. The caller releases their files
/// (`files_of_team`, read before).
pub fn delete_of_team(tx: &Conn, team: TeamId) -> Result<usize, AppError> {
    Ok(tx.execute(
        "DELETE FROM documents WHERE team_id = ?1 AND status <> 'PENDING'",
        [team],
    )?)
}
