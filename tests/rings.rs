//! The source tree is a set of rings that import one way (docs/develop/architecture.md, "Layout"): a
//! module may name the rings below it and never those above. Inside a ring folder its modules
//! have an order of their own, with the same rule. This test reads `src/` and fails with every
//! import that goes the wrong way. Test code (each item marked `#[cfg(test)]`, `tests.rs`,
//! `*_tests.rs`) is left out: a test may set up whatever it needs. Whatever follows a test item
//! in the same file is read.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The top-level modules from the lowest ring to the highest.
const RINGS: &[&str] = &[
    "core",
    "outbox",
    "identity",
    "oauth",
    "bookings",
    "teams",
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
            "i18n",
            "ids",
            "owner",
            "page",
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
        "oauth",
        &[
            "prompt",
            "basic",
            "clients",
            "tokens",
            "account",
            "verified",
            "answers",
            "oidc",
            "authorize",
            "login_mark",
            "bearer",
            "identity",
            "consent",
            "token_endpoint",
        ],
    ),
    (
        "teams",
        &[
            "model",
            "slug",
            "store",
            "notices",
            "manage",
            "access",
            "invitations",
            "tokens",
            "admin",
        ],
    ),
    (
        "signing",
        &[
            "envelope_ids",
            "pdf",
            "documents",
            "attachments",
            "templates",
            "folders",
            "uploads",
            "workflow",
            "workspaces",
            "bulk",
            "envelopes",
        ],
    ),
    (
        "http",
        &[
            "reply",
            "body",
            "server",
            "session",
            "shown_once",
            "cross_site",
            "auth",
            "api",
            "oauth",
            "pages",
        ],
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
    Some(without_test_items(&std::fs::read_to_string(path).ok()?))
}

/// `code` with every item marked `#[cfg(test)]` cut out: the attribute, any attributes after it,
/// and the item up to its closing `;` or its balanced block.
fn without_test_items(code: &str) -> String {
    const MARK: &str = "#[cfg(test)]";
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find(MARK) {
        out.push_str(&rest[..at]);
        rest = &rest[at + MARK.len()..];
        rest = &rest[item_end(rest)..];
    }
    out.push_str(rest);
    out
}

/// Where the item at the start of `code` ends: after the `;` that ends a plain item, or after the
/// `}` that closes its first block. Strings, characters and comments are stepped over, so a brace
/// inside them does not count.
fn item_end(code: &str) -> usize {
    let bytes = code.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i = code[i..].find('\n').map_or(bytes.len(), |n| i + n);
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i = code[i + 2..]
                    .find("*/")
                    .map_or(bytes.len(), |n| i + 2 + n + 1);
            }
            b'r' if matches!(bytes.get(i + 1), Some(b'#') | Some(b'"'))
                && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_')) =>
            {
                let hashes = code[i + 1..].bytes().take_while(|b| *b == b'#').count();
                let open = i + 1 + hashes;
                if bytes.get(open) == Some(&b'"') {
                    let close = format!("\"{}", "#".repeat(hashes));
                    i = code[open + 1..]
                        .find(&close)
                        .map_or(bytes.len(), |n| open + n + close.len());
                }
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            // A character literal ('x', '\n', '{'); a lifetime ('a) has no closing quote after it.
            b'\'' => {
                if bytes.get(i + 1) == Some(&b'\\') {
                    i = code[i + 2..].find('\'').map_or(bytes.len(), |n| i + 2 + n);
                } else if let Some(c) = code[i + 1..].chars().next()
                    && code[i + 1 + c.len_utf8()..].starts_with('\'')
                {
                    i += c.len_utf8() + 1;
                }
            }
            b';' if depth == 0 => return i + 1,
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    bytes.len()
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
        out.extend(paths_at(rest));
    }
    out
}

/// The path (or the group of paths) `rest` starts with: `a::b::C` or `{a::b, c}`.
fn paths_at(rest: &str) -> Vec<String> {
    if let Some(group) = rest.strip_prefix('{') {
        let end = group.find('}').unwrap_or(group.len());
        return group[..end]
            .split(',')
            .map(|item| item.trim().trim_start_matches('{').to_string())
            .filter(|item| !item.is_empty() && item != "self")
            .collect();
    }
    let len = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
        .unwrap_or(rest.len());
    vec![rest[..len].trim_end_matches(':').to_string()]
}

/// Every path named after `super::` (or `super::super::`…), written from the crate's root:
/// `super::oidc::subject` in `oauth/answers.rs` is `oauth::oidc::subject`. `module` is the
/// file's module path (`["oauth", "answers"]`).
fn super_paths(code: &str, module: &[String]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = code;
    while let Some(at) = rest.find("super::") {
        let before = rest[..at].chars().last();
        rest = &rest[at..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            rest = &rest["super::".len()..];
            continue;
        }
        let mut up = 0;
        while let Some(r) = rest.strip_prefix("super::") {
            up += 1;
            rest = r;
        }
        let Some(base) = module.len().checked_sub(up) else {
            continue;
        };
        for tail in paths_at(rest) {
            out.insert(match base {
                0 => tail,
                _ => format!("{}::{tail}", module[..base].join("::")),
            });
        }
    }
    out
}

/// The module path of the file at `path` (relative to `src/`): `oauth/tokens/mod.rs` is
/// `["oauth", "tokens"]`.
fn module_of(path: &Path) -> Vec<String> {
    let mut parts: Vec<String> = path
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts.last().is_some_and(|l| l == "mod") {
        parts.pop();
    }
    parts
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
        let mut used_paths = crate_paths(&code);
        used_paths.extend(super_paths(&code, &module_of(rel)));
        for used in used_paths {
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
            .filter(|n| n != "mod" && n != "tests" && !n.ends_with("_tests"))
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

#[test]
fn super_paths_are_read_from_the_crate_root() {
    let module: Vec<String> = ["oauth", "tokens", "store"].map(String::from).to_vec();
    let found = super_paths(
        "use super::rows::Row;\nuse super::super::{clients::Client, oidc};\nfn f() { crate::a::super_b(); }",
        &module,
    );
    let want: BTreeSet<String> = [
        "oauth::tokens::rows::Row",
        "oauth::clients::Client",
        "oauth::oidc",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(found, want);
}

#[test]
fn test_items_are_cut_and_what_follows_them_is_read() {
    let code = "use crate::core::a;\n#[cfg(test)]\nuse crate::http::b;\n\
        #[cfg(test)]\n#[allow(dead_code)]\nfn helper() { let s = \"}\"; let c = '}'; \
        let r = r#\"}\"#; /* } */ // }\n let x: &'static str = crate::app::c; }\n\
        fn after() { crate::signing::d(); }\n\
        #[cfg(test)]\nmod tests {\n use crate::admin::e;\n fn f() { if true { crate::cli::g() } }\n}\n\
        pub fn last() { crate::oauth::h() }\n";
    let found = crate_paths(&without_test_items(code));
    let want: BTreeSet<String> = ["core::a", "signing::d", "oauth::h"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(found, want);
}
