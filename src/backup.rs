//! Online backups: a consistent snapshot of the database (`VACUUM INTO`, one read transaction,
//! so the server keeps writing meanwhile), the blobs that snapshot references, the HMAC key ring
//! and the TLS files. The copy is assembled in a temporary directory next to `dest` and renamed
//! into place, so `dest` is either complete or absent. Restoring is copying it back as a data dir.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::core::db::Db;
use crate::core::error::AppError;
use crate::{core::blob::BlobId, core::blob::BlobStore};
use crate::{
    core::datadir::DataDir, core::datadir::create_private_dir, core::datadir::sync_dir,
    core::datadir::write_atomic,
};

#[derive(Debug, Serialize)]
pub struct Report {
    pub path: String,
    pub schema_version: i64,
    pub database_bytes: u64,
    pub blobs: u64,
    pub blob_bytes: u64,
    /// Blobs the snapshot names but that were deleted before they could be copied.
    pub missing_blobs: Vec<String>,
    pub created_at: String,
}

pub fn run(data: &DataDir, db: &Db, dest: &Path) -> Result<Report, AppError> {
    if dest.exists() {
        return Err(AppError::Conflict(format!(
            "{} already exists; give a new directory",
            dest.display()
        )));
    }
    let parent = match dest.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !parent.is_dir() {
        return Err(AppError::NotFound(format!(
            "{} does not exist",
            parent.display()
        )));
    }
    let name = dest
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| AppError::bad_request("the destination needs a UTF-8 directory name"))?;
    let work = parent.join(format!(
        ".{name}.partial-{}",
        crate::core::crypto::random_base62(8)
    ));
    create_private_dir(&work)?;
    let result = assemble(data, db, &work);
    match result {
        Ok(mut report) => {
            fs::rename(&work, dest)?;
            sync_dir(&parent)?;
            report.path = dest.display().to_string();
            Ok(report)
        }
        Err(e) => {
            let _ = fs::remove_dir_all(&work);
            Err(e)
        }
    }
}

fn assemble(data: &DataDir, db: &Db, work: &Path) -> Result<Report, AppError> {
    let db_copy = work.join("docket.db");
    let db_copy_str = db_copy
        .to_str()
        .ok_or_else(|| AppError::bad_request("the destination path is not UTF-8"))?
        .to_string();
    // VACUUM INTO creates a missing file with SQLite's default mode (0644 less the umask) but
    // keeps the mode of an empty one: make it owner-only first, like the live database.
    create_private_file(&db_copy)?;
    db.vacuum_into(&db_copy_str)?;
    fs::set_permissions(&db_copy, fs::Permissions::from_mode(0o600))?;
    fs::File::open(&db_copy)?.sync_all()?;

    // Read the blob list from the snapshot itself, so files and rows agree.
    let snapshot = rusqlite::Connection::open_with_flags(
        &db_copy,
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )?;
    let schema_version = crate::core::db::migrate::version(&snapshot)?;
    let ids = crate::core::blob::rows::ids(&crate::core::db::Conn::sqlite(&snapshot))?;
    drop(snapshot);

    let live = BlobStore::open(&data.blobs())?;
    let copy = BlobStore::open(&work.join("blobs"))?;
    let (mut blobs, mut blob_bytes, mut missing) = (0u64, 0u64, Vec::new());
    for id in ids {
        let Some(blob_id) = BlobId::parse(&id) else {
            missing.push(id);
            continue;
        };
        let target = copy.file_path(&blob_id);
        create_private_dir(target.parent().expect("blob paths have a parent"))?;
        match live
            .local_path(&blob_id)
            .and_then(|from| fs::copy(from, &target))
        {
            Ok(n) => {
                fs::File::open(&target)?.sync_all()?;
                blobs += 1;
                blob_bytes += n;
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => missing.push(id),
            Err(e) => return Err(e.into()),
        }
    }

    for (from, to) in [
        (data.secrets(), work.join("secrets")),
        (data.tls(), work.join("tls")),
    ] {
        copy_flat_dir(&from, &to)?;
    }
    let created_at = crate::core::timefmt::iso8601(crate::core::db::now());
    let manifest = serde_json::json!({
        "docket_version": crate::core::version::VERSION,
        "schema_version": schema_version,
        "created_at": created_at,
        "blobs": blobs,
    });
    write_atomic(
        &work.join("backup.json"),
        serde_json::to_string_pretty(&manifest)
            .unwrap_or_default()
            .as_bytes(),
        true,
    )?;
    sync_dir(work)?;
    Ok(Report {
        path: String::new(),
        schema_version,
        database_bytes: fs::metadata(&db_copy)?.len(),
        blobs,
        blob_bytes,
        missing_blobs: missing,
        created_at,
    })
}

/// Creates the empty file `path` with mode 0600.
fn create_private_file(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    Ok(())
}

/// Copies the regular files of `from` into a new private `to`, keeping them 0600.
fn copy_flat_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    create_private_dir(to)?;
    if !from.is_dir() {
        return Ok(());
    }
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        if entry.file_type()?.is_file() {
            let bytes = fs::read(entry.path())?;
            write_atomic(&to.join(entry.file_name()), &bytes, true)?;
        }
    }
    Ok(())
}
