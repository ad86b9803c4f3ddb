//! Fields placed on pages: types, geometry in percent of the page, and the full
//! validation of `fieldMeta` per type.

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::check::{Check, join};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum FieldType {
    Signature,
    FreeSignature,
    Initials,
    Name,
    Email,
    Date,
    Text,
    Number,
    Radio,
    Checkbox,
    Select,
    /// The other signing service's name for SELECT: a field created as DROPDOWN keeps that
    /// name (and `fieldMeta.type: "dropdown"`) in every answer; it behaves as SELECT.
    Dropdown,
}

impl FieldType {
    pub const ALL: [FieldType; 12] = [
        FieldType::Signature,
        FieldType::FreeSignature,
        FieldType::Initials,
        FieldType::Name,
        FieldType::Email,
        FieldType::Date,
        FieldType::Text,
        FieldType::Number,
        FieldType::Radio,
        FieldType::Checkbox,
        FieldType::Select,
        FieldType::Dropdown,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            FieldType::Signature => "SIGNATURE",
            FieldType::FreeSignature => "FREE_SIGNATURE",
            FieldType::Initials => "INITIALS",
            FieldType::Name => "NAME",
            FieldType::Email => "EMAIL",
            FieldType::Date => "DATE",
            FieldType::Text => "TEXT",
            FieldType::Number => "NUMBER",
            FieldType::Radio => "RADIO",
            FieldType::Checkbox => "CHECKBOX",
            FieldType::Select => "SELECT",
            FieldType::Dropdown => "DROPDOWN",
        }
    }

    pub fn parse(s: &str) -> Option<FieldType> {
        Self::ALL.into_iter().find(|t| t.as_str() == s)
    }

    /// The lowercase kind that `fieldMeta.type` must carry.
    pub fn meta_kind(self) -> String {
        self.as_str().to_ascii_lowercase()
    }

    /// Types whose `fieldMeta.type` is required.
    pub fn is_advanced(self) -> bool {
        matches!(
            self,
            FieldType::Text
                | FieldType::Number
                | FieldType::Radio
                | FieldType::Checkbox
                | FieldType::Select
                | FieldType::Dropdown
        )
    }

    /// A list to pick one of (SELECT, or its other name DROPDOWN).
    pub fn is_select(self) -> bool {
        matches!(self, FieldType::Select | FieldType::Dropdown)
    }
}

/// A field that passed validation, ready to store.
#[derive(Debug, Clone, PartialEq)]
pub struct NewField {
    pub recipient_id: i64,
    pub kind: FieldType,
    pub page_number: i64,
    pub page_x: f64,
    pub page_y: f64,
    pub page_width: f64,
    pub page_height: f64,
    pub field_meta: Option<Value>,
}

/// Where a stored field sits: what the checks against the file (at upload, at send) read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placement {
    pub id: i64,
    pub page: i64,
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

/// Slack for sums of percentages (as in `parse_field`).
const EDGE: f64 = 1e-9;

