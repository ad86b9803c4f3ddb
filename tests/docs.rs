//! The documentation is tested like the code.
//!
//! - The configuration reference (`docs/operate/configuration.md`) is generated from the
//!   command line's own definition (`Cli::command()`), so a flag, its variable or its default
//!   cannot be documented other than it is. `DOCKET_WRITE_DOCS=1 cargo test --test docs` writes
//!   the file again after a change to `src/cli.rs`.
//! - Every command in the guide runs as written: the ```sh blocks of README.md, `docs/start/`
//!   and `docs/guides/` run in order, one file a bash session (`set -euo pipefail`), against
//!   the real binary serving on 127.0.0.1:0 with a fresh home and data dir, reaching nothing
//!   beyond loopback. A block preceded by `<!-- not run: REASON -->` is skipped, and named
//!   with its reason in the test's output.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use clap::CommandFactory;
use docket::cli::Cli;

const BIN: &str = env!("CARGO_BIN_EXE_docket");
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Where the generated configuration reference is kept.
const CONFIGURATION: &str = "docs/operate/configuration.md";

/// The marker that keeps the next ```sh block from running; what follows it is the reason.
const NOT_RUN: &str = "<!-- not run:";

/// The files whose shell blocks the reader is told to run, in reading order within each.
fn guide_files() -> Vec<PathBuf> {
    let mut files = vec![PathBuf::from("README.md")];
    for dir in ["docs/start", "docs/guides"] {
        let mut inside: Vec<PathBuf> = std::fs::read_dir(Path::new(ROOT).join(dir))
            .unwrap_or_else(|e| panic!("{dir}: {e}"))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "md"))
            .map(|p| p.strip_prefix(ROOT).unwrap().to_path_buf())
            .collect();
        inside.sort();
        files.extend(inside);
    }
    files
}

// ---------------------------------------------------------------------------------------------
// The configuration reference

