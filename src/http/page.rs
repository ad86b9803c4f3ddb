//! What the page templates (`pages/`, askama) may use besides their own fields: the HTML
//! escaper that `askama.toml` names for every `.html` template, and the versioned URL of an
//! asset. Handlers answer with a page through `reply::page`.

use std::fmt::{self, Write};

/// Escapes text for element content and quoted attribute values (`& < > " '`), with the named
/// entities (`&quot;`, not askama's `&#34;`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Html;

impl askama::filters::Escaper for Html {
    fn write_escaped_str<W: Write>(&self, mut dest: W, text: &str) -> fmt::Result {
        let mut rest = text;
        while let Some(at) = rest.find(['&', '<', '>', '"', '\'']) {
            dest.write_str(&rest[..at])?;
            dest.write_str(match rest.as_bytes()[at] {
                b'&' => "&amp;",
                b'<' => "&lt;",
                b'>' => "&gt;",
                b'"' => "&quot;",
                _ => "&#39;",
            })?;
            rest = &rest[at + 1..];
        }
        dest.write_str(rest)
    }
}

/// The URL of an embedded asset with its version (`assets::url`), e.g. for `js/sign.js`.
pub fn asset(path: &str) -> String {
    crate::assets::url(path)
}

#[cfg(test)]
mod tests {
    use askama::filters::Escaper;

    #[test]
    fn escapes_markup_and_both_quotes() {
        let mut out = String::new();
        super::Html
            .write_escaped_str(&mut out, r#"a<b>&"c'd"#)
            .unwrap();
        assert_eq!(out, "a&lt;b&gt;&amp;&quot;c&#39;d");
    }
}
