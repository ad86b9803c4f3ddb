//! A field's settings (`fieldMeta`) as the domain holds them: one variant per field type, each
//! with the settings that type has. They are stored as the JSON object the API answers with
//! (`fields.field_meta`, keys in order, `type` beside the settings) and read back into the
//! variant of the field's type at the edge of the store. What a client sends is checked by the
//! HTTP layer (`http::api::wire::fields::meta_check`) against `field_meta_rules`.

use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

use super::fields::FieldType;

/// `fieldMeta` of a field, by the field's type.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldMeta {
    Signature(Basic),
    FreeSignature(Basic),
    Initials(Lettered),
    Name(Lettered),
    Email(Lettered),
    Date(Lettered),
    Text(TextMeta),
    Number(NumberMeta),
    Radio(ChoiceMeta),
    Checkbox(CheckboxMeta),
    Select(SelectMeta),
    /// SELECT under the other signing service's name; stored with `type: "dropdown"`.
    Dropdown(SelectMeta),
}

/// A closed set of words, stored and answered as the word.
macro_rules! words {
    ($(#[$doc:meta])* $name:ident { $($variant:ident = $word:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
        pub enum $name {
            $(#[serde(rename = $word)] $variant),+
        }

        impl $name {
            pub const NAMES: &'static [&'static str] = &[$($word),+];

            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $word),+
                }
            }

            pub fn parse(s: &str) -> Option<Self> {
                match s {
                    $($word => Some($name::$variant),)+
                    _ => None,
                }
            }
        }
    };
}

words!(
    /// `overflow`: how a value longer than its box is shown.
    Overflow { Auto = "auto", Horizontal = "horizontal", Vertical = "vertical", Crop = "crop" }
);
words!(
    /// `textAlign`, as the other signing service names it.
    TextAlign { Left = "left", Center = "center", Right = "right" }
);
words!(
    /// `verticalAlign` of TEXT and NUMBER.
    VerticalAlign { Top = "top", Middle = "middle", Bottom = "bottom" }
);
words!(
    /// `direction` in which RADIO and CHECKBOX lay out their values.
    Direction { Vertical = "vertical", Horizontal = "horizontal" }
);
words!(
    /// A CHECKBOX's `validationRule`; the empty rule (`""`, as the other signing service's
    /// defaults send it) is no rule.
    CheckboxRule { None = "", AtLeast = "Select at least", Exactly = "Select exactly", AtMost = "Select at most" }
);

impl CheckboxRule {
    /// Whether `checked` boxes satisfy the rule with `length`.
    pub fn allows(self, checked: u64, length: u64) -> bool {
        match self {
            CheckboxRule::None => true,
            CheckboxRule::AtLeast => checked >= length,
            CheckboxRule::Exactly => checked == length,
            CheckboxRule::AtMost => checked <= length,
        }
    }
}

/// What every type has: labels, switches, the font size, the overflow.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Basic {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placeholder: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub font_size: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overflow: Option<Overflow>,
}

/// A type whose value is text on one line (INITIALS, NAME, EMAIL, DATE): it can be aligned.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Lettered {
    #[serde(flatten)]
    pub basic: Basic,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_align: Option<TextAlign>,
}

/// How TEXT and NUMBER lay out their lines.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Lines {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_height: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub letter_spacing: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vertical_align: Option<VerticalAlign>,
}

/// TEXT: a limit (0 is none) and the text filled in beforehand.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextMeta {
    #[serde(flatten)]
    pub lettered: Lettered,
    #[serde(flatten)]
    pub lines: Lines,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub character_limit: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

impl TextMeta {
    /// The most characters a value may have, when the field sets a limit.
    pub fn limit(&self) -> Option<usize> {
        self.character_limit.filter(|l| *l > 0).map(|l| l as usize)
    }
}

/// NUMBER: bounds, a format, and the value filled in beforehand.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NumberMeta {
    #[serde(flatten)]
    pub lettered: Lettered,
    #[serde(flatten)]
    pub lines: Lines,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<NumberValue>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_value: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_value: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number_format: Option<String>,
}

