//! The checks of fields as sent: every problem named by its path, and the normalised
//! `fieldMeta` each type keeps.

use super::batch::FieldBatch;
use super::field::{FieldInput, RecipientOk};
use crate::core::error::AppError;
use crate::core::ids::RecipientId;
use crate::core::lenient::from_slice;
use crate::signing::documents::check::Check;
use crate::signing::documents::fields::{FieldType, MAX_BATCH, NewField};
use serde_json::{Value, json};

/// `raw` read as a field and checked at `path`.
fn parse(
    c: &mut Check,
    raw: Value,
    path: &str,
    pages: Option<i64>,
    ok: RecipientOk,
) -> Option<NewField> {
    let f: FieldInput = serde_json::from_value(raw).unwrap();
    f.check(c, path, pages, ok)
}

fn batch(body: Value) -> Result<Vec<NewField>, AppError> {
    from_slice::<FieldBatch>(body.to_string().as_bytes())?.check(Some(1), &[RecipientId::new(1)])
}

fn sig(rid: i64) -> Value {
    json!({"recipientId": rid, "type": "SIGNATURE", "pageNumber": 1,
           "pageX": 10, "pageY": 10, "pageWidth": 20, "pageHeight": 5})
}

#[test]
fn a_batch_is_one_field_or_a_bounded_array_checked_as_a_whole() {
    assert_eq!(batch(sig(1)).unwrap().len(), 1);
    assert_eq!(batch(json!([sig(1), sig(1)])).unwrap().len(), 2);
    assert_eq!(batch(json!([])).unwrap_err().status(), 400);
    let many = Value::Array(vec![sig(1); MAX_BATCH + 1]);
    assert_eq!(batch(many).unwrap_err().status(), 400);
    // An unknown recipient in the second item fails the whole batch, naming the item.
    let e = batch(json!([sig(1), sig(2)])).unwrap_err();
    assert_eq!(e.details()[0].path, "[1].recipientId");
    let e = batch(json!([5, null])).unwrap_err();
    let paths: Vec<&str> = e.details().iter().map(|d| d.path.as_str()).collect();
    assert_eq!(paths, ["[0]", "[1]"]);
    assert_eq!(batch(json!("x")).unwrap_err().details()[0].path, "");
}

#[test]
fn every_problem_of_a_field_is_named_at_once() {
    let e = batch(json!({"recipientId": "1", "type": 5, "pageNumber": "x",
        "pageX": "far", "pageY": 101, "fieldMeta": 3}))
    .unwrap_err();
    let paths: Vec<&str> = e.details().iter().map(|d| d.path.as_str()).collect();
    assert_eq!(
        paths,
        [
            "recipientId",
            "type",
            "pageNumber",
            "pageX",
            "pageY",
            "pageWidth",
            "pageHeight"
        ]
    );
    assert_eq!(
        e.details()[2].message,
        "must be from 1 to 1, the PDF's last page"
    );
    assert_eq!(e.details()[3].message, "must be a number");
}

#[test]
fn coordinates_may_come_as_text_and_pages_must_be_whole() {
    let mut f = sig(1);
    f["pageX"] = json!(" 12.5 ");
    assert_eq!(batch(f).unwrap()[0].page_x, 12.5);
    let mut f = sig(1);
    f["pageNumber"] = json!(1.0);
    assert_eq!(batch(f).unwrap_err().details()[0].path, "pageNumber");
}

fn field(extra: Value) -> Value {
    let mut base = json!({"recipientId": 1, "type": "SIGNATURE", "pageNumber": 1, "pageX": 10, "pageY": 10, "pageWidth": 20, "pageHeight": 5});
    for (k, v) in extra.as_object().unwrap() {
        base[k] = v.clone();
    }
    base
}

fn errors(raw: Value, pages: Option<i64>) -> Vec<String> {
    let mut c = Check::new();
    parse(&mut c, raw, "fields[0]", pages, &|id| {
        id == RecipientId::new(1)
    });
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
    let num =
        json!({"type": "NUMBER", "fieldMeta": {"type": "number", "minValue": 5, "maxValue": 1}});
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

fn meta_of(raw: Value) -> Result<Value, Vec<String>> {
    let mut c = Check::new();
    let f = parse(&mut c, field(raw), "f", None, &|_| true);
    match c.finish(f) {
        Ok(f) => Ok(serde_json::to_value(f.unwrap().field_meta.unwrap()).unwrap()),
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

/// Whether a field of `kind` whose stored settings are `meta` lacks choices.
fn lacks_choices(kind: FieldType, meta: Option<&Value>) -> bool {
    let meta = meta.map(|m| {
        crate::signing::documents::field_meta::FieldMeta::read(kind, &m.to_string()).unwrap()
    });
    crate::signing::documents::field_meta::lacks_choices(kind, meta.as_ref())
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
    let f = parse(
        &mut c,
        field(json!({"type": "CHECKBOX", "fieldMeta": {"type": "checkbox", "values": [{"id": 1, "value": "x"}], "unknown": 1}})),
        "f",
        None,
        &|_| true,
    )
    .unwrap();
    assert_eq!(
        serde_json::to_value(f.field_meta.unwrap()).unwrap(),
        json!({"type": "checkbox", "values": [{"id": 1, "checked": false, "value": "x"}]})
    );
}
