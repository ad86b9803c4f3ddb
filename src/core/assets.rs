//! The files under `assets/`, embedded at build time gzip-compressed (`build.rs` gzips them,
//! include_dir embeds the result), each with its MIME type and ETags, and their versioned URLs.
//! (The pages' templates are in `pages/`, compiled in by askama.)
//!
//! Gzipped, the files take 105 KB of the binary instead of 254 KB, and every browser takes them
//! as they are (`Content-Encoding: gzip`); a client that does not accept gzip gets the file
//! inflated, once, and kept.

use std::collections::HashMap;
use std::sync::OnceLock;

use include_dir::{Dir, include_dir};

static ASSETS: Dir<'static> = include_dir!("$OUT_DIR/assets");

/// One embedded file, ready to serve.
pub struct Asset {
    /// The file gzip-compressed (one gzip member, no name or time in its header).
    pub gzip: &'static [u8],
    pub mime: String,
    /// Quoted strong ETag of the file as it is: the first 16 hex digits of the SHA-256 of
    /// `gzip`, which `build.rs` makes from the file's bytes alone.
    pub etag: String,
    /// Quoted strong ETag of the gzip-encoded representation: `etag` with `-gz`.
    pub etag_gzip: String,
    plain: OnceLock<Box<[u8]>>,
}

impl Asset {
    /// The file as it is: inflated on first use and kept (all of them together are 254 KB).
    pub fn plain(&self) -> std::io::Result<&[u8]> {
        if let Some(p) = self.plain.get() {
            return Ok(p);
        }
        let mut out = Vec::with_capacity(self.gzip.len() * 4);
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(self.gzip), &mut out)?;
        Ok(self.plain.get_or_init(|| out.into_boxed_slice()))
    }
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
        let version = &crate::core::crypto::sha256_hex(file.contents())[..16];
        map.insert(
            path,
            Asset {
                gzip: file.contents(),
                mime,
                etag: format!("\"{version}\""),
                etag_gzip: format!("\"{version}-gz\""),
                plain: OnceLock::new(),
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

/// A file `build.rs` embedded zlib-compressed (one the server seldom reads), inflated.
pub fn inflate(deflated: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(deflated.len() * 4);
    std::io::Read::read_to_end(&mut flate2::read::ZlibDecoder::new(deflated), &mut out)?;
    Ok(out)
}

/// Every embedded path, sorted.
pub fn paths() -> Vec<&'static str> {
    let mut v: Vec<&'static str> = index().keys().map(String::as_str).collect();
    v.sort_unstable();
    v
}

/// The folder of the script modules: every file in it is an ES module.
const MODULES: &str = "js/";

/// The version of the script modules together: the first 16 hex digits of the SHA-256 of every
/// module's path and ETag.
///
/// A module's URL carries this version in its path (`/assets/v/<version>/js/sign.js`), not in
/// its query, because a relative import resolves against the importing module's path and keeps
/// no query: from `/assets/js/sign.js?v=…`, `./request.js` is `/assets/js/request.js`,
/// unversioned, which is served for revalidation (never stale, but asked for again on every
/// page view, one round trip per level of imports), and a module that a page loads and another
/// imports would be two URLs and run twice. Under a version in the path every import inherits
/// it and is cached for a year like the page's own module. The version is one for all modules
/// because a module's URL must change whenever anything it imports changes; a digest of them
/// all needs no reading of the import graph, and an upgrade that changes any module costs each
/// browser one download of the modules it uses. (An import map would version each file alone,
/// but it must be an inline script, which the pages' CSP refuses without a hash of it.)
fn modules_version() -> &'static str {
    static VERSION: OnceLock<String> = OnceLock::new();
    VERSION.get_or_init(|| {
        let mut all = String::new();
        for path in paths().into_iter().filter(|p| p.starts_with(MODULES)) {
            all.push_str(path);
            all.push(' ');
            all.push_str(&index()[path].etag);
            all.push('\n');
        }
        crate::core::crypto::sha256_hex(all)[..16].to_string()
    })
}

/// The version the URL of the embedded file `path` carries: the modules' version for a script
/// module, the file's own ETag (unquoted) for any other.
pub fn version(path: &str) -> Option<&'static str> {
    let asset = get(path)?;
    Some(if path.starts_with(MODULES) {
        modules_version()
    } else {
        asset.etag.trim_matches('"')
    })
}

