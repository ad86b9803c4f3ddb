//! Where a test server keeps its data: SQLite in its data dir, or (on the PostgreSQL run of
//! tests/run.sh) a database of its own on the test cluster and a prefix in the test bucket;
//! and direct access to that data for tests that look at rows, blobs and bytes.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Whether this run is on PostgreSQL: `DOCKET_TEST_POSTGRES` holds the URL of a superuser's
/// connection to a test cluster (tests/pg/postgres.sh), and every data dir the tests use gets
/// a database of its own there. Unset: SQLite in the data dir, as the appliance's default.
pub fn on_postgres() -> bool {
    std::env::var_os("DOCKET_TEST_POSTGRES").is_some()
}

/// True (with a notice) when this run is on PostgreSQL and the calling test is about what
/// only the SQLite appliance has (`why`): its database file, `docket backup`. The SQLite run
/// of the suite runs it.
pub fn skip_on_postgres(why: &str) -> bool {
    if on_postgres() {
        eprintln!("skipped on PostgreSQL: {why}");
    }
    on_postgres()
}

/// The PostgreSQL database of `data_dir` on the test cluster, created on first use; `None`
/// when the tests run on SQLite.
pub fn postgres_for(data_dir: &Path) -> Option<String> {
    let admin = std::env::var("DOCKET_TEST_POSTGRES").ok()?;
    let name = format!("docket_{}", tag(data_dir));
    let mut url = url::Url::parse(&admin).expect("DOCKET_TEST_POSTGRES is a URL");
    url.set_path(&name);
    // Created once per test process (tests ask for it at every CLI call and connection).
    static CREATED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut created = CREATED.lock().unwrap_or_else(|p| p.into_inner());
    if created.contains(&name) {
        return Some(url.to_string());
    }
    let create = format!("CREATE DATABASE {name}");
    // The synchronous client runs its own runtime: keep it off the test's async threads.
    std::thread::spawn(move || {
        let mut client = postgres::Client::connect(&admin, postgres::NoTls)
            .expect("the test PostgreSQL cluster answers");
        if let Err(e) = client.batch_execute(&create)
            && e.code() != Some(&postgres::error::SqlState::DUPLICATE_DATABASE)
        {
            panic!("{create}: {e}");
        }
    })
    .join()
    .expect("database created");
    created.push(name);
    Some(url.to_string())
}

/// A name for `data_dir` that is the same at every call: its database's and its bucket
/// prefix's.
fn tag(data_dir: &Path) -> String {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    data_dir.hash(&mut h);
    format!("{:016x}", h.finish())
}

/// The blob store of `data_dir` on the PostgreSQL run when a test bucket is there
/// (`DOCKET_TEST_BLOB_URL`, tests/s3/moto.sh): a prefix of its own in that bucket, so the
/// whole suite runs on what several nodes share. `None`: `<data>/blobs`, the default.
pub fn blob_url_for(data_dir: &Path) -> Option<String> {
    if !on_postgres() {
        return None;
    }
    let bucket = std::env::var("DOCKET_TEST_BLOB_URL").ok()?;
    Some(format!(
        "{}/d{}",
        bucket.trim_end_matches('/'),
        tag(data_dir)
    ))
}

/// The blob store of `data_dir` as its server opens it (see [`blob_url_for`]), for tests that
/// look at stored files or put some there. Opened off the async threads.
pub fn blob_store(data_dir: &Path) -> docket::core::blob::BlobStore {
    let url = match blob_url_for(data_dir) {
        Some(u) => docket::core::blob::BlobUrl::parse(&u).expect("a valid test bucket URL"),
        None => docket::core::blob::BlobUrl::File,
    };
    let data = docket::core::datadir::DataDir::open(data_dir).expect("the data dir opens");
    std::thread::scope(|s| {
        s.spawn(|| docket::core::blob::BlobStore::open_url(&url, &data.blobs(), &data.blob_cache()))
            .join()
            .unwrap()
            .expect("the blob store opens")
    })
}

/// The ids of the blobs committed in `data_dir`'s store (files, or objects in its bucket
/// prefix), sorted; temp files are not blobs.
pub fn stored_blob_ids(data_dir: &Path) -> Vec<String> {
    let mut ids: Vec<String> = match blob_url_for(data_dir) {
        Some(_) => {
            let store = blob_store(data_dir);
            std::thread::scope(|s| s.spawn(|| store.remote_keys()).join().unwrap())
                .expect("the bucket lists")
                .into_iter()
                .map(|k| k.rsplit('/').next().unwrap_or_default().to_string())
                .collect()
        }
        None => {
            let root = data_dir.join("blobs");
            let mut found = Vec::new();
            for shard in std::fs::read_dir(&root).into_iter().flatten().flatten() {
                if shard.file_name() == "tmp" || !shard.path().is_dir() {
                    continue;
                }
                for f in std::fs::read_dir(shard.path()).unwrap().flatten() {
                    found.push(f.file_name().to_string_lossy().into_owned());
                }
            }
            found
        }
    };
    ids.sort();
    ids
}

