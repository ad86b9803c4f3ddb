//! What clients send to place fields on a document or a template, as types: one field or a
//! batch of them (`POST .../fields`), and a field's change (`PATCH .../fields/{id}`). Members
//! are read leniently (`crate::core::lenient`); `check()` turns them into `NewField`s against
//! the parent's recipients and pages, listing every problem with its JSON path. The
//! `fieldMeta` of each type is `field_meta`'s.

use crate::core::ids::RecipientId;
use serde::Deserialize;
use serde::de::{Deserializer, Error as _};
use serde_json::Value;
use utoipa::ToSchema;

use super::check::{Against, Check, join};
use super::drafts::{FieldCommand, FieldSlot, FieldsCommand, Placement};
use super::field_meta::{
    CheckboxRule, ChoiceMeta, Direction, FieldMeta, Lines, NumberValue, Overflow, TextAlign,
    VerticalAlign,
};
use super::field_meta_request::{self as field_meta, ChoiceInput, FieldMetaInput, SentNumber};
use super::fields::{FieldType, NewField};
use super::model::Field;
use crate::core::error::AppError;
use crate::core::lenient::{Given, Number, Object};

/// Most fields one request may add.
pub const MAX_BATCH: usize = 500;

/// A field as sent.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"recipientId": 12, "type": "SIGNATURE", "pageNumber": 1,
    "pageX": 10, "pageY": 80, "pageWidth": 30, "pageHeight": 6}))]
pub struct FieldInput {
    #[serde(default)]
    /// One of the document's (or template's) recipients.
    #[schema(value_type = i64, required = true)]
    pub recipient_id: Given<RecipientId>,
    #[serde(default, rename = "type")]
    #[schema(value_type = FieldType, required = true)]
    pub kind: Given<String>,
    #[serde(default)]
    #[schema(value_type = i64, required = true, minimum = 1)]
    pub page_number: Given<serde_json::Number>,
    #[serde(default)]
    /// A percentage of the page's width, from its left edge.
    #[schema(value_type = f64, required = true, minimum = 0, maximum = 100)]
    pub page_x: Given<Number>,
    #[serde(default)]
    /// A percentage of the page's height, from its top edge.
    #[schema(value_type = f64, required = true, minimum = 0, maximum = 100)]
    pub page_y: Given<Number>,
    #[serde(default)]
    #[schema(value_type = f64, required = true, minimum = 0, maximum = 100)]
    pub page_width: Given<Number>,
    #[serde(default)]
    #[schema(value_type = f64, required = true, minimum = 0, maximum = 100)]
    pub page_height: Given<Number>,
    #[serde(default)]
    /// Required for TEXT, NUMBER, RADIO, CHECKBOX, SELECT and DROPDOWN fields.
    #[schema(value_type = Option<FieldMetaInput>)]
    pub field_meta: Given<Object<FieldMetaInput>>,
}

/// Who may hold a field: whether a recipient id belongs to the document or template.
pub type RecipientOk<'a> = &'a dyn Fn(RecipientId) -> bool;

