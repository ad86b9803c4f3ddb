//! What an attachment is: a random text id, a label (1 to 255 characters) and an absolute
//! http(s) URL without credentials (the rule of `meta.redirectUrl`, so `javascript:`, `data:`
//! and the like never pass), in its parent's order. Only `NewAttachment::parse` makes the
//! values a store writes.

use serde::Serialize;

use crate::core::db::{FromSql, ToSql, Value, ValueRef};
use crate::core::error::{AppError, FieldError};
use crate::signing::documents::meta::{self, MAX_LABEL, MAX_URL};

/// The text before an attachment id's random part.
const PREFIX: &str = "att_";

/// How many random letters and digits follow it (24 base62: about 143 bits).
const RANDOM: usize = 24;

/// An attachment's id: `att_` and 24 random letters and digits, never guessable from another.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct AttachmentId(String);

impl AttachmentId {
    /// A new random id.
    pub fn generate() -> AttachmentId {
        AttachmentId(format!(
            "{PREFIX}{}",
            crate::core::crypto::random_base62(RANDOM)
        ))
    }

    /// `text` when it has an id's shape (anything else names no attachment: a 404 to callers).
    pub fn parse(text: &str) -> Option<AttachmentId> {
        let rest = text.strip_prefix(PREFIX)?;
        (rest.len() == RANDOM && rest.bytes().all(|b| b.is_ascii_alphanumeric()))
            .then(|| AttachmentId(text.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for AttachmentId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::str::FromStr for AttachmentId {
    type Err = ();

    /// For a path segment: an id's shape, or no match.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        AttachmentId::parse(s).ok_or(())
    }
}

impl ToSql for AttachmentId {
    fn to_sql(&self) -> Value {
        self.0.to_sql()
    }
}

impl FromSql for AttachmentId {
    fn from_sql(value: ValueRef<'_>) -> Result<Self, String> {
        String::from_sql(value).map(AttachmentId)
    }
}

/// A link to add, or the new values of one: checked, the URL normalised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewAttachment {
    label: String,
    url: String,
}

/// Where a refusal of the label points.
pub const LABEL: &str = "label";

/// Where a refusal of the URL points.
pub const URL: &str = "url";

impl NewAttachment {
    /// `label` (trimmed, 1 to 255 characters, no control characters) and `url` (an absolute
    /// http or https URL with a host, no credentials, at most 2000 characters), or one 400
    /// naming each that is not (`label`, `url`).
    pub fn parse(label: &str, url: &str) -> Result<NewAttachment, AppError> {
        let mut problems = Vec::new();
        let label = label.trim();
        if label.is_empty() || label.chars().count() > MAX_LABEL {
            problems.push(FieldError::new(
                LABEL,
                format!("required: 1 to {MAX_LABEL} characters"),
            ));
        } else if label.chars().any(char::is_control) {
            problems.push(FieldError::new(LABEL, "no control characters allowed"));
        }
        let url = url.trim();
        let checked = if url.is_empty() {
            Err("required: an http or https address such as https://example.com/terms")
        } else if url.chars().count() > MAX_URL {
            Err("too long: at most 2000 characters")
        } else {
            meta::redirect_url(url)
        };
        let url = match checked {
            Ok(u) if u.chars().count() <= MAX_URL => Some(u),
            Ok(_) => {
                problems.push(FieldError::new(URL, "too long: at most 2000 characters"));
                None
            }
            Err(why) => {
                problems.push(FieldError::new(URL, why));
                None
            }
        };
        match (problems.is_empty(), url) {
            (true, Some(url)) => Ok(NewAttachment {
                label: label.to_string(),
                url,
            }),
            _ => Err(AppError::validation(problems)),
        }
    }

    pub fn label(&self) -> &str {
        &self.label
    }

    pub fn url(&self) -> &str {
        &self.url
    }
}

/// A stored attachment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attachment {
    pub id: AttachmentId,
    pub label: String,
    pub url: String,
    /// Its place in its parent's list, from 1.
    pub position: i64,
    pub created_at: i64,
    pub updated_at: i64,
}

impl Attachment {
    /// The host the link goes to, as a recipient reads it before following it.
    pub fn host(&self) -> String {
        host_of(&self.url)
    }

