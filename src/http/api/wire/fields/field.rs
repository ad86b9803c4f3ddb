//! A field as a client sends it to place it on a document or a template (`FieldInput`), read
//! leniently (`crate::core::lenient`), and its check into the domain's `NewField` against the
//! parent's recipients and pages: every problem is listed with its JSON path, by the rules of
//! `documents::fields` (the box within its page, the page within the file, the known types).

use serde::Deserialize;
use utoipa::ToSchema;

use super::meta::FieldMetaInput;
use super::meta_check;
use crate::core::ids::RecipientId;
use crate::core::lenient::{Given, Number, Object};
use crate::signing::documents::check::{Check, join};
use crate::signing::documents::fields::{self, FieldType, NewField};
use crate::signing::documents::model::Field;

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
        let field_meta = kind.and_then(|k| meta_check::check(c, &self.field_meta, &meta_path, k));
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
            c.fail(join(path, "type"), FieldType::unknown(t));
        }
        kind
    }

    /// `pageNumber`: from 1 to the PDF's last page (when known).
    fn page(&self, c: &mut Check, path: &str, pages: Option<i64>) -> Option<i64> {
        let allowed = fields::pages_allowed(pages);
        let last_page = *allowed.end();
        let at = join(path, "pageNumber");
        let page_number = c.int(&self.page_number, &at, allowed);
        if self.page_number.is_absent() {
            c.fail(at, "required, from 1");
        } else if page_number.is_none() && pages.is_some() {
            // The failure was recorded; make its message name the last page.
            if let Some(last) = c.last_mut() {
                last.message = fields::beyond_last_page(last_page);
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
                Some(v) if fields::PAGE_PERCENT.contains(&v) => geometry[i] = v,
                Some(_) => c.fail(at, fields::PAGE_PERCENT_RULE),
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
fn box_fits(c: &mut Check, path: &str, geometry: [f64; 4]) {
    for (key, why) in fields::box_problems(geometry) {
        c.fail(join(path, key), why);
    }
}

/// A field that must be a JSON object, at `path`.
pub(super) fn check_one(
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
