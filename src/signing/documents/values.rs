//! What a recipient may put in a field, checked again on the server whatever the page did: the
//! value a signing page submits (`Filled`), checked against the field's type and `fieldMeta`,
//! and turned into what is stored (`custom_text`, or a PNG for a drawn signature).

use base64::Engine;

use crate::core::error::AppError;
use crate::signing::documents::field_meta::{CheckboxMeta, FieldMeta};
use crate::signing::documents::fields::FieldType;

/// Largest drawn signature accepted (PNG bytes).
pub const MAX_SIGNATURE_PNG: usize = 512 * 1024;
/// Largest drawn signature, in pixels per side.
const MAX_SIGNATURE_SIDE: u32 = 4000;
/// Longest free text when the field sets no `characterLimit`.
const MAX_TEXT: usize = 10_000;

/// A checked value, ready to store.
#[derive(Debug, Clone, PartialEq)]
pub enum Stored {
    /// Text (typed signature, name, e-mail, text, number, choice, or a JSON array of the
    /// checked boxes' values).
    Text(String),
    /// A signature or initials drawn on the page.
    Drawn(Vec<u8>),
}

/// What a recipient gives for a field: a value (text, number, choice and checkbox fields) and
/// a mark (signatures and initials). Both are kept, since which one counts depends on the
/// field's type, known only once the field is read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filled {
    pub value: Entry,
    pub mark: Mark,
}

/// The value given for a text, number, choice or checkbox field.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Entry {
    /// None, or one of no usable form.
    #[default]
    Missing,
    /// Text, or a number as written.
    Text(String),
    /// The checked boxes' values; `None` for an item that is no text.
    Choices(Vec<Option<String>>),
}

/// A signature or initials.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Mark {
    /// Neither drawn nor typed.
    #[default]
    Missing,
    /// Typed: this one counts whenever it is given, `None` when what was given is no text.
    Typed(Option<String>),
    /// Drawn: a PNG data URL.
    Drawn(String),
}

impl Filled {
    /// Only a value (a template's prefill sets no signatures).
    pub fn value(value: Entry) -> Filled {
        Filled {
            value,
            mark: Mark::Missing,
        }
    }
}

fn bad(msg: impl Into<String>) -> AppError {
    AppError::bad_request(msg.into())
}

/// Checks what the page sent (`Filled`) for a field of `kind` with `meta`.
pub fn check(
    kind: FieldType,
    meta: Option<&FieldMeta>,
    value: &Filled,
) -> Result<Stored, AppError> {
    if meta.is_some_and(FieldMeta::read_only) {
        return Err(bad("this field is read-only"));
    }
    let options = meta.and_then(FieldMeta::options).unwrap_or_default();
    match kind {
        FieldType::Signature | FieldType::FreeSignature | FieldType::Initials => signature(value),
        FieldType::Date => Err(bad(
            "a date field is filled in automatically when you finish",
        )),
        FieldType::Name => text_value(value, 200).map(Stored::Text),
        FieldType::Email => {
            let t = text_value(value, 254)?;
            crate::identity::users::Email::parse(&t).map_err(|_| bad("enter an e-mail address"))?;
            Ok(Stored::Text(t))
        }
        FieldType::Text => {
            let limit = match meta {
                Some(FieldMeta::Text(t)) => t.limit(),
                _ => None,
            };
            text_value(value, limit.unwrap_or(MAX_TEXT)).map(Stored::Text)
        }
        FieldType::Number => {
            let (min, max) = match meta {
                Some(FieldMeta::Number(n)) => (n.min_value, n.max_value),
                _ => (None, None),
            };
            number(min, max, value).map(Stored::Text)
        }
        FieldType::Radio | FieldType::Select | FieldType::Dropdown => {
            let choice = text_value(value, 500)?;
            require_option(&options, &choice)?;
            Ok(Stored::Text(choice))
        }
        FieldType::Checkbox => {
            let rule = match meta {
                Some(FieldMeta::Checkbox(c)) => Some(c),
                _ => None,
            };
            checkboxes(&options, rule, value)
        }
    }
}

