//! The one ownership rule: which rows of an owned table (documents, templates, webhooks, API
//! keys) a caller reaches, and whose its new rows are. A row is personal (`team_id IS NULL`,
//! its `user_id`'s) or a team's (`team_id`), and a team's document or template carries a
//! `visibility` that decides which of the team's roles see it. `teams::access` makes an
//! `Owner` from a caller inside the transaction that uses it; every store filters with
//! `Owner::clause`, so no handler checks ownership of its own.
//!
//! The value lives in `core` because the stores that use it sit in rings below `teams`
//! (webhooks in `outbox`, API keys in `identity`); the roles' rules stay in `teams::model`.

use serde::Serialize;

use super::db::counts::{self, List};
use super::db::{Conn, ToSql, Value};
use super::error::AppError;
use super::ids::{TeamId, UserId};

/// Who in a team sees one of its documents or templates (Documenso's `visibility` names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[schema(as = TeamVisibility)]
pub enum Visibility {
    Everyone,
    ManagerAndAbove,
    Admin,
}

impl Visibility {
    pub const ALL: [Visibility; 3] = [
        Visibility::Everyone,
        Visibility::ManagerAndAbove,
        Visibility::Admin,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Visibility::Everyone => "EVERYONE",
            Visibility::ManagerAndAbove => "MANAGER_AND_ABOVE",
            Visibility::Admin => "ADMIN",
        }
    }

    pub fn parse(s: &str) -> Option<Visibility> {
        Visibility::ALL
            .into_iter()
            .find(|v| v.as_str().eq_ignore_ascii_case(s.trim()))
    }
}

crate::sql_text_enum!(Visibility);

/// Whose rows a caller reaches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Owner {
    /// The user's personal rows.
    Personal(UserId),
    /// The team's rows of a visibility in `seen`, for its member `user` (who is stamped as
    /// the creator of the rows they add).
    Team {
        team: TeamId,
        user: UserId,
        seen: Vec<Visibility>,
    },
}

/// Whether a table's rows carry a `visibility` (documents and templates) or not (webhooks,
/// API keys: a team's are its admins').
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rows {
    WithVisibility,
    WithoutVisibility,
}

impl Owner {
    /// The owner of a row as it is stored, reaching exactly that row and its workspace's: the
    /// owner a capability (a direct link, a signing token) or an event acts as, for a row
    /// it already holds.
    pub fn of_row(user: UserId, team: Option<TeamId>) -> Owner {
        match team {
            None => Owner::Personal(user),
            Some(team) => Owner::Team {
                team,
                user,
                seen: Visibility::ALL.to_vec(),
            },
        }
    }

    /// The user acting: the creator of the rows they add.
    pub fn user(&self) -> UserId {
        match self {
            Owner::Personal(user) | Owner::Team { user, .. } => *user,
        }
    }

    /// The team whose rows these are; `None` for personal ones.
    pub fn team(&self) -> Option<TeamId> {
        match self {
            Owner::Personal(_) => None,
            Owner::Team { team, .. } => Some(*team),
        }
    }

    /// Whether this owner reaches a row owned by `user` in `team` with `visibility`: the
    /// same rule as `clause`, for a row already read by another key (a capability such as an
    /// upload URL or a signing token).
    pub fn reaches(&self, user: UserId, team: Option<TeamId>, visibility: Visibility) -> bool {
        match self {
            Owner::Personal(me) => team.is_none() && user == *me,
            Owner::Team {
                team: mine, seen, ..
            } => team == Some(*mine) && seen.contains(&visibility),
        }
    }

    /// How many rows of `list` this owner reaches, with `status` or in all: the counts the
    /// triggers keep (`core::db::counts`), of the rows `clause` keeps that are listed. A team
    /// has no bookings.
    pub fn counted(&self, conn: &Conn, list: List, status: Option<&str>) -> Result<i64, AppError> {
        match self {
            Owner::Personal(user) => counts::listed(conn, user.get(), list, status),
            Owner::Team { team, seen, .. } => {
                let names: Vec<&str> = seen.iter().map(|v| v.as_str()).collect();
                counts::team_listed(conn, team.get(), list, &names, status)
            }
        }
    }

