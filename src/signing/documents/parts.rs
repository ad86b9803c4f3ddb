//! Recipients and fields, one implementation for their two parents, documents and templates:
//! a checked recipient is checked against the user's tier, and recipients and fields are
//! written through `documents::store` (`Parent`). The use cases are `drafts`.

use crate::core::db::Conn;
use crate::core::ids::UserId;

use super::fields::NewField;
use super::model::{Field, Recipient};
use super::recipients::NewRecipient;
use super::store::{self, Parent};
use crate::core::error::AppError;

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

/// Adds `parsed` to `parent`: all or nothing.
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