/// A NUMBER's value kept in the JSON type it was given in (the other signing service takes a
/// string).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum NumberValue {
    /// Kept as given: `7` stays `7`, `7.0` stays `7.0`.
    Number(serde_json::Number),
    Text(String),
}

/// One value of a RADIO or CHECKBOX.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Choice {
    #[serde(default)]
    pub id: i64,
    #[serde(default)]
    pub checked: bool,
    #[serde(default)]
    pub value: String,
}

/// RADIO: the values to pick one of, laid out in a direction.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChoiceMeta {
    #[serde(flatten)]
    pub basic: Basic,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<Direction>,
    /// Absent until given: such a field cannot go to a signer (`require_choices`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<Choice>>,
}

/// CHECKBOX: a RADIO's settings and a rule on how many boxes are checked.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckboxMeta {
    #[serde(flatten)]
    pub choices: ChoiceMeta,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validation_rule: Option<CheckboxRule>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validation_length: Option<i64>,
}

/// One value of a SELECT or DROPDOWN.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SelectOption {
    #[serde(default)]
    pub value: String,
}

/// SELECT and DROPDOWN: the values and the one picked beforehand.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SelectMeta {
    #[serde(flatten)]
    pub basic: Basic,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<SelectOption>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_value: Option<String>,
}

impl FieldMeta {
    /// The settings of a field of `kind` that has none given but its type.
    pub fn empty(kind: FieldType) -> FieldMeta {
        use FieldType as T;
        match kind {
            T::Signature => FieldMeta::Signature(Basic::default()),
            T::FreeSignature => FieldMeta::FreeSignature(Basic::default()),
            T::Initials => FieldMeta::Initials(Lettered::default()),
            T::Name => FieldMeta::Name(Lettered::default()),
            T::Email => FieldMeta::Email(Lettered::default()),
            T::Date => FieldMeta::Date(Lettered::default()),
            T::Text => FieldMeta::Text(TextMeta::default()),
            T::Number => FieldMeta::Number(NumberMeta::default()),
            T::Radio => FieldMeta::Radio(ChoiceMeta::default()),
            T::Checkbox => FieldMeta::Checkbox(CheckboxMeta::default()),
            T::Select => FieldMeta::Select(SelectMeta::default()),
            T::Dropdown => FieldMeta::Dropdown(SelectMeta::default()),
        }
    }

    /// The type of field these settings are for.
    pub fn kind(&self) -> FieldType {
        use FieldType as T;
        match self {
            FieldMeta::Signature(_) => T::Signature,
            FieldMeta::FreeSignature(_) => T::FreeSignature,
            FieldMeta::Initials(_) => T::Initials,
            FieldMeta::Name(_) => T::Name,
            FieldMeta::Email(_) => T::Email,
            FieldMeta::Date(_) => T::Date,
            FieldMeta::Text(_) => T::Text,
            FieldMeta::Number(_) => T::Number,
            FieldMeta::Radio(_) => T::Radio,
            FieldMeta::Checkbox(_) => T::Checkbox,
            FieldMeta::Select(_) => T::Select,
            FieldMeta::Dropdown(_) => T::Dropdown,
        }
    }

    /// Stored settings `json` of a field of `kind`. The stored `type` follows the field's type
    /// (it is written so), and keys no type has are passed over.
    pub fn read(kind: FieldType, json: &str) -> Result<FieldMeta, serde_json::Error> {
        use FieldType as T;
        use serde_json::from_str as r;
        Ok(match kind {
            T::Signature => FieldMeta::Signature(r(json)?),
            T::FreeSignature => FieldMeta::FreeSignature(r(json)?),
            T::Initials => FieldMeta::Initials(r(json)?),
            T::Name => FieldMeta::Name(r(json)?),
            T::Email => FieldMeta::Email(r(json)?),
            T::Date => FieldMeta::Date(r(json)?),
            T::Text => FieldMeta::Text(r(json)?),
            T::Number => FieldMeta::Number(r(json)?),
            T::Radio => FieldMeta::Radio(r(json)?),
            T::Checkbox => FieldMeta::Checkbox(r(json)?),
            T::Select => FieldMeta::Select(r(json)?),
            T::Dropdown => FieldMeta::Dropdown(r(json)?),
        })
    }

