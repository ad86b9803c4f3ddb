//! What the page templates (`pages/`, askama) may use besides their own fields: the HTML
//! escaper that `askama.toml` names for every `.html` template, and the versioned URL of an
//! asset. Handlers answer with a page through `reply::page`.

pub use crate::core::html::Html;

/// The URL of an embedded asset with its version (`assets::url`), e.g. for `js/sign.js`.
pub fn asset(path: &str) -> String {
    crate::core::assets::url(path)
}
