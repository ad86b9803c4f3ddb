//! `prefillFields` of `generate-document`: values the request sets on the copied fields, by
//! the template field's id (read by `http::api::wire::templates::prefill`). As the other signing service does, TEXT, NUMBER, RADIO, CHECKBOX and
//! DROPDOWN get the value as their `fieldMeta` default (`text`, `value`, the `checked` flags,
//! `defaultValue`; `label` and `placeholder` when given) and DATE gets the formatted date. A
//! field given a value is filled at once (`inserted`, `customText`) and marked `readOnly`, so
//! its recipient sees it filled and cannot change it.

use crate::core::lenient::Given;

use crate::signing::documents::field_meta::{FieldMeta, NumberValue};
use crate::signing::documents::fields::FieldType;
use crate::signing::documents::model::Field;
use crate::signing::documents::values::{self, Entry, Filled, Stored};
use crate::{signing::documents::check::Check, signing::documents::check::join};
use crate::{signing::documents::dates::format_date, signing::documents::meta::Meta};

/// Most items one request may carry (a template's fields are bounded by the same).
pub const MAX_ITEMS: usize = 500;

/// A value as the owner sent it for a field.
#[derive(Debug, Clone, PartialEq)]
pub enum PrefillValue {
    Text(String),
    /// A number as written.
    Number(serde_json::Number),
    /// The checked values of a checkbox: an item that is no text is `None`, for the check to
    /// refuse.
    List(Vec<Option<String>>),
    /// Anything else (true, an object), refused by the field's check.
    Other,
}

/// What a prefill makes of one template field.
#[derive(Debug, Clone, PartialEq)]
pub struct Prefilled {
    /// The copied field's `fieldMeta`.
    pub meta: Option<FieldMeta>,
    /// Its value, when it has one: the field is then filled and read-only.
    pub value: Option<String>,
}

/// The prefill kind (`type`) a field of `kind` takes, if any.
pub fn prefill_kind(kind: FieldType) -> Option<&'static str> {
    Some(match kind {
        FieldType::Text => "text",
        FieldType::Number => "number",
        FieldType::Radio => "radio",
        FieldType::Checkbox => "checkbox",
        FieldType::Select | FieldType::Dropdown => "dropdown",
        FieldType::Date => "date",
        _ => return None,
    })
}

/// One item at `path` for `field` (its type already matched): its `label` and `placeholder`,
/// and its value (`None` when left out or null). Failures go to `c`.
pub fn one(
    c: &mut Check,
    path: &str,
    field: &Field,
    label: &Given<String>,
    placeholder: &Given<String>,
    value: Option<PrefillValue>,
    meta: &Meta,
) -> Option<Prefilled> {
    let before = c.error_count();
    if field.kind == FieldType::Date {
        let value = date(c, value.as_ref(), path, meta)?;
        let mut m = field
            .meta
            .clone()
            .unwrap_or_else(|| FieldMeta::empty(field.kind));
        m.basic_mut().read_only = Some(true);
        return Some(Prefilled {
            meta: Some(m),
            value: Some(value),
        });
    }
    let mut m = field
        .meta
        .clone()
        .unwrap_or_else(|| FieldMeta::empty(field.kind));
    if let Some(v) = c.text(label, &join(path, "label"), 200) {
        m.basic_mut().label = Some(v);
    }
    if let Some(v) = c.text(placeholder, &join(path, "placeholder"), 200) {
        m.basic_mut().placeholder = Some(v);
    }
    let Some(value) = value else {
        c.fail(join(path, "value"), "required: the value to set");
        return None;
    };
    let empty = match &value {
        PrefillValue::Text(s) => s.trim().is_empty(),
        PrefillValue::List(a) => a.is_empty(),
        _ => false,
    };
    // An empty value sets the default to nothing and fills nothing.
    let stored = if empty {
        None
    } else {
        // The owner sets it: a read-only field may be prefilled.
        let mut current = m.clone();
        current.basic_mut().read_only = None;
        match values::check(field.kind, Some(&current), &Filled::value(entry(&value))) {
            Ok(Stored::Text(t)) => Some(t),
            Ok(Stored::Drawn(_)) => None,
            Err(e) => {
                c.fail(join(path, "value"), e.to_string());
                None
            }
        }
    };
    if c.error_count() != before {
        return None;
    }
    set_default(&mut m, &value);
    if stored.is_some() {
        m.basic_mut().read_only = Some(true);
    }
    Some(Prefilled {
        meta: Some(m),
        value: stored,
    })
}

/// `value` as a field's value: text, a number as written, or the checked values.
fn entry(value: &PrefillValue) -> Entry {
    match value {
        PrefillValue::Text(s) => Entry::Text(s.clone()),
        PrefillValue::Number(n) => Entry::Text(n.to_string()),
        PrefillValue::List(a) => Entry::Choices(a.clone()),
        PrefillValue::Other => Entry::Missing,
    }
}

/// The field's `fieldMeta` default for `value`, as the other signing service sets it.
/// A value that reached here is a string or, for a checkbox, a list of strings (any other value
/// failed its check); an empty list stands for no text.
fn set_default(m: &mut FieldMeta, value: &PrefillValue) {
    let picked: Vec<&str> = match value {
        PrefillValue::List(a) => a.iter().flatten().map(String::as_str).collect(),
        PrefillValue::Text(s) => vec![s.as_str()],
        _ => Vec::new(),
    };
    let text = || match value {
        PrefillValue::Number(n) => n.to_string(),
        PrefillValue::Text(s) => s.clone(),
        _ => String::new(),
    };
    let tick = |choices: &mut Option<Vec<_>>| {
        for o in choices.iter_mut().flatten() {
            let o: &mut crate::signing::documents::field_meta::Choice = o;
            o.checked = picked.contains(&o.value.as_str());
        }
    };
    match m {
        FieldMeta::Text(t) => t.text = Some(text()),
        FieldMeta::Number(n) => {
            n.value = Some(match value {
                PrefillValue::Number(v) => NumberValue::Number(v.clone()),
                _ => NumberValue::Text(text()),
            })
        }
        FieldMeta::Select(s) | FieldMeta::Dropdown(s) => s.default_value = Some(text()),
        FieldMeta::Radio(r) => tick(&mut r.values),
        FieldMeta::Checkbox(b) => tick(&mut b.choices.values),
        _ => {}
    }
}

/// A DATE item's value: an RFC 3339 time, or a calendar date (its midnight where the document
/// is), formatted as the document's dates are.
fn date(c: &mut Check, value: Option<&PrefillValue>, path: &str, meta: &Meta) -> Option<String> {
    let Some(PrefillValue::Text(text)) = value else {
        c.fail(
            join(path, "value"),
            "required: a date (2026-03-01) or a time (2026-03-01T09:30:00Z)",
        );
        return None;
    };
    let zone = jiff::tz::TimeZone::get(&meta.timezone).unwrap_or(jiff::tz::TimeZone::UTC);
    let ts = match text.trim().parse::<jiff::Timestamp>() {
        Ok(t) => Some(t),
        Err(_) => text
            .trim()
            .parse::<jiff::civil::Date>()
            .ok()
            .and_then(|d| d.to_zoned(zone).ok())
            .map(|z| z.timestamp()),
    };
    match ts {
        Some(t) => Some(format_date(
            t.as_second(),
            &meta.timezone,
            &meta.date_format,
        )),
        None => {
            c.fail(
                join(path, "value"),
                format!("{text:?} is not a date (2026-03-01) or a time (2026-03-01T09:30:00Z)"),
            );
            None
        }
    }
}
