//! What the scan for passed deadlines and due reminders costs when little is due in a large
//! table (issue 56, decision 0123; goal: under 10 ms to find what is due). Seeds RECIPIENTS
//! recipients (in documents of 100 each, PENDING), each with a deadline and a next reminder far
//! ahead (2 timer rows each), and DUE of the deadlines and DUE of the reminders due now, then
//! times:
//! - `find`: the scan's read of what is due (`store::timers::due`, 100 at most), the median and
//!   the worst of RUNS runs, with everything still due;
//! - `handle`: one whole scan (`Deadlines::scan`) handling what is due (the audit events, the
//!   owner's mail, the webhooks and the reminders queued, each claim a guarded statement);
//! - `idle`: the scan once nothing is due, the median of RUNS.
//!
//! `cargo run --release --example deadline_scan -- sqlite [RECIPIENTS] [DUE]` (a temporary
//! file) or `-- <postgres URL> [RECIPIENTS] [DUE]` (an empty database: bench/deadlines.sh makes
//! one). Prints one line per measure.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use docket::core::db::{Db, now};
use docket::signing::documents::store::timers;
use docket::signing::workflow::deadlines::Deadlines;

const RUNS: usize = 50;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(target) = args.first().cloned() else {
        eprintln!("usage: deadline_scan sqlite|<postgres URL> [RECIPIENTS] [DUE]");
        return ExitCode::from(2);
    };
    let num = |i: usize, default: i64| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(default);
    let (recipients, due) = (num(1, 1_000_000), num(2, 100));
    let tmp = tempfile::tempdir().expect("a temporary directory");
    let db = if target == "sqlite" {
        let path = tmp.path().join("docket.db");
        Db::open(&path, tmp.path(), 4).expect("database opens")
    } else {
        Db::open_postgres(&target, 4, Duration::from_secs(60), true).expect("database opens")
    };
    let started = Instant::now();
    seed(&db, recipients, due);
    println!(
        "{}: {recipients} recipients, {} timer rows, {due} deadlines and {due} reminders due (seeded in {:.1} s)",
        if target == "sqlite" {
            "SQLite"
        } else {
            "PostgreSQL"
        },
        recipients * 2,
        started.elapsed().as_secs_f64()
    );
    // Outside the runtime: PostgreSQL's synchronous client runs one of its own.
    let find = timed(RUNS, || {
        db.read_blocking(|c| timers::due(c, now(), 100))
            .expect("the scan reads")
    });
    report("find (what is due, 100 at most)", &find);
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    runtime.block_on(async move {
        let scan = Deadlines {
            db: db.clone(),
            workers: Default::default(),
            app: "https://docket.test".into(),
            every: Duration::from_secs(60),
        };
        let t = Instant::now();
        let handled = scan.scan().await.expect("the scan runs");
        println!(
            "handle (one whole scan): {handled} handled in {:.1} ms",
            t.elapsed().as_secs_f64() * 1000.0
        );
        let mut idle = Vec::with_capacity(RUNS);
        for _ in 0..RUNS {
            let t = Instant::now();
            let n = scan.scan().await.expect("the scan runs");
            idle.push(t.elapsed());
            assert_eq!(n, 0, "nothing is due any more");
        }
        report("idle (a whole scan, nothing due)", &idle);
    });
    ExitCode::SUCCESS
}

/// Runs `f` `runs` times; each run's duration.
fn timed<T>(runs: usize, mut f: impl FnMut() -> T) -> Vec<Duration> {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(f());
            t.elapsed()
        })
        .collect()
}

fn report(what: &str, runs: &[Duration]) {
    let mut ms: Vec<f64> = runs.iter().map(|d| d.as_secs_f64() * 1000.0).collect();
    ms.sort_by(f64::total_cmp);
    println!(
        "{what}: median {:.2} ms, worst {:.2} ms ({} runs)",
        ms[ms.len() / 2],
        ms[ms.len() - 1],
        ms.len()
    );
}

/// One owner; `recipients / 100` PENDING documents of 100 signers each; every signer with a
/// deadline and a reminder a month ahead, but `due` of each due a minute ago (on different
/// documents).
fn seed(db: &Db, recipients: i64, due: i64) {
    let docs = recipients / 100;
    let at = now();
    let meta = r#"{"subject":null,"message":null,"timezone":"Etc/UTC","dateFormat":"yyyy-MM-dd hh:mm a","redirectUrl":null,"signingOrder":"PARALLEL","reminders":{"everyDays":3,"max":5},"envelopeExpirationPeriod":{"unit":"month","amount":1}}"#;
    db.write_blocking(move |tx| {
        tx.execute(
            "INSERT INTO users (email, username, name, password_hash, created_at, updated_at)
             VALUES ('owner@example.com', 'owner', 'Owner', 'x', ?1, ?1)",
            [at],
        )?;
        tx.execute_batch(&format!(
            "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < {docs})
             INSERT INTO documents (user_id, title, status, document_data_id, meta, created_at, updated_at, sent_at)
             SELECT (SELECT id FROM users), 'Seeded ' || i, 'PENDING', 'seed-' || i, '{meta}', {at}, {at}, {at} FROM s;
             WITH RECURSIVE t(j) AS (SELECT 1 UNION ALL SELECT j + 1 FROM t WHERE j < 100)
             INSERT INTO recipients (document_id, email, name, role, token, created_at, expires_at)
             SELECT d.id, 'r' || j || '@example.com', 'R' || j, 'SIGNER', 'tok-' || d.id || '-' || j, {at}, {a}
               FROM documents d, t;
             INSERT INTO recipient_timers (recipient_id, kind, due_at)
             SELECT id, 'EXPIRE', {a} FROM recipients;
             INSERT INTO recipient_timers (recipient_id, kind, due_at)
             SELECT id, 'REMIND', {r} FROM recipients;
             UPDATE recipient_timers SET due_at = {past} WHERE kind = 'EXPIRE' AND recipient_id IN
               (SELECT min(id) FROM recipients GROUP BY document_id ORDER BY 1 LIMIT {due});
             UPDATE recipients SET expires_at = {past} WHERE id IN
               (SELECT min(id) FROM recipients GROUP BY document_id ORDER BY 1 LIMIT {due});
             UPDATE recipient_timers SET due_at = {past} WHERE kind = 'REMIND' AND recipient_id IN
               (SELECT max(id) FROM recipients GROUP BY document_id ORDER BY 1 LIMIT {due});",
            a = at + 30 * 86_400,
            r = at + 3 * 86_400,
            past = at - 60,
        ))?;
        Ok(())
    })
    .expect("the seed is written");
}
