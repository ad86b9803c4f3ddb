//! Measures the two ways docket could talk to PostgreSQL, on the shape of its hot paths, for
//! docs/develop/decisions/0024-why-the-synchronous-postgres-client-in-an-r2d2-p.md and docs/develop/performance-history.md:
//! - `sync`: what docket does: the synchronous `postgres` client pooled by r2d2, each call on
//!   tokio's blocking threads (`Db::read`, `Db::write`);
//! - `async`: tokio-postgres on the async threads, with a pool of the same size (a semaphore over
//!   idle clients, as deadpool or bb8 keep them).
//!
//! Each runs `TASKS` concurrent tasks for `SECONDS` doing (1) a read by a unique hash (a token
//! lookup) and (2) a short write transaction (an insert and an update, as issuing a token does).
//! `cargo run --release --example pg_driver -- <postgres URL> [SECONDS] [TASKS] [POOL]`; the
//! URL names an empty database (bench/pg_driver.sh makes one). Prints one line per driver and
//! workload: operations/s, p50 and p99 latency.

use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use docket::core::db::Db;
use docket::core::error::AppError;
use tokio::sync::Semaphore;

const ROWS: i64 = 10_000;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(url) = args.first().cloned() else {
        eprintln!("usage: pg_driver <postgres URL> [SECONDS] [TASKS] [POOL]");
        return ExitCode::from(2);
    };
    let num = |i: usize, default: u64| args.get(i).and_then(|a| a.parse().ok()).unwrap_or(default);
    let (seconds, tasks, pool) = (num(1, 10), num(2, 64) as usize, num(3, 8) as u32);
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    runtime.block_on(async move {
        let setup = url.clone();
        tokio::task::spawn_blocking(move || prepare(&setup))
            .await
            .unwrap();
        let for_sync = url.clone();
        let db = tokio::task::spawn_blocking(move || {
            Db::open_postgres(&for_sync, pool, Duration::from_secs(10), true)
                .expect("database opens")
        })
        .await
        .unwrap();
        let async_pool = AsyncPool::connect(&url, pool as usize).await;
        let time = Duration::from_secs(seconds);
        println!("{tasks} tasks, pool of {pool}, {seconds} s each");
        report(
            "sync postgres + r2d2",
            "read",
            drive(tasks, time, sync_read(db.clone())).await,
        );
        report(
            "async tokio-postgres",
            "read",
            drive(tasks, time, async_read(async_pool.clone())).await,
        );
        report(
            "sync postgres + r2d2",
            "write tx",
            drive(tasks, time, sync_write(db.clone())).await,
        );
        report(
            "async tokio-postgres",
            "write tx",
            drive(tasks, time, async_write(async_pool)).await,
        );
    });
    ExitCode::SUCCESS
}

/// The benchmark's own table, with `ROWS` rows to read.
fn prepare(url: &str) {
    let mut client = postgres::Client::connect(url, postgres::NoTls).expect("PostgreSQL answers");
    client
        .batch_execute(
            "DROP TABLE IF EXISTS bench_tokens;
             CREATE TABLE bench_tokens (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                 hash TEXT NOT NULL UNIQUE, uses BIGINT NOT NULL DEFAULT 0);",
        )
        .unwrap();
    client
        .execute(
            "INSERT INTO bench_tokens (hash) SELECT md5(g::text) FROM generate_series(1, $1::bigint) g",
            &[&ROWS],
        )
        .unwrap();
}

fn hash_of(n: u64) -> String {
    // md5(text) as PostgreSQL computes it, for rows 1..=ROWS: looked up by the server itself.
    format!("{}", (n % ROWS as u64) + 1)
}

const READ: &str = "SELECT id, uses FROM bench_tokens WHERE hash = md5($1)";
const INSERT: &str = "INSERT INTO bench_tokens (hash) VALUES ($1)";
const UPDATE: &str = "UPDATE bench_tokens SET uses = uses + 1 WHERE hash = md5($1)";

type Op = Arc<dyn Fn(u64) -> futures_util::future::BoxFuture<'static, ()> + Send + Sync>;

