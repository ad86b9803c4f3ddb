//! How the request shapes read what clients really send (docs/reference/compatibility.md): the serde
//! helpers every typed request body shares.
//!
//! A request must get every problem at once, each with its JSON path. Serde stops at the first
//! value of the wrong form, so the members of a request shape are [`Given`]: absent (or null),
//! a value of the expected form, or one that is not, kept so that the shape's `validate()`
//! reports it beside the other problems. What is left to fail in deserialization (a body that
//! is not an object) is reported with its path by [`from_slice`].

use std::fmt;

use serde::de::{DeserializeOwned, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{core::error::AppError, core::error::FieldError};

/// A member of a request as sent.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Given<T> {
    /// Left out.
    #[default]
    Absent,
    /// `null`: read as left out, except that a PATCH's `null` clears what it names.
    Null,
    /// A value of the expected form (lenient forms already read).
    Valid(T),
    /// A value of another form; serde's description of what was wrong.
    Invalid(String),
}

impl<T> Given<T> {
    /// The value when it was sent in the expected form.
    pub fn valid(&self) -> Option<&T> {
        match self {
            Given::Valid(v) => Some(v),
            _ => None,
        }
    }

    /// Left out or `null`.
    pub fn is_absent(&self) -> bool {
        matches!(self, Given::Absent | Given::Null)
    }

    /// Whether a value of another form was sent.
    pub fn is_invalid(&self) -> bool {
        matches!(self, Given::Invalid(_))
    }

    pub fn into_valid(self) -> Option<T> {
        match self {
            Given::Valid(v) => Some(v),
            _ => None,
        }
    }

    /// A sent value, whatever its form (`null` too), counts over a left-out one (a PATCH laid
    /// over the current values).
    pub fn or(self, current: Given<T>) -> Given<T> {
        match self {
            Given::Absent => current,
            given => given,
        }
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Given<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = Value::deserialize(d)?;
        if raw.is_null() {
            return Ok(Given::Null);
        }
        Ok(match serde_path_to_error::deserialize::<_, T>(raw) {
            Ok(v) => Given::Valid(v),
            Err(e) => Given::Invalid(e.to_string()),
        })
    }
}

impl<T: Serialize> Serialize for Given<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Given::Valid(v) => v.serialize(s),
            _ => s.serialize_none(),
        }
    }
}

/// A JSON object read into the shape `T` (serde's derive would also read a struct from an
/// array, member by member: that is refused here).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Object<T>(pub T);

impl<'de, T: DeserializeOwned> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        object_or(d, || Err(serde::de::Error::custom("must be a JSON object"))).map(Object)
    }
}

/// A JSON object read into `T`; any other JSON value means `T::default()` (bodies whose
/// absence and whose wrong kinds both mean "the defaults" to the clients that send them).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OrDefault<T>(pub T);

impl<'de, T: DeserializeOwned + Default> Deserialize<'de> for OrDefault<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        object_or(d, || Ok(T::default())).map(OrDefault)
    }
}

/// `T` from a JSON object, or `otherwise()` for any other JSON value.
fn object_or<'de, D: Deserializer<'de>, T: DeserializeOwned>(
    d: D,
    otherwise: impl FnOnce() -> Result<T, D::Error>,
) -> Result<T, D::Error> {
    let raw = Value::deserialize(d)?;
    if !raw.is_object() {
        return otherwise();
    }
    T::deserialize(raw).map_err(serde::de::Error::custom)
}

/// One value or a list of them (`"ACCOUNT"` or `["ACCOUNT", "PASSKEY"]`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OneOrMany<T>(pub Vec<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for OneOrMany<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Form<T> {
            Many(Vec<T>),
            One(T),
        }
        Ok(match Form::deserialize(d)? {
            Form::Many(v) => OneOrMany(v),
            Form::One(v) => OneOrMany(vec![v]),
        })
    }
}

/// A number sent as a JSON number or as a string holding one (`"12.5"`), as some clients
/// send coordinates; always finite.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Number(pub f64);

