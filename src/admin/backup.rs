//! `docket backup DEST`, `docket migrate` and `docket version`.

use super::{CliError, Ctx, fields};

/// Refuses a backup that would leave the blobs out: `docket backup` copies `<data>/blobs` only,
/// so with an S3 blob store it stops (exit 2) before it opens anything.
pub fn only_file_blobs(blob_url: &str) -> Result<(), CliError> {
    let usage = |message: String| CliError { message, code: 2 };
    match crate::core::blob::BlobUrl::parse(blob_url)
        .map_err(|e| usage(format!("--blob-url {e}")))?
    {
        crate::core::blob::BlobUrl::File => Ok(()),
        s3 => Err(usage(format!(
            "docket backup copies blobs from the data directory only; with --blob-url {s3} \
             back up the database (pg_dump with PostgreSQL) and the bucket instead \
             (docs/operate/backups.md)"
        ))),
    }
}

pub fn backup(ctx: &Ctx, dest: &std::path::Path) -> Result<(), CliError> {
    let report = crate::backup::run(&ctx.data, &ctx.db, dest)?;
    for id in &report.missing_blobs {
        eprintln!("docket: warning: blob {id} was deleted while the backup ran; not copied");
    }
    ctx.print(&report, || {
        format!(
            "Backup written to {}\n{}\n\nRestore: stop docket, then copy this directory back as the data dir\n(e.g. cp -a {} /var/lib/docket), and start docket.",
            report.path,
            fields(&[
                ("schema", report.schema_version.to_string()),
                ("database", format!("{} bytes", report.database_bytes)),
                ("blobs", format!("{} files, {} bytes", report.blobs, report.blob_bytes)),
                ("created", report.created_at.clone()),
            ]),
            report.path
        )
    });
    Ok(())
}

/// `docket migrate`: opening the database brought its schema up to date (PostgreSQL: under an
/// advisory lock, so it is done once however many nodes start at the same time).
pub fn migrate(ctx: &Ctx) -> Result<(), CliError> {
    let schema = ctx
        .db
        .schema_version()
        .map_err(|e| CliError::runtime(e.to_string()))?;
    let database = match ctx.db.dialect() {
        crate::core::db::Dialect::Sqlite => "sqlite",
        crate::core::db::Dialect::Postgres => "postgres",
    };
    ctx.print(
        &serde_json::json!({ "database": database, "schema": schema }),
        || format!("the {database} database is at schema version {schema}"),
    );
    Ok(())
}

pub fn version(json: bool) {
    let info = crate::core::version::info();
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&info).unwrap_or_default()
        );
    } else {
        println!(
            "docket {}\n{}",
            info.version,
            fields(&[
                ("commit", info.commit.to_string()),
                ("sqlite", info.sqlite.to_string()),
                ("schema", info.schema.to_string()),
            ])
        );
    }
}