#[test]
fn the_configuration_reference_is_generated_from_the_command_line() {
    let generated = configuration_reference();
    let path = Path::new(ROOT).join(CONFIGURATION);
    if std::env::var_os("DOCKET_WRITE_DOCS").is_some() {
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let kept = std::fs::read_to_string(&path).unwrap_or_default();
    if kept != generated {
        let first = kept
            .lines()
            .zip(generated.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(kept.lines().count().min(generated.lines().count()));
        panic!(
            "{CONFIGURATION} is not what src/cli.rs defines (first difference at line {}); \
             write it again with `DOCKET_WRITE_DOCS=1 cargo test --test docs`",
            first + 1
        );
    }
}

#[test]
fn every_serve_flag_and_variable_is_in_the_reference() {
    let text = configuration_reference();
    let cli = Cli::command();
    let serve = cli.find_subcommand("serve").expect("docket serve");
    for arg in cli.get_arguments().chain(serve.get_arguments()) {
        if arg.is_hide_set() || arg.get_long().is_none_or(|l| l == "help" || l == "version") {
            continue;
        }
        let flag = format!("`--{}", arg.get_long().unwrap());
        assert!(text.contains(&flag), "{flag} missing");
        if let Some(env) = arg.get_env() {
            let env = format!("`{}`", env.to_string_lossy());
            assert!(text.contains(&env), "{env} missing");
        }
    }
    assert!(text.contains("| `--max-upload-mb N` | `DOCKET_MAX_UPLOAD_MB` | `50` |"));
    assert!(text.contains("| `--tls auto\\|off\\|files` | `DOCKET_TLS` | `auto` |"));
    assert!(
        !text.contains("--render-exe"),
        "hidden flags (for tests) stay out"
    );
}

/// The Debian package's `/etc/default/docket` lists every variable of `docket serve --help`,
/// commented out (packaging/check.sh checks the built package; this catches it before).
#[test]
fn the_debian_defaults_file_lists_every_variable() {
    let text = std::fs::read_to_string(Path::new(ROOT).join("packaging/debian/default")).unwrap();
    let cli = Cli::command();
    let serve = cli.find_subcommand("serve").expect("docket serve");
    let missing: Vec<String> = cli
        .get_arguments()
        .chain(serve.get_arguments())
        .filter(|a| !a.is_hide_set())
        .filter_map(|a| a.get_env().map(|e| e.to_string_lossy().into_owned()))
        .filter(|env| !text.lines().any(|l| l.starts_with(&format!("#{env}="))))
        .collect();
    assert!(
        missing.is_empty(),
        "packaging/debian/default lacks {missing:?}"
    );
}

/// "Settings explained" is written by hand: each flag it explains must exist, and every flag of
/// `docket serve` must be explained there.
#[test]
fn settings_explained_covers_exactly_the_real_flags() {
    let text = std::fs::read_to_string(Path::new(ROOT).join("docs/operate/settings.md")).unwrap();
    let cli = Cli::command();
    let serve = cli.find_subcommand("serve").expect("docket serve");
    let real: std::collections::BTreeSet<String> = cli
        .get_arguments()
        .chain(serve.get_arguments())
        .filter(|a| !a.is_hide_set())
        .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
        .filter(|l| l != "--help" && l != "--version")
        .collect();
    let mut explained = std::collections::BTreeSet::new();
    for row in text.lines().filter(|l| l.starts_with("| `--")) {
        let first = row.split(" | ").next().unwrap_or_default();
        for part in first.split('`').filter(|p| p.starts_with("--")) {
            let flag = part.split([' ', '=']).next().unwrap().to_string();
            assert!(
                real.contains(&flag),
                "settings.md explains {flag}, which does not exist"
            );
            explained.insert(flag);
        }
    }
    let unexplained: Vec<&String> = real.iter().filter(|f| !explained.contains(*f)).collect();
    assert!(
        unexplained.is_empty(),
        "settings.md does not explain {unexplained:?}"
    );
}

/// The Markdown of `docs/operate/configuration.md`: the global options and those of
/// `docket serve`, each with its variable, its default and its help, from clap.
fn configuration_reference() -> String {
    let cli = Cli::command();
    let serve = cli.find_subcommand("serve").expect("docket serve");
    let mut out = String::new();
    out.push_str(
        "<!-- Generated from src/cli.rs by tests/docs.rs: do not edit. After a change to the \
         command line, write it again with `DOCKET_WRITE_DOCS=1 cargo test --test docs`. -->\n\
         # Configuration reference\n\n\
         Every setting of `docket serve` is a flag and a `DOCKET_*` environment variable (a flag \
         given wins over its variable). A packaged install reads the variables from \
         `/etc/default/docket` ([Install](../start/install.md)); what the settings do in more \
         words, by topic, is in [Settings explained](settings.md).\n\n",
    );
    out.push_str(
        "## Every command\n\nThese work before or after the command (`docket --data-dir DIR \
         user list`), for `serve` and every admin command alike.\n\n",
    );
    table(&mut out, &cli, true);
    out.push_str(&format!(
        "\n## `docket serve`\n\n{}.\n\n",
        help_text(serve.get_about())
    ));
    table(&mut out, serve, false);
    out
}

/// One table row per visible flag of `cmd` (the global ones only when `global`).
fn table(out: &mut String, cmd: &clap::Command, global: bool) {
    out.push_str("| flag | environment | default | what it sets |\n|---|---|---|---|\n");
    for arg in cmd.get_arguments() {
        let Some(long) = arg.get_long() else { continue };
        if arg.is_hide_set() || long == "help" || long == "version" || arg.is_global_set() != global
        {
            continue;
        }
        let takes_value = arg.get_action().takes_values();
        let choices: Vec<clap::builder::PossibleValue> = arg
            .get_possible_values()
            .into_iter()
            .filter(|v| !v.is_hide_set())
            .collect();
        // A choice of values names them (`--tls auto|off|files`), else the value's name.
        let flag = match (takes_value, arg.get_value_names()) {
            (true, _) if !choices.is_empty() => {
                let names: Vec<&str> = choices.iter().map(|v| v.get_name()).collect();
                format!("`--{long} {}`", names.join("|"))
            }
            (true, Some(names)) => format!("`--{long} {}`", names[0]),
            (true, None) => format!("`--{long} {}`", long.to_uppercase().replace('-', "_")),
            (false, _) => format!("`--{long}`"),
        };
        let env = arg
            .get_env()
            .map(|e| format!("`{}`", e.to_string_lossy()))
            .unwrap_or_default();
        let mut help = help_text(arg.get_long_help().or(arg.get_help()));
        let defaults: Vec<String> = arg
            .get_default_values()
            .iter()
            .map(|v| v.to_string_lossy().into_owned())
            .collect();
        let default = if !defaults.is_empty() {
            format!("`{}`", defaults.join(","))
        } else if let Some((before, given)) = help.split_once(" [default: ") {
            let given = given.trim_end_matches(']').to_string();
            help = before.trim_end().to_string();
            given
        } else if let Some((before, given)) = help.split_once(". Default: ") {
            let given = given.to_string();
            help = before.trim_end().to_string();
            given
        } else if !takes_value {
            "off".to_string()
        } else {
            "none".to_string()
        };
        let choices: Vec<String> = choices
            .iter()
            .map(|v| match v.get_help() {
                Some(h) => format!("`{}`: {}", v.get_name(), help_text(Some(h))),
                None => format!("`{}`", v.get_name()),
            })
            .collect();
        if takes_value && !choices.is_empty() {
            help = format!("{help}: {}", choices.join("; "));
        }
        out.push_str(&format!(
            "| {} | {env} | {} | {} |\n",
            cell(&flag),
            cell(&default),
            cell(&help)
        ));
    }
}

/// Help text on one line, without a trailing period.
fn help_text(text: Option<&clap::builder::StyledStr>) -> String {
    let text = text.map(|t| t.to_string()).unwrap_or_default();
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    joined.trim_end_matches('.').to_string()
}

/// A table cell: its pipes escaped, and outside code spans its angle brackets (`<data-dir>`
/// would be read as an HTML tag and not shown).
fn cell(text: &str) -> String {
    let mut out = String::new();
    for (i, part) in text.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        if i % 2 == 1 {
            out.push_str(part);
        } else {
            out.push_str(&part.replace('<', "&lt;").replace('>', "&gt;"));
        }
    }
    out.replace('|', "\\|")
}

// ---------------------------------------------------------------------------------------------
// The guide's shell blocks

/// A ```sh block of a Markdown file: the line its fence is on, its text, and why it is not
/// run, if it is not.
#[derive(Debug)]
struct Block {
    line: usize,
    text: String,
    not_run: Option<String>,
}

/// The ```sh blocks of `markdown`, in order; a fence may be indented (inside a list item), and
/// its indentation is taken off its lines.
fn shell_blocks(markdown: &str) -> Vec<Block> {
    let lines: Vec<&str> = markdown.lines().collect();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let trimmed = lines[i].trim_start();
        let indent = lines[i].len() - trimmed.len();
        if trimmed.starts_with("```") {
            let info = trimmed.trim_start_matches('`').trim();
            let start = i;
            let mut body = Vec::new();
            i += 1;
            while i < lines.len() && !lines[i].trim_start().starts_with("```") {
                let l = lines[i];
                body.push(
                    l.get(indent.min(l.len() - l.trim_start().len())..)
                        .unwrap_or(""),
                );
                i += 1;
            }
            if info == "sh" {
                let before = lines[..start]
                    .iter()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .map(|l| l.trim())
                    .unwrap_or_default();
                let not_run = before
                    .strip_prefix(NOT_RUN)
                    .map(|r| r.trim_end_matches("-->").trim().to_string());
                blocks.push(Block {
                    line: start + 1,
                    text: body.join("\n"),
                    not_run,
                });
            }
        }
        i += 1;
    }
    blocks
}

