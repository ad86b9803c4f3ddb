//! What this build is: package version, git commit, bundled SQLite.

use serde::Serialize;

pub const VERSION: &str = env!("CARGO_PKG_VERSION");
pub const COMMIT: &str = env!("DOCKET_COMMIT");

#[derive(Debug, Serialize)]
pub struct VersionInfo {
    pub version: &'static str,
    pub commit: &'static str,
    pub sqlite: &'static str,
    pub schema: i64,
}

pub fn info() -> VersionInfo {
    VersionInfo {
        version: VERSION,
        commit: COMMIT,
        sqlite: rusqlite::version(),
        schema: crate::core::db::migrate::LATEST,
    }
}
