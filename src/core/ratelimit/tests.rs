//! The limiter with either counter: in memory, in SQLite's tables (the same SQL as PostgreSQL's),
//! and across two nodes on PostgreSQL when `DOCKET_TEST_POSTGRES` names a test cluster
//! (tests/pg/postgres.sh).

use std::sync::Arc;
use std::time::Duration;

use super::*;

/// The refusal's `(retry_after, limit)`, or `None` when the request passed.
async fn refusal(l: &RateLimiter, key: &str, now: i64) -> Option<(u64, u64)> {
    match l.check(key, now).await {
        Ok(()) => None,
        Err(AppError::TooManyRequests { retry_after, limit }) => Some((retry_after, limit)),
        Err(e) => panic!("{e:?}"),
    }
}

/// The same story for every counter: the limit, then 429 until the next minute; each key its own.
async fn allows_the_limit_then_refuses_until_the_next_minute(l: &RateLimiter) {
    for _ in 0..3 {
        assert_eq!(refusal(l, "k", 120).await, None);
    }
    assert_eq!(refusal(l, "k", 130).await, Some((50, 3)));
    assert_eq!(refusal(l, "k", 179).await, Some((1, 3)));
    assert_eq!(refusal(l, "other", 130).await, None);
    assert_eq!(refusal(l, "k", 180).await, None);
}

fn rows(db: &Db) -> Vec<(i64, String, i64)> {
    db.read_blocking(|c| {
        Ok(
            c.prepare("SELECT window_start, key, count FROM rate_windows ORDER BY 1, 2")?
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect::<Result<_, _>>()?,
        )
    })
    .unwrap()
}

#[tokio::test]
async fn in_memory() {
    allows_the_limit_then_refuses_until_the_next_minute(&RateLimiter::in_memory(3)).await;
}

#[tokio::test]
async fn in_the_database_with_finished_windows_swept() {
    let db = Db::memory();
    let l = RateLimiter::in_database(3, &db);
    allows_the_limit_then_refuses_until_the_next_minute(&l).await;
    // The first count of the minute at 180 swept the window at 120.
    assert_eq!(rows(&db), [(180, "k".to_string(), 1)]);
}

#[tokio::test]
async fn zero_means_off_and_counts_nothing() {
    let db = Db::memory();
    for l in [RateLimiter::in_memory(0), RateLimiter::in_database(0, &db)] {
        for _ in 0..1000 {
            assert_eq!(refusal(&l, "k", 0).await, None);
        }
    }
    assert_eq!(rows(&db), []);
}

#[tokio::test]
async fn sqlite_counts_in_memory() {
    let db = Db::memory();
    let l = RateLimiter::new(3, &db);
    allows_the_limit_then_refuses_until_the_next_minute(&l).await;
    assert_eq!(rows(&db), [], "no write per request on the one writer");
}

#[tokio::test]
async fn a_database_error_is_the_requests_error() {
    let db = Db::memory();
    db.write(|c| Ok(c.execute_batch("DROP TABLE rate_windows")?))
        .await
        .unwrap();
    let err = RateLimiter::in_database(3, &db)
        .check("k", 0)
        .await
        .unwrap_err();
    assert_eq!(err.status(), 500, "{err:?}");
}

/// A new database of its own on the test cluster, or `None` (with a notice) without one.
fn postgres() -> Option<String> {
    crate::core::db::testing::postgres_database("rate")
}

/// Two nodes, each with its own pool and limiter, on one new PostgreSQL database.
fn two_nodes(per_minute: u64) -> Option<[Arc<RateLimiter>; 2]> {
    let url = postgres()?;
    let node = || {
        let db = Db::open_postgres(&url, 4, Duration::from_secs(10), true).unwrap();
        Arc::new(RateLimiter::new(per_minute, &db))
    };
    Some([node(), node()])
}

/// The PostgreSQL client blocks: the nodes are opened (and closed) off the runtime's threads.
fn run(f: impl std::future::Future<Output = ()>) {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
        .block_on(f);
}

#[test]
fn on_postgres_the_limit_holds_across_nodes() {
    let Some([a, b]) = two_nodes(5) else { return };
    run(async {
        for _ in 0..3 {
            assert_eq!(refusal(&a, "k", 120).await, None);
        }
        for _ in 0..2 {
            assert_eq!(refusal(&b, "k", 125).await, None);
        }
        assert_eq!(refusal(&a, "k", 130).await, Some((50, 5)));
        assert_eq!(refusal(&b, "k", 130).await, Some((50, 5)));
        assert_eq!(refusal(&b, "other", 130).await, None);
        assert_eq!(refusal(&b, "k", 180).await, None);
    });
}

#[test]
fn on_postgres_requests_racing_at_two_nodes_pass_exactly_the_limit() {
    let Some([a, b]) = two_nodes(10) else { return };
    run(async {
        let tasks: Vec<_> = (0..30)
            .map(|i| {
                let node = if i % 2 == 0 { a.clone() } else { b.clone() };
                tokio::spawn(async move { node.check("k", 60).await.is_ok() })
            })
            .collect();
        let mut passed = 0;
        for t in tasks {
            passed += usize::from(t.await.unwrap());
        }
        assert_eq!(passed, 10);
    });
}

