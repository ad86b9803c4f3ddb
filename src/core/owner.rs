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

use super::db::{ToSql, Value};
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
mod tests {
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
}
