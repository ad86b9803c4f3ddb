//! Test servers: the real server in this process on 127.0.0.1:0 with a fresh temp data dir
//! (`TestApp`), the real binary serving as a child process (`BinServer`), and an HTTP client
//! for either.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use clap::Parser;
use docket::app::Running;
use docket::config::Config;
use docket::{cli::Cli, cli::Command as Sub};
use tempfile::TempDir;

use super::stores::{TEST_SECRET_KEY, blob_url_for, on_postgres, postgres_for};

pub const BIN: &str = env!("CARGO_BIN_EXE_docket");

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
    /// The address must be given (`--listen` or `DOCKET_LISTEN`, `127.0.0.1:0` for a port of
    /// the system's choosing): the defaults are fixed ports, which tests running side by side
    /// would race for (see [`BinServer::start_on_default_port`]).
    pub fn start(args: &[&str], env: &[(&str, &str)]) -> BinServer {
        Self::start_capped(args, env, None)
    }

    /// `docket serve <args>` on its default address (8080 without TLS, 8443 with it): only for
    /// the one test about that default.
    pub fn start_on_default_port(args: &[&str], env: &[(&str, &str)]) -> BinServer {
        Self::launch(args, env, None)
    }

    /// As [`BinServer::start`], with the child's address space capped at `address_space`
    /// bytes (RLIMIT_AS), so that a memory bound is proven by the kernel: over the cap an
    /// allocation fails and the server aborts instead of growing.
    pub fn start_capped(
        args: &[&str],
        env: &[(&str, &str)],
        address_space: Option<u64>,
    ) -> BinServer {
        assert!(
            args.contains(&"--listen") || env.iter().any(|(k, _)| *k == "DOCKET_LISTEN"),
            "give the test server an address (`--listen 127.0.0.1:0`): {args:?}"
        );
        Self::launch(args, env, address_space)
    }

    fn launch(args: &[&str], env: &[(&str, &str)], address_space: Option<u64>) -> BinServer {
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
