//! The real binary's command line (`docket user add ...`) on a test's data dir, with the
//! data dir's database and bucket on the PostgreSQL run.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use super::server::BIN;
use super::stores::{TEST_SECRET_KEY, blob_url_for, on_postgres, postgres_for};

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
