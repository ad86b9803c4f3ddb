//! The source tree is a set of rings that import one way (docs/develop/architecture.md, "Layout"): a
//! module may name the rings below it and never those above. Inside a ring folder its modules
//! have an order of their own, with the same rule. This test reads `src/` and fails with every
//! import that goes the wrong way. Test code (`#[cfg(test)]` onwards, `tests.rs`, `*_tests.rs`)
//! is left out: a test may set up whatever it needs.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The top-level modules from the lowest ring to the highest.
const RINGS: &[&str] = &[
    "core",
    "outbox",
    "identity",
    "oauth",
    "bookings",
    "signing",
    "integrations",
    "http",
    // The composition root: parse, configure, start.
    "logging",
    "cli",
    "config",
    "backup",
    "secret_files",
    "systemd",
    "admin",
    "app",
];

/// The order inside each ring folder, lowest first.
const INSIDE: &[(&str, &[&str])] = &[
    (
        "core",
        &[
            "large_blocks",
            "client_address",
            "disk_space",
            "error",
            "crypto",
            "timefmt",
            "html",
            "datadir",
            "lenient",
            "db",
            "ids",
            "retry",
            "settings",
            "version",
            "assets",
            "secrets",
            "keyring",
            "tls",
            "outbound",
            "ratelimit",
            "blob",
            "context",
        ],
    ),
    ("outbox", &["mail", "webhooks"]),
    (
        "identity",
        &[
            "scope",
            "users",
            "throttle",
            "factors",
            "sessions",
            "accounts",
            "apikeys",
            "principal",
        ],
    ),
    (
        "signing",
        &["pdf", "documents", "templates", "uploads", "workflow"],
    ),
];

fn rank(list: &[&str], name: &str) -> Option<usize> {
    list.iter().position(|m| *m == name)
}

fn inside(ring: &str) -> Option<&'static [&'static str]> {
    INSIDE.iter().find(|(r, _)| *r == ring).map(|(_, l)| *l)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The non-test part of a source file.
fn production_code(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    if name == "tests.rs" || name.ends_with("_tests.rs") {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    Some(match text.find("#[cfg(test)]") {
        Some(cut) => text[..cut].to_string(),
        None => text,
    })
}

/// Every path named after `crate::`, with `crate::{a::b, c}` groups spread out (one level of
/// nesting is enough: the first two segments are all that matter).
fn crate_paths(code: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().last();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let item = item.trim().trim_start_matches('{');
                if !item.is_empty() && item != "self" {
                    out.insert(item.to_string());
                }
            }
        } else {
            let len = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(rest.len());
            out.insert(rest[..len].trim_end_matches(':').to_string());
        }
    }
    out
}

/// The ring and the module inside it that `path` (relative to `src/`) belongs to.
fn place(path: &Path) -> (String, Option<String>) {
    let mut parts = path.iter().map(|p| p.to_string_lossy().into_owned());
    let top = parts.next().unwrap();
    let top = top.strip_suffix(".rs").unwrap_or(&top).to_string();
    let sub = parts
        .next()
        .map(|s| s.strip_suffix(".rs").unwrap_or(&s).to_string());
    let sub = sub.filter(|s| s != "mod");
    (top, sub)
}

#[test]
fn imports_run_one_way() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut wrong = Vec::new();
    let mut unplaced = BTreeSet::new();
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap();
        let (ring, module) = place(rel);
        if ring == "main" || ring == "lib" {
            continue;
        }
        let Some(from) = rank(RINGS, &ring) else {
            unplaced.insert(ring.clone());
            continue;
        };
        let Some(code) = production_code(file) else {
            continue;
        };
        for used in crate_paths(&code) {
            let mut segs = used.split("::");
            let top = segs.next().unwrap_or_default();
            // Macros exported at the crate root (`params!`, `sql_text_enum!`) belong to `core::db`.
            let Some(to) = rank(RINGS, top) else { continue };
            if to > from {
                wrong.push(format!(
                    "{}: uses crate::{used} (a higher ring)",
                    rel.display()
                ));
            } else if to == from
                && let (Some(order), Some(module), Some(other)) =
                    (inside(&ring), module.as_deref(), segs.next())
                && let (Some(a), Some(b)) = (rank(order, module), rank(order, other))
                && b > a
            {
                wrong.push(format!(
                    "{}: uses crate::{used} ({ring}::{other} is above {ring}::{module})",
                    rel.display()
                ));
            }
        }
    }
    assert!(
        unplaced.is_empty(),
        "modules in no ring (add them to RINGS): {unplaced:?}"
    );
    for (ring, order) in INSIDE {
        let dir = src.join(ring);
        let mut present: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_dir() || p.extension().is_some_and(|e| e == "rs"))
            .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
            .filter(|n| n != "mod")
            .collect();
        present.sort();
        present.dedup();
        let missing: Vec<_> = present
            .iter()
            .filter(|n| rank(order, n).is_none())
            .collect();
        assert!(
            missing.is_empty(),
            "{ring}: modules in no order: {missing:?}"
        );
    }
    assert!(
        wrong.is_empty(),
        "{} imports go the wrong way:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn the_reader_finds_grouped_and_plain_paths() {
    let found = crate_paths(
        "use crate::core::db::Conn;\nuse crate::{identity::users, oauth::tokens::store};\n\
         let x = $crate::core::db::Value; not_crate::x;",
    );
    let want: BTreeSet<String> = [
        "core::db::Conn",
        "identity::users",
        "oauth::tokens::store",
        "core::db::Value",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(found, want);
}
