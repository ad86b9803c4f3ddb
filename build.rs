//! Build script: records the git commit for `docket version`, makes cargo rebuild when
//! anything under `assets/` changes (include_dir embeds the folder; new files must be picked
//! up), and compresses into `OUT_DIR` (zlib at its best level) what the binary embeds but seldom
//! reads: the sealing font `fonts/DejaVuSans.ttf` (759,720 -> 381,836 bytes;
//! `signing::pdf::seal::font` inflates it once) and the generated part of the OpenAPI document
//! (`src/http/openapi/generated.json`, written by a unit test; `http::openapi`).

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=assets");
    println!("cargo:rerun-if-changed=schema.sql");
    println!("cargo:rerun-if-changed=fonts/DejaVuSans.ttf");
    println!("cargo:rerun-if-changed=src/http/openapi/generated.json");
    compress("fonts/DejaVuSans.ttf", "DejaVuSans.ttf.zlib");
    compress(
        "src/http/openapi/generated.json",
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

/// The file at `from` zlib-compressed to `$OUT_DIR/<to>`.
fn compress(from: &str, to: &str) {
    use std::io::Write as _;
    let bytes = std::fs::read(from).unwrap_or_else(|e| panic!("read {from}: {e}"));
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    z.write_all(&bytes).expect("compress");
    let out = std::path::Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join(to);
    std::fs::write(out, z.finish().expect("compress")).expect("write to OUT_DIR");
}
