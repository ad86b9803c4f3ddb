//! `prefillFields` of `generate-document` as sent: one item per template field to fill, by
//! its id, walked here (ids, types, paths); what a value does to the copied field is the
//! domain's (`templates::prefill`).

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::core::ids::FieldId;
use crate::core::lenient::{Given, Object};
use crate::signing::documents::meta::Meta;
use crate::signing::documents::model::Field;
use crate::signing::documents::{check::Check, check::join};
use crate::signing::templates::prefill::{self, MAX_ITEMS, PrefillValue, Prefilled, prefill_kind};

/// `prefillFields` as sent.
pub type Items = Given<Vec<Given<Object<PrefillInput>>>>;

/// One value for a copied field, by the template field's id.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[schema(example = json!({"id": 31, "type": "text", "value": "Flat 2"}))]
pub struct PrefillInput {
    #[serde(default)]
    /// The template field's id.
    #[schema(value_type = i64, required = true)]
    pub id: Given<FieldId>,
    #[serde(default, rename = "type")]
    /// The field's kind: `select` stands for `dropdown` too.
    #[schema(value_type = String, required = true, pattern = "^(text|number|radio|checkbox|dropdown|select|date)$")]
    pub kind: Given<String>,
    #[serde(default)]
    #[schema(value_type = Option<String>, max_length = 200)]
    pub label: Given<String>,
    #[serde(default)]
    #[schema(value_type = Option<String>, max_length = 200)]
    pub placeholder: Given<String>,
    #[serde(default)]
    /// The value: checkbox takes the checked values; date 2026-03-01 or an RFC 3339 time.
    #[schema(schema_with = value_schema)]
    pub value: Given<Value>,
}

/// Text, or a list of texts (the checked values of a checkbox).
fn value_schema() -> utoipa::openapi::schema::Schema {
    use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, OneOfBuilder, Type};
    let text = || ObjectBuilder::new().schema_type(Type::String);
    OneOfBuilder::new()
        .item(text())
        .item(ArrayBuilder::new().items(text()))
        .into()
}

/// Validates `prefillFields` (absent or null: none) against the template's `fields`, for a
/// document whose dates read as `meta` says. Failures go to `c`, under `prefillFields[i]`.
pub fn parse(
    c: &mut Check,
    raw: &Items,
    fields: &[Field],
    meta: &Meta,
) -> HashMap<FieldId, Prefilled> {
    let mut out = HashMap::new();
    let list = match raw {
        Given::Absent | Given::Null => return out,
        Given::Valid(list) if list.len() <= MAX_ITEMS => list,
        Given::Valid(_) => {
            c.fail("prefillFields", format!("at most {MAX_ITEMS} items"));
            return out;
        }
        Given::Invalid(_) => {
            c.fail("prefillFields", "must be an array of {id, type, value}");
            return out;
        }
    };
    for (i, item) in list.iter().enumerate() {
        let path = format!("prefillFields[{i}]");
        let Some(field) = target(c, item, &path, fields) else {
            continue;
        };
        if out.contains_key(&field.id) {
            c.fail(join(&path, "id"), "names the same field twice");
            continue;
        }
        let Given::Valid(Object(item)) = item else {
            continue;
        };
        let value = item.value.valid().map(sent);
        let (label, placeholder) = (&item.label, &item.placeholder);
        if let Some(p) = prefill::one(c, &path, field, label, placeholder, value, meta) {
            out.insert(field.id, p);
        }
    }
    out
}

/// The template field `item` names, of the type it says.
fn target<'a>(
    c: &mut Check,
    item: &Given<Object<PrefillInput>>,
    path: &str,
    fields: &'a [Field],
) -> Option<&'a Field> {
    let Given::Valid(Object(item)) = item else {
        c.fail(path, "must be an object {id, type, value}");
        return None;
    };
    let Some(id) = item.id.valid().copied() else {
        c.fail(
            join(path, "id"),
            "required: the id of one of the template's fields",
        );
        return None;
    };
    let Some(field) = fields.iter().find(|f| f.id == id) else {
        c.fail(
            join(path, "id"),
            format!("no field {id} on this template; GET the template for its Field ids"),
        );
        return None;
    };
    let Some(want) = prefill_kind(field.kind) else {
        c.fail(
            join(path, "id"),
            format!(
                "field {id} is a {} field; only text, number, radio, checkbox, dropdown and date fields can be prefilled",
                field.kind.as_str()
            ),
        );
        return None;
    };
    match item.kind.valid() {
        Some(t) if t == want || (want == "dropdown" && t == "select") => Some(field),
        Some(t) => {
            c.fail(
                join(path, "type"),
                format!(
                    "is {t:?} but field {id} is {}; use \"{want}\"",
                    field.kind.as_str()
                ),
            );
            None
        }
        None => {
            c.fail(join(path, "type"), format!("required: \"{want}\""));
            None
        }
    }
}