    /// The JSON object stored and answered: `type` and the settings given, keys sorted (as
    /// the object was before these settings were typed).
    fn object(&self) -> Map<String, Value> {
        let settings = match self {
            FieldMeta::Signature(m) | FieldMeta::FreeSignature(m) => serde_json::to_value(m),
            FieldMeta::Initials(m)
            | FieldMeta::Name(m)
            | FieldMeta::Email(m)
            | FieldMeta::Date(m) => serde_json::to_value(m),
            FieldMeta::Text(m) => serde_json::to_value(m),
            FieldMeta::Number(m) => serde_json::to_value(m),
            FieldMeta::Radio(m) => serde_json::to_value(m),
            FieldMeta::Checkbox(m) => serde_json::to_value(m),
            FieldMeta::Select(m) | FieldMeta::Dropdown(m) => serde_json::to_value(m),
        };
        let mut out = match settings {
            Ok(Value::Object(o)) => o,
            // Plain structs of strings, numbers and lists always make an object.
            _ => Map::new(),
        };
        out.insert("type".into(), Value::String(self.kind().meta_kind()));
        out
    }

    /// The stored JSON text.
    pub fn to_json_text(&self) -> String {
        Value::Object(self.object()).to_string()
    }

    /// What every type has.
    pub fn basic(&self) -> &Basic {
        match self {
            FieldMeta::Signature(m) | FieldMeta::FreeSignature(m) => m,
            FieldMeta::Initials(m)
            | FieldMeta::Name(m)
            | FieldMeta::Email(m)
            | FieldMeta::Date(m) => &m.basic,
            FieldMeta::Text(m) => &m.lettered.basic,
            FieldMeta::Number(m) => &m.lettered.basic,
            FieldMeta::Radio(m) => &m.basic,
            FieldMeta::Checkbox(m) => &m.choices.basic,
            FieldMeta::Select(m) | FieldMeta::Dropdown(m) => &m.basic,
        }
    }

    pub fn basic_mut(&mut self) -> &mut Basic {
        match self {
            FieldMeta::Signature(m) | FieldMeta::FreeSignature(m) => m,
            FieldMeta::Initials(m)
            | FieldMeta::Name(m)
            | FieldMeta::Email(m)
            | FieldMeta::Date(m) => &mut m.basic,
            FieldMeta::Text(m) => &mut m.lettered.basic,
            FieldMeta::Number(m) => &mut m.lettered.basic,
            FieldMeta::Radio(m) => &mut m.basic,
            FieldMeta::Checkbox(m) => &mut m.choices.basic,
            FieldMeta::Select(m) | FieldMeta::Dropdown(m) => &mut m.basic,
        }
    }

    /// `readOnly`: the recipient cannot change the value.
    pub fn read_only(&self) -> bool {
        self.basic().read_only == Some(true)
    }

    /// `required`: completing needs a value.
    pub fn required(&self) -> bool {
        self.basic().required == Some(true)
    }

    /// Where text sits across its box, for the types that say.
    pub fn text_align(&self) -> Option<TextAlign> {
        match self {
            FieldMeta::Initials(m)
            | FieldMeta::Name(m)
            | FieldMeta::Email(m)
            | FieldMeta::Date(m) => m.text_align,
            FieldMeta::Text(m) => m.lettered.text_align,
            FieldMeta::Number(m) => m.lettered.text_align,
            _ => None,
        }
    }

    /// The values a choice field offers (RADIO, CHECKBOX, SELECT, DROPDOWN), in order; `None`
    /// for other types and for a choice field given none.
    pub fn options(&self) -> Option<Vec<&str>> {
        match self {
            FieldMeta::Radio(m) => m.values.as_ref().map(|v| choice_words(v)),
            FieldMeta::Checkbox(m) => m.choices.values.as_ref().map(|v| choice_words(v)),
            FieldMeta::Select(m) | FieldMeta::Dropdown(m) => m
                .values
                .as_ref()
                .map(|v| v.iter().map(|o| o.value.as_str()).collect()),
            _ => None,
        }
    }
}