fn pages_word(n: i64) -> String {
    if n == 1 {
        "1 page".into()
    } else {
        format!("{n} pages")
    }
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The fields past a file's last page, by page: "fields 3 and 5 are on page 4; field 7 is on
/// page 6". `None` when every field is on one of the `pages`.
pub fn past_last_page(fields: &[Placement], pages: i64) -> Option<String> {
    let mut by_page: std::collections::BTreeMap<i64, Vec<i64>> = Default::default();
    for f in fields.iter().filter(|f| f.page > pages) {
        by_page.entry(f.page).or_default().push(f.id);
    }
    if by_page.is_empty() {
        return None;
    }
    let groups: Vec<String> = by_page
        .into_iter()
        .map(|(page, mut ids)| {
            ids.sort_unstable();
            let names: Vec<String> = ids.iter().map(i64::to_string).collect();
            match names.len() {
                1 => format!("field {} is on page {page}", names[0]),
                _ => format!("fields {} are on page {page}", and_list(&names)),
            }
        })
        .collect();
    Some(groups.join("; "))
}

/// Refuses a new file of `pages` pages while fields lie past its last page (409 naming them):
/// replacing the file must not leave fields that no page can show, sign or seal.
pub fn require_on_pages(
    fields: &[Placement],
    pages: i64,
) -> Result<(), crate::core::error::AppError> {
    match past_last_page(fields, pages) {
        None => Ok(()),
        Some(which) => Err(crate::core::error::AppError::Conflict(format!(
            "{which}; the new file has {}: move those fields to an existing page or delete them, then upload again",
            pages_word(pages)
        ))),
    }
}

/// Why field `f` cannot be placed on a file of `pages` pages, or `None` when it can: its page
/// exists and its box lies within it.
pub fn misplaced(f: &Placement, pages: i64) -> Option<String> {
    let id = f.id;
    if f.page < 1 || f.page > pages {
        return Some(format!(
            "field {id} is on page {}, but the file has {}",
            f.page,
            pages_word(pages)
        ));
    }
    if f.x < 0.0 || f.y < 0.0 || f.x > 100.0 || f.y > 100.0 {
        return Some(format!("field {id} starts outside its page"));
    }
    if f.width <= 0.0 || f.height <= 0.0 {
        return Some(format!("field {id} has no width or height"));
    }
    if f.x + f.width > 100.0 + EDGE {
        return Some(format!(
            "field {id} reaches past the right edge of its page"
        ));
    }
    if f.y + f.height > 100.0 + EDGE {
        return Some(format!(
            "field {id} reaches past the bottom edge of its page"
        ));
    }
    None
}

/// Refuses to send while any field is off the file's pages or outside its page (400 naming
/// each): such a field can neither be shown to its signer nor sealed.
pub fn require_placed(
    fields: &[Placement],
    pages: i64,
) -> Result<(), crate::core::error::AppError> {
    let problems: Vec<String> = fields.iter().filter_map(|f| misplaced(f, pages)).collect();
    if problems.is_empty() {
        return Ok(());
    }
    Err(crate::core::error::AppError::wrong_state(format!(
        "every field must lie on one of the file's pages before sending: {}; move or delete them",
        problems.join("; ")
    )))
}

pub const CHECKBOX_RULES: &[&str] = &["Select at least", "Select exactly", "Select at most"];

crate::sql_text_enum!(FieldType);

/// Validates one field object at `path`. `pages`: the PDF's page count when known.
/// `recipient_ok`: whether a recipient id belongs to the document or template.
pub fn parse_field(
    c: &mut Check,
    raw: &Value,
    path: &str,
    pages: Option<i64>,
    recipient_ok: &dyn Fn(i64) -> bool,
) -> Option<NewField> {
    if !raw.is_object() {
        c.fail(path, "must be an object");
        return None;
    }
    let before = c.error_count();
    let recipient_id = field_recipient(c, raw, path, recipient_ok);
    let kind = field_type(c, raw, path);
    let page_number = field_page(c, raw, path, pages);
    let [x, y, w, h] = field_geometry(c, raw, path, before);
    let field_meta =
        kind.and_then(|k| parse_field_meta(c, raw.get("fieldMeta"), &join(path, "fieldMeta"), k));
    if c.error_count() != before {
        return None;
    }
    Some(NewField {
        recipient_id: recipient_id?,
        kind: kind?,
        page_number: page_number?,
        page_x: x,
        page_y: y,
        page_width: w,
        page_height: h,
        field_meta,
    })
}

/// `recipientId`: one of the parent's recipients.
fn field_recipient(
    c: &mut Check,
    raw: &Value,
    path: &str,
    recipient_ok: &dyn Fn(i64) -> bool,
) -> Option<i64> {
    match raw.get("recipientId").and_then(Value::as_i64) {
        Some(id) if recipient_ok(id) => Some(id),
        Some(id) => {
            c.fail(
                join(path, "recipientId"),
                format!("no recipient {id} on this document; add it first"),
            );
            None
        }
        None => {
            c.fail(
                join(path, "recipientId"),
                "required: the id of one of the document's recipients",
            );
            None
        }
    }
}

/// `type`: one of `FieldType::ALL`.
fn field_type(c: &mut Check, raw: &Value, path: &str) -> Option<FieldType> {
    let Some(t) = raw.get("type").and_then(Value::as_str) else {
        c.fail(join(path, "type"), "required");
        return None;
    };
    let kind = FieldType::parse(t);
    if kind.is_none() {
        c.fail(
            join(path, "type"),
            format!(
                "unknown type {t:?}; use one of {}",
                FieldType::ALL.map(FieldType::as_str).join(", ")
            ),
        );
    }
    kind
}

/// `pageNumber`: from 1 to the PDF's last page (when known).
fn field_page(c: &mut Check, raw: &Value, path: &str, pages: Option<i64>) -> Option<i64> {
    let max_page = pages.unwrap_or(100_000);
    let page_number = c.opt_int(raw, "pageNumber", path, 1..=max_page);
    if raw.get("pageNumber").is_none_or(Value::is_null) {
        c.fail(join(path, "pageNumber"), "required, from 1");
    } else if page_number.is_none() && pages.is_some() {
        // The failure was recorded; make its message name the last page.
        if let Some(last) = c.last_mut() {
            last.message = format!("must be from 1 to {max_page}, the PDF's last page");
        }
    }
    page_number
}

/// `pageX`, `pageY`, `pageWidth`, `pageHeight`: percentages of the page, the box inside it
/// (checked as a box only when the field had no other problem since `before` errors).
fn field_geometry(c: &mut Check, raw: &Value, path: &str, before: usize) -> [f64; 4] {
    let mut geometry = [0.0f64; 4];
    for (i, key) in ["pageX", "pageY", "pageWidth", "pageHeight"]
        .iter()
        .enumerate()
    {
        match c.opt_f64(raw, key, path) {
            Some(v) if (0.0..=100.0).contains(&v) => geometry[i] = v,
            Some(_) => c.fail(join(path, key), "a percentage of the page, from 0 to 100"),
            None if raw.get(*key).is_none_or(Value::is_null) => c.fail(join(path, key), "required"),
            None => {}
        }
    }
    let [x, y, w, h] = geometry;
    if c.error_count() == before {
        if w <= 0.0 || h <= 0.0 {
            c.fail(
                join(path, "pageWidth"),
                "width and height must be greater than 0",
            );
        }
        if x + w > 100.0 + 1e-9 {
            c.fail(
                join(path, "pageWidth"),
                "pageX + pageWidth must not pass 100",
            );
        }
        if y + h > 100.0 + 1e-9 {
            c.fail(
                join(path, "pageHeight"),
                "pageY + pageHeight must not pass 100",
            );
        }
    }
    geometry
}

/// Validates `fieldMeta` for a field of `kind`; returns the normalised object (or None when
/// absent and not required).
pub fn parse_field_meta(
    c: &mut Check,
    raw: Option<&Value>,
    path: &str,
    kind: FieldType,
) -> Option<Value> {
    let want = kind.meta_kind();
    let raw = match raw.filter(|v| !v.is_null()) {
        Some(v) => v,
        None if kind.is_advanced() => {
            c.fail(
                format!("{path}.type"),
                format!("required for {} fields: \"{want}\"", kind.as_str()),
            );
            return None;
        }
        None => return None,
    };
    let Some(obj) = raw.as_object() else {
        c.fail(path, "must be an object");
        return None;
    };
    match obj.get("type") {
        // SELECT and DROPDOWN take either kind; the stored kind follows the field's type.
        Some(Value::String(t))
            if *t == want || (kind.is_select() && (t == "select" || t == "dropdown")) => {}
        Some(Value::String(t)) => c.fail(
            format!("{path}.type"),
            format!(
                "is {t:?} but the field is {}; use \"{want}\"",
                kind.as_str()
            ),
        ),
        None | Some(Value::Null) if kind.is_advanced() => c.fail(
            format!("{path}.type"),
            format!("required for {} fields: \"{want}\"", kind.as_str()),
        ),
        None | Some(Value::Null) => {}
        Some(_) => c.fail(format!("{path}.type"), "must be a string"),
    }
    let mut out = Map::new();
    out.insert("type".into(), json!(want));
    if let Some(v) = c.opt_str(raw, "label", path, 200) {
        out.insert("label".into(), json!(v));
    }
    if let Some(v) = c.opt_str(raw, "placeholder", path, 200) {
        out.insert("placeholder".into(), json!(v));
    }
    for key in ["required", "readOnly"] {
        if let Some(v) = c.opt_bool(raw, key, path) {
            out.insert(key.into(), json!(v));
        }
    }
    if let Some(size) = c.opt_f64(raw, "fontSize", path) {
        if (8.0..=96.0).contains(&size) {
            out.insert("fontSize".into(), json!(size));
        } else {
            c.fail(format!("{path}.fontSize"), "from 8 to 96");
        }
    }
    layout_meta(c, raw, path, kind, &mut out);
    match kind {
        FieldType::Text => text_meta(c, raw, path, &mut out),
        FieldType::Number => number_meta(c, raw, path, &mut out),
        FieldType::Radio | FieldType::Checkbox => choice_meta(c, raw, path, kind, &mut out),
        FieldType::Select | FieldType::Dropdown => select_meta(c, raw, path, &mut out),
        _ => {}
    }
    Some(Value::Object(out))
}

/// `textAlign` values, as the other signing service names them.
pub const TEXT_ALIGN: &[&str] = &["left", "center", "right"];
const OVERFLOW: &[&str] = &["auto", "horizontal", "vertical", "crop"];
const VERTICAL_ALIGN: &[&str] = &["top", "middle", "bottom"];
const DIRECTION: &[&str] = &["vertical", "horizontal"];

/// The optional string `key`, one of `allowed`, copied into `out`.
fn opt_enum(
    c: &mut Check,
    raw: &Value,
    path: &str,
    key: &str,
    allowed: &[&str],
    out: &mut Map<String, Value>,
) {
    if let Some(v) = c.opt_str(raw, key, path, 32) {
        if allowed.contains(&v.as_str()) {
            out.insert(key.into(), json!(v));
        } else {
            c.fail(
                join(path, key),
                format!("use one of: {}", allowed.join(", ")),
            );
        }
    }
}

/// The optional number `key` within `range`, copied into `out`.
fn opt_ranged(
    c: &mut Check,
    raw: &Value,
    path: &str,
    key: &str,
    range: std::ops::RangeInclusive<f64>,
    out: &mut Map<String, Value>,
) {
    if let Some(v) = c.opt_f64(raw, key, path) {
        if range.contains(&v) {
            out.insert(key.into(), json!(v));
        } else {
            c.fail(
                join(path, key),
                format!("from {} to {}", range.start(), range.end()),
            );
        }
    }
}

/// How the value is laid out, for the kinds that have each key (the other signing service's
/// field-meta schema): `overflow` for all; `textAlign` for text-like kinds; `lineHeight`,
/// `letterSpacing` and `verticalAlign` for TEXT and NUMBER; `direction` for RADIO and CHECKBOX.
/// A key the kind does not have is dropped, as that schema drops it.
fn layout_meta(
    c: &mut Check,
    raw: &Value,
    path: &str,
    kind: FieldType,
    out: &mut Map<String, Value>,
) {
    use FieldType::*;
    opt_enum(c, raw, path, "overflow", OVERFLOW, out);
    if matches!(kind, Initials | Name | Email | Date | Text | Number) {
        opt_enum(c, raw, path, "textAlign", TEXT_ALIGN, out);
    }
    if matches!(kind, Text | Number) {
        opt_ranged(c, raw, path, "lineHeight", 1.0..=10.0, out);
        opt_ranged(c, raw, path, "letterSpacing", 0.0..=100.0, out);
        opt_enum(c, raw, path, "verticalAlign", VERTICAL_ALIGN, out);
    }
    if matches!(kind, Radio | Checkbox) {
        opt_enum(c, raw, path, "direction", DIRECTION, out);
    }
}

/// `characterLimit`: 0 means no limit, as in the other signing service's schema.
fn text_meta(c: &mut Check, raw: &Value, path: &str, out: &mut Map<String, Value>) {
    let limit = c.opt_int(raw, "characterLimit", path, 0..=10_000);
    let text = c.opt_str(raw, "text", path, 10_000);
    if let (Some(limit @ 1..), Some(text)) = (limit, &text)
        && text.chars().count() as i64 > limit
    {
        c.fail(
            format!("{path}.text"),
            format!("longer than characterLimit ({limit})"),
        );
    }
    if let Some(l) = limit {
        out.insert("characterLimit".into(), json!(l));
    }
    if let Some(t) = text {
        out.insert("text".into(), json!(t));
    }
}

/// `value` keeps the JSON type it was sent in (the other signing service takes a string).
fn number_meta(c: &mut Check, raw: &Value, path: &str, out: &mut Map<String, Value>) {
    let min = c.opt_f64(raw, "minValue", path);
    let max = c.opt_f64(raw, "maxValue", path);
    let value = c.opt_f64(raw, "value", path);
    if let (Some(a), Some(b)) = (min, max)
        && a > b
    {
        c.fail(
            format!("{path}.minValue"),
            "must not be greater than maxValue",
        );
    }
    if let Some(v) = value {
        if min.is_some_and(|m| v < m) || max.is_some_and(|m| v > m) {
            c.fail(
                format!("{path}.value"),
                "must lie between minValue and maxValue",
            );
        }
        let sent = match raw.get("value") {
            Some(Value::String(s)) if s.chars().count() <= 64 => json!(s.trim()),
            _ => json!(v),
        };
        out.insert("value".into(), sent);
    }
    if let Some(m) = min {
        out.insert("minValue".into(), json!(m));
    }
    if let Some(m) = max {
        out.insert("maxValue".into(), json!(m));
    }
    if let Some(f) = c.opt_str(raw, "numberFormat", path, 32) {
        out.insert("numberFormat".into(), json!(f));
    }
}

/// `values`: optional, as in the other signing service (a field without any cannot be sent to
/// a signer: `require_choices`); at most 100.
fn values_array<'a>(c: &mut Check, raw: &'a Value, path: &str) -> Option<&'a Vec<Value>> {
    match raw.get("values") {
        None | Some(Value::Null) => None,
        Some(Value::Array(a)) if a.len() <= 100 => Some(a),
        Some(Value::Array(_)) => {
            c.fail(format!("{path}.values"), "at most 100 values");
            None
        }
        Some(_) => {
            c.fail(format!("{path}.values"), "must be an array");
            None
        }
    }
}