impl<'de> Deserialize<'de> for Number {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl serde::de::Visitor<'_> for Visit {
            type Value = Number;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number, or a string holding one")
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Number, E> {
                Ok(Number(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Number, E> {
                Ok(Number(v as f64))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Number, E> {
                Ok(Number(v as f64))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Number, E> {
                match v.trim().parse::<f64>() {
                    Ok(n) if n.is_finite() => Ok(Number(n)),
                    _ => Err(E::invalid_value(serde::de::Unexpected::Str(v), &self)),
                }
            }
        }
        d.deserialize_any(Visit)
    }
}

/// `obj[key]` read as a typed member (for bodies still walked as JSON values).
pub fn member<T: DeserializeOwned>(obj: &Value, key: &str) -> Given<T> {
    match obj.get(key) {
        None => Given::Absent,
        Some(v) => Given::deserialize(v.clone()).unwrap_or(Given::Absent),
    }
}

/// A whole number sent as a JSON number or as text holding one (`"12"`), as clients hand
/// back ids they were given as text; a number with a fraction of zero (`12.0`, `"12.0"`) too,
/// as generated clients that keep every number as a float send it. `12.5` is no whole number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Int(pub i64);

impl Int {
    /// `text` as a whole number: `12`, `12.0`, with spaces around.
    pub fn parse(text: &str) -> Option<Int> {
        let t = text.trim();
        if let Ok(n) = t.parse::<i64>() {
            return Some(Int(n));
        }
        // Only a plain decimal with a zero fraction: no exponent, no sign games, no infinity.
        let (whole, fraction) = t.split_once('.')?;
        let digits = whole.strip_prefix('-').unwrap_or(whole);
        let plain = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
        (plain && !fraction.is_empty() && fraction.bytes().all(|b| b == b'0'))
            .then(|| whole.parse().ok().map(Int))
            .flatten()
    }
}

impl std::str::FromStr for Int {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Int::parse(s).ok_or_else(|| format!("{s:?} is not a whole number"))
    }
}

impl<'de> Deserialize<'de> for Int {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Form {
            Number(i64),
            Float(f64),
            Text(String),
        }
        let whole = |f: f64| {
            (f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0).then_some(Int(f as i64))
        };
        match Form::deserialize(d)? {
            Form::Number(n) => Ok(Int(n)),
            Form::Float(f) => whole(f).ok_or_else(|| {
                serde::de::Error::invalid_value(serde::de::Unexpected::Float(f), &"a whole number")
            }),
            Form::Text(s) => Int::parse(&s).ok_or_else(|| {
                serde::de::Error::invalid_value(serde::de::Unexpected::Str(&s), &"a whole number")
            }),
        }
    }
}

/// A JSON body read into `T`; what deserialization refuses is a 400 naming its path
/// (`recipients[2]`), bad JSON a 400 saying where.
pub fn from_slice<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, AppError> {
    let bad_json = |e: &serde_json::Error| AppError::bad_request(format!("invalid JSON body: {e}"));
    let mut json = serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize::<_, T>(&mut json).map_err(|e| {
        let inner = e.inner();
        if inner.is_syntax() || inner.is_eof() || inner.is_io() {
            return bad_json(inner);
        }
        let path = e.path().to_string();
        AppError::validation(vec![FieldError {
            path: if path == "." { String::new() } else { path },
            message: shape_message(&inner.to_string()),
        }])
    })?;
    json.end().map_err(|e| bad_json(&e))?;
    Ok(value)
}

/// serde's message without the line and column it adds.
fn shape_message(raw: &str) -> String {
    match raw.rfind(" at line ") {
        Some(i) => raw[..i].to_string(),
        None => raw.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize, Default)]
    #[serde(default, rename_all = "camelCase")]
    struct Shape {
        name: Given<String>,
        count: Given<i64>,
        methods: Given<OneOrMany<String>>,
        x: Given<Number>,
        id: Given<Int>,
    }

    #[test]
    fn every_member_is_kept_whatever_its_form() {
        let s: Shape =
            from_slice(br#"{"name": 5, "count": "x", "methods": "A", "x": "2.5"}"#).unwrap();
        assert!(s.name.is_invalid());
        assert!(s.count.is_invalid());
        assert_eq!(s.methods.valid(), Some(&OneOrMany(vec!["A".to_string()])));
        assert_eq!(s.x.valid(), Some(&Number(2.5)));
        let s: Shape = from_slice(br#"{"name": null, "methods": ["A", "B"], "x": 3}"#).unwrap();
        assert!(s.name.is_absent() && s.count.is_absent());
        assert_eq!(s.methods.valid().unwrap().0.len(), 2);
        assert_eq!(s.x.valid(), Some(&Number(3.0)));
        let s: Shape = from_slice(br#"{"x": "1e999"}"#).unwrap();
        assert!(s.x.is_invalid(), "infinity is no number");
        for (body, id) in [
            (r#"{"id": 7}"#, Some(7)),
            (r#"{"id": " 7 "}"#, Some(7)),
            (r#"{"id": "x"}"#, None),
            (r#"{"id": 1.5}"#, None),
            // Clients that keep every number as a float.
            (r#"{"id": 7.0}"#, Some(7)),
            (r#"{"id": "7.0"}"#, Some(7)),
            (r#"{"id": "-3.00"}"#, Some(-3)),
            (r#"{"id": "7.5"}"#, None),
            (r#"{"id": "7."}"#, None),
            (r#"{"id": ".0"}"#, None),
            (r#"{"id": "7e0"}"#, None),
            (r#"{"id": "inf"}"#, None),
            (r#"{"id": 1e300}"#, None),
        ] {
            let s: Shape = from_slice(body.as_bytes()).unwrap();
            assert_eq!(s.id.valid().map(|i| i.0), id, "{body}");
        }
        // In a path or a query, as text.
        assert_eq!("7.0".parse::<Int>(), Ok(Int(7)));
        assert!("7.25".parse::<Int>().is_err());
    }

    #[test]
    fn what_deserialization_refuses_is_named_by_its_path() {
        #[derive(Debug, Deserialize)]
        struct Outer {
            #[allow(dead_code)]
            items: Vec<Shape>,
        }
        let e = from_slice::<Outer>(br#"{"items": [{}, 5]}"#).unwrap_err();
        assert_eq!(e.status(), 400);
        assert_eq!(e.details()[0].path, "items[1]");
        assert!(!e.details()[0].message.contains("line"), "{e}");
        let e = from_slice::<Object<Shape>>(b"[1]").unwrap_err();
        assert_eq!(e.details()[0].path, "");
        assert_eq!(e.details()[0].message, "must be a JSON object");
        let e = from_slice::<Shape>(b"{nope").unwrap_err();
        assert!(e.details().is_empty() && e.to_string().contains("invalid JSON"));
        let e = from_slice::<Shape>(b"{} x").unwrap_err();
        assert_eq!(e.status(), 400);
    }
}
