//! Values that cross the database boundary, whichever database it is: `ToSql` turns a Rust value
//! into a `Value`, `FromSql` reads one back out of a `ValueRef`. The stored types are the few
//! both databases share: 64-bit integers, doubles, text and bytes (booleans are integers 0/1).

use super::Error;

/// An owned value bound as a parameter (or read back from PostgreSQL).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Integer(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

/// A value read from a row, borrowed from it where it can be.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ValueRef<'a> {
    Null,
    Integer(i64),
    Real(f64),
    Text(&'a str),
    Blob(&'a [u8]),
}

impl Value {
    pub fn as_ref(&self) -> ValueRef<'_> {
        match self {
            Value::Null => ValueRef::Null,
            Value::Integer(i) => ValueRef::Integer(*i),
            Value::Real(f) => ValueRef::Real(*f),
            Value::Text(s) => ValueRef::Text(s),
            Value::Blob(b) => ValueRef::Blob(b),
        }
    }
}

impl ValueRef<'_> {
    fn kind(&self) -> &'static str {
        match self {
            ValueRef::Null => "NULL",
            ValueRef::Integer(_) => "an integer",
            ValueRef::Real(_) => "a real",
            ValueRef::Text(_) => "text",
            ValueRef::Blob(_) => "bytes",
        }
    }

    /// The text of this value, or a conversion error.
    pub fn as_str(&self) -> Result<&str, String> {
        match self {
            ValueRef::Text(s) => Ok(s),
            other => Err(format!("expected text, found {}", other.kind())),
        }
    }
}

/// A Rust value that can be bound as a parameter.
pub trait ToSql {
    fn to_sql(&self) -> Value;
}

/// A Rust value that can be read from a column. The error says what was wrong with the value;
/// the caller adds where it was.
pub trait FromSql: Sized {
    fn from_sql(value: ValueRef<'_>) -> Result<Self, String>;
}

impl<T: ToSql + ?Sized> ToSql for &T {
    fn to_sql(&self) -> Value {
        (**self).to_sql()
    }
}

impl<T: ToSql> ToSql for Option<T> {
    fn to_sql(&self) -> Value {
        self.as_ref().map_or(Value::Null, ToSql::to_sql)
    }
}

impl ToSql for Value {
    fn to_sql(&self) -> Value {
        self.clone()
    }
}

macro_rules! integer {
    ($($t:ty),*) => {$(
        impl ToSql for $t {
            fn to_sql(&self) -> Value {
                Value::Integer(*self as i64)
            }
        }
        impl FromSql for $t {
            fn from_sql(value: ValueRef<'_>) -> Result<Self, String> {
                match value {
                    ValueRef::Integer(i) => <$t>::try_from(i)
                        .map_err(|_| format!("{i} is out of range for {}", stringify!($t))),
                    other => Err(format!("expected an integer, found {}", other.kind())),
                }
            }
        }
    )*};
}
integer!(i64, i32, u32, u16, u8, usize, u64);

impl ToSql for bool {
    fn to_sql(&self) -> Value {
        Value::Integer(i64::from(*self))
    }
}

impl FromSql for bool {
    fn from_sql(value: ValueRef<'_>) -> Result<Self, String> {
        match value {
            ValueRef::Integer(i) => Ok(i != 0),
            other => Err(format!("expected a boolean, found {}", other.kind())),
        }
    }
}

impl ToSql for f64 {
    fn to_sql(&self) -> Value {
        Value::Real(*self)
    }
}

impl FromSql for f64 {
    fn from_sql(value: ValueRef<'_>) -> Result<Self, String> {
        match value {
            ValueRef::Real(f) => Ok(f),
            ValueRef::Integer(i) => Ok(i as f64),
            other => Err(format!("expected a number, found {}", other.kind())),
        }
    }
}

impl ToSql for str {
    fn to_sql(&self) -> Value {
        Value::Text(self.to_owned())
    }
}

impl ToSql for String {
    fn to_sql(&self) -> Value {
        Value::Text(self.clone())
    }
}

impl FromSql for String {
    fn from_sql(value: ValueRef<'_>) -> Result<Self, String> {
        value.as_str().map(str::to_owned)
    }
}

impl ToSql for [u8] {
    fn to_sql(&self) -> Value {
        Value::Blob(self.to_vec())
    }
}

impl ToSql for Vec<u8> {
    fn to_sql(&self) -> Value {
        Value::Blob(self.clone())
    }
}

impl<const N: usize> ToSql for [u8; N] {
    fn to_sql(&self) -> Value {
        Value::Blob(self.to_vec())
    }
}

impl FromSql for Vec<u8> {
    fn from_sql(value: ValueRef<'_>) -> Result<Self, String> {
        match value {
            ValueRef::Blob(b) => Ok(b.to_vec()),
            other => Err(format!("expected bytes, found {}", other.kind())),
        }
    }
}

impl<T: FromSql> FromSql for Option<T> {
    fn from_sql(value: ValueRef<'_>) -> Result<Self, String> {
        match value {
            ValueRef::Null => Ok(None),
            v => T::from_sql(v).map(Some),
        }
    }
}

impl FromSql for Value {
    fn from_sql(value: ValueRef<'_>) -> Result<Self, String> {
        Ok(match value {
            ValueRef::Null => Value::Null,
            ValueRef::Integer(i) => Value::Integer(i),
            ValueRef::Real(f) => Value::Real(f),
            ValueRef::Text(s) => Value::Text(s.to_owned()),
            ValueRef::Blob(b) => Value::Blob(b.to_vec()),
        })
    }
}

/// The parameters of one statement, bound in order (`?1`, `?2`, ...).
pub trait Params {
    fn values(self) -> Vec<Value>;
}

impl Params for () {
    fn values(self) -> Vec<Value> {
        Vec::new()
    }
}

impl Params for &[&dyn ToSql] {
    fn values(self) -> Vec<Value> {
        self.iter().map(|p| p.to_sql()).collect()
    }
}

impl Params for [&dyn ToSql; 0] {
    fn values(self) -> Vec<Value> {
        Vec::new()
    }
}

macro_rules! array_params {
    ($($n:literal),*) => {$(
        impl<T: ToSql> Params for [T; $n] {
            fn values(self) -> Vec<Value> {
                self.iter().map(ToSql::to_sql).collect()
            }
        }
        impl<T: ToSql> Params for &[T; $n] {
            fn values(self) -> Vec<Value> {
                self.iter().map(ToSql::to_sql).collect()
            }
        }
    )*};
}
array_params!(1, 2, 3, 4, 5, 6, 7, 8);

/// Parameters from an iterator (a list whose length is known only at run time).
pub struct ParamsFromIter(Vec<Value>);

pub fn params_from_iter<I>(iter: I) -> ParamsFromIter
where
    I: IntoIterator,
    I::Item: ToSql,
{
    ParamsFromIter(iter.into_iter().map(|v| v.to_sql()).collect())
}

impl Params for ParamsFromIter {
    fn values(self) -> Vec<Value> {
        self.0
    }
}

/// `params![a, b, c]`: parameters of different types, bound in order.
#[macro_export]
macro_rules! params {
    () => {
        &[] as &[&dyn $crate::core::db::ToSql]
    };
    ($($p:expr),+ $(,)?) => {
        &[$(&$p as &dyn $crate::core::db::ToSql),+] as &[&dyn $crate::core::db::ToSql]
    };
}

/// What reading column `col` as `T` gives, with the column named in the error.
pub(super) fn convert<T: FromSql>(col: usize, value: ValueRef<'_>) -> Result<T, Error> {
    T::from_sql(value).map_err(|message| Error::Conversion { col, message })
}
