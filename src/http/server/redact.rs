//! Request paths as the log may show them: the one place that knows which routes carry a
//! one-time secret in their path (`SECRET_ROUTES`), whose secret segment becomes `[redacted]`.
//! Query strings, where the other credentials travel (`apiKey`, the `sig` of signed upload
//! and download URLs, OAuth `code` and `state`), are never logged at all.
//!
//! A unit test below walks every `warp::path!` route of `src/http/` and fails when a route has
//! a text segment that this table neither redacts nor names as no secret, so a new route with
//! a secret in its path cannot be forgotten here.

pub const REDACTED: &str = "[redacted]";

/// Marks the secret segment in a pattern of `SECRET_ROUTES`.
const SECRET: &str = "{secret}";

/// Routes whose path carries a credential: literal leading segments, then the secret. What
/// follows the secret (`/sign/<token>/pages/1-800.png`) is kept.
const SECRET_ROUTES: &[&[&str]] = &[
    // The signing link a recipient was mailed, and every call of its page.
    &["sign", SECRET],
    // The one-time link that creates a recipient's account (`users::invites`).
    &["auth", "signup", SECRET],
    // The one-time links of accounts people run themselves (`accounts::links`): a new
    // password, a new e-mail address.
    &["auth", "reset", SECRET],
    &["account", "email", SECRET],
    // A template's direct link: whoever holds it may start documents of the template's owner.
    &["d", SECRET],
    // The same two in another site's frame (`pages::embed`).
    &["embed", "sign", SECRET],
    &["embed", "direct", SECRET],
    // An invitation to join a team (`teams::invitations`).
    &["invitations", SECRET],
];

/// `path` with every credential segment replaced by `[redacted]`.
pub fn path(path: &str) -> String {
    let segments: Vec<&str> = path.split('/').collect();
    // Positions of the non-empty segments: `//sign//x` is routed as `/sign/x`.
    let filled: Vec<usize> = (0..segments.len())
        .filter(|&i| !segments[i].is_empty())
        .collect();
    let mut out: Vec<&str> = segments.clone();
    for pattern in SECRET_ROUTES {
        if filled.len() < pattern.len() {
            continue;
        }
        let matches = pattern
            .iter()
            .zip(&filled)
            .all(|(p, &i)| *p == SECRET || same_literal(p, segments[i]));
        if matches {
            for (p, &i) in pattern.iter().zip(&filled) {
                if *p == SECRET {
                    out[i] = REDACTED;
                }
            }
        }
    }
    out.join("/")
}

