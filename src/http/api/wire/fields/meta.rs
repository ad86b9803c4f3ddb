//! A field's settings (`fieldMeta`) as a client sends them (`FieldMetaInput`, each member
//! optional), and a stored field's settings as if sent again, for a change that leaves them
//! out (`From<&FieldMeta>`). `meta_check` turns them into the domain's `FieldMeta`.

use serde::Deserialize;
use serde::de::{Deserializer, Error as _};
use serde_json::Value;
use utoipa::ToSchema;

use crate::core::lenient::{Given, Number, Object};
use crate::signing::documents::field_meta::{
    CheckboxRule, ChoiceMeta, Direction, FieldMeta, Lines, NumberValue, Overflow, TextAlign,
    VerticalAlign,
};

/// `fieldMeta`: each member optional; a member the field's type does not have is dropped.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = FieldMeta, example = json!({"type": "text", "label": "Company", "characterLimit": 40}))]
pub struct FieldMetaInput {
    #[serde(default, rename = "type")]
    /// The field's type in lower case (`text` for TEXT); SELECT and DROPDOWN take `select` or
    /// `dropdown`. Required for TEXT, NUMBER, RADIO, CHECKBOX, SELECT and DROPDOWN.
    #[schema(value_type = Option<String>)]
    pub kind: Given<String>,
    #[serde(default)]
    #[schema(value_type = Option<String>, max_length = 200)]
    pub label: Given<String>,
    #[serde(default)]
    #[schema(value_type = Option<String>, max_length = 200)]
    pub placeholder: Given<String>,
    #[serde(default)]
    #[schema(value_type = Option<bool>)]
    pub required: Given<bool>,
    #[serde(default)]
    #[schema(value_type = Option<bool>)]
    pub read_only: Given<bool>,
    #[serde(default)]
    #[schema(value_type = Option<f64>, minimum = 8, maximum = 96)]
    pub font_size: Given<Number>,
    #[serde(default)]
    #[schema(schema_with = overflow_schema)]
    pub overflow: Given<String>,
    #[serde(default)]
    #[schema(schema_with = text_align_schema)]
    pub text_align: Given<String>,
    #[serde(default)]
    /// TEXT and NUMBER.
    #[schema(value_type = Option<f64>, minimum = 1, maximum = 10)]
    pub line_height: Given<Number>,
    #[serde(default)]
    /// TEXT and NUMBER.
    #[schema(value_type = Option<f64>, minimum = 0, maximum = 100)]
    pub letter_spacing: Given<Number>,
    #[serde(default)]
    #[schema(schema_with = vertical_align_schema)]
    pub vertical_align: Given<String>,
    #[serde(default)]
    #[schema(schema_with = direction_schema)]
    pub direction: Given<String>,
    #[serde(default)]
    /// TEXT: 0 is no limit.
    #[schema(value_type = Option<i64>, minimum = 0, maximum = 10000)]
    pub character_limit: Given<serde_json::Number>,
    #[serde(default)]
    /// TEXT: the text filled in beforehand.
    #[schema(value_type = Option<String>, max_length = 10000)]
    pub text: Given<String>,
    #[serde(default)]
    /// NUMBER: kept in the JSON type it was sent in.
    #[schema(value_type = Option<f64>)]
    pub value: Given<SentNumber>,
    #[serde(default)]
    #[schema(value_type = Option<f64>)]
    pub min_value: Given<Number>,
    #[serde(default)]
    #[schema(value_type = Option<f64>)]
    pub max_value: Given<Number>,
    #[serde(default)]
    #[schema(value_type = Option<String>, max_length = 32)]
    pub number_format: Given<String>,
    #[serde(default)]
    /// RADIO, CHECKBOX (`{id, checked, value}`), SELECT and DROPDOWN (`{value}`).
    #[schema(value_type = Option<Vec<ChoiceInput>>, max_items = 100)]
    pub values: Given<Vec<Given<Object<ChoiceInput>>>>,
    #[serde(default)]
    /// CHECKBOX: "" (no rule) or one of the rules, with validationLength.
    #[schema(schema_with = checkbox_rule_schema)]
    pub validation_rule: Given<String>,
    #[serde(default)]
    #[schema(value_type = Option<i64>, minimum = 0, maximum = 100)]
    pub validation_length: Given<serde_json::Number>,
    #[serde(default)]
    /// SELECT and DROPDOWN: one of the values.
    #[schema(value_type = Option<String>, max_length = 500)]
    pub default_value: Given<String>,
}

/// One value of a choice field.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct ChoiceInput {
    #[serde(default)]
    #[schema(value_type = Option<i64>, minimum = 0)]
    pub id: Given<serde_json::Number>,
    #[serde(default)]
    #[schema(value_type = Option<bool>)]
    pub checked: Given<bool>,
    #[serde(default)]
    #[schema(value_type = String, max_length = 500)]
    pub value: Given<String>,
}

