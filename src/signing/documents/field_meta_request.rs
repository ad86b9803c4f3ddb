//! A field's `fieldMeta` as sent, and its check per field type: what each type keeps (labels,
//! layout, a text's limit, a number's bounds, the values of a choice) in its `FieldMeta`.

use serde::Deserialize;
use serde::de::{Deserializer, Error as _};
use serde_json::Value;
use utoipa::ToSchema;

use super::check::{Check, join};
use super::field_meta::{
    Basic, CheckboxMeta, CheckboxRule, Choice, ChoiceMeta, Direction, FieldMeta, Lettered, Lines,
    NumberMeta, NumberValue, Overflow, SelectMeta, SelectOption, TextAlign, TextMeta,
    VerticalAlign,
};
use super::fields::FieldType;
use crate::core::lenient::{Given, Number, Object};

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

/// `fieldMeta` at `path` for a field of `kind`: the settings kept, or `None` when it is
/// absent and not required (or has a problem, recorded in `c`).
pub fn check(
    c: &mut Check,
    given: &Given<Object<FieldMetaInput>>,
    path: &str,
    kind: FieldType,
) -> Option<FieldMeta> {
    let want = kind.meta_kind();
    let required = || format!("required for {} fields: \"{want}\"", kind.as_str());
    let m = match given {
        Given::Valid(Object(m)) => m,
        Given::Invalid(_) => {
            c.fail(path, "must be an object");
            return None;
        }
        _ if kind.is_advanced() => {
            c.fail(join(path, "type"), required());
            return None;
        }
        _ => return None,
    };
    let at = |key: &str| join(path, key);
    match &m.kind {
        // SELECT and DROPDOWN take either kind; the stored kind follows the field's type.
        Given::Valid(t)
            if *t == want || (kind.is_select() && (t == "select" || t == "dropdown")) => {}
        Given::Valid(t) => c.fail(
            at("type"),
            format!(
                "is {t:?} but the field is {}; use \"{want}\"",
                kind.as_str()
            ),
        ),
        Given::Invalid(_) => c.fail(at("type"), "must be a string"),
        _ if kind.is_advanced() => c.fail(at("type"), required()),
        _ => {}
    }
    let mut meta = Meta { c, path, m };
    let basic = meta.basic();
    let lettered = |meta: &mut Meta| Lettered {
        basic: basic.clone(),
        text_align: meta.one_of(
            "textAlign",
            &m.text_align,
            TextAlign::NAMES,
            TextAlign::parse,
        ),
    };
    use FieldType as T;
    Some(match kind {
        T::Signature => FieldMeta::Signature(basic),
        T::FreeSignature => FieldMeta::FreeSignature(basic),
        T::Initials => FieldMeta::Initials(lettered(&mut meta)),
        T::Name => FieldMeta::Name(lettered(&mut meta)),
        T::Email => FieldMeta::Email(lettered(&mut meta)),
        T::Date => FieldMeta::Date(lettered(&mut meta)),
        T::Text => {
            let lettered = lettered(&mut meta);
            let lines = meta.lines();
            meta.text(lettered, lines)
        }
        T::Number => {
            let lettered = lettered(&mut meta);
            let lines = meta.lines();
            meta.number(lettered, lines)
        }
        T::Radio => FieldMeta::Radio(meta.choices(basic, kind)),
        T::Checkbox => {
            let choices = meta.choices(basic, kind);
            let count = choices.values.as_ref().map_or(0, Vec::len);
            FieldMeta::Checkbox(meta.checkbox_rule(choices, count))
        }
        T::Select => FieldMeta::Select(meta.select(basic)),
        T::Dropdown => FieldMeta::Dropdown(meta.select(basic)),
    })
}

/// One `fieldMeta` being checked: the problems go to `c`; each step returns what it keeps.
struct Meta<'a> {
    c: &'a mut Check,
    path: &'a str,
    m: &'a FieldMetaInput,
}

impl<'a> Meta<'a> {
    fn at(&self, key: &str) -> String {
        join(self.path, key)
    }

    /// What every kind has: labels, switches, the font size, the overflow.
    fn basic(&mut self) -> Basic {
        let m = self.m;
        Basic {
            label: self.c.text(&m.label, &self.at("label"), 200),
            placeholder: self.c.text(&m.placeholder, &self.at("placeholder"), 200),
            required: self.c.flag(&m.required, &self.at("required")),
            read_only: self.c.flag(&m.read_only, &self.at("readOnly")),
            font_size: self.ranged("fontSize", &m.font_size, 8.0..=96.0, "from 8 to 96"),
            overflow: self.one_of("overflow", &m.overflow, Overflow::NAMES, Overflow::parse),
        }
    }

