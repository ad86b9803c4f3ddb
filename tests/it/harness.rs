//! The test harness: the real server in this process on 127.0.0.1:0 with a fresh temp data
//! dir (`TestApp`), the real binary as a child process (`BinServer`), and the CLI (`docket`).

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use clap::Parser;
use docket::app::Running;
use docket::config::Config;
use docket::{cli::Cli, cli::Command as Sub};
use tempfile::TempDir;

pub const BIN: &str = env!("CARGO_BIN_EXE_docket");

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
/// (`DOCKET_TEST_BLOB_URL`, tests/s3/garage.sh): a prefix of its own in that bucket, so the
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

/// A `Config` as `docket serve <args>` would build it, for `data_dir`. Pages are rendered by
/// the real binary (this test program cannot run `render-page`).
pub fn config(data_dir: &Path, args: &[&str]) -> Config {
    // Tests never reach beyond this machine: webhooks and SMTP stay on loopback.
    let mut argv = vec![
        "docket",
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--outbound",
        "loopback-only",
        "--render-exe",
        BIN,
    ];
    argv.extend_from_slice(args);
    let cli = Cli::try_parse_from(argv).expect("valid serve arguments");
    // A database the test names itself (nodes sharing one) wins over the data dir's own.
    let named = args.iter().any(|a| a.starts_with("--database-url"));
    let database = cli.database().expect("a valid --database-url");
    let mut cfg = match cli.command {
        Sub::Serve(a) => Config::from_args(&a, Some(data_dir.to_path_buf())).expect("valid config"),
        _ => unreachable!(),
    };
    if named {
        cfg.database = database;
    } else if let Some(url) = postgres_for(data_dir) {
        cfg.database = docket::core::db::Target::Postgres(url);
    }
    if !args.iter().any(|a| a.starts_with("--blob-url"))
        && let Some(url) = blob_url_for(data_dir)
    {
        cfg.blob_url = docket::core::blob::BlobUrl::parse(&url).expect("a valid test bucket URL");
    }
    if matches!(cfg.database, docket::core::db::Target::Postgres(_)) {
        cfg.secret_key = docket::core::secrets::NodeKey::parse(TEST_SECRET_KEY).ok();
    }
    cfg
}

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

/// An HTTP client that trusts only the CA in `ca_pem` (or nothing extra) and sends `localhost`
/// to `addr`.
pub fn client(addr: SocketAddr, ca_pem: Option<&[u8]>) -> reqwest::Client {
    let mut b = reqwest::Client::builder()
        .tls_built_in_root_certs(false)
        .resolve("localhost", addr)
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(20));
    if let Some(pem) = ca_pem {
        b = b.add_root_certificate(reqwest::Certificate::from_pem(pem).expect("CA PEM parses"));
    }
    b.build().expect("client builds")
}

/// The server running inside the test process.
pub struct TestApp {
    pub dir: TempDir,
    pub running: Option<Running>,
    pub addr: SocketAddr,
    pub base: String,
    pub client: reqwest::Client,
}

impl TestApp {
    /// TLS off: plain HTTP.
    pub async fn spawn() -> TestApp {
        Self::spawn_with(&["--tls", "off"]).await
    }

    pub async fn spawn_with(args: &[&str]) -> TestApp {
        let dir = tempfile::tempdir().unwrap();
        Self::spawn_in(dir, args).await
    }

    /// Starts on an existing data dir.
    pub async fn spawn_in(dir: TempDir, args: &[&str]) -> TestApp {
        // The server's errors go to the test's captured output: shown when it fails.
        static LOG: std::sync::Once = std::sync::Once::new();
        LOG.call_once(|| {
            let _ = tracing_subscriber::fmt()
                .with_test_writer()
                .with_env_filter("docket=error")
                .try_init();
        });
        let cfg = config(&dir.path().join("data"), args);
        let tls = cfg.tls_on();
        let running = docket::app::start(cfg).await.expect("server starts");
        let addr = running.addr;
        let ca = tls
            .then(|| std::fs::read(dir.path().join("data/tls/ca.pem")).ok())
            .flatten();
        let scheme = if tls { "https" } else { "http" };
        TestApp {
            base: format!("{scheme}://localhost:{}", addr.port()),
            client: client(addr, ca.as_deref()),
            addr,
            running: Some(running),
            dir,
        }
    }

    pub fn data_dir(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client
            .get(self.url(path))
            .send()
            .await
            .expect("request succeeds")
    }

    /// Stops the server and hands back the data dir.
    pub async fn stop(mut self) -> TempDir {
        if let Some(r) = self.running.take() {
            r.shutdown().await;
        }
        self.dir
    }
}