fn choice_meta(
    c: &mut Check,
    raw: &Value,
    path: &str,
    kind: FieldType,
    out: &mut Map<String, Value>,
) {
    let values = values_array(c, raw, path);
    let count = values.map_or(0, Vec::len);
    if let Some(values) = values {
        let mut clean = Vec::new();
        let mut checked = 0;
        for (i, v) in values.iter().enumerate() {
            let p = format!("{path}.values[{i}]");
            if !v.is_object() {
                c.fail(&p, "must be an object {\"id\", \"checked\", \"value\"}");
                continue;
            }
            let id = c
                .opt_int(v, "id", &p, 0..=i64::from(u32::MAX))
                .unwrap_or(i as i64);
            let is_checked = c.opt_bool(v, "checked", &p).unwrap_or(false);
            let value = c.opt_str(v, "value", &p, 500).unwrap_or_default();
            checked += usize::from(is_checked);
            clean.push(json!({"id": id, "checked": is_checked, "value": value}));
        }
        if kind == FieldType::Radio && checked > 1 {
            c.fail(
                format!("{path}.values"),
                "a radio field can have at most one value checked",
            );
        }
        out.insert("values".into(), Value::Array(clean));
    }
    if kind == FieldType::Checkbox {
        checkbox_rule(c, raw, path, count, out);
    }
}

