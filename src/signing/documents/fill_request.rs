//! What a signing page sends to fill one of its recipient's fields
//! (`POST /sign/{token}/fields/{id}`), as a type: `{"value": ...}` for text, numbers, choices
//! and checkboxes, `{"signature": "data:image/png;base64,..."}` or `{"typed": "..."}` for a
//! signature or initials. `values::check` reads it against the field's type and `fieldMeta`;
//! a member of the wrong form is kept (`Given::Invalid`) so that the check's message names
//! what is missing.

use serde::Deserialize;
use serde_json::{Number, Value};

use crate::core::lenient::Given;

/// `POST /sign/{token}/fields/{id}`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct FillRequest {
    /// The value of a text, number, choice or checkbox field.
    #[serde(default)]
    pub value: Given<FilledValue>,
    /// A drawn signature or initials: a PNG data URL.
    #[serde(default)]
    pub signature: Given<String>,
    /// A typed signature or initials (sent, even as `null`, it is the one read).
    #[serde(default)]
    pub typed: Given<String>,
}

/// `value`: text, a number, or the checked boxes' values.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum FilledValue {
    Text(String),
    Number(Number),
    /// Checkboxes: each item should be one of the field's option values.
    List(Vec<Given<String>>),
}

impl FillRequest {
    /// A request that sets `value` (a template's prefill, given as JSON by the owner).
    pub fn of_value(value: &Value) -> FillRequest {
        FillRequest {
            value: serde_json::from_value(value.clone()).unwrap_or_default(),
            ..FillRequest::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::lenient::{OrDefault, from_slice};

    fn read(body: &str) -> FillRequest {
        from_slice::<OrDefault<FillRequest>>(body.as_bytes())
            .unwrap()
            .0
    }

    #[test]
    fn values_are_read_in_their_forms() {
        assert_eq!(
            read(r#"{"value": " x "}"#).value,
            Given::Valid(FilledValue::Text(" x ".into()))
        );
        let n = read(r#"{"value": 7.5}"#).value;
        assert!(matches!(n, Given::Valid(FilledValue::Number(n)) if n.to_string() == "7.5"));
        let list = read(r#"{"value": ["a", 1]}"#).value;
        let Given::Valid(FilledValue::List(items)) = list else {
            panic!("{list:?}")
        };
        assert_eq!(items[0], Given::Valid("a".into()));
        assert!(items[1].is_invalid());
        assert!(read(r#"{"value": true}"#).value.is_invalid());
        assert_eq!(read(r#"{"typed": null}"#).typed, Given::Null);
        assert_eq!(read("[1]"), FillRequest::default());
    }
}