/// The bash script that runs the blocks of `file` in order (each announced on stderr, so a
/// failure names its block), and the blocks skipped with their reasons.
fn script_of(file: &str, blocks: &[Block]) -> (String, Vec<String>) {
    let mut script = String::from("set -euo pipefail\n");
    let mut skipped = Vec::new();
    for b in blocks {
        match &b.not_run {
            Some(reason) => skipped.push(format!("{file}:{}: {reason}", b.line)),
            None => {
                script.push_str(&format!("echo '>>> {file}:{}' >&2\n{}\n", b.line, b.text));
            }
        }
    }
    (script, skipped)
}

/// A server as a reader who followed "First run" has it: `docket serve` on its defaults but
/// for the address (127.0.0.1:0), with `home` as the home directory (so its data dir is
/// `~/.local/share/docket` there) and outbound connections kept on loopback.
struct Server {
    child: Child,
    url: String,
}

impl Server {
    fn start(home: &Path) -> Server {
        let mut cmd = Command::new(BIN);
        cmd.arg("serve");
        clean_env(&mut cmd, home);
        let mut child = cmd
            .env("DOCKET_LISTEN", "127.0.0.1:0")
            .env("DOCKET_OUTBOUND", "loopback-only")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(
                std::fs::File::create(home.join("serve.log")).unwrap(),
            ))
            .spawn()
            .expect("docket serve starts");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut port = None;
        for line in lines.by_ref() {
            let line = line.unwrap();
            if let Some(rest) = line.trim().strip_prefix("listening") {
                port = rest
                    .rsplit(':')
                    .next()
                    .and_then(|p| p.trim().parse::<u16>().ok());
            }
            if line.contains("data dir") {
                break;
            }
        }
        std::thread::spawn(move || for _ in lines {});
        let port = port.unwrap_or_else(|| {
            let _ = child.kill();
            panic!(
                "docket serve printed no address: {}",
                std::fs::read_to_string(home.join("serve.log")).unwrap_or_default()
            )
        });
        Server {
            child,
            url: format!("https://localhost:{port}"),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let pid = nix::unistd::Pid::from_raw(self.child.id() as i32);
        let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM);
        let _ = self.child.wait();
    }
}