fn sync_read(db: Db) -> Op {
    Arc::new(move |n| {
        let db = db.clone();
        Box::pin(async move {
            db.read(move |c| {
                c.query_row(&READ.replace("$1", "?1"), [hash_of(n)], |r| {
                    r.get::<_, i64>(0)
                })?;
                Ok::<_, AppError>(())
            })
            .await
            .expect("read");
        })
    })
}

fn sync_write(db: Db) -> Op {
    Arc::new(move |n| {
        let db = db.clone();
        Box::pin(async move {
            db.write(move |c| {
                c.execute(&INSERT.replace("$1", "?1"), [unique(n)])?;
                c.execute(&UPDATE.replace("$1", "?1"), [hash_of(n)])?;
                Ok::<_, AppError>(())
            })
            .await
            .expect("write");
        })
    })
}

/// A fresh hash for each insert, across every run of this process.
fn unique(_: u64) -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("new-{n}-{}", std::process::id())
}

/// A tokio-postgres client with its statements prepared once (as a statement cache would).
struct Pooled {
    client: tokio_postgres::Client,
    read: tokio_postgres::Statement,
    insert: tokio_postgres::Statement,
    update: tokio_postgres::Statement,
}

/// Idle tokio-postgres clients behind a semaphore of their number.
#[derive(Clone)]
struct AsyncPool {
    idle: Arc<Mutex<Vec<Pooled>>>,
    permits: Arc<Semaphore>,
}

impl AsyncPool {
    async fn connect(url: &str, size: usize) -> AsyncPool {
        let mut idle = Vec::new();
        for _ in 0..size {
            let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
                .await
                .expect("PostgreSQL answers");
            tokio::spawn(connection);
            idle.push(Pooled {
                read: client.prepare(READ).await.unwrap(),
                insert: client.prepare(INSERT).await.unwrap(),
                update: client.prepare(UPDATE).await.unwrap(),
                client,
            });
        }
        AsyncPool {
            idle: Arc::new(Mutex::new(idle)),
            permits: Arc::new(Semaphore::new(size)),
        }
    }

    async fn with<T>(&self, f: impl AsyncFnOnce(&mut Pooled) -> T) -> T {
        let _permit = self.permits.acquire().await.unwrap();
        let mut client = self
            .idle
            .lock()
            .unwrap()
            .pop()
            .expect("a permit means a client");
        let out = f(&mut client).await;
        self.idle.lock().unwrap().push(client);
        out
    }
}

fn async_read(pool: AsyncPool) -> Op {
    Arc::new(move |n| {
        let pool = pool.clone();
        Box::pin(async move {
            pool.with(async |c| {
                c.client.query_one(&c.read, &[&hash_of(n)]).await.unwrap();
            })
            .await
        })
    })
}

fn async_write(pool: AsyncPool) -> Op {
    Arc::new(move |n| {
        let pool = pool.clone();
        Box::pin(async move {
            pool.with(async |c| {
                let tx = c.client.transaction().await.unwrap();
                tx.execute(&c.insert, &[&unique(n)]).await.unwrap();
                tx.execute(&c.update, &[&hash_of(n)]).await.unwrap();
                tx.commit().await.unwrap();
            })
            .await
        })
    })
}

/// Runs `op` from `tasks` tasks until `time` is up; every operation's latency.
async fn drive(tasks: usize, time: Duration, op: Op) -> (Vec<Duration>, Duration) {
    let start = Instant::now();
    let end = start + time;
    let counter = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let mut handles = Vec::new();
    for _ in 0..tasks {
        let (op, counter) = (op.clone(), counter.clone());
        handles.push(tokio::spawn(async move {
            let mut times = Vec::new();
            while Instant::now() < end {
                let n = counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let t = Instant::now();
                op(n).await;
                times.push(t.elapsed());
            }
            times
        }));
    }
    let mut all = Vec::new();
    for h in handles {
        all.extend(h.await.unwrap());
    }
    (all, start.elapsed())
}

fn report(driver: &str, workload: &str, (mut times, took): (Vec<Duration>, Duration)) {
    times.sort();
    let at = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)];
    println!(
        "{driver:<22} {workload:<9} {:>8.0} ops/s   p50 {:>6.2} ms   p99 {:>6.2} ms",
        times.len() as f64 / took.as_secs_f64(),
        at(0.50).as_secs_f64() * 1000.0,
        at(0.99).as_secs_f64() * 1000.0
    );
}
