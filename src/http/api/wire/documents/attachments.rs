//! A new document's `attachments` as sent: `{label, data, type?}` links, turned into the
//! document's `Attachment`s by `meta`'s rules (how many, the label's length, the URL).

use serde::Deserialize;
use utoipa::ToSchema;

use super::List;
use crate::core::lenient::{Given, Object};
use crate::signing::documents::check::{Check, join};
use crate::signing::documents::meta::{self, Attachment, MAX_ATTACHMENTS, MAX_LABEL, MAX_URL};

/// A link attachment.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct AttachmentInput {
    #[serde(default)]
    #[schema(value_type = String, required = true, min_length = 1, max_length = 255)]
    pub label: Given<String>,
    #[serde(default)]
    /// An absolute http or https URL.
    #[schema(value_type = String, required = true, max_length = 2000)]
    pub data: Given<String>,
    #[serde(default)]
    /// Only `link`.
    #[serde(rename = "type")]
    #[schema(value_type = Option<String>, pattern = "^link$")]
    pub kind: Given<String>,
}

/// `attachments`: null, or a list of at most `MAX_ATTACHMENTS` `{label (1..255 characters),
/// data (an absolute http(s) URL, as `meta.redirectUrl`), type? ("link")}`.
pub fn parse_attachments(c: &mut Check, raw: &List<AttachmentInput>) -> Vec<Attachment> {
    if raw.is_absent() {
        return Vec::new();
    }
    let Some(list) = raw.valid().filter(|a| a.len() <= MAX_ATTACHMENTS) else {
        c.fail(
            "attachments",
            format!("must be a list of at most {MAX_ATTACHMENTS} {{label, data}} links"),
        );
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, a) in list.iter().enumerate() {
        let path = format!("attachments[{i}]");
        let Some(Object(a)) = a.valid() else {
            c.fail(path, "must be an object {label, data}");
            continue;
        };
        let label = c
            .text(&a.label, &join(&path, "label"), MAX_LABEL)
            .map(|l| l.trim().to_string());
        if label.as_deref().is_none_or(str::is_empty) {
            c.fail(
                join(&path, "label"),
                format!("required: 1 to {MAX_LABEL} characters"),
            );
        }
        let data = match c.text(&a.data, &join(&path, "data"), MAX_URL) {
            Some(u) => meta::redirect_url(&u)
                .map_err(|why| c.fail(join(&path, "data"), why))
                .ok(),
            None => {
                c.fail(join(&path, "data"), "required: an http or https URL");
                None
            }
        };
        match &a.kind {
            Given::Absent | Given::Null => {}
            Given::Valid(t) if t == "link" => {}
            _ => c.fail(join(&path, "type"), "only \"link\" attachments exist"),
        }
        if let (Some(label), Some(data)) = (label.filter(|l| !l.is_empty()), data) {
            out.push(Attachment {
                label,
                data,
                kind: "link".into(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn g<T: serde::de::DeserializeOwned>(v: Value) -> Given<T> {
        crate::core::lenient::member(&json!({ "v": v }), "v")
    }

    #[test]
    fn attachments_are_labelled_http_links_and_few() {
        let mut c = Check::new();
        let a = parse_attachments(
            &mut c,
            &g(
                json!([{"label": " Terms ", "data": "https://x.example/terms", "type": "link"},
                         {"label": "Price list", "data": "HTTP://X.example/p"}]),
            ),
        );
        assert!(c.is_ok());
        assert_eq!(a.len(), 2);
        assert_eq!(
            (a[0].label.as_str(), a[1].data.as_str()),
            ("Terms", "http://x.example/p")
        );
        let mut c = Check::new();
        parse_attachments(
            &mut c,
            &g(json!([{"label": "", "data": "javascript:alert(1)", "type": "file"}, 3])),
        );
        let err = c.finish(()).unwrap_err();
        let paths: Vec<&str> = err.details().iter().map(|d| d.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "attachments[0].label",
                "attachments[0].data",
                "attachments[0].type",
                "attachments[1]"
            ]
        );
        let many: Vec<Value> = (0..=MAX_ATTACHMENTS)
            .map(|i| json!({"label": i.to_string(), "data": "https://x.example/"}))
            .collect();
        let mut c = Check::new();
        parse_attachments(&mut c, &g(Value::Array(many)));
        assert!(!c.is_ok());
    }
}