/// `cmd` in the environment of a reader whose home is `home`: none of the caller's own
/// `DOCKET_*` settings or XDG directories (the data dir is then `~/.local/share/docket`).
fn clean_env(cmd: &mut Command, home: &Path) {
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy();
        // A proxy from the caller's environment would take curl's requests to localhost.
        let proxy = key.to_ascii_lowercase().ends_with("_proxy");
        if key.starts_with("DOCKET_")
            || key.starts_with("XDG_")
            || key.starts_with("CURL")
            || key.starts_with("AWS_")
            || proxy
        {
            cmd.env_remove(&*key);
        }
    }
    cmd.env("HOME", home);
}

/// Runs the shell blocks of `file` (relative to the repository) against a fresh server: Ok
/// with the skipped blocks, or Err with what the session printed.
fn run_guide(file: &str, markdown: &str) -> Result<Vec<String>, String> {
    let blocks = shell_blocks(markdown);
    let (script, skipped) = script_of(file, &blocks);
    if blocks.iter().all(|b| b.not_run.is_some()) {
        return Ok(skipped);
    }
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let work = dir.path().join("work");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    // The PDF the guides send, as the reader has one at hand.
    std::fs::copy(
        Path::new(ROOT).join("tests/fixtures/pdf/a4-1p.pdf"),
        work.join("nda.pdf"),
    )
    .unwrap();
    // curl fails on an HTTP error answer (showing it), as a reader would notice one.
    std::fs::write(home.join(".curlrc"), "fail-with-body\nshow-error\n").unwrap();
    let server = Server::start(&home);
    std::fs::write(dir.path().join("guide.sh"), &script).unwrap();
    let bin_dir = Path::new(BIN).parent().unwrap();
    let path = std::env::join_paths(std::iter::once(bin_dir.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let out = std::fs::File::create(dir.path().join("out.log")).unwrap();
    let mut cmd = Command::new("bash");
    clean_env(&mut cmd, &home);
    // What "First run" has the reader set: the server's address and its CA for curl.
    let mut child = cmd
        .arg(dir.path().join("guide.sh"))
        .current_dir(&work)
        .env("PATH", path)
        .env("DOCKET_URL", &server.url)
        .env(
            "CURL_CA_BUNDLE",
            home.join(".local/share/docket/tls/ca.pem"),
        )
        .stdin(Stdio::null())
        .stdout(Stdio::from(out.try_clone().unwrap()))
        .stderr(Stdio::from(out))
        .spawn()
        .expect("bash starts");
    let deadline = Instant::now() + Duration::from_secs(600);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    drop(server);
    let output = std::fs::read_to_string(dir.path().join("out.log")).unwrap_or_default();
    match status {
        Some(s) if s.success() => Ok(skipped),
        Some(s) => Err(format!(
            "{file}: {s}\n{output}\n--- server log ---\n{}",
            tail(&std::fs::read_to_string(home.join("serve.log")).unwrap_or_default())
        )),
        None => Err(format!("{file}: still running after 10 minutes\n{output}")),
    }
}

fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(40)..].join("\n")
}