/// A number sent as a JSON number or as text holding one, with the text it was sent as.
#[derive(Debug, Clone, PartialEq)]
pub struct SentNumber {
    pub value: f64,
    pub text: Option<String>,
}

impl<'de> Deserialize<'de> for SentNumber {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = Value::deserialize(d)?;
        let value = Number::deserialize(&raw).map_err(D::Error::custom)?.0;
        let text = raw.as_str().map(str::to_string);
        Ok(SentNumber { value, text })
    }
}

/// A field's settings as if sent again: what a change (`FieldInput::over`) keeps of the
/// members it leaves out, to be checked with the members it sets.
impl From<&FieldMeta> for FieldMetaInput {
    fn from(meta: &FieldMeta) -> Self {
        fn given<T>(v: Option<T>) -> Given<T> {
            v.map_or(Given::Absent, Given::Valid)
        }
        fn word<T>(v: Option<T>, name: fn(T) -> &'static str) -> Given<String> {
            given(v.map(|v| name(v).to_string()))
        }
        let number = |v: Option<f64>| given(v.map(Number));
        let whole = |v: Option<i64>| given(v.map(serde_json::Number::from));
        let b = meta.basic();
        let mut out = FieldMetaInput {
            kind: Given::Valid(meta.kind().meta_kind()),
            label: given(b.label.clone()),
            placeholder: given(b.placeholder.clone()),
            required: given(b.required),
            read_only: given(b.read_only),
            font_size: number(b.font_size),
            overflow: word(b.overflow, Overflow::as_str),
            text_align: word(meta.text_align(), TextAlign::as_str),
            ..FieldMetaInput::default()
        };
        let lines = |out: &mut FieldMetaInput, l: &Lines| {
            out.line_height = number(l.line_height);
            out.letter_spacing = number(l.letter_spacing);
            out.vertical_align = word(l.vertical_align, VerticalAlign::as_str);
        };
        let choices = |out: &mut FieldMetaInput, c: &ChoiceMeta| {
            out.direction = word(c.direction, Direction::as_str);
            out.values = given(c.values.as_ref().map(|vs| {
                vs.iter()
                    .map(|v| {
                        Given::Valid(Object(ChoiceInput {
                            id: Given::Valid(v.id.into()),
                            checked: Given::Valid(v.checked),
                            value: Given::Valid(v.value.clone()),
                        }))
                    })
                    .collect()
            }));
        };
        match meta {
            FieldMeta::Text(t) => {
                lines(&mut out, &t.lines);
                out.character_limit = whole(t.character_limit);
                out.text = given(t.text.clone());
            }
            FieldMeta::Number(n) => {
                lines(&mut out, &n.lines);
                out.value = match &n.value {
                    None => Given::Absent,
                    Some(NumberValue::Number(x)) => Given::Valid(SentNumber {
                        value: x.as_f64().unwrap_or_default(),
                        text: None,
                    }),
                    // Text a prefill left that holds no number fails again, as sent.
                    Some(NumberValue::Text(t)) => match t.trim().parse::<f64>() {
                        Ok(value) if value.is_finite() => Given::Valid(SentNumber {
                            value,
                            text: Some(t.clone()),
                        }),
                        _ => Given::Invalid(format!("{t:?} is not a number")),
                    },
                };
                out.min_value = number(n.min_value);
                out.max_value = number(n.max_value);
                out.number_format = given(n.number_format.clone());
            }
            FieldMeta::Radio(r) => choices(&mut out, r),
            FieldMeta::Checkbox(c) => {
                choices(&mut out, &c.choices);
                out.validation_rule = word(c.validation_rule, CheckboxRule::as_str);
                out.validation_length = whole(c.validation_length);
            }
            FieldMeta::Select(s) | FieldMeta::Dropdown(s) => {
                out.values = given(s.values.as_ref().map(|vs| {
                    vs.iter()
                        .map(|v| {
                            Given::Valid(Object(ChoiceInput {
                                value: Given::Valid(v.value.clone()),
                                ..ChoiceInput::default()
                            }))
                        })
                        .collect()
                }));
                out.default_value = given(s.default_value.clone());
            }
            _ => {}
        }
        out
    }
}

fn enum_schema(values: &[&'static str]) -> utoipa::openapi::schema::Schema {
    use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
    let mut all: Vec<Option<&str>> = values.iter().copied().map(Some).collect();
    all.push(None);
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .enum_values(Some(all))
        .into()
}

fn overflow_schema() -> utoipa::openapi::schema::Schema {
    enum_schema(Overflow::NAMES)
}

fn text_align_schema() -> utoipa::openapi::schema::Schema {
    enum_schema(TextAlign::NAMES)
}

fn vertical_align_schema() -> utoipa::openapi::schema::Schema {
    enum_schema(VerticalAlign::NAMES)
}

fn direction_schema() -> utoipa::openapi::schema::Schema {
    enum_schema(Direction::NAMES)
}

fn checkbox_rule_schema() -> utoipa::openapi::schema::Schema {
    enum_schema(CheckboxRule::NAMES)
}
