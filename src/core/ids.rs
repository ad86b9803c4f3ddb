//! The typed row ids: one newtype per table whose numeric id travels between modules
//! (documents, recipients, fields, templates, users, OAuth clients, OAuth grants), so that
//! passing a recipient's id where a document's is expected does not compile.
//!
//! Each is a plain `i64` everywhere it leaves the program: bound and read as an integer column
//! (both databases), a JSON integer (serde transparent: the same forms accepted, the same
//! messages for the others), its decimal digits in a URL path (`FromStr` is `i64`'s, so a path
//! segment that is not one fails as before), and an `integer`/`int64` in the OpenAPI document.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::core::db::{FromSql, ToSql, Value, ValueRef};

/// Declares one id newtype with its conversions.
macro_rules! row_id {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(i64);

        impl $name {
            /// The id of a row as the database numbers it.
            pub const fn new(raw: i64) -> Self {
                $name(raw)
            }

            /// The number, for what is not typed (arithmetic, text, other crates).
            pub const fn get(self) -> i64 {
                self.0
            }
        }

        impl From<$name> for i64 {
            fn from(id: $name) -> i64 {
                id.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0, f)
            }
        }

        impl FromStr for $name {
            type Err = std::num::ParseIntError;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                s.parse::<i64>().map($name)
            }
        }

        impl ToSql for $name {
            fn to_sql(&self) -> Value {
                self.0.to_sql()
            }
        }

        impl FromSql for $name {
            fn from_sql(value: ValueRef<'_>) -> Result<Self, String> {
                i64::from_sql(value).map($name)
            }
        }

        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                <i64 as utoipa::PartialSchema>::schema()
            }
        }

        impl utoipa::ToSchema for $name {
            fn name() -> Cow<'static, str> {
                Cow::Borrowed(stringify!($name))
            }
        }
    )*};
}

row_id! {
    /// A row of `documents`.
    DocumentId;
    /// A row of `recipients` (of a document or a template).
    RecipientId;
    /// A row of `fields` (of a document or a template).
    FieldId;
    /// A row of `templates`.
    TemplateId;
    /// A row of `users`.
    UserId;
    /// A row of `oauth_clients` (its number, not the textual `client_id` clients send).
    ClientId;
    /// A row of `oauth_grants`: one user's consent to one client.
    GrantId;
    /// A row of `teams`.
    TeamId;
    /// A row of `bulk_sends`: one CSV file sent from a template.
    BulkSendId;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::db::memory;
    use crate::params;

    #[test]
    fn binds_and_reads_as_an_integer() {
        let id = DocumentId::new(42);
        assert_eq!(id.to_sql(), Value::Integer(42));
        assert_eq!(DocumentId::from_sql(ValueRef::Integer(42)), Ok(id));
        assert!(DocumentId::from_sql(ValueRef::Text("42")).is_err());
        assert!(UserId::from_sql(ValueRef::Null).is_err());
        assert_eq!(
            Option::<FieldId>::from_sql(ValueRef::Null),
            Ok(None),
            "a nullable column reads as None"
        );
    }

    #[test]
    fn round_trips_through_a_database() {
        let conn = memory();
        conn.execute_batch("CREATE TABLE t (a INTEGER, b INTEGER)")
            .unwrap();
        let (doc, user) = (DocumentId::new(7), UserId::new(-3));
        conn.execute("INSERT INTO t (a, b) VALUES (?1, ?2)", params![doc, user])
            .unwrap();
        let back: (DocumentId, UserId) = conn
            .query_row("SELECT a, b FROM t", [], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap();
        assert_eq!(back, (doc, user));
        assert_eq!(i64::from(back.0), 7);
    }

    #[test]
    fn is_a_json_integer() {
        let id = RecipientId::new(12);
        assert_eq!(serde_json::to_string(&id).unwrap(), "12");
        assert_eq!(serde_json::from_str::<RecipientId>("12").unwrap(), id);
        assert_eq!(
            serde_json::to_value(vec![TemplateId::new(1), TemplateId::new(2)]).unwrap(),
            serde_json::json!([1, 2])
        );
        // The same refusals, in the same words, as a bare i64 (request shapes report them).
        for bad in ["\"12\"", "1.5", "null", "18446744073709551616"] {
            let typed = serde_json::from_str::<RecipientId>(bad).unwrap_err();
            let bare = serde_json::from_str::<i64>(bad).unwrap_err();
            assert_eq!(typed.to_string(), bare.to_string(), "{bad}");
        }
    }

    #[test]
    fn parses_and_prints_like_an_i64() {
        assert_eq!("15".parse::<GrantId>(), Ok(GrantId::new(15)));
        assert_eq!(
            "+15".parse::<GrantId>(),
            "+15".parse::<i64>().map(GrantId::new)
        );
        assert_eq!(ClientId::new(-4).to_string(), "-4");
        for bad in ["", "abc", "1.0", " 1", "9223372036854775808"] {
            assert_eq!(
                bad.parse::<FieldId>().unwrap_err(),
                bad.parse::<i64>().unwrap_err(),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn is_an_int64_in_the_openapi_document() {
        use utoipa::{PartialSchema, ToSchema};
        let typed = serde_json::to_value(DocumentId::schema()).unwrap();
        assert_eq!(
            typed,
            serde_json::json!({"type": "integer", "format": "int64"})
        );
        assert_eq!(DocumentId::name(), "DocumentId");
    }
}
