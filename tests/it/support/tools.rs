//! Tools from outside the Rust toolchain that some tests drive: headless Chromium (Debian's
//! `chromium`, through `playwright-core` from npm), real client libraries in Node and Python,
//! Python's aiosmtpd as the SMTP server, poppler and qpdf to check sealed PDFs, and strace to
//! watch the binary's system calls.
//!
//! A test that needs one is gated by the cargo feature `outside-tools`:
//!
//! ```ignore
//! #[cfg_attr(not(feature = "outside-tools"), ignore = "needs chromium and node")]
//! ```
//!
//! A plain `cargo test` (the Rust toolchain alone) lists it as ignored, with its reason;
//! `tests/run.sh` installs the tools and runs `cargo test --features outside-tools`, where it
//! runs and a missing tool fails it. Every tool starts through [`command`], which also fails a
//! test that uses a tool without the gate, so a forgotten gate shows on any machine.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The command `program` (a name on `PATH`, or a path), for a test gated on `outside-tools`.
/// Panics when the feature is off (the calling test lacks its gate) or the program is missing.
pub fn command(program: &str) -> Command {
    if !cfg!(feature = "outside-tools") {
        panic!(
            "this test runs `{program}`, a tool from outside the Rust toolchain: gate it with \
             #[cfg_attr(not(feature = \"outside-tools\"), ignore = \"needs {program}\")] \
             (tests/it/support/tools.rs)"
        );
    }
    assert!(
        installed(program),
        "`{program}` is missing: tests/run.sh installs what the gated tests need"
    );
    Command::new(program)
}

/// Whether `program` is an executable file, by its path or on `PATH`.
fn installed(program: &str) -> bool {
    let executable = |p: &Path| {
        use std::os::unix::fs::PermissionsExt;
        p.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.contains('/') {
        return executable(Path::new(program));
    }
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| executable(&dir.join(program))))
}

/// Runs `program args`: whether it exited 0, and what it printed (stdout, then stderr).
pub fn run(program: &str, args: &[&str]) -> (bool, String) {
    let out = command(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{program} runs: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// The text of the PDF file `pdf` (poppler's `pdftotext`), its whitespace collapsed to single
/// spaces.
pub fn pdf_words(pdf: &Path) -> String {
    let out = command("pdftotext")
        .arg(pdf)
        .arg("-")
        .output()
        .expect("pdftotext runs");
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// `python3`, after checking that it can import each of `modules` (installed from PyPI by
/// tests/run.sh).
pub fn python(modules: &[&str]) -> Command {
    let import = format!("import {}", modules.join(", "));
    let found = command("python3")
        .args(["-c", &import])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "python3 cannot `{import}`: tests/run.sh installs what the gated tests need"
    );
    command("python3")
}

/// `node`, to run scripts in `tests/<folder>` that use `package` from npm, installed there by
/// tests/run.sh (`npm ci`).
pub fn node(folder: &str, package: &str) -> Command {
    let dir = tests_dir(folder);
    assert!(
        dir.join("node_modules").join(package).is_dir(),
        "{package} is missing from tests/{folder}: tests/run.sh installs it (npm ci)"
    );
    let mut node = command("node");
    node.current_dir(dir);
    node
}

/// `tests/<folder>` of this repository.
pub fn tests_dir(folder: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(folder)
}

/// Where the browser scripts keep their screenshots.
pub fn screenshots() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/browser-screenshots")
}

/// Runs `tests/browser/<script>` in headless Chromium with `args` and the screenshot folder,
/// blocking: its exit status and stdout, with its stderr in the panic when it cannot run.
pub fn browser_script(script: &str, args: &[&str]) -> (bool, String, String) {
    assert!(
        Path::new("/usr/bin/chromium").exists(),
        "Debian's chromium is missing: tests/run.sh installs it"
    );
    let output = node("browser", "playwright-core")
        .arg(script)
        .args(args)
        .arg(screenshots())
        .output()
        .expect("node runs");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The JSON line a browser script printed last (`browser_script`'s answer), which must say
/// `"ok": true`.
pub fn summary((ok, stdout, stderr): (bool, String, String)) -> serde_json::Value {
    assert!(ok, "browser test failed:\n{stdout}\n{stderr}");
    let summary: serde_json::Value = stdout
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| panic!("no summary line:\n{stdout}\n{stderr}"));
    assert_eq!(summary["ok"], true, "{stdout}");
    summary
}

/// Runs `tests/browser/<script>` as [`browser_script`] does; fails unless it exits 0 and
/// prints `"ok":true`.
pub fn browser_step(script: &str, args: &[&str]) {
    let (ok, stdout, stderr) = browser_script(script, args);
    assert!(
        ok && stdout.contains("\"ok\":true"),
        "browser step {script} {args:?} failed:\n{stdout}\n{stderr}"
    );
}