    /// The optional word `key`, one of `names`.
    fn one_of<T>(
        &mut self,
        key: &str,
        given: &Given<String>,
        names: &[&str],
        parse: fn(&str) -> Option<T>,
    ) -> Option<T> {
        let at = self.at(key);
        let v = self.c.text(given, &at, 32)?;
        let word = parse(&v);
        if word.is_none() {
            self.c.fail(at, format!("use one of: {}", names.join(", ")));
        }
        word
    }

    /// The optional number `key` within `range` (`why` otherwise).
    fn ranged(
        &mut self,
        key: &str,
        given: &Given<Number>,
        range: std::ops::RangeInclusive<f64>,
        why: &str,
    ) -> Option<f64> {
        let at = self.at(key);
        let v = self.c.number(given, &at)?;
        if range.contains(&v) {
            Some(v)
        } else {
            self.c.fail(at, why);
            None
        }
    }

    fn ranged_from_to(
        &mut self,
        key: &str,
        g: &Given<Number>,
        r: std::ops::RangeInclusive<f64>,
    ) -> Option<f64> {
        let why = format!("from {} to {}", r.start(), r.end());
        self.ranged(key, g, r, &why)
    }

    /// How TEXT and NUMBER lay out their lines (the other signing service's field-meta
    /// schema: a key the kind does not have is dropped, as that schema drops it).
    fn lines(&mut self) -> Lines {
        let m = self.m;
        Lines {
            line_height: self.ranged_from_to("lineHeight", &m.line_height, 1.0..=10.0),
            letter_spacing: self.ranged_from_to("letterSpacing", &m.letter_spacing, 0.0..=100.0),
            vertical_align: self.one_of(
                "verticalAlign",
                &m.vertical_align,
                VerticalAlign::NAMES,
                VerticalAlign::parse,
            ),
        }
    }

    /// `characterLimit`: 0 means no limit, as in the other signing service's schema.
    fn text(&mut self, lettered: Lettered, lines: Lines) -> FieldMeta {
        let at_limit = self.at("characterLimit");
        let limit = self.c.int(&self.m.character_limit, &at_limit, 0..=10_000);
        let text = self.c.text(&self.m.text, &self.at("text"), 10_000);
        if let (Some(limit @ 1..), Some(text)) = (limit, &text)
            && text.chars().count() as i64 > limit
        {
            let why = format!("longer than characterLimit ({limit})");
            self.c.fail(self.at("text"), why);
        }
        FieldMeta::Text(TextMeta {
            lettered,
            lines,
            character_limit: limit,
            text,
        })
    }

    /// `value` keeps the JSON type it was sent in (the other signing service takes a string).
    fn number(&mut self, lettered: Lettered, lines: Lines) -> FieldMeta {
        let m = self.m;
        let min = self.c.number(&m.min_value, &self.at("minValue"));
        let max = self.c.number(&m.max_value, &self.at("maxValue"));
        let value = self
            .c
            .given(&m.value, &self.at("value"), "must be a number");
        if let (Some(a), Some(b)) = (min, max)
            && a > b
        {
            let why = "must not be greater than maxValue";
            self.c.fail(self.at("minValue"), why);
        }
        let value = value.map(|v| {
            if min.is_some_and(|m| v.value < m) || max.is_some_and(|m| v.value > m) {
                let why = "must lie between minValue and maxValue";
                self.c.fail(self.at("value"), why);
            }
            match &v.text {
                Some(s) if s.chars().count() <= 64 => NumberValue::Text(s.trim().to_string()),
                // A finite number (`Number` reads no other); 0 in case.
                _ => NumberValue::Number(
                    serde_json::Number::from_f64(v.value).unwrap_or_else(|| 0.into()),
                ),
            }
        });
        FieldMeta::Number(NumberMeta {
            lettered,
            lines,
            value,
            min_value: min,
            max_value: max,
            number_format: self.c.text(&m.number_format, &self.at("numberFormat"), 32),
        })
    }

