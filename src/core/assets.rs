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

/// The URL of an asset with its version, e.g. `/assets/css/docket.css?v=1a2b3c4d5e6f7a8b`:
/// browsers may cache such URLs for a year, since a new build changes `v`.
pub fn url(path: &str) -> String {
    match get(path) {
        Some(a) => format!("/assets/{path}?v={}", a.etag.trim_matches('"')),
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
}
