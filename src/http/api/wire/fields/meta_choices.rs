//! The check of the values of a choice field's settings as sent: RADIO and CHECKBOX
//! (`{id, checked, value}`, a checkbox's rule), SELECT and DROPDOWN (`{value}`, the default),
//! part of `meta_check`'s walk.

use super::meta::{ChoiceInput, FieldMetaInput};
use super::meta_check::Meta;
use crate::core::lenient::{Given, Object};
use crate::signing::documents::check::join;
use crate::signing::documents::field_meta::{
    Basic, CheckboxMeta, CheckboxRule, Choice, ChoiceMeta, Direction, SelectMeta, SelectOption,
};
use crate::signing::documents::field_meta_rules as rules;
use crate::signing::documents::fields::FieldType;

impl<'a> Meta<'a> {
    /// `values`: optional, as in the other signing service (a field without any cannot be
    /// sent to a signer: `require_choices`); at most 100.
    fn values(&mut self) -> Option<&'a [Given<Object<ChoiceInput>>]> {
        let at = self.at("values");
        let m: &'a FieldMetaInput = self.m;
        match &m.values {
            Given::Valid(a) if a.len() <= rules::MAX_CHOICES => Some(a),
            Given::Valid(_) => {
                self.c
                    .fail(at, format!("at most {} values", rules::MAX_CHOICES));
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
    pub(super) fn choices(&mut self, basic: Basic, kind: FieldType) -> ChoiceMeta {
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
                let id = self
                    .c
                    .int(&v.id, &join(&p, "id"), rules::CHOICE_ID)
                    .unwrap_or(i as i64);
                let is_checked = self
                    .c
                    .flag(&v.checked, &join(&p, "checked"))
                    .unwrap_or(false);
                let value = self
                    .c
                    .text(&v.value, &join(&p, "value"), rules::CHOICE_MAX)
                    .unwrap_or_default();
                checked += usize::from(is_checked);
                clean.push(Choice {
                    id,
                    checked: is_checked,
                    value,
                });
            }
            if kind == FieldType::Radio && !rules::radio_allows(checked) {
                self.c.fail(self.at("values"), rules::ONE_RADIO_CHECKED);
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
    pub(super) fn checkbox_rule(&mut self, choices: ChoiceMeta, count: usize) -> CheckboxMeta {
        let m = self.m;
        let (at_rule, at_length) = (self.at("validationRule"), self.at("validationLength"));
        let mut out = CheckboxMeta {
            choices,
            validation_rule: None,
            validation_length: None,
        };
        let rule = self
            .c
            .text(&m.validation_rule, &at_rule, rules::WORD_MAX)
            .filter(|r| !r.is_empty());
        let Some(rule) = rule else {
            // No rule: a length means nothing, but is kept as sent.
            out.validation_length =
                self.c
                    .int(&m.validation_length, &at_length, rules::VALIDATION_LENGTH);
            if m.validation_rule.valid().is_some_and(String::is_empty) {
                out.validation_rule = Some(CheckboxRule::None);
            }
            return out;
        };
        let range = rules::validation_lengths(count);
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

    pub(super) fn select(&mut self, basic: Basic) -> SelectMeta {
        let values = self.values();
        let mut clean = Vec::new();
        for (i, v) in values.into_iter().flatten().enumerate() {
            match v.valid().and_then(|o| o.0.value.valid()) {
                Some(s) if !s.is_empty() && s.chars().count() <= rules::CHOICE_MAX => {
                    clean.push(s.clone())
                }
                _ => self.c.fail(
                    format!("{}.values[{i}].value", self.path),
                    "a non-empty string of at most 500 characters",
                ),
            }
        }
        let had_values = values.is_some();
        let default_value = self.c.text(
            &self.m.default_value,
            &self.at("defaultValue"),
            rules::CHOICE_MAX,
        );
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