    /// The condition, on the row `alias` (empty: unqualified columns), that keeps the rows
    /// this owner reaches, in parentheses; its parameters are appended to `args` and numbered
    /// after those already there. The visibilities are the enum's own names, written into
    /// the statement (three variants, so a prepared statement per role at most).
    pub fn clause(&self, alias: &str, rows: Rows, args: &mut Vec<Value>) -> String {
        let col = |name: &str| {
            if alias.is_empty() {
                name.to_string()
            } else {
                format!("{alias}.{name}")
            }
        };
        match self {
            Owner::Personal(user) => {
                args.push(user.to_sql());
                format!(
                    "({} IS NULL AND {} = ?{})",
                    col("team_id"),
                    col("user_id"),
                    args.len()
                )
            }
            Owner::Team { team, seen, .. } => {
                args.push(team.to_sql());
                let mut s = format!("({} = ?{}", col("team_id"), args.len());
                if rows == Rows::WithVisibility && seen.len() < Visibility::ALL.len() {
                    let names: Vec<String> =
                        seen.iter().map(|v| format!("'{}'", v.as_str())).collect();
                    s.push_str(&format!(
                        " AND {} IN ({})",
                        col("visibility"),
                        if names.is_empty() {
                            "NULL".to_string()
                        } else {
                            names.join(", ")
                        }
                    ));
                }
                s.push(')');
                s
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::core::db::{memory, params};

    fn team(seen: &[Visibility]) -> Owner {
        Owner::Team {
            team: TeamId::new(7),
            user: UserId::new(2),
            seen: seen.to_vec(),
        }
    }

    #[test]
    fn the_clause_names_the_columns_and_numbers_after_the_arguments_already_there() {
        let mut args = vec![5i64.to_sql()];
        let personal = Owner::Personal(UserId::new(3)).clause("d", Rows::WithVisibility, &mut args);
        assert_eq!(personal, "(d.team_id IS NULL AND d.user_id = ?2)");
        assert_eq!(args.len(), 2);

        let mut args = Vec::new();
        let all = team(&Visibility::ALL).clause("", Rows::WithVisibility, &mut args);
        assert_eq!(all, "(team_id = ?1)", "an admin sees every visibility");
        let member = team(&[Visibility::Everyone]).clause("w", Rows::WithVisibility, &mut args);
        assert_eq!(member, "(w.team_id = ?2 AND w.visibility IN ('EVERYONE'))");
        let hooks = team(&[Visibility::Everyone]).clause("w", Rows::WithoutVisibility, &mut args);
        assert_eq!(hooks, "(w.team_id = ?3)");
    }

    /// The clause and `reaches` keep the same rows: each owner against every kind of row.
    #[test]
    fn the_clause_keeps_exactly_the_rows_reaches_names() {
        let c = memory();
        c.execute_batch(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, user_id INTEGER, team_id INTEGER, visibility TEXT)",
        )
        .unwrap();
        let mut rows = Vec::new();
        let mut id = 0;
        for user in [1, 2] {
            for team in [None, Some(7), Some(8)] {
                for v in Visibility::ALL {
                    id += 1;
                    c.execute(
                        "INSERT INTO t VALUES (?1, ?2, ?3, ?4)",
                        params![id, user, team, v],
                    )
                    .unwrap();
                    rows.push((id, UserId::new(user), team.map(TeamId::new), v));
                }
            }
        }
        let owners = [
            Owner::Personal(UserId::new(1)),
            team(&Visibility::ALL),
            team(&[Visibility::Everyone, Visibility::ManagerAndAbove]),
            team(&[Visibility::Everyone]),
            team(&[]),
        ];
        for owner in owners {
            let mut args = Vec::new();
            let sql = format!(
                "SELECT id FROM t WHERE {} ORDER BY id",
                owner.clause("", Rows::WithVisibility, &mut args)
            );
            let mut stmt = c.prepare(&sql).unwrap();
            let got: Vec<i64> = stmt
                .query_map(crate::core::db::params_from_iter(args), |r| r.get(0))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            let want: Vec<i64> = rows
                .iter()
                .filter(|(_, u, t, v)| owner.reaches(*u, *t, *v))
                .map(|r| r.0)
                .collect();
            assert_eq!(got, want, "{owner:?}");
        }
    }

    #[test]
    fn every_owners_counts_follow_every_change_of_the_rows() {
        counts_follow_every_change_of_the_rows(&memory());
    }

    /// The same on PostgreSQL, whose triggers are the schema's rewritten (`db::dialect`).
    #[test]
    fn on_postgres_every_owners_counts_follow_every_change_of_the_rows() {
        let Some(url) = crate::core::db::testing::postgres_database("owner") else {
            return;
        };
        let db =
            crate::core::db::Db::open_postgres(&url, 1, std::time::Duration::from_secs(10), true)
                .unwrap();
        db.write_blocking(|c| {
            counts_follow_every_change_of_the_rows(c);
            Ok(())
        })
        .unwrap();
    }

    /// Every owner's count, read through `counted`, equals a count of the rows `clause` keeps
    /// that are listed, after each kind of change the rows see: inserts in two teams with each
    /// visibility, status changes, hiding, a row moved into a team, between teams and back,
    /// visibility and creator changes, deletes, a creator's removal and a team's deletion.
    /// Starts from a database without users (the PostgreSQL upgrade test runs it too).
    pub(crate) fn counts_follow_every_change_of_the_rows(conn: &Conn) {
        conn.execute_batch(
            "INSERT INTO users (id, email, username, name, password_hash, created_at, updated_at)
             VALUES (1, 'a@x.org', 'a', 'A', 'x', 0, 0), (2, 'b@x.org', 'b', 'B', 'x', 0, 0),
                    (3, 'c@x.org', 'c', 'C', 'x', 0, 0);
             INSERT INTO teams (id, name, slug, created_at, updated_at)
             VALUES (7, 'Seven', 'seven', 0, 0), (8, 'Eight', 'eight', 0, 0);",
        )
        .unwrap();
        let doc = |id: i64, user: i64, team: Option<i64>, seen: Visibility, status: &str| {
            conn.execute(
                "INSERT INTO documents (id, user_id, team_id, visibility, title, status,
                                        document_data_id, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, 't', ?5, ?6, 0, 0)",
                params![id, user, team, seen, status, format!("d{id}")],
            )
            .unwrap();
        };
        let template = |id: i64, user: i64, team: Option<i64>, seen: Visibility| {
            conn.execute(
                "INSERT INTO templates (id, user_id, team_id, visibility, title, document_data_id,
                                        meta_id, direct_link_token, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, 't', ?5, ?5, ?5, 0, 0)",
                params![id, user, team, seen, format!("t{id}")],
            )
            .unwrap();
        };
        let run = |sql: &str| {
            conn.execute_batch(sql).unwrap();
        };
        let owners: Vec<Owner> = {
            let mut owners: Vec<Owner> = (1..=3).map(|u| Owner::Personal(UserId::new(u))).collect();
            for t in [7, 8] {
                for seen in [
                    &Visibility::ALL[..],
                    &[Visibility::Everyone, Visibility::ManagerAndAbove],
                    &[Visibility::Everyone],
                    &[],
                ] {
                    owners.push(Owner::Team {
                        team: TeamId::new(t),
                        user: UserId::new(1),
                        seen: seen.to_vec(),
                    });
                }
            }
            owners
        };
        let check = |step: &str| {
            for owner in &owners {
                for status in [None, Some("DRAFT"), Some("PENDING"), Some("COMPLETED")] {
                    let mut args = Vec::new();
                    let clause = owner.clause("d", Rows::WithVisibility, &mut args);
                    args.push(status.to_sql());
                    let real: i64 = conn
                        .query_row(
                            &format!(
                                "SELECT count(*) FROM documents d WHERE d.hidden = 0 AND {clause}
                                  AND (d.status = ?{n} OR ?{n} IS NULL)",
                                n = args.len()
                            ),
                            crate::core::db::params_from_iter(args),
                            |r| r.get(0),
                        )
                        .unwrap();
                    let counted = owner.counted(conn, List::Documents, status).unwrap();
                    assert_eq!(counted, real, "{step}: documents of {owner:?}, {status:?}");
                }
                let mut args = Vec::new();
                let clause = owner.clause("t", Rows::WithVisibility, &mut args);
                let real: i64 = conn
                    .query_row(
                        &format!("SELECT count(*) FROM templates t WHERE {clause}"),
                        crate::core::db::params_from_iter(args),
                        |r| r.get(0),
                    )
                    .unwrap();
                let counted = owner.counted(conn, List::Templates, None).unwrap();
                assert_eq!(counted, real, "{step}: templates of {owner:?}");
                if owner.team().is_some() {
                    assert_eq!(owner.counted(conn, List::Bookings, None).unwrap(), 0);
                }
            }
        };

        let mut id = 0;
        for (user, team) in [
            (1, None),
            (2, None),
            (1, Some(7)),
            (2, Some(7)),
            (3, Some(8)),
        ] {
            for seen in Visibility::ALL {
                for status in ["DRAFT", "PENDING"] {
                    id += 1;
                    doc(id, user, team, seen, status);
                }
                template(id, user, team, seen);
            }
        }
        check("inserts");
        let team_docs = |team: i64| Owner::Team {
            team: TeamId::new(team),
            user: UserId::new(1),
            seen: Visibility::ALL.to_vec(),
        };
        assert_eq!(
            team_docs(7).counted(conn, List::Documents, None).unwrap(),
            12
        );
        assert_eq!(
            Owner::Personal(UserId::new(1))
                .counted(conn, List::Documents, None)
                .unwrap(),
            6,
            "a team's documents are not counted in their creator's personal list"
        );

        run("UPDATE documents SET status = 'PENDING' WHERE id IN (1, 13, 14, 25)");
        check("status changes");
        run(
            "UPDATE documents SET status = 'COMPLETED' WHERE id IN (2, 15, 26);
             UPDATE documents SET hidden = 1 WHERE id IN (2, 15);",
        );
        check("hiding");
        run("UPDATE documents SET title = 'u', hidden = 1 WHERE id = 15");
        check("a change of other columns");
        run("UPDATE documents SET team_id = 7, visibility = 'ADMIN' WHERE id = 3");
        check("a personal document moved into a team");
        run("UPDATE documents SET team_id = 8 WHERE id = 3");
        check("moved to another team");
        run("UPDATE documents SET team_id = NULL WHERE id = 3");
        check("moved back to personal");
        run(
            "UPDATE documents SET visibility = 'MANAGER_AND_ABOVE' WHERE id IN (13, 16);
             UPDATE documents SET visibility = 'EVERYONE', status = 'DRAFT' WHERE id = 17;",
        );
        check("visibility changes");
        run("UPDATE documents SET user_id = 3 WHERE id IN (4, 18)");
        check("another creator");
        run(
            "UPDATE templates SET team_id = 7, visibility = 'ADMIN' WHERE id = 2;
             UPDATE templates SET visibility = 'EVERYONE' WHERE id = 14;
             UPDATE templates SET team_id = 8 WHERE id = 16;
             UPDATE templates SET team_id = NULL WHERE id = 18;
             UPDATE templates SET user_id = 3 WHERE id IN (4, 20);",
        );
        check("templates moved and changed");
        run("DELETE FROM documents WHERE id IN (5, 14, 15, 19, 26);
             DELETE FROM templates WHERE id IN (6, 20, 26);");
        check("deletes");
        run("DELETE FROM users WHERE id = 2");
        check("a creator removed");
        run("DELETE FROM documents WHERE team_id = 8;
             UPDATE templates SET team_id = NULL WHERE team_id = 8;
             DELETE FROM teams WHERE id = 8;");
        check("a team deleted");
        let left: i64 = conn
            .query_row(
                "SELECT count(*) FROM team_list_counts WHERE team_id = 8",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(left, 0, "a deleted team's counts go with it");
    }

    /// Every owner's page of documents (newest first by creation or by last change, with a
    /// status or without) and of templates, as the stores ask for it with `clause`, is read in
    /// order from its index, without a sort: a user's documents from indexes of their personal
    /// rows only, a team's from indexes of its rows that carry the visibility, so that a role
    /// skips what it does not see inside the index.
    #[test]
    fn every_owners_page_is_read_in_order_from_its_index() {
        let conn = memory();
        let plan = |sql: &str, args: Vec<Value>| -> String {
            let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
            let rows = stmt
                .query_map(crate::core::db::params_from_iter(args), |r| {
                    r.get::<_, String>(3)
                })
                .unwrap();
            rows.collect::<Result<Vec<_>, _>>().unwrap().join("; ")
        };
        let index = |plan: &str| -> String {
            let at = plan.find("INDEX ").map_or(plan.len(), |i| i + 6);
            plan[at..]
                .split_whitespace()
                .next()
                .unwrap_or("")
                .to_string()
        };
        let member = |seen: &[Visibility]| Owner::Team {
            team: TeamId::new(7),
            user: UserId::new(1),
            seen: seen.to_vec(),
        };
        let owners = [
            (Owner::Personal(UserId::new(1)), "documents"),
            (member(&Visibility::ALL), "documents_team"),
            (
                member(&[Visibility::Everyone, Visibility::ManagerAndAbove]),
                "documents_team",
            ),
            (member(&[Visibility::Everyone]), "documents_team"),
        ];
        for (owner, prefix) in &owners {
            for (order, name) in [("created_at", "listed"), ("updated_at", "changed")] {
                for status in [None, Some("PENDING")] {
                    let mut args = Vec::new();
                    let mut sql = format!(
                        "SELECT d.id, d.title FROM documents d WHERE d.hidden = 0 AND {}",
                        owner.clause("d", Rows::WithVisibility, &mut args)
                    );
                    if let Some(status) = status {
                        args.push(status.to_sql());
                        sql.push_str(&format!(" AND d.status = ?{}", args.len()));
                    }
                    sql.push_str(&format!(
                        " ORDER BY d.{order} DESC, d.id DESC LIMIT ?{} OFFSET ?{}",
                        args.len() + 1,
                        args.len() + 2
                    ));
                    args.push(10.to_sql());
                    args.push(0.to_sql());
                    let plan = plan(&sql, args);
                    let want = match status {
                        Some(_) => format!("{prefix}_{name}_status"),
                        None => format!("{prefix}_{name}"),
                    };
                    assert_eq!(index(&plan), want, "{owner:?}: {sql}: {plan}");
                    assert!(!plan.contains("TEMP B-TREE"), "{owner:?}: {sql}: {plan}");
                }
            }
        }
        for (owner, want) in [
            (Owner::Personal(UserId::new(1)), "templates_user"),
            (member(&Visibility::ALL), "templates_team"),
            (member(&[Visibility::Everyone]), "templates_team"),
        ] {
            let mut args = Vec::new();
            let sql = format!(
                "SELECT t.id, t.title FROM templates t WHERE {}
                  ORDER BY t.created_at DESC, t.id DESC LIMIT 10 OFFSET 0",
                owner.clause("t", Rows::WithVisibility, &mut args)
            );
            let plan = plan(&sql, args);
            assert_eq!(index(&plan), want, "{owner:?}: {plan}");
            assert!(!plan.contains("TEMP B-TREE"), "{owner:?}: {plan}");
        }
    }
}