/// The URL of an asset with its version, e.g. `/assets/css/docket.css?v=1a2b3c4d5e6f7a8b`, or
/// for a script module `/assets/v/<version>/js/sign.js` (see `modules_version`): browsers may
/// cache such URLs for a year, since a new build changes the version.
pub fn url(path: &str) -> String {
    match version(path) {
        Some(v) if path.starts_with(MODULES) => format!("/assets/v/{v}/{path}"),
        Some(v) => format!("/assets/{path}?v={v}"),
        None => format!("/assets/{path}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_files_have_types_and_etags() {
        let css = get("css/docket.css").expect("stylesheet embedded");
        assert_eq!(css.mime, "text/css; charset=utf-8");
        assert_eq!(css.etag.len(), 18);
        assert!(get("nope.txt").is_none());
        assert!(url("css/docket.css").starts_with("/assets/css/docket.css?v="));
    }

    #[test]
    fn every_embedded_file_inflates_to_the_file_in_assets() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
        let paths = paths();
        assert!(paths.len() > 30, "{paths:?}");
        for path in paths {
            let asset = get(path).expect("listed");
            let on_disk = std::fs::read(root.join(path)).expect("the file under assets/");
            assert_eq!(asset.plain().expect("inflates"), on_disk, "{path}");
            assert!(asset.gzip.starts_with(&[0x1f, 0x8b]), "{path} is gzip");
        }
        let css = get("css/docket.css").unwrap();
        assert!(
            css.gzip.len() * 3 < css.plain().unwrap().len(),
            "compressed"
        );
        assert_eq!(
            css.etag_gzip,
            format!("\"{}-gz\"", css.etag.trim_matches('"'))
        );
    }

    #[test]
    fn script_modules_carry_one_version_in_their_path() {
        let v = modules_version();
        assert_eq!(v.len(), 16);
        assert_eq!(url("js/sign.js"), format!("/assets/v/{v}/js/sign.js"));
        assert_eq!(
            url("js/editor/main.js"),
            format!("/assets/v/{v}/js/editor/main.js")
        );
        assert_eq!(version("js/request.js"), Some(v));
        let css = get("css/docket.css").unwrap();
        assert_eq!(
            url("css/docket.css"),
            format!("/assets/css/docket.css?v={}", css.etag.trim_matches('"'))
        );
        assert_eq!(version("js/nope.js"), None);
        // `/assets/v/...` names a version, never a file.
        assert!(paths().iter().all(|p| !p.starts_with("v/")));
    }

    /// The module specifiers of a script: what follows `from`, a bare `import` or `import(`.
    fn specifiers(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        for lead in ["from '", "import '", "import('"] {
            for (at, _) in text.match_indices(lead) {
                let rest = &text[at + lead.len()..];
                out.push(&rest[..rest.find('\'').expect("a closing quote")]);
            }
        }
        out
    }

    /// The embedded path that `spec`, imported by the module at `from`, names (`None` when it
    /// climbs out of `assets/`).
    fn resolve(from: &str, spec: &str) -> Option<String> {
        let mut parts: Vec<&str> = from.split('/').collect();
        parts.pop();
        for seg in spec.split('/') {
            match seg {
                "." => {}
                ".." => {
                    parts.pop()?;
                }
                s => parts.push(s),
            }
        }
        Some(parts.join("/"))
    }

    #[test]
    fn imports_between_modules_resolve_inside_the_modules_folder() {
        let mut imports = 0;
        for path in paths().into_iter().filter(|p| p.ends_with(".js")) {
            assert!(path.starts_with(MODULES), "{path} is outside js/");
            let text = String::from_utf8(get(path).unwrap().plain().unwrap().to_vec()).unwrap();
            assert!(
                !text.contains("\"use strict\"") && !text.contains("'use strict'"),
                "{path}: a module is strict already"
            );
            for spec in specifiers(&text) {
                imports += 1;
                // Relative, so that it keeps the version in the importer's path; inside js/,
                // which that version covers.
                assert!(
                    spec.starts_with("./") || spec.starts_with("../"),
                    "{path} imports {spec}"
                );
                let target = resolve(path, spec).unwrap_or_default();
                assert!(
                    target.starts_with(MODULES),
                    "{path} imports {spec}, outside js/"
                );
                assert!(get(&target).is_some(), "{path} imports {spec}: no {target}");
            }
            // No globals: modules share what they export.
            for (at, _) in text.match_indices("window.") {
                let rest = &text[at + "window.".len()..];
                let name_end = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
                    .unwrap_or(rest.len());
                let after = rest[name_end..].trim_start();
                assert!(
                    !after.starts_with('=') || after.starts_with("=="),
                    "{path} sets window.{}",
                    &rest[..name_end]
                );
            }
        }
        assert!(imports > 40, "{imports} imports found");
    }
}