    /// `values`: optional, as in the other signing service (a field without any cannot be
    /// sent to a signer: `require_choices`); at most 100.
    fn values(&mut self) -> Option<&'a [Given<Object<ChoiceInput>>]> {
        let at = self.at("values");
        let m: &'a FieldMetaInput = self.m;
        match &m.values {
            Given::Valid(a) if a.len() <= 100 => Some(a),
            Given::Valid(_) => {
                self.c.fail(at, "at most 100 values");
                None
            }
            Given::Invalid(_) => {
                self.c.fail(at, "must be an array");
                None
            }
            _ => None,
        }
    }

    /// RADIO and CHECKBOX: `direction` and the values.
    fn choices(&mut self, basic: Basic, kind: FieldType) -> ChoiceMeta {
        let m = self.m;
        let direction = self.one_of(
            "direction",
            &m.direction,
            Direction::NAMES,
            Direction::parse,
        );
        let values = self.values().map(|values| {
            let mut clean = Vec::new();
            let mut checked = 0;
            for (i, v) in values.iter().enumerate() {
                let p = format!("{}.values[{i}]", self.path);
                let Given::Valid(Object(v)) = v else {
                    self.c
                        .fail(&p, "must be an object {\"id\", \"checked\", \"value\"}");
                    continue;
                };
                let range = 0..=i64::from(u32::MAX);
                let id = self
                    .c
                    .int(&v.id, &join(&p, "id"), range)
                    .unwrap_or(i as i64);
                let is_checked = self
                    .c
                    .flag(&v.checked, &join(&p, "checked"))
                    .unwrap_or(false);
                let value = self
                    .c
                    .text(&v.value, &join(&p, "value"), 500)
                    .unwrap_or_default();
                checked += usize::from(is_checked);
                clean.push(Choice {
                    id,
                    checked: is_checked,
                    value,
                });
            }
            if kind == FieldType::Radio && checked > 1 {
                let why = "a radio field can have at most one value checked";
                self.c.fail(self.at("values"), why);
            }
            clean
        });
        ChoiceMeta {
            basic,
            direction,
            values,
        }
    }

    /// `validationRule` (one of the rules; `""` is no rule, as the other signing service's
    /// defaults send it) and `validationLength` (from 1 to the number of values (`count`)
    /// with a rule).
    fn checkbox_rule(&mut self, choices: ChoiceMeta, count: usize) -> CheckboxMeta {
        let m = self.m;
        let (at_rule, at_length) = (self.at("validationRule"), self.at("validationLength"));
        let mut out = CheckboxMeta {
            choices,
            validation_rule: None,
            validation_length: None,
        };
        let rule = self
            .c
            .text(&m.validation_rule, &at_rule, 32)
            .filter(|r| !r.is_empty());
        let Some(rule) = rule else {
            // No rule: a length means nothing, but is kept as sent.
            out.validation_length = self.c.int(&m.validation_length, &at_length, 0..=100);
            if m.validation_rule.valid().is_some_and(String::is_empty) {
                out.validation_rule = Some(CheckboxRule::None);
            }
            return out;
        };
        let range = 1..=count.max(1) as i64;
        let length = self.c.int(&m.validation_length, &at_length, range);
        match (CheckboxRule::parse(&rule), length) {
            (None | Some(CheckboxRule::None), _) => {
                let why = format!("use one of: {}", CheckboxRule::NAMES[1..].join(", "));
                self.c.fail(at_rule, why);
            }
            (_, None) if m.validation_length.is_absent() => {
                self.c.fail(at_length, "required with validationRule");
            }
            (Some(rule), Some(n)) => {
                out.validation_rule = Some(rule);
                out.validation_length = Some(n);
            }
            (_, None) => {}
        }
        out
    }

    fn select(&mut self, basic: Basic) -> SelectMeta {
        let values = self.values();
        let mut clean = Vec::new();
        for (i, v) in values.into_iter().flatten().enumerate() {
            match v.valid().and_then(|o| o.0.value.valid()) {
                Some(s) if !s.is_empty() && s.chars().count() <= 500 => clean.push(s.clone()),
                _ => self.c.fail(
                    format!("{}.values[{i}].value", self.path),
                    "a non-empty string of at most 500 characters",
                ),
            }
        }
        let had_values = values.is_some();
        let default_value = self
            .c
            .text(&self.m.default_value, &self.at("defaultValue"), 500);
        if let Some(d) = &default_value
            && !d.is_empty()
            && !clean.contains(d)
        {
            self.c
                .fail(self.at("defaultValue"), "must be one of the values");
        }
        SelectMeta {
            basic,
            values: had_values.then(|| {
                clean
                    .into_iter()
                    .map(|value| SelectOption { value })
                    .collect()
            }),
            default_value,
        }
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