fn signature(value: &Filled) -> Result<Stored, AppError> {
    let data = match &value.mark {
        Mark::Typed(typed) => {
            let t = typed
                .as_deref()
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .ok_or_else(|| bad("type your name to sign"))?;
            if t.chars().count() > 100 {
                return Err(bad("a typed signature is at most 100 characters"));
            }
            return Ok(Stored::Text(t.to_string()));
        }
        Mark::Drawn(data) => data,
        Mark::Missing => return Err(bad("draw or type a signature")),
    };
    let b64 = data
        .strip_prefix("data:image/png;base64,")
        .ok_or_else(|| bad("a drawn signature must be a PNG data URL"))?;
    if b64.len() > MAX_SIGNATURE_PNG * 4 / 3 + 4 {
        return Err(bad("the drawn signature is too large"));
    }
    let png = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .map_err(|_| bad("the drawn signature is not valid base64"))?;
    let (w, h) = png_size(&png).ok_or_else(|| bad("the drawn signature is not a PNG image"))?;
    if w == 0 || h == 0 || w > MAX_SIGNATURE_SIDE || h > MAX_SIGNATURE_SIDE {
        return Err(bad("the drawn signature has an unusable size"));
    }
    Ok(Stored::Drawn(png))
}

/// Width and height from a PNG's IHDR chunk.
pub fn png_size(png: &[u8]) -> Option<(u32, u32)> {
    const MAGIC: &[u8] = b"\x89PNG\r\n\x1a\n";
    if png.len() < 24 || !png.starts_with(MAGIC) || &png[12..16] != b"IHDR" {
        return None;
    }
    let w = u32::from_be_bytes(png[16..20].try_into().ok()?);
    let h = u32::from_be_bytes(png[20..24].try_into().ok()?);
    Some((w, h))
}

fn text_value(value: &Filled, limit: usize) -> Result<String, AppError> {
    let t = match &value.value {
        Entry::Text(s) => s.trim().to_string(),
        _ => return Err(bad("give the field a value")),
    };
    if t.is_empty() {
        return Err(bad("give the field a value"));
    }
    if t.chars().count() > limit {
        return Err(bad(format!("at most {limit} characters")));
    }
    if t.chars().any(|c| c.is_control() && c != '\n') {
        return Err(bad("the value contains control characters"));
    }
    Ok(t)
}

fn number(min: Option<f64>, max: Option<f64>, value: &Filled) -> Result<String, AppError> {
    let raw = text_value(value, 64)?;
    let n: f64 = raw
        .parse()
        .ok()
        .filter(|n: &f64| n.is_finite())
        .ok_or_else(|| bad("enter a number"))?;
    if let Some(min) = min
        && n < min
    {
        return Err(bad(format!("the smallest allowed value is {min}")));
    }
    if let Some(max) = max
        && n > max
    {
        return Err(bad(format!("the largest allowed value is {max}")));
    }
    Ok(raw)
}

fn require_option(options: &[&str], choice: &str) -> Result<(), AppError> {
    if options.contains(&choice) {
        Ok(())
    } else {
        Err(bad(format!("{choice:?} is not one of the field's options")))
    }
}

