//! Enums stored as their text (`DRAFT`, `SIGNER`, ...): `sql_text_enum!(T)` gives `T` the
//! `ToSql` and `FromSql` of its `as_str()` and `parse()`. Text that names no variant is an
//! error when read, never a default: a row the code cannot understand must not pass as valid.

/// Implements `ToSql` and `FromSql` for `$t`, which has `fn as_str(self) -> &'static str` and
/// `fn parse(&str) -> Option<$t>`.
#[macro_export]
macro_rules! sql_text_enum {
    ($t:ty) => {
        impl $crate::core::db::ToSql for $t {
            fn to_sql(&self) -> $crate::core::db::Value {
                $crate::core::db::Value::Text(self.as_str().to_owned())
            }
        }

        impl $crate::core::db::FromSql for $t {
            fn from_sql(value: $crate::core::db::ValueRef<'_>) -> Result<Self, String> {
                let text = value.as_str()?;
                <$t>::parse(text)
                    .ok_or_else(|| format!("{text:?} is not a known {}", stringify!($t)))
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use crate::signing::documents::Status;

    #[test]
    fn known_text_round_trips_and_unknown_text_is_an_error() {
        let c = crate::core::db::Conn::sqlite_memory();
        let back: Status = c
            .query_row("SELECT ?1", [Status::Pending], |r| r.get(0))
            .unwrap();
        assert_eq!(back, Status::Pending);
        let unknown = c.query_row("SELECT 'PENDNG'", [], |r| r.get::<_, Status>(0));
        let e = unknown.unwrap_err().to_string();
        assert!(e.contains("\"PENDNG\" is not a known Status"), "{e}");
    }

    /// Every stored enum: its text parses back to it, and its JSON is that same text, so what
    /// the API shows and what the database holds cannot drift apart.
    #[test]
    fn stored_text_and_json_agree_for_every_variant() {
        fn check<T>(all: &[T], as_str: fn(T) -> &'static str, parse: fn(&str) -> Option<T>)
        where
            T: Copy + PartialEq + std::fmt::Debug + serde::Serialize,
        {
            for v in all {
                let text = as_str(*v);
                assert_eq!(parse(text), Some(*v), "{text}");
                assert_eq!(serde_json::to_value(v).unwrap(), text, "{v:?}");
            }
        }
        use crate::{
            signing::documents::recipients::ReadStatus, signing::documents::recipients::Role,
            signing::documents::recipients::SigningStatus,
        };
        check(&Status::ALL, Status::as_str, Status::parse);
        check(&Role::ALL, Role::as_str, Role::parse);
        let signing = [
            SigningStatus::NotSigned,
            SigningStatus::Signed,
            SigningStatus::Rejected,
        ];
        check(&signing, SigningStatus::as_str, SigningStatus::parse);
        let read = [ReadStatus::NotOpened, ReadStatus::Opened];
        check(&read, ReadStatus::as_str, ReadStatus::parse);
        use crate::signing::documents::recipients::SendStatus;
        let send = [SendStatus::NotSent, SendStatus::Sent];
        check(&send, SendStatus::as_str, SendStatus::parse);
        use crate::signing::documents::fields::FieldType;
        check(&FieldType::ALL, FieldType::as_str, FieldType::parse);
        use crate::signing::documents::auth_options::ActionAuth;
        check(&ActionAuth::ALL, ActionAuth::as_str, ActionAuth::parse);
        use crate::signing::documents::audit::Event as Audit;
        check(&Audit::ALL, Audit::as_str, Audit::parse);
        use crate::signing::templates::TemplateType;
        check(
            &TemplateType::ALL,
            TemplateType::as_str,
            TemplateType::parse,
        );
        use crate::bookings::Status as Booking;
        check(&Booking::ALL, Booking::as_str, Booking::parse);
        use crate::{outbox::mail::Kind, outbox::mail::Status as Mail};
        check(&Mail::ALL, Mail::as_str, Mail::parse);
        check(&Kind::ALL, Kind::as_str, Kind::parse);
        use crate::outbox::webhooks::Event;
        check(&Event::ALL, Event::as_str, Event::parse);
        use crate::outbox::webhooks::store::App;
        check(&App::ALL, App::as_str, App::parse);
        use crate::outbox::webhooks::store::DeliveryStatus as Delivery;
        let deliveries = [Delivery::Pending, Delivery::Delivered, Delivery::Failed];
        check(&deliveries, Delivery::as_str, Delivery::parse);
    }
}
