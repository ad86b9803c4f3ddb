//! How many rows each user's paged lists hold (`list_counts`, personal rows only since
//! migration 26) and each team's (`team_list_counts`, by visibility): kept by triggers in the
//! same transaction as the rows they count (schema.sql, migrations 18 and 26), read here so
//! that a page's `totalPages` costs a few rows instead of a count over the whole history.
//! `Owner::counted` (core::owner) reads the one its owner names.

use super::{Conn, ToSql, params, params_from_iter};
use crate::core::error::AppError;

/// A list whose rows are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum List {
    /// Documents not hidden after completion, by status.
    Documents,
    /// Templates (no status).
    Templates,
    /// Bookings, by status.
    Bookings,
}

impl List {
    fn as_str(self) -> &'static str {
        match self {
            List::Documents => "documents",
            List::Templates => "templates",
            List::Bookings => "bookings",
        }
    }
}

/// How many rows of `list` `user` has, with `status` or in all.
pub fn listed(conn: &Conn, user: i64, list: List, status: Option<&str>) -> Result<i64, AppError> {
    // `sum` is numeric on PostgreSQL; the cast keeps it an integer on both.
    Ok(conn.query_row(
        "SELECT CAST(coalesce(sum(n), 0) AS BIGINT) FROM list_counts
          WHERE user_id = ?1 AND list = ?2 AND (status = ?3 OR ?3 IS NULL)",
        params![user, list.as_str(), status],
        |r| r.get(0),
    )?)
}

/// How many rows of `list` `team` has of the visibilities `seen` (their SQL names), with
/// `status` or in all.
pub fn team_listed(
    conn: &Conn,
    team: i64,
    list: List,
    seen: &[&str],
    status: Option<&str>,
) -> Result<i64, AppError> {
    if seen.is_empty() {
        return Ok(0);
    }
    let mut args = vec![team.to_sql(), list.as_str().to_sql(), status.to_sql()];
    let mut names = Vec::with_capacity(seen.len());
    for name in seen {
        args.push(name.to_sql());
        names.push(format!("?{}", args.len()));
    }
    Ok(conn.query_row(
        &format!(
            "SELECT CAST(coalesce(sum(n), 0) AS BIGINT) FROM team_list_counts
              WHERE team_id = ?1 AND list = ?2 AND visibility IN ({})
                AND (status = ?3 OR ?3 IS NULL)",
            names.join(", ")
        ),
        params_from_iter(args),
        |r| r.get(0),
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The counts follow every change the lists see: inserts, status changes, hiding,
    /// deletes, and a user's removal; each equals a count of the rows themselves.
    #[test]
    fn the_counts_follow_every_change_of_the_rows() {
        let conn = super::super::memory();
        conn.execute_batch(
            "INSERT INTO users (id, email, username, name, password_hash, created_at, updated_at)
             VALUES (1, 'a@x.org', 'a', 'A', 'x', 0, 0), (2, 'b@x.org', 'b', 'B', 'x', 0, 0);",
        )
        .unwrap();
        let doc = |id: i64, user: i64, status: &str| {
            conn.execute(
                "INSERT INTO documents (id, user_id, title, status, document_data_id, created_at, updated_at)
                 VALUES (?1, ?2, 't', ?3, ?4, 0, 0)",
                params![id, user, status, format!("d{id}")],
            )
            .unwrap();
        };
        let check = |conn: &Conn| {
            for user in [1, 2] {
                for status in [None, Some("DRAFT"), Some("PENDING"), Some("COMPLETED")] {
                    let counted = listed(conn, user, List::Documents, status).unwrap();
                    let real: i64 = conn
                        .query_row(
                            "SELECT count(*) FROM documents WHERE user_id = ?1 AND hidden = 0
                              AND (status = ?2 OR ?2 IS NULL)",
                            params![user, status],
                            |r| r.get(0),
                        )
                        .unwrap();
                    assert_eq!(counted, real, "user {user}, {status:?}");
                }
            }
        };
        doc(1, 1, "DRAFT");
        doc(2, 1, "DRAFT");
        doc(3, 1, "PENDING");
        doc(4, 2, "DRAFT");
        check(&conn);
        assert_eq!(listed(&conn, 1, List::Documents, None).unwrap(), 3);
        conn.execute("UPDATE documents SET status = 'PENDING' WHERE id = 1", [])
            .unwrap();
        check(&conn);
        conn.execute("UPDATE documents SET status = 'COMPLETED' WHERE id = 3", [])
            .unwrap();
        conn.execute("UPDATE documents SET hidden = 1 WHERE id = 3", [])
            .unwrap();
        check(&conn);
        // A change that is not of the counted columns leaves the counts alone.
        conn.execute(
            "UPDATE documents SET title = 'u', hidden = 1 WHERE id = 3",
            [],
        )
        .unwrap();
        conn.execute("DELETE FROM documents WHERE id = 2", [])
            .unwrap();
        check(&conn);
        assert_eq!(listed(&conn, 1, List::Documents, None).unwrap(), 1);
        assert_eq!(
            listed(&conn, 1, List::Documents, Some("PENDING")).unwrap(),
            1
        );

        conn.execute_batch(
            "INSERT INTO templates (id, user_id, title, document_data_id, meta_id, direct_link_token,
                                    created_at, updated_at)
             VALUES (1, 1, 't', 't1', 'm1', 'l1', 0, 0), (2, 1, 'u', 't2', 'm2', 'l2', 0, 0);
             DELETE FROM templates WHERE id = 1;",
        )
        .unwrap();
        assert_eq!(listed(&conn, 1, List::Templates, None).unwrap(), 1);

        conn.execute("DELETE FROM users WHERE id = 2", []).unwrap();
        assert_eq!(listed(&conn, 2, List::Documents, None).unwrap(), 0);
        let left: i64 = conn
            .query_row(
                "SELECT count(*) FROM list_counts WHERE user_id = 2",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(left, 0, "a removed user's counts go with them");
    }
}
