//! The files under `assets/`, embedded at build time (include_dir), each with its MIME type and
//! an ETag; and the page layout that the login, consent, account and signing pages share.

use std::collections::HashMap;
use std::sync::OnceLock;

use include_dir::{Dir, include_dir};

static ASSETS: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/assets");

/// One embedded file, ready to serve.
pub struct Asset {
    pub body: &'static [u8],
    pub mime: String,
    /// Quoted strong ETag: the first 16 hex digits of the SHA-256 of the body.
    pub etag: String,
}

fn index() -> &'static HashMap<String, Asset> {
    static INDEX: OnceLock<HashMap<String, Asset>> = OnceLock::new();
    INDEX.get_or_init(|| {
        let mut map = HashMap::new();
        collect(&ASSETS, &mut map);
        map
    })
}

fn collect(dir: &'static Dir<'static>, map: &mut HashMap<String, Asset>) {
    for file in dir.files() {
        let path = file.path().to_string_lossy().replace('\\', "/");
        let mime = mime_guess::from_path(&path).first_or_octet_stream();
        let mime = match mime.type_() {
            mime_guess::mime::TEXT => format!("{mime}; charset=utf-8"),
            _ if mime.subtype() == "javascript" => format!("{mime}; charset=utf-8"),
            _ => mime.to_string(),
        };
        let etag = format!(
            "\"{}\"",
            &crate::core::crypto::sha256_hex(file.contents())[..16]
        );
        map.insert(
            path,
            Asset {
                body: file.contents(),
                mime,
                etag,
            },
        );
    }
    for sub in dir.dirs() {
        collect(sub, map);
    }
}

/// The embedded file at `path` (relative to `assets/`, e.g. `css/docket.css`).
pub fn get(path: &str) -> Option<&'static Asset> {
    index().get(path)
}

/// Every embedded path, sorted.
pub fn paths() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = index().keys().map(String::as_str).collect();
    v.sort_unstable();
    v
}

/// The URL of an asset with its version, e.g. `/assets/css/docket.css?v=1a2b3c4d5e6f7a8b`:
/// browsers may cache such URLs for a year, since a new build changes `v`.
pub fn url(path: &str) -> String {
    match get(path) {
        Some(a) => format!("/assets/{path}?v={}", a.etag.trim_matches('"')),
        None => format!("/assets/{path}"),
    }
}

/// Escapes text for HTML element content and quoted attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Fills `{{name}}` placeholders in an embedded template. Values are inserted as given:
/// escape text with [`escape`] first. Unknown placeholders are left empty.
pub fn render(template: &str, values: &[(&str, &str)]) -> String {
    let source = get(template)
        .and_then(|a| std::str::from_utf8(a.body).ok())
        .unwrap_or_default();
    let mut out = String::with_capacity(source.len() + 256);
    let mut rest = source;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after.find("}}") {
            Some(end) => {
                let key = after[..end].trim();
                if let Some((_, v)) = values.iter().find(|(k, _)| *k == key) {
                    out.push_str(v);
                }
                rest = &after[end + 2..];
            }
            None => {
                out.push_str(&rest[start..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// A whole page in the shared layout. `title` is text; `main_html` is trusted HTML.
/// A form's error line (`role="alert"`), or nothing.
pub fn error_alert(error: Option<&str>) -> String {
    error
        .map(|e| {
            format!(
                r#"<div class="alert error" role="alert">{}</div>"#,
                escape(e)
            )
        })
        .unwrap_or_default()
}

pub fn page(title: &str, main_html: &str) -> String {
    render(
        "templates/layout.html",
        &[
            ("title", &escape(title)),
            ("main", main_html),
            ("stylesheet", &url("css/docket.css")),
            ("icon", &url("img/docket.svg")),
            ("version", crate::core::version::VERSION),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_files_have_types_and_etags() {
        let css = get("css/docket.css").expect("stylesheet embedded");
        assert_eq!(css.mime, "text/css; charset=utf-8");
        assert_eq!(css.etag.len(), 18);
        assert!(get("templates/layout.html").is_some());
        assert!(get("nope.txt").is_none());
        assert!(url("css/docket.css").starts_with("/assets/css/docket.css?v="));
    }

    #[test]
    fn render_fills_and_escapes() {
        let html = page("<Hi & bye>", "<p>ok</p>");
        assert!(html.contains("&lt;Hi &amp; bye&gt;"));
        assert!(html.contains("<p>ok</p>"));
        assert!(!html.contains("{{"));
    }

    #[test]
    fn escape_covers_attribute_quotes() {
        assert_eq!(escape(r#"a"b'c"#), "a&quot;b&#39;c");
    }
}
