//! What the page templates (`pages/`, askama) may use besides their own fields: the HTML
//! escaper that `askama.toml` names for every `.html` template, and the versioned URL of an
//! asset. Handlers answer with a page through `reply::page`.

pub use crate::core::html::Html;

/// The URL of an embedded asset with its version (`assets::url`), e.g. for `js/sign.js`.
pub fn asset(path: &str) -> String {
    crate::core::assets::url(path)
}

#[cfg(test)]
mod tests {
    /// Every `.html` file under `dir`, sub-folders included.
    fn templates(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("pages/") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                templates(&path, out);
            } else if path.extension().is_some_and(|e| e == "html") {
                out.push(path);
            }
        }
    }

    /// The pages' scripts are ES modules from `assets/js`, each loaded by its URL: no inline
    /// script (the pages' CSP, `script-src 'self'`, would refuse it) and no classic script.
    #[test]
    fn every_script_of_a_page_is_a_module_loaded_from_the_assets() {
        let mut files = Vec::new();
        templates(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("pages"),
            &mut files,
        );
        assert!(files.len() > 20, "{files:?}");
        let module = r#"<script type="module" src="{{ crate::http::pages::page::asset("#;
        let mut scripts = 0;
        for file in files {
            let text = std::fs::read_to_string(&file).expect("a template");
            for (at, _) in text.match_indices("<script") {
                scripts += 1;
                let tag = &text[at..];
                let end = tag.find("</script>").expect("a closing tag");
                assert!(
                    tag.starts_with(module) && tag[..end].ends_with(") }}\">"),
                    "{}: {}",
                    file.display(),
                    &tag[..end]
                );
            }
        }
        // The one in `parts::script`, and the layout's local-time.js.
        assert!(scripts >= 2, "{scripts}");
    }
}
