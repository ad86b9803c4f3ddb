//! Build script: records the git commit for `docket version`; gzips every file under `assets/`
//! (at its best level, with no name or time in the header, so the bytes depend only on the
//! file) into `OUT_DIR/assets/`, which include_dir embeds and the server sends as it is to
//! clients that accept gzip (`core::assets`; the sealing font `fonts/DejaVuSans.ttf` among them,
//! 759,720 -> about 382,000 bytes, which `signing::pdf::seal::font` inflates once and the signing
//! page shows filled values in), rerunning when anything under `assets/` changes; and
//! compresses into `OUT_DIR` (zlib at its best level) what the binary embeds but seldom reads:
//! the generated part of the OpenAPI document (`src/http/api/openapi/generated.json`, written by
//! a unit test; `http::api::openapi`).

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=assets");
    println!("cargo:rerun-if-changed=schema.sql");
    println!("cargo:rerun-if-changed=src/http/api/openapi/generated.json");
    gzip_tree(Path::new("assets"), &out_dir().join("assets"));
    compress(
        "src/http/api/openapi/generated.json",
        "openapi-generated.json.zlib",
    );
    println!("cargo:rerun-if-changed=.git/HEAD");
    println!("cargo:rerun-if-changed=.git/refs/heads");
    println!("cargo:rerun-if-env-changed=DOCKET_COMMIT");
    let commit = std::env::var("DOCKET_COMMIT").ok().or_else(|| {
        Command::new("git")
            .args(["rev-parse", "--short=12", "HEAD"])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .map(|s| s.trim().to_string())
    });
    println!(
        "cargo:rustc-env=DOCKET_COMMIT={}",
        commit.unwrap_or_else(|| "unknown".into())
    );
}

fn out_dir() -> PathBuf {
    PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"))
}

/// The file at `from` zlib-compressed to `$OUT_DIR/<to>`.
fn compress(from: &str, to: &str) {
    use std::io::Write as _;
    let bytes = std::fs::read(from).unwrap_or_else(|e| panic!("read {from}: {e}"));
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    z.write_all(&bytes).expect("compress");
    std::fs::write(out_dir().join(to), z.finish().expect("compress")).expect("write to OUT_DIR");
}

/// Every file under `from` gzipped to the same path under `to`, which is emptied first (a file
/// removed from `assets/` must not stay embedded).
fn gzip_tree(from: &Path, to: &Path) {
    if to.exists() {
        std::fs::remove_dir_all(to).expect("clear OUT_DIR/assets");
    }
    gzip_dir(from, to);
}

fn gzip_dir(from: &Path, to: &Path) {
    use std::io::Write as _;
    std::fs::create_dir_all(to).expect("create a folder in OUT_DIR");
    let mut entries: Vec<_> = std::fs::read_dir(from)
        .unwrap_or_else(|e| panic!("read {}: {e}", from.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        let target = to.join(path.file_name().expect("a file name"));
        if path.is_dir() {
            gzip_dir(&path, &target);
            continue;
        }
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
        // GzBuilder writes neither a file name nor a time unless told to.
        let mut z = flate2::GzBuilder::new().write(Vec::new(), flate2::Compression::best());
        z.write_all(&bytes).expect("compress");
        std::fs::write(&target, z.finish().expect("compress")).expect("write to OUT_DIR");
    }
}
