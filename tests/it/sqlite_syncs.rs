//! SQLite makes its files durable with `fdatasync`, never `fsync`, which also writes a file's
//! inode when only its timestamps changed: a sync on the writer's thread holds up every commit
//! queued behind it (the refresh grant's p99, docs/develop/performance-history.md). The amalgamation uses
//! `fsync` unless built with `HAVE_FDATASYNC` (`.cargo/config.toml`).

use crate::support::{BIN, skip_on_postgres, tools};

/// The real binary creates a data dir (the schema's transactions, a checkpoint as it closes)
/// under `strace`: every sync of the database, its log or its rollback journal is an
/// `fdatasync`.
#[test]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs strace")]
fn sqlite_syncs_its_files_with_fdatasync() {
    if skip_on_postgres("watches the SQLite files' syncs") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let (data, trace) = (tmp.path().join("data"), tmp.path().join("syncs"));
    let out = tools::command("strace")
        .args(["-f", "-qq", "-y", "-e", "trace=fsync,fdatasync", "-o"])
        .arg(&trace)
        .arg(BIN)
        .arg("--data-dir")
        .arg(&data)
        .args(["user", "add", "sync@example.com", "--name", "Sync"])
        .env_remove("DOCKET_DATABASE_URL")
        .env_remove("DOCKET_DATABASE_URL_FILE")
        .env_remove("DOCKET_BLOB_URL")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let trace = std::fs::read_to_string(&trace).unwrap();
    let sqlite_syncs: Vec<&str> = trace.lines().filter(|l| l.contains("/docket.db")).collect();
    assert!(
        sqlite_syncs.iter().any(|l| l.contains("docket.db-wal>")),
        "the log was never synced:\n{trace}"
    );
    let fsyncs: Vec<&&str> = sqlite_syncs
        .iter()
        .filter(|l| !l.contains("fdatasync("))
        .collect();
    assert!(fsyncs.is_empty(), "SQLite synced with fsync: {fsyncs:#?}");
}
