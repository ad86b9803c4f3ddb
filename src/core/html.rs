//! The one HTML escaper: the page templates use it (askama.toml names it), and so do the HTML
//! parts of the e-mails. Element content and quoted attribute values are safe with it.

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

/// `text` escaped by [`Html`].
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    askama::filters::Escaper::write_escaped_str(&Html, &mut out, text)
        .expect("a String takes any text");
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn escapes_markup_and_both_quotes() {
        assert_eq!(
            super::escape(r#"a<b>&"c'd"#),
            "a&lt;b&gt;&amp;&quot;c&#39;d"
        );
    }
}
