//! Request paths as the log may show them: the recipient token of a signing link
//! (`/sign/<token>/...`) is a credential and becomes `[redacted]`. Query strings, where the
//! other credentials travel (`apiKey`, the `sig` of signed upload and download URLs, OAuth
//! `code` and `state`), are never logged at all.

pub const REDACTED: &str = "[redacted]";

/// Route prefixes whose next path segment is a credential.
const SECRET_AFTER: &[&str] = &["sign"];

/// `path` with every credential segment replaced by `[redacted]`.
pub fn path(path: &str) -> String {
    let mut out = Vec::new();
    let mut secret_next = false;
    let mut first = true;
    for segment in path.split('/') {
        if secret_next && !segment.is_empty() {
            out.push(REDACTED);
            secret_next = false;
            continue;
        }
        if first && !segment.is_empty() {
            first = false;
            secret_next = SECRET_AFTER.iter().any(|p| segment.eq_ignore_ascii_case(p));
        }
        out.push(segment);
    }
    out.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signing_tokens_are_redacted_and_other_paths_kept() {
        assert_eq!(path("/sign/AbC123"), "/sign/[redacted]");
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
}
