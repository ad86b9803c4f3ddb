//! Build script: records the git commit for `docket version`, and makes cargo rebuild when
//! anything under `assets/` changes (include_dir embeds the folder; new files must be picked up).

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=assets");
    println!("cargo:rerun-if-changed=schema.sql");
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
