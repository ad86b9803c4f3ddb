//! Recipients and fields, one implementation for their two parents, documents and templates:
//! a request's recipient or batch of fields is checked against the user's tier, the parent's
//! recipients and its pages, then written through `documents::store` (`Parent`). Each parent
//! checks its own state (a document must still be a draft) before.

use crate::core::db::Conn;
use crate::core::ids::{RecipientId, UserId};

use super::field_request::{FieldBatch, FieldPatch};
use super::fields::NewField;
use super::model::{Field, Recipient};
use super::recipients::NewRecipient;
use super::store::{self, Parent};
use crate::core::error::AppError;
use crate::core::lenient::{Given, Object};

/// Records that `parent` changed.
pub fn touch(conn: &Conn, parent: Parent, now: i64) -> Result<(), AppError> {
    match parent {
        Parent::Document(id) => store::touch(conn, id, now),
        Parent::Template(id) => store::touch_template(conn, id, now),
    }
}

/// 403 unless `user`'s tier allows recipient `r` (its authentication options).
pub fn allowed(conn: &Conn, user: UserId, r: &NewRecipient) -> Result<(), AppError> {
    super::check_tier(
        &Default::default(),
        std::slice::from_ref(r),
        crate::identity::users::store::tier(conn, user)?,
    )
}

/// Adds recipient `r` to `parent` and answers it.
pub fn add_recipient(
    conn: &Conn,
    parent: Parent,
    r: &NewRecipient,
    now: i64,
) -> Result<Recipient, AppError> {
    let id = store::recipients::insert(conn, parent, r, now)?;
    touch(conn, parent, now)?;
    store::recipients::one(conn, parent, id)
}

/// One field or an array of them (`batch`) for `recipients` and a file of `pages` pages.
pub fn fields_for(
    batch: &FieldBatch,
    pages: Option<i64>,
    recipients: &[Recipient],
) -> Result<Vec<NewField>, AppError> {
    let ids: Vec<RecipientId> = recipients.iter().map(|r| r.id).collect();
    batch.check(pages, &ids)
}

/// `patch` laid over `field` (members left out keep its values), checked as a new field is
/// against `recipients` and a file of `pages` pages: 400 listing every problem.
pub fn patched_field(
    field: &Field,
    patch: FieldPatch,
    pages: Option<i64>,
    recipients: &[Recipient],
) -> Result<NewField, AppError> {
    let one = FieldBatch::One(Box::new(Given::Valid(Object(patch.0.over(field)))));
    fields_for(&one, pages, recipients)?
        .pop()
        .ok_or_else(|| AppError::bad_request("invalid field"))
}

/// Adds `parsed` (from `fields_for`) to `parent`: all or nothing.
pub fn add_fields(
    conn: &Conn,
    parent: Parent,
    parsed: &[NewField],
    now: i64,
) -> Result<Vec<Field>, AppError> {
    let mut added = Vec::with_capacity(parsed.len());
    for f in parsed {
        added.push(store::fields::insert(conn, parent, f, now)?);
    }
    touch(conn, parent, now)?;
    added
        .iter()
        .map(|id| store::fields::one(conn, parent, *id))
        .collect()
}