/// Runs the CLI on `data_dir`, feeding `stdin`.
pub fn docket(data_dir: &Path, args: &[&str], stdin: Option<&str>) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .env("DOCKET_DATA_DIR", data_dir)
        .env_remove("DOCKET_PUBLIC_URL")
        .env_remove("DOCKET_DATABASE_URL")
        .env_remove("DOCKET_SECRET_KEY")
        .env_remove("DOCKET_SECRET_KEY_FILE")
        .env_remove("DOCKET_BLOB_URL");
    if let Some(url) = postgres_for(data_dir) {
        cmd.env("DOCKET_DATABASE_URL", url);
    }
    if let Some(url) = blob_url_for(data_dir) {
        cmd.env("DOCKET_BLOB_URL", url);
    }
    if on_postgres() && !args.iter().any(|a| a.starts_with("--secret-key-file")) {
        cmd.env("DOCKET_SECRET_KEY", TEST_SECRET_KEY);
    }
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("docket runs");
    if let Some(input) = stdin {
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
    }
    child.wait_with_output().expect("docket finishes")
}

/// Runs the CLI with `--json` and parses what it printed; panics with its stderr on failure.
pub fn docket_json(data_dir: &Path, args: &[&str], stdin: Option<&str>) -> serde_json::Value {
    let mut all: Vec<&str> = args.to_vec();
    all.push("--json");
    let out = docket(data_dir, &all, stdin);
    assert!(
        out.status.success(),
        "docket {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "docket {args:?} printed no single JSON value ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// The real binary serving in a child process.
pub struct BinServer {
    pub child: Child,
    pub addr: SocketAddr,
    pub banner: Vec<String>,
    /// The child's stderr, drained from the start by a thread (`Drained`), so that a server
    /// logging much before its banner (e.g. at trace level) never blocks on a full pipe.
    pub stderr: Option<Drained>,
}

/// What a child wrote to a pipe, read as it comes by a thread of its own and handed on
/// through a channel: reading it blocks until there is more, and ends when the child's end
/// is closed.
pub struct Drained {
    chunks: std::sync::mpsc::Receiver<Vec<u8>>,
    pending: std::collections::VecDeque<u8>,
}

impl Drained {
    pub fn new(mut from: impl std::io::Read + Send + 'static) -> Drained {
        let (tx, chunks) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = vec![0u8; 64 * 1024];
            while let Ok(n) = from.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        Drained {
            chunks,
            pending: std::collections::VecDeque::new(),
        }
    }
}

impl std::io::Read for Drained {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.pending.is_empty() {
            match self.chunks.recv() {
                Ok(chunk) => self.pending.extend(chunk),
                Err(_) => return Ok(0),
            }
        }
        let n = out.len().min(self.pending.len());
        for (slot, byte) in out.iter_mut().zip(self.pending.drain(..n)) {
            *slot = byte;
        }
        Ok(n)
    }
}

impl BinServer {
    /// Starts `docket serve <args>` with `env`, and waits for the banner's `listening` line.
    pub fn start(args: &[&str], env: &[(&str, &str)]) -> BinServer {
        Self::start_capped(args, env, None)
    }

    /// As [`BinServer::start`], with the child's address space capped at `address_space`
    /// bytes (RLIMIT_AS), so that a memory bound is proven by the kernel: over the cap an
    /// allocation fails and the server aborts instead of growing.
    pub fn start_capped(
        args: &[&str],
        env: &[(&str, &str)],
        address_space: Option<u64>,
    ) -> BinServer {
        let mut child = Self::serve_command(args, env, address_space)
            .spawn()
            .expect("docket serve starts");
        let stderr = child.stderr.take().map(Drained::new);
        let (banner, addr) = Self::read_banner(child.stdout.take().unwrap());
        let Some(addr) = addr else {
            let _ = child.kill();
            let mut err = String::new();
            if let Some(mut e) = stderr {
                use std::io::Read;
                let _ = e.read_to_string(&mut err);
            }
            panic!("docket serve printed no address; banner {banner:?}; stderr {err}");
        };
        BinServer {
            child,
            addr,
            banner,
            stderr,
        }
    }

    /// `docket serve <args>` with `env` over a clean environment (outbound traffic kept on
    /// loopback), its address space capped at `address_space` bytes if given.
    fn serve_command(args: &[&str], env: &[(&str, &str)], address_space: Option<u64>) -> Command {
        let mut cmd = Command::new(BIN);
        if let Some(bytes) = address_space {
            use std::os::unix::process::CommandExt;
            // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork and exec.
            unsafe {
                cmd.pre_exec(move || {
                    let limit = libc::rlimit {
                        rlim_cur: bytes,
                        rlim_max: bytes,
                    };
                    if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        cmd.arg("serve")
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for var in [
            "DOCKET_DATA_DIR",
            "DOCKET_LISTEN",
            "DOCKET_TLS",
            "DOCKET_PUBLIC_URL",
            "DOCKET_DATABASE_URL",
            "DOCKET_SECRET_KEY",
            "DOCKET_SECRET_KEY_FILE",
            "DOCKET_BLOB_URL",
        ] {
            cmd.env_remove(var);
        }
        cmd.env("DOCKET_OUTBOUND", "loopback-only");
        for (k, v) in env {
            cmd.env(k, v);
        }
        // On PostgreSQL, the data dir's own database (the flag or variable a test gives wins).
        let data_dir = args
            .windows(2)
            .find(|w| w[0] == "--data-dir")
            .map(|w| w[1])
            .or_else(|| {
                env.iter()
                    .find(|(k, _)| *k == "DOCKET_DATA_DIR")
                    .map(|(_, v)| *v)
            });
        let named = args.iter().any(|a| a.starts_with("--database-url"))
            || env
                .iter()
                .any(|(k, _)| k.starts_with("DOCKET_DATABASE_URL"));
        if let (Some(dir), false) = (data_dir, named)
            && let Some(url) = postgres_for(Path::new(dir))
        {
            cmd.env("DOCKET_DATABASE_URL", url);
        }
        // ... and its own prefix in the test bucket.
        let bucketed = args.iter().any(|a| a.starts_with("--blob-url"))
            || env.iter().any(|(k, _)| *k == "DOCKET_BLOB_URL");
        if let (Some(dir), false) = (data_dir, bucketed)
            && let Some(url) = blob_url_for(Path::new(dir))
        {
            cmd.env("DOCKET_BLOB_URL", url);
        }
        // On PostgreSQL, the key every test node shares (unless the test gives one).
        let keyed = args.iter().any(|a| a.starts_with("--secret-key-file"))
            || env.iter().any(|(k, _)| k.starts_with("DOCKET_SECRET_KEY"));
        if on_postgres() && !keyed {
            cmd.env("DOCKET_SECRET_KEY", TEST_SECRET_KEY);
        }
        cmd
    }

    /// Reads the banner from the child's `stdout` (60 s at most) up to its `data dir` line:
    /// the lines read and the address of the `listening` line, if any. The rest is drained in
    /// the background.
    fn read_banner(stdout: std::process::ChildStdout) -> (Vec<String>, Option<SocketAddr>) {
        let mut lines = BufReader::new(stdout).lines();
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut banner = Vec::new();
        let mut addr = None;
        while Instant::now() < deadline {
            let Some(Ok(line)) = lines.next() else { break };
            if let Some(rest) = line.trim().strip_prefix("listening") {
                let hostport = rest.trim().split("://").nth(1).unwrap_or_default();
                addr = hostport.parse().ok();
            }
            let done = line.contains("data dir") && addr.is_some();
            banner.push(line);
            if done {
                // Read the rest of the banner without blocking the server later.
                std::thread::spawn(move || for _ in lines.by_ref() {});
                break;
            }
        }
        (banner, addr)
    }

    /// `docket serve --data-dir DATA --listen 127.0.0.1:0 <extra>`.
    pub fn start_in(data: &Path, extra: &[&str]) -> BinServer {
        let mut args = vec![
            "--data-dir",
            data.to_str().unwrap(),
            "--listen",
            "127.0.0.1:0",
        ];
        args.extend_from_slice(extra);
        Self::start(&args, &[])
    }

    /// The child's peak resident set (VmHWM) in KiB, from /proc.
    pub fn peak_rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("/proc/<pid>/status readable");
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmHWM in /proc/<pid>/status")
    }

    /// True while the child has not exited.
    pub fn is_running(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }

    pub fn banner_value(&self, label: &str) -> Option<String> {
        self.banner
            .iter()
            .find_map(|l| l.trim().strip_prefix(label).map(|v| v.trim().to_string()))
    }

    /// Sends `signal` and waits (up to 20 s) for the exit status.
    pub fn stop_with(mut self, signal: nix::sys::signal::Signal) -> std::process::ExitStatus {
        let pid = nix::unistd::Pid::from_raw(self.child.id() as i32);
        nix::sys::signal::kill(pid, signal).expect("signal sent");
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "docket did not stop after {signal}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for BinServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Sends `request` on a fresh connection (without finishing a body) and returns the status and
/// the text of the answer (read until the server closes the connection).
pub fn raw_status(addr: std::net::SocketAddr, request: &[u8]) -> (u16, String) {
    use std::io::{Read, Write};
    let mut conn = std::net::TcpStream::connect(addr).unwrap();
    conn.set_read_timeout(Some(std::time::Duration::from_secs(20)))
        .unwrap();
    conn.write_all(request).unwrap();
    let mut text = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match conn.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => text.extend_from_slice(&buf[..n]),
            Err(e) => panic!("reading the answer failed: {e}"),
        }
    }
    let text = String::from_utf8_lossy(&text).to_string();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {text:?}"));
    (status, text)
}