impl FieldInput {
    /// This field at `path`, for a file of `pages` pages (when known): `None` after recording
    /// its problems in `c`.
    pub fn check(
        &self,
        c: &mut Check,
        path: &str,
        pages: Option<i64>,
        ok: RecipientOk,
    ) -> Option<NewField> {
        let before = c.error_count();
        let recipient_id = self.recipient(c, path, ok);
        let kind = self.kind(c, path);
        let page_number = self.page(c, path, pages);
        let [x, y, w, h] = self.geometry(c, path, before);
        let meta_path = join(path, "fieldMeta");
        let field_meta = kind.and_then(|k| field_meta::check(c, &self.field_meta, &meta_path, k));
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

    /// This PATCH laid over `current`: members left out keep its values.
    pub fn over(self, current: &Field) -> FieldInput {
        let meta = match &current.meta {
            Some(m) => Given::Valid(Object(FieldMetaInput::from(m))),
            None => Given::Null,
        };
        let number = |v: f64| Given::Valid(Number(v));
        FieldInput {
            recipient_id: self.recipient_id.or(Given::Valid(current.recipient_id)),
            kind: self.kind.or(Given::Valid(current.kind.as_str().into())),
            page_number: self.page_number.or(Given::Valid(current.page.into())),
            page_x: self.page_x.or(number(current.x)),
            page_y: self.page_y.or(number(current.y)),
            page_width: self.page_width.or(number(current.width)),
            page_height: self.page_height.or(number(current.height)),
            field_meta: self.field_meta.or(meta),
        }
    }

    /// `recipientId`: one of the parent's recipients.
    fn recipient(&self, c: &mut Check, path: &str, ok: RecipientOk) -> Option<RecipientId> {
        let at = join(path, "recipientId");
        match self.recipient_id.valid().copied() {
            Some(id) if ok(id) => Some(id),
            Some(id) => {
                c.fail(
                    at,
                    format!("no recipient {id} on this document; add it first"),
                );
                None
            }
            None => {
                c.fail(at, "required: the id of one of the document's recipients");
                None
            }
        }
    }

    /// `type`: one of `FieldType::ALL`.
    fn kind(&self, c: &mut Check, path: &str) -> Option<FieldType> {
        let Some(t) = self.kind.valid() else {
            c.fail(join(path, "type"), "required");
            return None;
        };
        let kind = FieldType::parse(t);
        if kind.is_none() {
            let all = FieldType::ALL.map(FieldType::as_str).join(", ");
            c.fail(
                join(path, "type"),
                format!("unknown type {t:?}; use one of {all}"),
            );
        }
        kind
    }

    /// `pageNumber`: from 1 to the PDF's last page (when known).
    fn page(&self, c: &mut Check, path: &str, pages: Option<i64>) -> Option<i64> {
        let max_page = pages.unwrap_or(100_000);
        let at = join(path, "pageNumber");
        let page_number = c.int(&self.page_number, &at, 1..=max_page);
        if self.page_number.is_absent() {
            c.fail(at, "required, from 1");
        } else if page_number.is_none() && pages.is_some() {
            // The failure was recorded; make its message name the last page.
            if let Some(last) = c.last_mut() {
                last.message = format!("must be from 1 to {max_page}, the PDF's last page");
            }
        }
        page_number
    }

    /// `pageX`, `pageY`, `pageWidth`, `pageHeight`: percentages of the page, the box inside
    /// it (checked as a box only when the field had no other problem since `before` errors).
    fn geometry(&self, c: &mut Check, path: &str, before: usize) -> [f64; 4] {
        let mut geometry = [0.0f64; 4];
        let members = [
            ("pageX", &self.page_x),
            ("pageY", &self.page_y),
            ("pageWidth", &self.page_width),
            ("pageHeight", &self.page_height),
        ];
        for (i, (key, given)) in members.into_iter().enumerate() {
            let at = join(path, key);
            match c.number(given, &at) {
                Some(v) if (0.0..=100.0).contains(&v) => geometry[i] = v,
                Some(_) => c.fail(at, "a percentage of the page, from 0 to 100"),
                None if given.is_absent() => c.fail(at, "required"),
                None => {}
            }
        }
        if c.error_count() == before {
            box_fits(c, path, geometry);
        }
        geometry
    }
}

/// The box `[x, y, width, height]` has an area and lies within its page.
fn box_fits(c: &mut Check, path: &str, [x, y, w, h]: [f64; 4]) {
    if w <= 0.0 || h <= 0.0 {
        let why = "width and height must be greater than 0";
        c.fail(join(path, "pageWidth"), why);
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

/// A field that must be a JSON object, at `path`.
fn check_one(
    c: &mut Check,
    given: &Given<Object<FieldInput>>,
    path: &str,
    pages: Option<i64>,
    ok: RecipientOk,
) -> Option<NewField> {
    match given {
        Given::Valid(Object(f)) => f.check(c, path, pages, ok),
        _ => {
            c.fail(path, "must be an object");
            None
        }
    }
}

/// `POST .../fields`: one field (an object) or an array of them.
#[derive(Debug, Clone)]
pub enum FieldBatch {
    One(Box<Given<Object<FieldInput>>>),
    Many(Vec<Given<Object<FieldInput>>>),
}

impl<'de> Deserialize<'de> for FieldBatch {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = Value::deserialize(d)?;
        let item = |v: Value| Given::deserialize(v).map_err(D::Error::custom);
        Ok(match raw {
            Value::Array(list) => {
                FieldBatch::Many(list.into_iter().map(item).collect::<Result<_, _>>()?)
            }
            one => FieldBatch::One(Box::new(item(one)?)),
        })
    }
}

impl FieldBatch {
    /// Whether one field was sent as an object (not in a list).
    pub fn is_single(&self) -> bool {
        matches!(self, FieldBatch::One(one) if matches!(**one, Given::Valid(_)))
    }

    /// The fields for `recipients` and a file of `pages` pages: 400 listing every problem of
    /// every field, each under its index (`[2].pageX`).
    pub fn check(
        &self,
        pages: Option<i64>,
        recipients: &[RecipientId],
    ) -> Result<Vec<NewField>, AppError> {
        let ok = |rid: RecipientId| recipients.contains(&rid);
        let mut c = Check::new();
        let parsed = match self {
            FieldBatch::One(one) => check_one(&mut c, one, "", pages, &ok).into_iter().collect(),
            FieldBatch::Many(list) if list.is_empty() => {
                return Err(AppError::bad_request("give at least one field"));
            }
            FieldBatch::Many(list) if list.len() > MAX_BATCH => {
                let most = format!("at most {MAX_BATCH} fields at once");
                return Err(AppError::bad_request(most));
            }
            FieldBatch::Many(list) => list
                .iter()
                .enumerate()
                .filter_map(|(i, f)| check_one(&mut c, f, &format!("[{i}]"), pages, &ok))
                .collect(),
        };
        c.finish(parsed)
    }
}

/// The batch's schema: one field, or a non-empty array of them.
impl utoipa::PartialSchema for FieldBatch {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ArrayBuilder, OneOfBuilder, Ref};
        let one = || Ref::from_schema_name("FieldInput");
        let many = ArrayBuilder::new().items(one()).min_items(Some(1));
        OneOfBuilder::new().item(one()).item(many).into()
    }
}

