//! Schema versions: a new database gets `schema.sql`; an older one gets the numbered migrations
//! after its own version, in order, each in one transaction, after a backup copy of the file.

use std::path::Path;

use rusqlite::{Connection, TransactionBehavior};

/// The schema of a new database (the repository's `schema.sql`).
pub const SCHEMA: &str = include_str!("../../../schema.sql");

/// The version `SCHEMA` describes.
pub const LATEST: i64 = 36;

/// `(version, sql)`: what turns version `n - 1` into version `n`.
pub const MIGRATIONS: &[(i64, &str)] = &[
    (
        2,
        include_str!("migrations/0002_client_scopes_and_blobs.sql"),
    ),
    (3, include_str!("migrations/0003_oauth_and_bookings.sql")),
    (4, include_str!("migrations/0004_documents.sql")),
    (5, include_str!("migrations/0005_child_key_indexes.sql")),
    (6, include_str!("migrations/0006_signing.sql")),
    (7, include_str!("migrations/0007_sealing_retries.sql")),
    (8, include_str!("migrations/0008_webhook_grants.sql")),
    (9, include_str!("migrations/0009_recipient_auth.sql")),
    (10, include_str!("migrations/0010_openid.sql")),
    (11, include_str!("migrations/0011_integrations.sql")),
    (12, include_str!("migrations/0012_assistant_role.sql")),
    (13, include_str!("migrations/0013_auth_time.sql")),
    (14, include_str!("migrations/0014_shared_secrets.sql")),
    (15, include_str!("migrations/0015_rate_windows.sql")),
    (16, include_str!("migrations/0016_pending_documents.sql")),
    (17, include_str!("migrations/0017_session_confirmation.sql")),
    (18, include_str!("migrations/0018_list_counts.sql")),
    (19, include_str!("migrations/0019_dashboard.sql")),
    (20, include_str!("migrations/0020_settings.sql")),
    (21, include_str!("migrations/0021_account_links.sql")),
    (22, include_str!("migrations/0022_direct_links.sql")),
    (23, include_str!("migrations/0023_rendered_bookings.sql")),
    (24, include_str!("migrations/0024_mail_links.sql")),
    (25, include_str!("migrations/0025_teams.sql")),
    (26, include_str!("migrations/0026_team_counts.sql")),
    (27, include_str!("migrations/0027_team_settings.sql")),
    (28, include_str!("migrations/0028_languages.sql")),
    (29, include_str!("migrations/0029_test_deliveries.sql")),
    (30, include_str!("migrations/0030_deadlines.sql")),
    (31, include_str!("migrations/0031_emailed_codes.sql")),
    (32, include_str!("migrations/0032_bulk_sends.sql")),
    (33, include_str!("migrations/0033_cal_hooks.sql")),
    (34, include_str!("migrations/0034_frame_origins.sql")),
    (35, include_str!("migrations/0035_folders.sql")),
    (36, include_str!("migrations/0036_attachments.sql")),
];

#[derive(Debug, thiserror::Error)]
pub enum MigrateError {
    #[error("database error while migrating: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error(
        "the database has schema version {found}, newer than this docket knows ({LATEST}); run a newer docket"
    )]
    TooNew { found: i64 },
    #[error("could not back up the database before upgrading it: {0}")]
    Backup(String),
}

pub fn version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("PRAGMA user_version", [], |r| r.get(0))
}

/// Brings the database on `conn` to `LATEST`. Safe to run from several processes at once:
/// each step re-reads the version inside its write transaction.
pub fn run(conn: &mut Connection, backup_dir: &Path) -> Result<(), MigrateError> {
    let found = version(conn)?;
    if found > LATEST {
        return Err(MigrateError::TooNew { found });
    }
    if found == 0 {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        if version(&tx)? == 0 {
            tx.execute_batch(SCHEMA)?;
            tx.pragma_update(None, "user_version", LATEST)?;
        }
        tx.commit()?;
        return Ok(());
    }
    if found < LATEST {
        backup_before_upgrade(conn, backup_dir, found)?;
    }
    for (target, sql) in MIGRATIONS {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        if version(&tx)? == target - 1 {
            tx.execute_batch(sql)?;
            bump_schema_version(&tx)?;
            tx.pragma_update(None, "user_version", target)?;
            tracing::info!(version = target, "database migrated");
        }
        tx.commit()?;
    }
    Ok(())
}