/// `validationRule` (one of `CHECKBOX_RULES`; `""` is no rule, as the other signing service's
/// defaults send it) and `validationLength` (from 1 to the number of values with a rule).
fn checkbox_rule(
    c: &mut Check,
    raw: &Value,
    path: &str,
    count: usize,
    out: &mut Map<String, Value>,
) {
    let rule = c
        .opt_str(raw, "validationRule", path, 32)
        .filter(|r| !r.is_empty());
    if rule.is_none() {
        // No rule: a length means nothing, but is kept as sent.
        if let Some(n) = c.opt_int(raw, "validationLength", path, 0..=100) {
            out.insert("validationLength".into(), json!(n));
        }
        if raw.get("validationRule") == Some(&json!("")) {
            out.insert("validationRule".into(), json!(""));
        }
        return;
    }
    let length = c.opt_int(raw, "validationLength", path, 1..=count.max(1) as i64);
    match (&rule, length) {
        (Some(r), _) if !CHECKBOX_RULES.contains(&r.as_str()) => c.fail(
            format!("{path}.validationRule"),
            format!("use one of: {}", CHECKBOX_RULES.join(", ")),
        ),
        (Some(_), None) if raw.get("validationLength").is_none_or(Value::is_null) => c.fail(
            format!("{path}.validationLength"),
            "required with validationRule",
        ),
        (Some(r), Some(n)) => {
            out.insert("validationRule".into(), json!(r));
            out.insert("validationLength".into(), json!(n));
        }
        _ => {}
    }
}