impl ToSchema for FieldBatch {}

/// `PATCH .../fields/{id}`: a `FieldInput` whose members are each optional (left out, they
/// keep their values).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(transparent)]
pub struct FieldPatch(pub FieldInput);

impl FieldBatch {
    /// The command: these fields, checked against where they may go.
    pub fn command(self) -> FieldsCommand {
        Against::new(move |at: &Placement| self.check(at.pages, &at.recipients))
    }
}

impl FieldPatch {
    /// The command: this PATCH laid over the field (members left out keep its values),
    /// checked as a new field is: 400 listing every problem.
    pub fn command(self) -> FieldCommand {
        Against::new(move |slot: &FieldSlot| {
            let one = FieldBatch::One(Box::new(Given::Valid(Object(self.0.over(&slot.field)))));
            let at = &slot.placement;
            one.check(at.pages, &at.recipients)?
                .pop()
                .ok_or_else(|| AppError::bad_request("invalid field"))
        })
    }
}

impl utoipa::PartialSchema for FieldPatch {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::{RefOr, schema::Schema};
        match FieldInput::schema() {
            RefOr::T(Schema::Object(mut o)) => {
                o.required.clear();
                o.example = None;
                RefOr::T(Schema::Object(o))
            }
            other => other,
        }
    }
}

impl ToSchema for FieldPatch {}

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

#[cfg(test)]
#[path = "field_request_tests.rs"]
mod tests;