    /// As a document's meta lists it (`meta.attachments`).
    pub fn as_meta(&self) -> meta::Attachment {
        meta::Attachment {
            label: self.label.clone(),
            data: self.url.clone(),
            kind: "link".into(),
        }
    }
}

/// The host of `url` (a stored URL always has one; `""` otherwise).
pub fn host_of(url: &str) -> String {
    meta::link_host(url)
}

/// What an attachment is: a link, the one kind docket and the API v2 have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
#[schema(as = V2AttachmentType)]
pub enum AttachmentType {
    Link,
}

/// An attachment as the signing service's API v2 answers it: `{id, type: "link", label,
/// data}` (`data` the URL).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[schema(as = V2Attachment)]
pub struct AttachmentView {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: AttachmentType,
    pub label: String,
    pub data: String,
}

impl AttachmentView {
    pub fn of(a: &Attachment) -> AttachmentView {
        AttachmentView {
            id: a.id.to_string(),
            kind: AttachmentType::Link,
            label: a.label.clone(),
            data: a.url.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_random_and_only_their_shape_parses() {
        let a = AttachmentId::generate();
        let b = AttachmentId::generate();
        assert_ne!(a, b);
        assert_eq!(a.as_str().len(), PREFIX.len() + RANDOM);
        assert_eq!(AttachmentId::parse(a.as_str()), Some(a.clone()));
        for bad in ["", "att_", "1", "att_short", "xyz_aaaaaaaaaaaaaaaaaaaaaaaa"] {
            assert!(AttachmentId::parse(bad).is_none(), "{bad}");
        }
        let long = format!("{a}x");
        assert!(AttachmentId::parse(&long).is_none());
        let punct = format!("{PREFIX}{}", "a/".repeat(RANDOM / 2));
        assert!(AttachmentId::parse(&punct).is_none());
    }

    #[test]
    fn links_are_labelled_http_urls_normalised() {
        let a = NewAttachment::parse("  Terms  ", "HTTPS://Example.COM/terms?v=2").unwrap();
        assert_eq!(
            (a.label(), a.url()),
            ("Terms", "https://example.com/terms?v=2")
        );
        assert_eq!(host_of(a.url()), "example.com");
        assert!(NewAttachment::parse("x", "http://intranet.example:8080/a").is_ok());
        for bad in [
            "javascript:alert(1)",
            "data:text/html,<script>alert(1)</script>",
            "JaVaScRiPt:alert(1)",
            "ftp://example.com/f",
            "//example.com/x",
            "/relative",
            "example.com",
            "https://user:pw@example.com/",
            "https://exa mple.com/",
            "https://example.com/\n/x",
            "",
            "   ",
        ] {
            let e = NewAttachment::parse("Label", bad).unwrap_err();
            assert_eq!(e.details()[0].path, URL, "{bad}");
        }
        let long = format!("https://example.com/{}", "a".repeat(MAX_URL));
        assert!(NewAttachment::parse("L", &long).is_err());
        let e = NewAttachment::parse(" ", "javascript:x").unwrap_err();
        let paths: Vec<&str> = e.details().iter().map(|d| d.path.as_str()).collect();
        assert_eq!(paths, [LABEL, URL]);
        assert!(NewAttachment::parse(&"é".repeat(MAX_LABEL), "https://a.example").is_ok());
        assert!(NewAttachment::parse(&"é".repeat(MAX_LABEL + 1), "https://a.example").is_err());
        assert!(NewAttachment::parse("a\u{7}b", "https://a.example").is_err());
    }

    #[test]
    fn the_view_is_the_peers_shape() {
        let a = Attachment {
            id: AttachmentId::parse("att_abcdefghijklmnopqrstuvwx").unwrap(),
            label: "Terms".into(),
            url: "https://example.com/t".into(),
            position: 1,
            created_at: 0,
            updated_at: 0,
        };
        assert_eq!(
            serde_json::to_value(AttachmentView::of(&a)).unwrap(),
            serde_json::json!({"id": "att_abcdefghijklmnopqrstuvwx", "type": "link",
                "label": "Terms", "data": "https://example.com/t"})
        );
    }
}
