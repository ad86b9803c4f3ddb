//! Enums stored as their text (`DRAFT`, `SIGNER`, ...): `sql_text_enum!(T)` gives `T` the
//! `ToSql` and `FromSql` of its `as_str()` and `parse()`. Text that names no variant is an
//! error when read, never a default: a row the code cannot understand must not pass as valid.

/// Implements `ToSql` and `FromSql` for `$t`, which has `fn as_str(self) -> &'static str` and
/// `fn parse(&str) -> Option<$t>`.
#[macro_export]
macro_rules! sql_text_enum {
    ($t:ty) => {
        impl rusqlite::types::ToSql for $t {
            fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
                Ok(rusqlite::types::ToSqlOutput::from(self.as_str()))
            }
        }

        impl rusqlite::types::FromSql for $t {
            fn column_result(
                value: rusqlite::types::ValueRef<'_>,
            ) -> rusqlite::types::FromSqlResult<Self> {
                let text = value.as_str()?;
                <$t>::parse(text).ok_or_else(|| {
                    rusqlite::types::FromSqlError::Other(
                        format!("{text:?} is not a known {}", stringify!($t)).into(),
                    )
                })
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use crate::documents::Status;

    #[test]
    fn known_text_round_trips_and_unknown_text_is_an_error() {
        let c = rusqlite::Connection::open_in_memory().unwrap();
        let back: Status = c
            .query_row("SELECT ?1", [Status::Pending], |r| r.get(0))
            .unwrap();
        assert_eq!(back, Status::Pending);
        let unknown = c.query_row("SELECT 'PENDNG'", [], |r| r.get::<_, Status>(0));
        let e = unknown.unwrap_err().to_string();
        assert!(e.contains("\"PENDNG\" is not a known Status"), "{e}");
    }
}