/// What the guide's commands use besides docket: a plain `cargo test` needs the Rust toolchain
/// alone, so the tests that run them are gated on `outside-tools` (tests/it/support/tools.rs);
/// tests/run.sh installs them.
const GUIDE_TOOLS: &[&str] = &["bash", "curl", "jq", "openssl", "sed"];

/// Fails with what is missing when a tool of [`GUIDE_TOOLS`] is not on `PATH`.
fn require_guide_tools() {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let missing: Vec<&&str> = GUIDE_TOOLS
        .iter()
        .filter(|t| !std::env::split_paths(&path).any(|d| d.join(t).is_file()))
        .collect();
    assert!(
        missing.is_empty(),
        "the guide's commands need {missing:?}: tests/run.sh installs them"
    );
}

#[test]
#[cfg_attr(
    not(feature = "outside-tools"),
    ignore = "needs bash, curl, jq and openssl"
)]
fn every_command_in_the_guide_runs_as_written() {
    require_guide_tools();
    let files = guide_files();
    assert!(files.len() > 5, "the guide's files: {files:?}");
    // Each file in a session of its own; two at a time.
    let results: BTreeMap<String, Result<Vec<String>, String>> = files
        .chunks(2)
        .flat_map(|pair| {
            let handles: Vec<_> = pair
                .iter()
                .map(|f| {
                    let f = f.to_string_lossy().into_owned();
                    std::thread::spawn(move || {
                        let text = std::fs::read_to_string(Path::new(ROOT).join(&f)).unwrap();
                        let r = run_guide(&f, &text);
                        (f, r)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap())
        })
        .collect();
    let mut failed = Vec::new();
    for result in results.values() {
        match result {
            Ok(skipped) => {
                for s in skipped {
                    eprintln!("not run: {s}");
                }
            }
            Err(e) => failed.push(e.clone()),
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

#[test]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs bash and curl")]
fn a_failing_command_fails_its_guide() {
    require_guide_tools();
    let markdown = "# A guide\n\n```sh\ncurl -s \"$DOCKET_URL/healthz\"\n```\n\n\
                    <!-- not run: shown for its output only -->\n```sh\nexit 3\n```\n\n\
                    ```sh\ndocket user show nobody@example.com\necho never\n```\n";
    let blocks = shell_blocks(markdown);
    assert_eq!(blocks.len(), 3);
    assert_eq!(
        blocks[1].not_run.as_deref(),
        Some("shown for its output only")
    );
    let err = run_guide("a-guide.md", markdown).expect_err("the third block fails");
    assert!(err.contains(">>> a-guide.md:12"), "{err}");
    assert!(!err.contains("never"), "{err}");
    // The first block ran against the server (its answer is in the output).
    assert!(err.contains("\"status\":\"ok\""), "{err}");
    // And an HTTP error answer fails as a failed command does.
    let err = run_guide(
        "b.md",
        "```sh\ncurl -s \"$DOCKET_URL/api/v1/documents\"\n```\n",
    )
    .expect_err("401 fails");
    assert!(err.contains("401"), "{err}");
}

#[test]
fn every_block_not_run_says_why() {
    for file in guide_files() {
        let text = std::fs::read_to_string(Path::new(ROOT).join(&file)).unwrap();
        for b in shell_blocks(&text) {
            if let Some(reason) = b.not_run {
                assert!(
                    reason.len() > 10,
                    "{}:{}: say why the block is not run",
                    file.display(),
                    b.line
                );
            }
        }
    }
}