/// The bytes of blob `id` in `data_dir`'s store.
pub fn stored_blob(data_dir: &Path, id: &str) -> Vec<u8> {
    let store = blob_store(data_dir);
    let id = docket::core::blob::BlobId::parse(id).expect("a blob id");
    std::thread::scope(|s| s.spawn(|| store.read(&id)).join().unwrap()).expect("the blob reads")
}

/// The secret key the tests' nodes share on PostgreSQL, which needs one (`DOCKET_SECRET_KEY`).
pub const TEST_SECRET_KEY: &str =
    "7e57000000000000000000000000000000000000000000000000000000007e57";

/// The database of `data_dir` opened as the server opens it (SQLite file or the data dir's
/// PostgreSQL database), off the async threads.
pub fn open_db(data_dir: &Path) -> docket::core::db::Db {
    let target = match postgres_for(data_dir) {
        Some(url) => docket::core::db::Target::Postgres(url),
        None => docket::core::db::Target::Sqlite,
    };
    let (file, backups) = (data_dir.join("docket.db"), data_dir.join("backups"));
    std::thread::spawn(move || target.open(&file, &backups, 2, true))
        .join()
        .unwrap()
        .expect("the database opens")
}

/// Every byte the database of `data_dir` keeps, to look for what must not be stored in clear:
/// the SQLite files, or a data dump of its PostgreSQL database (`pg_dump`).
pub fn database_bytes(data_dir: &Path) -> Vec<u8> {
    match postgres_for(data_dir) {
        Some(url) => {
            let out = Command::new("pg_dump")
                .args(["--data-only", "--dbname", &url])
                .output()
                .expect("pg_dump runs");
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            out.stdout
        }
        None => ["docket.db", "docket.db-wal", "docket.db-shm"]
            .iter()
            .filter_map(|n| std::fs::read(data_dir.join(n)).ok())
            .collect::<Vec<_>>()
            .concat(),
    }
}

/// A connection to the database of a data dir, for tests that look at rows or put them into
/// states the API cannot reach: the SQLite file, or the data dir's PostgreSQL database. Each
/// call runs on a thread of its own (the PostgreSQL client blocks, which async tests' threads
/// must not).
pub struct TestDb {
    data_dir: PathBuf,
    postgres: Option<String>,
}

impl TestDb {
    pub fn open(data_dir: &Path) -> TestDb {
        TestDb {
            data_dir: data_dir.to_path_buf(),
            postgres: postgres_for(data_dir),
        }
    }

    fn run<T: Send>(&self, f: impl FnOnce(&docket::core::db::Conn<'static>) -> T + Send) -> T {
        std::thread::scope(|s| {
            s.spawn(|| {
                let conn = match &self.postgres {
                    Some(url) => docket::core::db::Conn::postgres_connect(url)
                        .expect("the test database answers"),
                    None => docket::core::db::Conn::sqlite_owned(
                        rusqlite::Connection::open(self.data_dir.join("docket.db")).unwrap(),
                    ),
                };
                f(&conn)
            })
            .join()
            .unwrap()
        })
    }

    pub fn query_row<T, P, F>(&self, sql: &str, params: P, f: F) -> docket::core::db::Result<T>
    where
        T: Send,
        P: docket::core::db::Params,
        F: FnOnce(&docket::core::db::Row<'_>) -> docket::core::db::Result<T> + Send,
    {
        let values = params.values();
        self.run(|c| c.query_row(sql, docket::core::db::params_from_iter(values), f))
    }

    pub fn query_map<T, P, F>(&self, sql: &str, params: P, f: F) -> docket::core::db::Result<Vec<T>>
    where
        T: Send,
        P: docket::core::db::Params,
        F: FnMut(&docket::core::db::Row<'_>) -> docket::core::db::Result<T> + Send,
    {
        let values = params.values();
        self.run(|c| {
            c.prepare(sql)?
                .query_map(docket::core::db::params_from_iter(values), f)?
                .collect()
        })
    }

    pub fn execute<P: docket::core::db::Params>(
        &self,
        sql: &str,
        params: P,
    ) -> docket::core::db::Result<usize> {
        let values = params.values();
        self.run(|c| c.execute(sql, docket::core::db::params_from_iter(values)))
    }
}

/// Every file below `dir` (none when it does not exist).
pub fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if e.path().is_dir() {
            out.extend(files_under(&e.path()));
        } else {
            out.push(e.path());
        }
    }
    out
}