fn choice_words(values: &[Choice]) -> Vec<&str> {
    values.iter().map(|c| c.value.as_str()).collect()
}

impl Serialize for FieldMeta {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.object().serialize(s)
    }
}

/// Whether a choice field (RADIO, CHECKBOX, SELECT/DROPDOWN) of `kind` has no values to
/// choose from.
pub fn lacks_choices(kind: FieldType, meta: Option<&FieldMeta>) -> bool {
    kind.is_choice()
        && meta
            .and_then(FieldMeta::options)
            .is_none_or(|o| o.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stored objects as the checks wrote them, one per type: each reads into its variant and
    /// writes back byte for byte.
    #[test]
    fn stored_settings_read_back_into_the_type_and_write_the_same_json() {
        let stored = [
            (
                FieldType::Signature,
                r#"{"label":"Sign","required":true,"type":"signature"}"#,
            ),
            (
                FieldType::FreeSignature,
                r#"{"fontSize":12.0,"overflow":"crop","type":"free_signature"}"#,
            ),
            (
                FieldType::Initials,
                r#"{"readOnly":false,"textAlign":"center","type":"initials"}"#,
            ),
            (
                FieldType::Name,
                r#"{"placeholder":"Your name","type":"name"}"#,
            ),
            (FieldType::Email, r#"{"textAlign":"right","type":"email"}"#),
            (FieldType::Date, r#"{"readOnly":true,"type":"date"}"#),
            (
                FieldType::Text,
                r#"{"characterLimit":40,"label":"Company","letterSpacing":1.5,"lineHeight":2.0,"text":"ACME","textAlign":"left","type":"text","verticalAlign":"middle"}"#,
            ),
            (
                FieldType::Number,
                r#"{"maxValue":10.0,"minValue":1.0,"numberFormat":"0.00","type":"number","value":"7"}"#,
            ),
            (FieldType::Number, r#"{"type":"number","value":7.5}"#),
            (
                FieldType::Radio,
                r#"{"direction":"horizontal","type":"radio","values":[{"checked":false,"id":0,"value":"a"},{"checked":true,"id":1,"value":"b"}]}"#,
            ),
            (
                FieldType::Checkbox,
                r#"{"type":"checkbox","validationLength":1,"validationRule":"Select at least","values":[{"checked":true,"id":3,"value":"x"}]}"#,
            ),
            (
                FieldType::Checkbox,
                r#"{"type":"checkbox","validationLength":2,"validationRule":""}"#,
            ),
            (
                FieldType::Select,
                r#"{"defaultValue":"b","type":"select","values":[{"value":"a"},{"value":"b"}]}"#,
            ),
            (
                FieldType::Dropdown,
                r#"{"defaultValue":"","type":"dropdown"}"#,
            ),
        ];
        for (kind, json) in stored {
            let meta = FieldMeta::read(kind, json).unwrap();
            assert_eq!(meta.kind(), kind);
            assert_eq!(meta.to_json_text(), json);
            assert_eq!(serde_json::to_string(&meta).unwrap(), json);
        }
    }

    #[test]
    fn settings_answer_what_the_domain_asks() {
        let radio = FieldMeta::read(
            FieldType::Radio,
            r#"{"readOnly":true,"type":"radio","values":[{"checked":false,"id":0,"value":"a"}]}"#,
        )
        .unwrap();
        assert!(radio.read_only() && !radio.required());
        assert_eq!(radio.options(), Some(vec!["a"]));
        assert!(!lacks_choices(FieldType::Radio, Some(&radio)));
        let bare = FieldMeta::read(FieldType::Select, r#"{"type":"select"}"#).unwrap();
        assert!(lacks_choices(FieldType::Select, Some(&bare)));
        assert!(lacks_choices(FieldType::Checkbox, None));
        assert!(!lacks_choices(FieldType::Text, None));
        let text =
            FieldMeta::read(FieldType::Text, r#"{"textAlign":"right","type":"text"}"#).unwrap();
        assert_eq!(text.text_align(), Some(TextAlign::Right));
    }
}