/// Whether a path segment as sent is the literal `expected`; compared decoded and without
/// regard to case, so that no spelling of a route's prefix keeps its secret in the log.
fn same_literal(expected: &str, segment: &str) -> bool {
    percent_encoding::percent_decode_str(segment)
        .decode_utf8_lossy()
        .eq_ignore_ascii_case(expected)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signing_tokens_are_redacted_and_other_paths_kept() {
        assert_eq!(path("/sign/AbC123"), "/sign/[redacted]");
        assert_eq!(path("/d/AbC123"), "/d/[redacted]");
        assert_eq!(path("/embed/sign/AbC123"), "/embed/sign/[redacted]");
        assert_eq!(path("/embed/direct/AbC123"), "/embed/direct/[redacted]");
        assert_eq!(path("/invitations/AbC123"), "/invitations/[redacted]");
        assert_eq!(
            path("/sign/AbC123/pages/1-800.png"),
            "/sign/[redacted]/pages/1-800.png"
        );
        assert_eq!(path("/sign/AbC123/fields/7"), "/sign/[redacted]/fields/7");
        assert_eq!(path("//SIGN//AbC123/state"), "//SIGN//[redacted]/state");
        assert_eq!(path("/sign/"), "/sign/");
        assert_eq!(path("/api/v1/documents/4"), "/api/v1/documents/4");
        assert_eq!(path("/assets/sign/x.js"), "/assets/sign/x.js");
        assert_eq!(path("/"), "/");
    }

    #[test]
    fn account_links_are_redacted_however_spelled() {
        assert_eq!(path("/auth/signup/c0de"), "/auth/signup/[redacted]");
        assert_eq!(path("/auth/reset/c0de"), "/auth/reset/[redacted]");
        assert_eq!(path("/Account/email/c0de"), "/Account/email/[redacted]");
        assert_eq!(path("/account/email"), "/account/email");
        assert_eq!(path("/auth/signup/c0de/"), "/auth/signup/[redacted]/");
        assert_eq!(path("//Auth/%73ignup//c0de"), "//Auth/%73ignup//[redacted]");
        assert_eq!(path("/auth/signup"), "/auth/signup");
        assert_eq!(path("/auth/login"), "/auth/login");
        assert_eq!(path("/x/auth/signup/c0de"), "/x/auth/signup/c0de");
    }

    /// Every Rust file under `src/http/`, sub-folders included.
    fn http_sources() -> Vec<std::path::PathBuf> {
        fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    walk(&path, out);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    out.push(path);
                }
            }
        }
        let mut out = Vec::new();
        walk(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/http"),
            &mut out,
        );
        out
    }

    /// Every `warp::path!(...)` in `src/http/`: the file and the macro's segments.
    fn declared_routes() -> Vec<(String, Vec<String>)> {
        let mut routes = Vec::new();
        for file in http_sources() {
            let source = std::fs::read_to_string(&file).unwrap();
            let name = file.file_name().unwrap().to_string_lossy().to_string();
            if name == "redact.rs" {
                continue;
            }
            let mut rest = source.as_str();
            while let Some(at) = rest.find("warp::path!(") {
                rest = &rest[at + "warp::path!(".len()..];
                let end = rest.find(')').expect("a closed macro");
                let segments = rest[..end]
                    .split('/')
                    .map(|s| s.trim().to_string())
                    .collect();
                routes.push((name.clone(), segments));
                rest = &rest[end..];
            }
        }
        routes
    }

    /// Routes whose text segments written `{public}` carry no secret (`{}`: any other
    /// segment), with why.
    const NOT_SECRET: &[(&str, &str)] = &[
        // The upload's document data id: the signature that authorises it is in the query.
        ("/api/v1/uploads/{public}", "data id"),
        // The blob id and the file name: the signature is in the query.
        (
            "/api/v1/downloads/{public}/{public}",
            "blob id and file name",
        ),
        // A page image's name (`1-800.png`); the token before it is redacted.
        ("/sign/{}/pages/{public}", "page and width"),
        // The owner's page image (`1.png`) of their document; the session is the credential.
        ("/documents/{}/pages/{public}", "page"),
        ("/templates/{}/pages/{public}", "page"),
        // The owner's download (`original.pdf`, `signed.pdf`, `audit-log.csv`); the session
        // is the credential.
        ("/documents/{}/download/{public}", "file name"),
        // A team's slug, the start of its pages' paths (`/t/{slug}`): its name in the URL.
        ("/t/{public}", "team slug"),
        // A folder's id (`signing::folders`): the name of a row, checked for its caller as
        // every object is; the session is the credential.
        ("/folders/{public}", "folder id"),
        ("/folders/{public}/delete", "folder id"),
    ];

    /// Whether text segment `n` of the route shaped `shape` is named as no secret.
    fn public(shape: &str, n: usize) -> bool {
        NOT_SECRET.iter().any(|(declared, _)| {
            declared.replace("{public}", "{}") == shape
                && declared.split('/').nth(n + 1) == Some("{public}")
        })
    }

    #[test]
    fn every_route_with_a_text_segment_is_redacted_or_named_as_no_secret() {
        let routes = declared_routes();
        assert!(routes.len() > 50, "found only {} routes", routes.len());
        let mut used = vec![false; SECRET_ROUTES.len()];
        for (file, segments) in &routes {
            let mut sample = String::new();
            let mut shape = String::new();
            let mut markers = Vec::new();
            for (n, s) in segments.iter().enumerate() {
                let (piece, pattern) = match s.as_str() {
                    ".." => break,
                    "String" => {
                        let marker = format!("s3cret{n}x");
                        markers.push((n, marker.clone()));
                        (marker, "{}".to_string())
                    }
                    // Numbers, the typed row ids (`core::ids`) among them.
                    "i64" | "u64" | "i32" | "u32" | "DocumentId" | "RecipientId" | "FieldId"
                    | "TemplateId" | "UserId" | "ClientId" | "GrantId" | "BulkSendId"
                    // The API v2's numbers (`7.0`) and envelope ids (names of rows, as the
                    // numbers are; every object is checked for its caller).
                    | "Int" | "Envelope"
                    // An attachment's id (`att_` and letters): a row's name, as the numbers.
                    | "AttachmentId" => {
                        ("7".to_string(), "{}".to_string())
                    }
                    lit if lit.starts_with('"') => {
                        let lit = lit.trim_matches('"').to_string();
                        (lit.clone(), lit)
                    }
                    other => panic!("{file}: unknown path segment {other:?} in {segments:?}"),
                };
                sample.push('/');
                sample.push_str(&piece);
                shape.push('/');
                shape.push_str(&pattern);
            }
            for (k, p) in SECRET_ROUTES.iter().enumerate() {
                let prefix: Vec<&str> = p.iter().take_while(|s| **s != SECRET).copied().collect();
                let literal: Vec<String> = segments.iter().map(|s| s.replace('"', "")).collect();
                if literal.len() > prefix.len() && literal.iter().zip(&prefix).all(|(a, b)| a == b)
                {
                    used[k] = true;
                }
            }
            let logged = path(&sample);
            for (n, marker) in &markers {
                assert!(
                    public(&shape, *n) || !logged.contains(marker.as_str()),
                    "{file}: route {shape} has a text segment the log shows ({logged}): \
                     add it to SECRET_ROUTES if it is a secret, else to NOT_SECRET"
                );
            }
        }
        for (k, was) in used.iter().enumerate() {
            assert!(was, "{:?} names no route", SECRET_ROUTES[k]);
        }
    }

    #[test]
    fn routes_without_the_macro_take_no_text_from_the_path() {
        // A parameter taken another way would escape the walk above; the only one is the
        // public assets' file name.
        for file in http_sources() {
            let name = file.file_name().unwrap().to_string_lossy().to_string();
            let source = std::fs::read_to_string(&file).unwrap();
            if name == "static_files.rs" || name == "redact.rs" {
                continue;
            }
            // The routes' wrapper reads the whole path only to tell a page's 404 from an API's
            // or a recipient's (`pages::app::error_page`); it neither logs nor shows it.
            let wrapper = file.ends_with("http/mod.rs");
            if wrapper && source.matches("path::full").count() == 1 {
                let no_other = ["path::param", "path::tail", "path::peek"];
                assert!(no_other.iter().all(|n| !source.contains(n)), "{name}");
                continue;
            }
            for needle in ["path::param", "path::tail", "path::full", "path::peek"] {
                assert!(!source.contains(needle), "{name} uses warp::{needle}");
            }
        }
    }
}
