//! What clients send to place fields (`POST .../fields`: one field or an array of them) and to
//! change one (`PATCH .../fields/{id}`), and the commands they become: checked against where
//! the fields may go (`drafts::Placement`) once the use case has read it.

use serde::Deserialize;
use serde::de::{Deserializer, Error as _};
use serde_json::Value;
use utoipa::ToSchema;

use super::field::{FieldInput, check_one};
use crate::core::error::AppError;
use crate::core::ids::RecipientId;
use crate::core::lenient::{Given, Object};
use crate::signing::documents::check::{Against, Check};
use crate::signing::documents::drafts::{FieldCommand, FieldSlot, FieldsCommand, Placement};
use crate::signing::documents::fields::{MAX_BATCH, NewField};

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