/// Makes every connection reread the schema: needed after a migration that edits a table's
/// stored definition (`writable_schema`), which SQLite does not notice by itself; after other
/// migrations it only repeats what their statements did.
fn bump_schema_version(conn: &Connection) -> rusqlite::Result<()> {
    let v: i64 = conn.query_row("PRAGMA schema_version", [], |r| r.get(0))?;
    conn.pragma_update(None, "schema_version", v + 1)
}

fn backup_before_upgrade(conn: &Connection, dir: &Path, from: i64) -> Result<(), MigrateError> {
    let stamp = time::OffsetDateTime::now_utc().unix_timestamp();
    let dest = dir.join(format!("docket-v{from}-{stamp}.db"));
    if dest.exists() {
        return Ok(());
    }
    let dest_str = dest
        .to_str()
        .ok_or_else(|| MigrateError::Backup("backup path is not UTF-8".into()))?;
    conn.execute("VACUUM INTO ?1", [dest_str])
        .map_err(|e| MigrateError::Backup(e.to_string()))?;
    tracing::info!(path = %dest.display(), from, to = LATEST, "database backed up before upgrade");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every table's columns, and every index and trigger with its definition (comments and
    /// layout aside), in a comparable form.
    fn shape(conn: &Connection) -> Vec<String> {
        let mut out = Vec::new();
        let mut tables = conn
            .prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name")
            .unwrap();
        let rows: Vec<(String, String, String, Option<String>)> = tables
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        for (kind, name, table, sql) in rows {
            out.push(format!("{kind} {name} on {table}"));
            if kind != "table" {
                out.push(format!("  {}", definition(sql.as_deref().unwrap_or(""))));
            }
            if kind == "table" {
                let mut cols = conn
                    .prepare(&format!("PRAGMA table_xinfo(\"{name}\")"))
                    .unwrap();
                let c: Vec<String> = cols
                    .query_map([], |r| {
                        Ok(format!(
                            "  {} {} notnull={} default={:?} pk={}",
                            r.get::<_, String>(1)?,
                            r.get::<_, String>(2)?,
                            r.get::<_, i64>(3)?,
                            r.get::<_, Option<String>>(4)?,
                            r.get::<_, i64>(5)?
                        ))
                    })
                    .unwrap()
                    .map(Result::unwrap)
                    .collect();
                out.extend(c);
                let fks: Vec<String> = conn
                    .prepare(&format!("PRAGMA foreign_key_list(\"{name}\")"))
                    .unwrap()
                    .query_map([], |r| {
                        Ok(format!(
                            "  fk {} -> {}.{} on delete {}",
                            r.get::<_, String>(3)?,
                            r.get::<_, String>(2)?,
                            r.get::<_, String>(4)?,
                            r.get::<_, String>(6)?
                        ))
                    })
                    .unwrap()
                    .map(Result::unwrap)
                    .collect();
                out.extend(fks);
            }
        }
        out
    }

    /// `sql` without its comments, its words separated by single spaces and none inside
    /// parentheses.
    fn definition(sql: &str) -> String {
        let words: Vec<&str> = sql
            .lines()
            .map(|l| l.split("--").next().unwrap_or(""))
            .flat_map(str::split_whitespace)
            .collect();
        words.join(" ").replace("( ", "(").replace(" )", ")")
    }

    #[test]
    fn oldest_schema_plus_migrations_equals_schema_sql() {
        let tmp = tempfile::tempdir().unwrap();
        let mut fresh = Connection::open_in_memory().unwrap();
        run(&mut fresh, tmp.path()).unwrap();

        let mut old = Connection::open(tmp.path().join("old.db")).unwrap();
        old.execute_batch(include_str!("../../../tests/fixtures/schema_v1.sql"))
            .unwrap();
        run(&mut old, tmp.path()).unwrap();

        assert_eq!(version(&fresh).unwrap(), LATEST);
        assert_eq!(version(&old).unwrap(), LATEST);
        assert_eq!(shape(&old), shape(&fresh));
    }

    /// A foreign key whose child column leads no index makes every delete (or key change) of a
    /// parent row scan the child table; with documents in the tens of thousands that is
    /// milliseconds per upload that replaces a file.
    #[test]
    fn every_foreign_key_column_leads_an_index() {
        let tmp = tempfile::tempdir().unwrap();
        let mut conn = Connection::open_in_memory().unwrap();
        run(&mut conn, tmp.path()).unwrap();
        let strings = |sql: &str, col: usize| -> Vec<String> {
            conn.prepare(sql)
                .unwrap()
                .query_map([], |r| r.get::<_, String>(col))
                .unwrap()
                .map(Result::unwrap)
                .collect()
        };
        let tables = strings(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
            0,
        );
        let mut unindexed = Vec::new();
        for table in tables {
            let leading: Vec<String> = strings(&format!("PRAGMA index_list(\"{table}\")"), 1)
                .iter()
                .filter_map(|index| {
                    strings(&format!("PRAGMA index_info(\"{index}\")"), 2)
                        .into_iter()
                        .next()
                })
                .collect();
            for column in strings(&format!("PRAGMA foreign_key_list(\"{table}\")"), 3) {
                if !leading.contains(&column) {
                    unindexed.push(format!("{table}.{column}"));
                }
            }
        }
        assert!(unindexed.is_empty(), "no index starts with {unindexed:?}");
    }

    /// Migration 12 edits the stored CHECK of `recipients`: an upgraded database takes the
    /// new role, on the connection that migrated it and on another.
    #[test]
    fn an_upgraded_database_takes_assistant_recipients() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("old.db");
        let mut old = Connection::open(&path).unwrap();
        old.execute_batch(include_str!("../../../tests/fixtures/schema_v1.sql"))
            .unwrap();
        let other = Connection::open(&path).unwrap();
        other
            .query_row("SELECT count(*) FROM users", [], |r| r.get::<_, i64>(0))
            .unwrap();
        run(&mut old, tmp.path()).unwrap();
        let insert = |c: &Connection, role: &str, email: &str| {
            c.execute(
                "INSERT INTO recipients (template_id, email, name, role, token, created_at)
                 VALUES (NULL, ?1, '', ?2, ?1, 0)",
                [email, role],
            )
        };
        for c in [&old, &other] {
            c.execute_batch("PRAGMA foreign_keys = OFF").unwrap();
        }
        // The CHECK that one of document or template is set still holds: give a document.
        let insert_doc = |c: &Connection, role: &str, email: &str| {
            c.execute(
                "INSERT INTO recipients (document_id, email, name, role, token, created_at)
                 VALUES (1, ?1, '', ?2, ?1, 0)",
                [email, role],
            )
        };
        assert!(insert(&old, "ASSISTANT", "x@x").is_err(), "no parent");
        insert_doc(&old, "ASSISTANT", "a@x").unwrap();
        insert_doc(&other, "ASSISTANT", "b@x").unwrap();
        assert!(insert_doc(&old, "OWNER", "c@x").is_err());
        let check: String = old
            .query_row(
                "SELECT sql FROM sqlite_master WHERE name = 'recipients'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert!(check.contains("'CC', 'ASSISTANT'"), "{check}");
        assert_eq!(
            old.query_row("PRAGMA integrity_check", [], |r| r.get::<_, String>(0))
                .unwrap(),
            "ok"
        );
    }

    /// A database file in `dir` of `version`: the oldest schema and the migrations up to it.
    fn of_version(dir: &Path, version: i64) -> Connection {
        let old = Connection::open(dir.join("old.db")).unwrap();
        old.execute_batch(include_str!("../../../tests/fixtures/schema_v1.sql"))
            .unwrap();
        for (target, sql) in MIGRATIONS.iter().filter(|(v, _)| *v <= version) {
            old.execute_batch(sql).unwrap();
            old.pragma_update(None, "user_version", target).unwrap();
        }
        old
    }

    /// Migration 25 (teams): a database of version 24 keeps every document, template, API
    /// key and webhook its owner's personal one, seen by everyone it was seen by before.
    #[test]
    fn an_upgraded_database_keeps_every_row_personal() {
        use rusqlite::OptionalExtension;
        let tmp = tempfile::tempdir().unwrap();
        let mut old = of_version(tmp.path(), 24);
        old.execute_batch(
            "INSERT INTO users (id, email, username, name, password_hash, created_at, updated_at)
             VALUES (1, 'a@x.org', 'a', 'A', 'x', 0, 0);
             INSERT INTO templates (user_id, title, document_data_id, meta_id, direct_link_token,
                                    created_at, updated_at)
             VALUES (1, 'T', 'dd-t', 'm', 'dl', 0, 0);
             INSERT INTO documents (user_id, title, document_data_id, created_at, updated_at)
             VALUES (1, 'D', 'dd-d', 0, 0);
             INSERT INTO api_keys (user_id, name, key_hash, key_prefix, created_at)
             VALUES (1, 'k', 'h', 'p', 0);
             INSERT INTO webhooks (user_id, url, events, secret, created_at)
             VALUES (1, 'https://x.org', '[]', x'00', 0);",
        )
        .unwrap();
        run(&mut old, tmp.path()).unwrap();
        assert_eq!(version(&old).unwrap(), LATEST);
        for table in ["documents", "templates", "api_keys", "webhooks"] {
            let (rows, personal): (i64, i64) = old
                .query_row(
                    &format!(
                        "SELECT count(*), count(*) FILTER (WHERE team_id IS NULL) FROM {table}"
                    ),
                    [],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .unwrap();
            assert_eq!((rows, personal), (1, 1), "{table}");
        }
        for table in ["documents", "templates"] {
            let seen: String = old
                .query_row(&format!("SELECT visibility FROM {table}"), [], |r| r.get(0))
                .unwrap();
            assert_eq!(seen, "EVERYONE", "{table}");
        }
        let bad = old.execute("UPDATE documents SET visibility = 'NOBODY'", []);
        assert!(bad.is_err(), "the CHECK holds on an upgraded database");
        assert_eq!(
            old.query_row("PRAGMA foreign_key_check", [], |r| r.get::<_, String>(0))
                .optional()
                .unwrap(),
            None
        );
    }

    /// Migration 26 (team counts) counts again from the rows: on a database of version 25 that
    /// already holds team rows (counted as their creators' personal ones by then), every user's
    /// and every team's counts equal the rows afterwards.
    #[test]
    fn an_upgraded_database_counts_team_rows_by_team() {
        let tmp = tempfile::tempdir().unwrap();
        let mut old = of_version(tmp.path(), 25);
        old.execute_batch(
            "INSERT INTO users (id, email, username, name, password_hash, created_at, updated_at)
             VALUES (1, 'a@x.org', 'a', 'A', 'x', 0, 0);
             INSERT INTO teams (id, name, slug, created_at, updated_at)
             VALUES (7, 'Seven', 'seven', 0, 0);
             INSERT INTO templates (user_id, team_id, visibility, title, document_data_id, meta_id,
                                    direct_link_token, created_at, updated_at)
             VALUES (1, NULL, 'EVERYONE', 'T', 'dd-t1', 'm', 'dl1', 0, 0),
                    (1, 7, 'ADMIN', 'T', 'dd-t2', 'm', 'dl2', 0, 0);
             INSERT INTO documents (user_id, team_id, visibility, status, hidden, title,
                                    document_data_id, created_at, updated_at)
             VALUES (1, NULL, 'EVERYONE', 'DRAFT', 0, 'D', 'dd-d1', 0, 0),
                    (1, 7, 'EVERYONE', 'DRAFT', 0, 'D', 'dd-d2', 0, 0),
                    (1, 7, 'ADMIN', 'PENDING', 0, 'D', 'dd-d3', 0, 0),
                    (1, 7, 'ADMIN', 'COMPLETED', 1, 'D', 'dd-d4', 0, 0);",
        )
        .unwrap();
        run(&mut old, tmp.path()).unwrap();
        assert_eq!(version(&old).unwrap(), LATEST);
        let rows = |sql: &str| -> Vec<String> {
            old.prepare(sql)
                .unwrap()
                .query_map([], |r| r.get::<_, String>(0))
                .unwrap()
                .map(Result::unwrap)
                .collect()
        };
        assert_eq!(
            rows(
                "SELECT user_id || ' ' || list || ' ' || status || ' ' || n FROM list_counts
                   ORDER BY 1"
            ),
            ["1 documents DRAFT 1", "1 templates  1"]
        );
        assert_eq!(
            rows(
                "SELECT team_id || ' ' || list || ' ' || visibility || ' ' || status || ' ' || n
                   FROM team_list_counts ORDER BY 1"
            ),
            [
                "7 documents ADMIN PENDING 1",
                "7 documents EVERYONE DRAFT 1",
                "7 templates ADMIN  1"
            ]
        );
    }

    /// Migration 27 (team settings): a team of version 26 keeps the product's defaults (every
    /// new column NULL), and the signing order takes only the two orders.
    #[test]
    fn an_upgraded_team_keeps_the_product_defaults() {
        let tmp = tempfile::tempdir().unwrap();
        let mut old = of_version(tmp.path(), 26);
        old.execute_batch(
            "INSERT INTO teams (id, name, slug, sender_name, created_at, updated_at)
             VALUES (7, 'Seven', 'seven', 'Seven Ltd', 0, 0);",
        )
        .unwrap();
        run(&mut old, tmp.path()).unwrap();
        assert_eq!(version(&old).unwrap(), LATEST);
        let row: (
            String,
            Option<String>,
            Option<String>,
            Option<String>,
            Option<String>,
        ) = old
            .query_row(
                "SELECT sender_name, signing_order, date_format, time_zone, redirect_url
                   FROM teams WHERE id = 7",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
            )
            .unwrap();
        assert_eq!(row, ("Seven Ltd".into(), None, None, None, None));
        assert!(
            old.execute("UPDATE teams SET signing_order = 'SEQUENTIAL'", [])
                .is_ok()
        );
        assert!(
            old.execute("UPDATE teams SET signing_order = 'RANDOM'", [])
                .is_err(),
            "the CHECK holds on an upgraded database"
        );
    }

    /// Migration 29 (test deliveries): of the deliveries of version 28, the test events' (found
    /// by their stored body) are marked as tests; a real event's, even one whose document is
    /// titled like a test's payload, is not.
    #[test]
    fn an_upgraded_database_marks_its_test_deliveries() {
        let tmp = tempfile::tempdir().unwrap();
        let mut old = of_version(tmp.path(), 28);
        let stored = include_str!("../../../tests/fixtures/webhook_bodies.txt");
        let body = |prefix: &str| {
            stored
                .lines()
                .find_map(|l| l.strip_prefix(prefix))
                .unwrap()
                .to_string()
        };
        let test = body("TEST ");
        let signed = body("DOCUMENT_SIGNED ");
        let payload = r#"{"message":"A test event sent from Docket's settings; nothing changed.","test":true}"#;
        assert!(test.contains(&format!(r#""payload":{payload}"#)), "{test}");
        let titled = signed.replacen(
            r#""payload":{"#,
            &format!(
                r#""payload":{{"title":{},"#,
                serde_json::json!(format!(r#""payload":{payload}"#))
            ),
            1,
        );
        old.execute_batch(
            "INSERT INTO users (id, email, username, name, password_hash, created_at, updated_at)
             VALUES (1, 'a@x.org', 'a', 'A', 'x', 0, 0);
             INSERT INTO webhooks (id, user_id, url, events, secret, created_at)
             VALUES (1, 1, 'https://x.org', '[]', x'00', 0);",
        )
        .unwrap();
        for (id, body) in [(1, &test), (2, &signed), (3, &titled)] {
            old.execute(
                "INSERT INTO webhook_deliveries (id, webhook_id, event, body, next_attempt_at,
                                                 created_at)
                 VALUES (?1, 1, 'DOCUMENT_SIGNED', ?2, 0, 0)",
                rusqlite::params![id, body],
            )
            .unwrap();
        }
        run(&mut old, tmp.path()).unwrap();
        assert_eq!(version(&old).unwrap(), LATEST);
        let marked: Vec<(i64, bool)> = old
            .prepare("SELECT id, test FROM webhook_deliveries ORDER BY id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(marked, [(1, true), (2, false), (3, false)]);
    }

    #[test]
    fn migrations_are_numbered_without_gaps_up_to_latest() {
        let versions: Vec<i64> = MIGRATIONS.iter().map(|(v, _)| *v).collect();
        assert_eq!(versions, (2..=LATEST).collect::<Vec<_>>());
    }

    #[test]
    fn refuses_a_newer_database() {
        let tmp = tempfile::tempdir().unwrap();
        let mut c = Connection::open_in_memory().unwrap();
        c.pragma_update(None, "user_version", LATEST + 1).unwrap();
        assert!(matches!(
            run(&mut c, tmp.path()),
            Err(MigrateError::TooNew { .. })
        ));
    }

    #[test]
    fn upgrade_takes_a_backup_first() {
        let tmp = tempfile::tempdir().unwrap();
        let mut old = Connection::open(tmp.path().join("old.db")).unwrap();
        old.execute_batch(include_str!("../../../tests/fixtures/schema_v1.sql"))
            .unwrap();
        let backups = tmp.path().join("backups");
        std::fs::create_dir(&backups).unwrap();
        run(&mut old, &backups).unwrap();
        let files: Vec<_> = std::fs::read_dir(&backups).unwrap().collect();
        assert_eq!(files.len(), 1);
        let copy = Connection::open(files[0].as_ref().unwrap().path()).unwrap();
        assert_eq!(version(&copy).unwrap(), 1);
    }
}
