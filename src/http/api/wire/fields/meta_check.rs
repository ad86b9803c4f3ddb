//! The check of a field's settings as sent (`FieldMetaInput`) for a field of a given type:
//! what each type keeps (labels, layout, a text's limit, a number's bounds, the values of a
//! choice) in the domain's `FieldMeta`, every problem named by its JSON path. The limits are
//! the domain's (`documents::field_meta_rules`, the words of `documents::field_meta`). The
//! values of RADIO, CHECKBOX, SELECT and DROPDOWN are checked in `meta_choices`.

use super::meta::FieldMetaInput;
use crate::core::lenient::{Given, Number, Object};
use crate::signing::documents::check::{Check, join};
use crate::signing::documents::field_meta::{
    Basic, FieldMeta, Lettered, Lines, NumberMeta, NumberValue, Overflow, TextAlign, TextMeta,
    VerticalAlign,
};
use crate::signing::documents::field_meta_rules as rules;
use crate::signing::documents::fields::FieldType;

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
pub(super) struct Meta<'a> {
    pub(super) c: &'a mut Check,
    pub(super) path: &'a str,
    pub(super) m: &'a FieldMetaInput,
}

impl<'a> Meta<'a> {
    pub(super) fn at(&self, key: &str) -> String {
        join(self.path, key)
    }

    /// What every kind has: labels, switches, the font size, the overflow.
    fn basic(&mut self) -> Basic {
        let m = self.m;
        Basic {
            label: self.c.text(&m.label, &self.at("label"), rules::LABEL_MAX),
            placeholder: self
                .c
                .text(&m.placeholder, &self.at("placeholder"), rules::LABEL_MAX),
            required: self.c.flag(&m.required, &self.at("required")),
            read_only: self.c.flag(&m.read_only, &self.at("readOnly")),
            font_size: self.ranged(
                "fontSize",
                &m.font_size,
                rules::FONT_SIZE,
                rules::FONT_SIZE_RULE,
            ),
            overflow: self.one_of("overflow", &m.overflow, Overflow::NAMES, Overflow::parse),
        }
    }

    /// The optional word `key`, one of `names`.
    pub(super) fn one_of<T>(
        &mut self,
        key: &str,
        given: &Given<String>,
        names: &[&str],
        parse: fn(&str) -> Option<T>,
    ) -> Option<T> {
        let at = self.at(key);
        let v = self.c.text(given, &at, rules::WORD_MAX)?;
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
        let why = rules::from_to(&r);
        self.ranged(key, g, r, &why)
    }

    /// How TEXT and NUMBER lay out their lines (the other signing service's field-meta
    /// schema: a key the kind does not have is dropped, as that schema drops it).
    fn lines(&mut self) -> Lines {
        let m = self.m;
        Lines {
            line_height: self.ranged_from_to("lineHeight", &m.line_height, rules::LINE_HEIGHT),
            letter_spacing: self.ranged_from_to(
                "letterSpacing",
                &m.letter_spacing,
                rules::LETTER_SPACING,
            ),
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
        let limit = self
            .c
            .int(&self.m.character_limit, &at_limit, rules::CHARACTER_LIMIT);
        let text = self.c.text(&self.m.text, &self.at("text"), rules::TEXT_MAX);
        if let (Some(limit), Some(text)) = (limit, &text)
            && let Some(why) = rules::over_limit(text, limit)
        {
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
                Some(s) if s.chars().count() <= rules::NUMBER_TEXT_MAX => {
                    NumberValue::Text(s.trim().to_string())
                }
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
            number_format: self
                .c
                .text(&m.number_format, &self.at("numberFormat"), rules::WORD_MAX),
        })
    }
}