fn select_meta(c: &mut Check, raw: &Value, path: &str, out: &mut Map<String, Value>) {
    let values = values_array(c, raw, path);
    let mut clean = Vec::new();
    for (i, v) in values.into_iter().flatten().enumerate() {
        let p = format!("{path}.values[{i}]");
        match v.get("value") {
            Some(Value::String(s)) if !s.is_empty() && s.chars().count() <= 500 => {
                clean.push(s.clone())
            }
            _ => c.fail(
                format!("{p}.value"),
                "a non-empty string of at most 500 characters",
            ),
        }
    }
    if let Some(d) = c.opt_str(raw, "defaultValue", path, 500) {
        if !d.is_empty() && !clean.contains(&d) {
            c.fail(format!("{path}.defaultValue"), "must be one of the values");
        }
        out.insert("defaultValue".into(), json!(d));
    }
    if values.is_some() {
        out.insert(
            "values".into(),
            Value::Array(clean.into_iter().map(|v| json!({"value": v})).collect()),
        );
    }
}

/// Whether a choice field (RADIO, CHECKBOX, SELECT/DROPDOWN) has no values to choose from.
pub fn lacks_choices(kind: FieldType, meta: Option<&Value>) -> bool {
    matches!(
        kind,
        FieldType::Radio | FieldType::Checkbox | FieldType::Select | FieldType::Dropdown
    ) && meta
        .and_then(|m| m.get("values"))
        .and_then(Value::as_array)
        .is_none_or(Vec::is_empty)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(extra: Value) -> Value {
        let mut base = json!({"recipientId": 1, "type": "SIGNATURE", "pageNumber": 1, "pageX": 10, "pageY": 10, "pageWidth": 20, "pageHeight": 5});
        for (k, v) in extra.as_object().unwrap() {
            base[k] = v.clone();
        }
        base
    }

    fn errors(raw: Value, pages: Option<i64>) -> Vec<String> {
        let mut c = Check::new();
        parse_field(&mut c, &raw, "fields[0]", pages, &|id| id == 1);
        match c.finish(()) {
            Ok(()) => vec![],
            Err(e) => e.details().iter().map(|d| d.path.clone()).collect(),
        }
    }

    #[test]
    fn a_signature_field_is_valid() {
        assert!(errors(field(json!({})), Some(3)).is_empty());
        assert!(errors(field(json!({"type": "DROPDOWN", "fieldMeta": {"type": "select", "values": [{"value": "a"}]}})), None).is_empty());
    }

    #[test]
    fn geometry_rules() {
        assert_eq!(
            errors(field(json!({"pageX": 90, "pageWidth": 20})), None),
            ["fields[0].pageWidth"]
        );
        assert_eq!(
            errors(field(json!({"pageY": 99, "pageHeight": 2})), None),
            ["fields[0].pageHeight"]
        );
        assert_eq!(
            errors(field(json!({"pageWidth": 0})), None),
            ["fields[0].pageWidth"]
        );
        assert_eq!(
            errors(field(json!({"pageX": -1})), None),
            ["fields[0].pageX"]
        );
        assert_eq!(
            errors(field(json!({"pageNumber": 4})), Some(3)),
            ["fields[0].pageNumber"]
        );
        assert_eq!(
            errors(field(json!({"pageNumber": 0})), None),
            ["fields[0].pageNumber"]
        );
        assert_eq!(
            errors(field(json!({"recipientId": 2})), None),
            ["fields[0].recipientId"]
        );
        assert_eq!(
            errors(field(json!({"type": "BARCODE"})), None),
            ["fields[0].type"]
        );
    }

    #[test]
    fn advanced_fields_need_a_matching_meta_type() {
        assert_eq!(
            errors(field(json!({"type": "TEXT"})), None),
            ["fields[0].fieldMeta.type"]
        );
        assert_eq!(
            errors(field(json!({"type": "TEXT", "fieldMeta": {}})), None),
            ["fields[0].fieldMeta.type"]
        );
        assert_eq!(
            errors(
                field(json!({"type": "TEXT", "fieldMeta": {"type": "number"}})),
                None
            ),
            ["fields[0].fieldMeta.type"]
        );
        assert!(
            errors(
                field(json!({"type": "TEXT", "fieldMeta": {"type": "text"}})),
                None
            )
            .is_empty()
        );
    }

    #[test]
    fn per_type_meta_rules() {
        let text = json!({"type": "TEXT", "fieldMeta": {"type": "text", "text": "abcdef", "characterLimit": 3}});
        assert_eq!(errors(field(text), None), ["fields[0].fieldMeta.text"]);
        let num = json!({"type": "NUMBER", "fieldMeta": {"type": "number", "minValue": 5, "maxValue": 1}});
        assert_eq!(errors(field(num), None), ["fields[0].fieldMeta.minValue"]);
        let num = json!({"type": "NUMBER", "fieldMeta": {"type": "number", "minValue": 1, "maxValue": 5, "value": 9}});
        assert_eq!(errors(field(num), None), ["fields[0].fieldMeta.value"]);
        // Values are optional (sending refuses a signer's choice field without any).
        let radio = json!({"type": "RADIO", "fieldMeta": {"type": "radio", "values": []}});
        assert!(errors(field(radio), None).is_empty());
        let radio = json!({"type": "RADIO", "fieldMeta": {"type": "radio", "values": {}}});
        assert_eq!(errors(field(radio), None), ["fields[0].fieldMeta.values"]);
        let radio = json!({"type": "RADIO", "fieldMeta": {"type": "radio", "values": [{"id": 1, "checked": true, "value": "a"}, {"id": 2, "checked": true, "value": "b"}]}});
        assert_eq!(errors(field(radio), None), ["fields[0].fieldMeta.values"]);
        let cb = json!({"type": "CHECKBOX", "fieldMeta": {"type": "checkbox", "values": [{"id": 1, "checked": false, "value": "a"}], "validationRule": "Select some"}});
        assert_eq!(
            errors(field(cb), None),
            ["fields[0].fieldMeta.validationRule"]
        );
        let cb = json!({"type": "CHECKBOX", "fieldMeta": {"type": "checkbox", "values": [{"id": 1, "checked": false, "value": "a"}], "validationRule": "Select at least", "validationLength": 2}});
        assert_eq!(
            errors(field(cb), None),
            ["fields[0].fieldMeta.validationLength"]
        );
        let sel = json!({"type": "SELECT", "fieldMeta": {"type": "select", "values": [{"value": "a"}], "defaultValue": "b"}});
        assert_eq!(
            errors(field(sel), None),
            ["fields[0].fieldMeta.defaultValue"]
        );
        let font = json!({"fieldMeta": {"fontSize": 200}});
        assert_eq!(errors(field(font), None), ["fields[0].fieldMeta.fontSize"]);
    }

    fn at(id: i64, page: i64) -> Placement {
        Placement {
            id,
            page,
            x: 10.0,
            y: 10.0,
            width: 20.0,
            height: 5.0,
        }
    }

    #[test]
    fn fields_past_the_last_page_are_named_by_page() {
        let fields = [at(5, 4), at(1, 1), at(3, 4), at(7, 6), at(2, 2)];
        assert_eq!(past_last_page(&fields, 6), None);
        assert_eq!(
            past_last_page(&fields, 2).unwrap(),
            "fields 3 and 5 are on page 4; field 7 is on page 6"
        );
        let e = require_on_pages(&fields, 1).unwrap_err();
        assert_eq!(e.status(), http::StatusCode::CONFLICT);
        assert!(
            e.to_string().starts_with(
                "field 2 is on page 2; fields 3 and 5 are on page 4; field 7 is on page 6; the new file has 1 page:"
            ),
            "{e}"
        );
        let many = [at(9, 3), at(8, 3), at(4, 3)];
        assert_eq!(
            past_last_page(&many, 2).unwrap(),
            "fields 4, 8 and 9 are on page 3"
        );
    }

    #[test]
    fn misplaced_fields_are_named_with_the_reason() {
        assert_eq!(misplaced(&at(1, 1), 1), None);
        let edge = Placement {
            x: 80.0,
            width: 20.0,
            ..at(1, 1)
        };
        assert_eq!(misplaced(&edge, 1), None);
        assert_eq!(
            misplaced(&at(4, 3), 2).unwrap(),
            "field 4 is on page 3, but the file has 2 pages"
        );
        assert!(misplaced(&at(4, 0), 2).is_some());
        let wide = Placement {
            x: 90.0,
            width: 20.0,
            ..at(6, 1)
        };
        assert!(misplaced(&wide, 1).unwrap().contains("right edge"));
        let low = Placement {
            y: 99.0,
            height: 2.0,
            ..at(6, 1)
        };
        assert!(misplaced(&low, 1).unwrap().contains("bottom edge"));
        let flat = Placement {
            height: 0.0,
            ..at(6, 1)
        };
        assert!(misplaced(&flat, 1).unwrap().contains("no width"));
        let e = require_placed(&[at(1, 1), at(4, 3), wide], 2).unwrap_err();
        assert_eq!(e.status(), http::StatusCode::BAD_REQUEST);
        let msg = e.to_string();
        assert!(
            msg.contains("field 4 is on page 3") && msg.contains("field 6 reaches"),
            "{msg}"
        );
        assert!(!msg.contains("field 1 "), "{msg}");
    }

    fn meta_of(raw: Value) -> Result<Value, Vec<String>> {
        let mut c = Check::new();
        let f = parse_field(&mut c, &field(raw), "f", None, &|_| true);
        match c.finish(f) {
            Ok(f) => Ok(f.unwrap().field_meta.unwrap()),
            Err(e) => Err(e.details().iter().map(|d| d.path.clone()).collect()),
        }
    }

    #[test]
    fn layout_keys_are_kept_where_the_kind_has_them_and_checked() {
        let text = json!({"type": "text", "textAlign": "center", "lineHeight": 1.5,
            "letterSpacing": "2", "verticalAlign": "bottom", "overflow": "crop", "characterLimit": 0});
        assert_eq!(
            meta_of(json!({"type": "TEXT", "fieldMeta": text})).unwrap(),
            json!({"type": "text", "textAlign": "center", "lineHeight": 1.5, "letterSpacing": 2.0,
                   "verticalAlign": "bottom", "overflow": "crop", "characterLimit": 0})
        );
        let radio = json!({"type": "radio", "direction": "horizontal", "textAlign": "left"});
        assert_eq!(
            meta_of(json!({"type": "RADIO", "fieldMeta": radio})).unwrap(),
            json!({"type": "radio", "direction": "horizontal"})
        );
        let bad = json!({"type": "text", "textAlign": "justify", "lineHeight": 11,
            "letterSpacing": -1, "verticalAlign": "center", "overflow": "wrap"});
        assert_eq!(
            meta_of(json!({"type": "TEXT", "fieldMeta": bad})).unwrap_err(),
            [
                "f.fieldMeta.overflow",
                "f.fieldMeta.textAlign",
                "f.fieldMeta.lineHeight",
                "f.fieldMeta.letterSpacing",
                "f.fieldMeta.verticalAlign"
            ]
        );
        let dir = json!({"type": "checkbox", "direction": "diagonal"});
        assert_eq!(
            meta_of(json!({"type": "CHECKBOX", "fieldMeta": dir})).unwrap_err(),
            ["f.fieldMeta.direction"]
        );
        // The other service's defaults for a checkbox: no rule.
        let cb = json!({"type": "checkbox", "validationRule": "", "validationLength": 0});
        assert_eq!(
            meta_of(json!({"type": "CHECKBOX", "fieldMeta": cb.clone()})).unwrap(),
            cb
        );
        let num = json!({"type": "number", "value": "42"});
        assert_eq!(
            meta_of(json!({"type": "NUMBER", "fieldMeta": num.clone()})).unwrap(),
            num
        );
    }

    #[test]
    fn dropdown_keeps_its_name_and_choice_fields_may_lack_values() {
        let sel = json!({"type": "DROPDOWN", "fieldMeta": {"type": "select"}});
        assert_eq!(meta_of(sel).unwrap(), json!({"type": "dropdown"}));
        let sel = json!({"type": "SELECT", "fieldMeta": {"type": "dropdown"}});
        assert_eq!(meta_of(sel).unwrap(), json!({"type": "select"}));
        assert_eq!(FieldType::parse("DROPDOWN"), Some(FieldType::Dropdown));
        assert!(lacks_choices(
            FieldType::Dropdown,
            Some(&json!({"type": "dropdown"}))
        ));
        assert!(lacks_choices(
            FieldType::Radio,
            Some(&json!({"values": []}))
        ));
        assert!(!lacks_choices(
            FieldType::Checkbox,
            Some(&json!({"values": [{"value": "a"}]}))
        ));
        assert!(!lacks_choices(FieldType::Text, None));
    }

    #[test]
    fn meta_is_normalised() {
        let mut c = Check::new();
        let f = parse_field(
            &mut c,
            &field(json!({"type": "CHECKBOX", "fieldMeta": {"type": "checkbox", "values": [{"id": 1, "value": "x"}], "unknown": 1}})),
            "f",
            None,
            &|_| true,
        )
        .unwrap();
        assert_eq!(
            f.field_meta.unwrap(),
            json!({"type": "checkbox", "values": [{"id": 1, "checked": false, "value": "x"}]})
        );
    }
}