fn checkboxes(
    options: &[&str],
    rule: Option<&CheckboxMeta>,
    value: &Filled,
) -> Result<Stored, AppError> {
    let picked: Vec<String> = match &value.value {
        Entry::Choices(a) => a
            .iter()
            .cloned()
            .collect::<Option<_>>()
            .ok_or_else(|| bad("checkbox values are strings"))?,
        _ => return Err(bad("give the checked values as a list")),
    };
    for p in &picked {
        require_option(options, p)?;
    }
    let mut unique = picked.clone();
    unique.sort();
    unique.dedup();
    if unique.len() != picked.len() {
        return Err(bad("a value is checked twice"));
    }
    if let Some(CheckboxMeta {
        validation_rule: Some(rule),
        validation_length: Some(n @ 0..),
        ..
    }) = rule
    {
        let n = *n as u64;
        if !rule.allows(picked.len() as u64, n) {
            return Err(bad(format!("{} {n}", rule.as_str().to_lowercase())));
        }
    }
    Ok(Stored::Text(
        serde_json::to_string(&picked).unwrap_or_default(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    /// The check of the body `body` as a page sends it, for a field whose stored settings are
    /// `meta`.
    fn check(kind: FieldType, meta: Option<&Value>, body: &Value) -> Result<Stored, AppError> {
        let meta = meta.map(|m| FieldMeta::read(kind, &m.to_string()).unwrap());
        let sent: crate::http::api::wire::link::FillRequest =
            serde_json::from_value(body.clone()).unwrap();
        super::check(kind, meta.as_ref(), &sent.filled())
    }

    fn png(w: u32, h: u32) -> String {
        let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        b.extend(w.to_be_bytes());
        b.extend(h.to_be_bytes());
        b.extend([8, 6, 0, 0, 0]);
        format!(
            "data:image/png;base64,{}",
            base64::engine::general_purpose::STANDARD.encode(b)
        )
    }

    #[test]
    fn signatures_drawn_or_typed() {
        let drawn = check(
            FieldType::Signature,
            None,
            &json!({"signature": png(300, 100)}),
        );
        assert!(matches!(drawn, Ok(Stored::Drawn(_))));
        assert_eq!(
            check(FieldType::Initials, None, &json!({"typed": " A.L. "})).unwrap(),
            Stored::Text("A.L.".into())
        );
        for bad in [
            json!({}),
            json!({"typed": "  "}),
            json!({"signature": "data:image/jpeg;base64,AAAA"}),
            json!({"signature": "data:image/png;base64,not base64!"}),
            json!({"signature": png(0, 10)}),
            json!({"signature": png(5000, 10)}),
        ] {
            assert!(check(FieldType::Signature, None, &bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn text_respects_its_limit_and_read_only() {
        let meta = json!({"type": "text", "characterLimit": 5});
        assert!(check(FieldType::Text, Some(&meta), &json!({"value": "abcde"})).is_ok());
        assert!(check(FieldType::Text, Some(&meta), &json!({"value": "abcdef"})).is_err());
        assert!(check(FieldType::Text, Some(&meta), &json!({"value": ""})).is_err());
        let ro = json!({"type": "text", "readOnly": true, "text": "fixed"});
        assert!(check(FieldType::Text, Some(&ro), &json!({"value": "fixed"})).is_err());
    }

    #[test]
    fn numbers_within_bounds() {
        let meta = json!({"type": "number", "minValue": 1, "maxValue": 10});
        assert!(check(FieldType::Number, Some(&meta), &json!({"value": "7.5"})).is_ok());
        assert!(check(FieldType::Number, Some(&meta), &json!({"value": 11})).is_err());
        assert!(check(FieldType::Number, Some(&meta), &json!({"value": "0"})).is_err());
        assert!(check(FieldType::Number, Some(&meta), &json!({"value": "NaN"})).is_err());
        assert!(check(FieldType::Number, Some(&meta), &json!({"value": "ten"})).is_err());
    }

    #[test]
    fn choices_come_from_the_options() {
        let radio = json!({"type": "radio", "values": [{"id": 1, "checked": false, "value": "Yes"}, {"id": 2, "checked": false, "value": "No"}]});
        assert!(check(FieldType::Radio, Some(&radio), &json!({"value": "No"})).is_ok());
        assert!(check(FieldType::Radio, Some(&radio), &json!({"value": "Maybe"})).is_err());
        let select = json!({"type": "select", "values": [{"value": "A"}, {"value": "B"}]});
        assert!(check(FieldType::Select, Some(&select), &json!({"value": "B"})).is_ok());
        assert!(check(FieldType::Select, Some(&select), &json!({"value": "C"})).is_err());
        let boxes = json!({"type": "checkbox", "validationRule": "Select at least", "validationLength": 2,
            "values": [{"id": 1, "checked": false, "value": "a"}, {"id": 2, "checked": false, "value": "b"}, {"id": 3, "checked": false, "value": "c"}]});
        assert_eq!(
            check(
                FieldType::Checkbox,
                Some(&boxes),
                &json!({"value": ["a", "c"]})
            )
            .unwrap(),
            Stored::Text(r#"["a","c"]"#.into())
        );
        assert!(check(FieldType::Checkbox, Some(&boxes), &json!({"value": ["a"]})).is_err());
        assert!(
            check(
                FieldType::Checkbox,
                Some(&boxes),
                &json!({"value": ["a", "a"]})
            )
            .is_err()
        );
        assert!(
            check(
                FieldType::Checkbox,
                Some(&boxes),
                &json!({"value": ["a", "z"]})
            )
            .is_err()
        );
    }

    #[test]
    fn dates_are_not_typed_and_emails_are_checked() {
        assert!(check(FieldType::Date, None, &json!({"value": "2026-01-01"})).is_err());
        assert!(check(FieldType::Email, None, &json!({"value": "a@b.example"})).is_ok());
        assert!(check(FieldType::Email, None, &json!({"value": "nope"})).is_err());
        assert!(check(FieldType::Name, None, &json!({"value": "Ann\u{0}"})).is_err());
    }
}
