//! Recipients and fields, one implementation for their two parents, documents and templates:
//! a request's recipient or batch of fields is checked against the user's tier, the parent's
//! recipients and its pages, then written through `documents::store` (`Parent`). Each parent
//! checks its own state (a document must still be a draft) before.

use crate::core::db::Conn;
use serde_json::Value;

use super::check::Check;
use super::fields::{NewField, parse_field};
use super::model::{Field, Recipient};
use super::recipients::NewRecipient;
use super::store::{self, Parent};
use crate::core::error::AppError;

/// Most fields one request may add.
const MAX_BATCH: usize = 500;

/// Records that `parent` changed.
pub fn touch(conn: &Conn, parent: Parent, now: i64) -> Result<(), AppError> {
    match parent {
        Parent::Document(id) => store::touch(conn, id, now),
        Parent::Template(id) => store::touch_template(conn, id, now),
    }
}

/// 403 unless `user`'s tier allows recipient `r` (its authentication options).
pub fn allowed(conn: &Conn, user: i64, r: &NewRecipient) -> Result<(), AppError> {
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

/// One field or an array of them (`body`), for a file of `pages` pages and `recipients`.
pub fn field_batch(
    body: &Value,
    pages: Option<i64>,
    recipients: &[i64],
) -> Result<Vec<NewField>, AppError> {
    let items: Vec<(String, &Value)> = match body {
        Value::Array(list) if list.is_empty() => {
            return Err(AppError::bad_request("give at least one field"));
        }
        Value::Array(list) if list.len() > MAX_BATCH => {
            return Err(AppError::bad_request(format!(
                "at most {MAX_BATCH} fields at once"
            )));
        }
        Value::Array(list) => list
            .iter()
            .enumerate()
            .map(|(i, v)| (format!("[{i}]"), v))
            .collect(),
        other => vec![(String::new(), other)],
    };
    let ok = |rid: i64| recipients.contains(&rid);
    let mut c = Check::new();
    let parsed: Vec<_> = items
        .iter()
        .filter_map(|(path, v)| parse_field(&mut c, v, path, pages, &ok))
        .collect();
    c.finish(parsed)
}

/// One field or an array of them (`body`) for `recipients` and a file of `pages` pages.
pub fn fields_for(
    body: &Value,
    pages: Option<i64>,
    recipients: &[Recipient],
) -> Result<Vec<NewField>, AppError> {
    let ids: Vec<i64> = recipients.iter().map(|r| r.id).collect();
    field_batch(body, pages, &ids)
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

/// `current` (an object) with the keys of `patch` (which must be one) laid over it: absent keys
/// keep their current values.
pub fn merged(mut current: Value, patch: &Value) -> Result<Value, AppError> {
    let Some(obj) = patch.as_object() else {
        return Err(AppError::bad_request("the body must be a JSON object"));
    };
    for (k, v) in obj {
        current[k] = v.clone();
    }
    Ok(current)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sig(rid: i64) -> Value {
        json!({"recipientId": rid, "type": "SIGNATURE", "pageNumber": 1,
               "pageX": 10, "pageY": 10, "pageWidth": 20, "pageHeight": 5})
    }

    #[test]
    fn a_batch_is_one_field_or_a_bounded_array_checked_as_a_whole() {
        assert_eq!(field_batch(&sig(1), Some(1), &[1]).unwrap().len(), 1);
        assert_eq!(
            field_batch(&json!([sig(1), sig(1)]), Some(1), &[1])
                .unwrap()
                .len(),
            2
        );
        assert_eq!(
            field_batch(&json!([]), Some(1), &[1]).unwrap_err().status(),
            400
        );
        let many = Value::Array(vec![sig(1); MAX_BATCH + 1]);
        assert_eq!(field_batch(&many, Some(1), &[1]).unwrap_err().status(), 400);
        // An unknown recipient in the second item fails the whole batch, naming the item.
        let e = field_batch(&json!([sig(1), sig(2)]), Some(1), &[1]).unwrap_err();
        assert!(e.to_string().contains("[1]"), "{e}");
    }

    #[test]
    fn a_patch_lays_its_keys_over_the_current_values() {
        let m = merged(json!({"a": 1, "b": 2}), &json!({"b": 3})).unwrap();
        assert_eq!(m, json!({"a": 1, "b": 3}));
        assert_eq!(merged(json!({}), &json!([1])).unwrap_err().status(), 400);
    }
}