/// A value as sent, in the domain's terms.
fn sent(value: &Value) -> PrefillValue {
    match value {
        Value::String(s) => PrefillValue::Text(s.clone()),
        Value::Number(n) => PrefillValue::Number(n.clone()),
        Value::Array(a) => {
            PrefillValue::List(a.iter().map(|i| i.as_str().map(str::to_string)).collect())
        }
        _ => PrefillValue::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signing::documents::field_meta::FieldMeta;
    use crate::signing::documents::fields::FieldType;
    use serde_json::json;

    fn field(id: i64, kind: FieldType, meta: Value) -> Field {
        Field {
            id: FieldId::new(id),
            recipient_id: crate::core::ids::RecipientId::new(1),
            kind,
            page: 1,
            x: 0.0,
            y: 0.0,
            width: 10.0,
            height: 5.0,
            meta: Some(FieldMeta::read(kind, &meta.to_string()).unwrap()),
            inserted: false,
            custom_text: None,
            drawn: false,
        }
    }

    fn fields() -> Vec<Field> {
        vec![
            field(1, FieldType::Text, json!({"type": "text", "label": "Name"})),
            field(
                2,
                FieldType::Checkbox,
                json!({"type": "checkbox", "values": [
                    {"id": 1, "checked": false, "value": "a"},
                    {"id": 2, "checked": true, "value": "b"}]}),
            ),
            field(
                3,
                FieldType::Dropdown,
                json!({"type": "dropdown", "values": [{"value": "x"}, {"value": "y"}]}),
            ),
            field(4, FieldType::Date, json!({"type": "date"})),
            field(5, FieldType::Signature, json!({"type": "signature"})),
            field(
                6,
                FieldType::Number,
                json!({"type": "number", "maxValue": 10}),
            ),
        ]
    }

    fn run(raw: Value) -> Result<HashMap<FieldId, Prefilled>, Vec<String>> {
        let mut c = Check::new();
        let meta = Meta {
            date_format: "yyyy-MM-dd".into(),
            timezone: "Europe/Paris".into(),
            ..Meta::default()
        };
        let raw: Items = serde_json::from_value(raw).unwrap();
        let out = parse(&mut c, &raw, &fields(), &meta);
        c.finish(out)
            .map_err(|e| e.details().iter().map(|d| d.path.clone()).collect())
    }

    #[test]
    fn values_become_defaults_and_fill_the_field() {
        let out = run(json!([
            {"id": 1, "type": "text", "value": "Ada", "placeholder": "you"},
            {"id": 2, "type": "checkbox", "value": ["a"]},
            {"id": 3, "type": "dropdown", "value": "y"},
            {"id": 4, "type": "date", "value": "2026-03-01"},
            {"id": 6, "type": "number", "value": "7"},
        ]))
        .unwrap();
        let text = &out[&FieldId::new(1)];
        assert_eq!(text.value.as_deref(), Some("Ada"));
        assert_eq!(
            serde_json::to_value(&text.meta).unwrap(),
            json!({"type": "text", "label": "Name", "placeholder": "you", "text": "Ada", "readOnly": true})
        );
        let meta = |id| serde_json::to_value(&out[&FieldId::new(id)].meta).unwrap();
        let boxes = &meta(2);
        assert_eq!(boxes["values"][0]["checked"], true);
        assert_eq!(boxes["values"][1]["checked"], false);
        assert_eq!(out[&FieldId::new(2)].value.as_deref(), Some("[\"a\"]"));
        assert_eq!(meta(3)["defaultValue"], "y");
        assert_eq!(out[&FieldId::new(4)].value.as_deref(), Some("2026-03-01"));
        assert_eq!(meta(6)["value"], "7");
    }

    #[test]
    fn unknown_ids_wrong_types_and_bad_values_are_named() {
        let err = run(json!([
            {"id": 99, "type": "text", "value": "x"},
            {"id": 1, "type": "number", "value": "1"},
            {"id": 5, "type": "text", "value": "x"},
            {"id": 3, "type": "dropdown", "value": "z"},
            {"id": 6, "type": "number", "value": "11"},
            {"id": 4, "type": "date", "value": "soon"},
            {"id": 2, "type": "checkbox", "value": ["a"]},
            {"id": 2, "type": "checkbox", "value": ["b"]},
        ]))
        .unwrap_err();
        assert_eq!(
            err,
            [
                "prefillFields[0].id",
                "prefillFields[1].type",
                "prefillFields[2].id",
                "prefillFields[3].value",
                "prefillFields[4].value",
                "prefillFields[5].value",
                "prefillFields[7].id"
            ]
        );
        assert!(run(json!({})).is_err());
    }

    #[test]
    fn an_empty_value_fills_nothing() {
        let out = run(json!([{"id": 1, "type": "text", "value": ""}])).unwrap();
        assert_eq!(out[&FieldId::new(1)].value, None);
        let meta = serde_json::to_value(&out[&FieldId::new(1)].meta).unwrap();
        assert_eq!(meta["text"], "");
        assert!(meta.get("readOnly").is_none());
    }
}