#[test]
fn on_postgres_a_database_of_the_version_before_gains_the_table() {
    let Some(url) = postgres() else { return };
    let open = || Db::open_postgres(&url, 2, Duration::from_secs(10), true).unwrap();
    open()
        .write_blocking(|c| {
            // Back to version 14: without what 0015 and the migrations after it made (the
            // columns of 0027 and 0028 go with the table `teams`, but for users' language; 0029
            // marked test deliveries; 0030 added deadlines; 0031 kept e-mailed codes; 0032 bulk sends;
            // 0033 marked the scheduling service's hooks; 0034 kept the framing origins; 0035
            // made folders; 0036 the attachments).
            Ok(c.execute_batch(
                "DROP TABLE attachments;
                 ALTER TABLE documents DROP COLUMN folder_id;
                 ALTER TABLE templates DROP COLUMN folder_id;
                 DROP TABLE folders;
                 ALTER TABLE users DROP COLUMN frame_origins;
                 ALTER TABLE webhooks DROP COLUMN cal_v1, DROP COLUMN payload_template;
                 DROP TABLE bulk_send_rows, bulk_sends;
                 DROP TABLE rate_windows; DROP INDEX documents_pending;
                 ALTER TABLE sessions DROP COLUMN confirmed_at;
                 DROP TABLE list_counts;
                 DROP FUNCTION documents_counted_fn, documents_uncounted_fn,
                     documents_recounted_fn, templates_counted_fn, templates_uncounted_fn,
                     bookings_counted_fn, bookings_uncounted_fn, bookings_recounted_fn CASCADE;
                 DROP INDEX documents_listed, documents_listed_status, bookings_user_status;
                 DROP INDEX documents_changed, documents_changed_status, recipients_awaiting;
                 ALTER TABLE webhooks DROP COLUMN enabled;
                 ALTER TABLE webhook_deliveries DROP COLUMN response_excerpt;
                 ALTER TABLE webhook_deliveries DROP COLUMN test;
                 DROP TABLE account_links;
                 DROP INDEX templates_direct_link;
                 ALTER TABLE templates DROP COLUMN direct_link_recipient_id;
                 ALTER TABLE recipients DROP COLUMN direct_link;
                 ALTER TABLE bookings DROP COLUMN rendered;
                 DROP INDEX mail_queue_links;
                 ALTER TABLE mail_queue DROP COLUMN link_expires_at;
                 DROP TABLE team_list_counts;
                 DROP FUNCTION templates_recounted_fn, documents_team_counted_fn,
                     documents_team_uncounted_fn, documents_team_recounted_fn,
                     templates_team_counted_fn, templates_team_uncounted_fn,
                     templates_team_recounted_fn CASCADE;
                 DROP INDEX documents_team_listed, documents_team_listed_status,
                     documents_team_changed, documents_team_changed_status;
                 ALTER TABLE documents DROP COLUMN team_id, DROP COLUMN visibility;
                 ALTER TABLE templates DROP COLUMN team_id, DROP COLUMN visibility;
                 ALTER TABLE api_keys DROP COLUMN team_id;
                 ALTER TABLE webhooks DROP COLUMN team_id;
                 DROP TABLE team_invitations, team_members, teams;
                 ALTER TABLE users DROP COLUMN language;
                 DROP TABLE recipient_timers;
                 ALTER TABLE recipients DROP COLUMN expires_at,
                     DROP COLUMN expiration_notified_at, DROP COLUMN reminders_sent;
                 ALTER TABLE users DROP COLUMN expiration_period;
                 DROP TABLE emailed_codes;
                 UPDATE docket_schema SET version = 14",
            )?)
        })
        .unwrap();
    let db = open();
    assert_eq!(
        db.schema_version().unwrap(),
        crate::core::db::migrate::LATEST
    );
    let l = RateLimiter::new(1, &db);
    run(async {
        assert_eq!(refusal(&l, "k", 0).await, None);
        assert_eq!(refusal(&l, "k", 1).await, Some((59, 1)));
    });
    // A team's default document settings (27) are there, NULL until set, and the signing
    // order's CHECK holds.
    db.write_blocking(|c| {
        c.execute(
            "INSERT INTO teams (name, slug, created_at, updated_at) VALUES ('T', 'upgraded', 0, 0)",
            [],
        )?;
        let unset: Option<String> = c.query_row(
            "SELECT coalesce(signing_order, date_format, time_zone, redirect_url) FROM teams
              WHERE slug = 'upgraded'",
            [],
            |r| r.get(0),
        )?;
        assert_eq!(unset, None);
        c.execute(
            "UPDATE teams SET signing_order = 'SEQUENTIAL', time_zone = 'Europe/Paris'
              WHERE slug = 'upgraded'",
            [],
        )?;
        Ok(())
    })
    .unwrap();
    let refused =
        db.write_blocking(|c| Ok(c.execute("UPDATE teams SET signing_order = 'RANDOM'", [])?));
    assert!(refused.is_err(), "the CHECK holds on an upgraded database");
    // The list counts' triggers as the migrations (18, 26) left them, not as schema.sql makes
    // them, keep every owner's counts.
    db.write_blocking(|c| {
        crate::core::owner::tests::counts_follow_every_change_of_the_rows(c);
        Ok(())
    })
    .unwrap();
}

#[test]
fn on_postgres_a_count_does_not_wait_for_the_disk_and_other_writes_still_do() {
    let Some(url) = postgres() else { return };
    // One connection, made to wait for the disk at every commit (the test cluster does not).
    let db = Db::open_postgres(&url, 1, Duration::from_secs(10), true).unwrap();
    db.write_blocking(|c| Ok(c.execute_batch("SET SESSION synchronous_commit TO on")?))
        .unwrap();
    let show = |c: &crate::core::db::Conn| -> Result<String, AppError> {
        Ok(c.query_row("SHOW synchronous_commit", [], |r| r.get(0))?)
    };
    let during = db
        .write_blocking(move |c| {
            super::store::count(c, "k", 60)?;
            show(c)
        })
        .unwrap();
    assert_eq!(during, "off");
    assert_eq!(db.write_blocking(move |c| show(c)).unwrap(), "on");
}
