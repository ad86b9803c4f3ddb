//! A small collector of validation errors, so a request gets every problem at once, each with
//! its JSON path (`recipients[0].email`).

use std::sync::Arc;

use serde_json::Value;

use crate::core::lenient::{Given, Number};
use crate::{core::error::AppError, core::error::FieldError};

#[derive(Debug, Default)]
pub struct Check {
    errors: Vec<FieldError>,
}

impl Check {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn fail(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.errors.push(FieldError {
            path: path.into(),
            message: message.into(),
        });
    }

    pub fn error_count(&self) -> usize {
        self.errors.len()
    }

    pub fn last_mut(&mut self) -> Option<&mut FieldError> {
        self.errors.last_mut()
    }

    pub fn is_ok(&self) -> bool {
        self.errors.is_empty()
    }

    /// Ok(value) when nothing failed, else a 400 listing every failure.
    pub fn finish<T>(self, value: T) -> Result<T, AppError> {
        if self.errors.is_empty() {
            Ok(value)
        } else {
            Err(AppError::validation(self.errors))
        }
    }

    /// The value of a typed member when it came in the expected form; a value of another
    /// form fails `path` with `message`.
    pub fn given<'a, T>(&mut self, g: &'a Given<T>, path: &str, message: &str) -> Option<&'a T> {
        if g.is_invalid() {
            self.fail(path, message);
        }
        g.valid()
    }

    /// A typed string member of at most `max` characters.
    pub fn text(&mut self, g: &Given<String>, path: &str, max: usize) -> Option<String> {
        let s = self.given(g, path, "must be a string")?;
        if s.chars().count() > max {
            self.fail(path, format!("at most {max} characters"));
            return None;
        }
        Some(s.clone())
    }

    /// A typed whole-number member within `range`.
    pub fn whole(
        &mut self,
        g: &Given<i64>,
        path: &str,
        range: std::ops::RangeInclusive<i64>,
    ) -> Option<i64> {
        let message = format!(
            "must be a whole number from {} to {}",
            range.start(),
            range.end()
        );
        match self.given(g, path, &message) {
            Some(v) if range.contains(v) => Some(*v),
            Some(_) => {
                self.fail(path, message);
                None
            }
            None => None,
        }
    }

    /// A typed true-or-false member.
    pub fn flag(&mut self, g: &Given<bool>, path: &str) -> Option<bool> {
        self.given(g, path, "must be true or false").copied()
    }

    /// A typed number member (a JSON number, or a string holding one).
    pub fn number(&mut self, g: &Given<Number>, path: &str) -> Option<f64> {
        self.given(g, path, "must be a number").map(|n| n.0)
    }

    /// A typed JSON-number member that must be whole and within `range`: a number outside is
    /// told the range, anything else that it must be a whole number.
    pub fn int(
        &mut self,
        g: &Given<serde_json::Number>,
        path: &str,
        range: std::ops::RangeInclusive<i64>,
    ) -> Option<i64> {
        let n = self.given(g, path, "must be a whole number")?;
        match n.as_i64() {
            Some(v) if range.contains(&v) => Some(v),
            _ => {
                self.fail(
                    path,
                    format!(
                        "must be a whole number from {} to {}",
                        range.start(),
                        range.end()
                    ),
                );
                None
            }
        }
    }

    /// An optional string of at most `max` characters (`null` counts as absent).
    pub fn opt_str(&mut self, obj: &Value, key: &str, path: &str, max: usize) -> Option<String> {
        match obj.get(key) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if s.chars().count() <= max => Some(s.clone()),
            Some(Value::String(_)) => {
                self.fail(join(path, key), format!("at most {max} characters"));
                None
            }
            Some(_) => {
                self.fail(join(path, key), "must be a string");
                None
            }
        }
    }

    pub fn opt_bool(&mut self, obj: &Value, key: &str, path: &str) -> Option<bool> {
        match obj.get(key) {
            None | Some(Value::Null) => None,
            Some(Value::Bool(b)) => Some(*b),
            Some(_) => {
                self.fail(join(path, key), "must be true or false");
                None
            }
        }
    }

    /// An optional number (JSON number, or a string holding one, as some clients send).
    pub fn opt_f64(&mut self, obj: &Value, key: &str, path: &str) -> Option<f64> {
        match obj.get(key) {
            None | Some(Value::Null) => None,
            Some(Value::Number(n)) => n.as_f64(),
            Some(Value::String(s)) => match s.trim().parse::<f64>() {
                Ok(v) if v.is_finite() => Some(v),
                _ => {
                    self.fail(join(path, key), "must be a number");
                    None
                }
            },
            Some(_) => {
                self.fail(join(path, key), "must be a number");
                None
            }
        }
    }

    /// An optional integer within `range`.
    pub fn opt_int(
        &mut self,
        obj: &Value,
        key: &str,
        path: &str,
        range: std::ops::RangeInclusive<i64>,
    ) -> Option<i64> {
        match obj.get(key) {
            None | Some(Value::Null) => None,
            Some(Value::Number(n)) => match n.as_i64() {
                Some(v) if range.contains(&v) => Some(v),
                _ => {
                    self.fail(
                        join(path, key),
                        format!(
                            "must be a whole number from {} to {}",
                            range.start(),
                            range.end()
                        ),
                    );
                    None
                }
            },
            Some(_) => {
                self.fail(join(path, key), "must be a whole number");
                None
            }
        }
    }
}

/// `a.b`, or `b` when `a` is empty.
pub fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// A command that can only be checked against what it changes. The use case reads that (`S`)
/// inside its transaction, after its own 404s, and the conversion the HTTP layer built from the
/// request says what the request makes of it: the command, or a 400 listing every problem with
/// its JSON path. A request that was checked alone before is `Against::checked`.
pub struct Against<S, T>(Box<Conversion<S, T>>);

/// What makes the command of a request once the current state is read.
type Conversion<S, T> = dyn FnOnce(&S) -> Result<T, AppError> + Send;

impl<S, T: Send + 'static> Against<S, T> {
    pub fn new(check: impl FnOnce(&S) -> Result<T, AppError> + Send + 'static) -> Self {
        Against(Box::new(check))
    }

    /// A command already checked, whatever it is laid over.
    pub fn checked(command: T) -> Self {
        Against::new(move |_| Ok(command))
    }

    /// The command laid over `current`.
    pub fn check(self, current: &S) -> Result<T, AppError> {
        (self.0)(current)
    }
}

impl<S, T> std::fmt::Debug for Against<S, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Against(..)")
    }
}

/// A command checked against what it changes as often as its use case needs, where `Against`
/// is checked once. A use case that checks a request in a read first (so that a bad request
/// starts no write) and again in the write, against what the write read, takes this one; a
/// clone shares the same conversion.
pub struct Recheck<S, T>(Arc<Reconversion<S, T>>);

/// What makes the command of a request from the current state, each time it is asked.
type Reconversion<S, T> = dyn Fn(&S) -> Result<T, AppError> + Send + Sync;

impl<S, T> Recheck<S, T> {
    pub fn new(check: impl Fn(&S) -> Result<T, AppError> + Send + Sync + 'static) -> Self {
        Recheck(Arc::new(check))
    }

    /// The command laid over `current`.
    pub fn check(&self, current: &S) -> Result<T, AppError> {
        (self.0)(current)
    }
}

impl<S, T> Clone for Recheck<S, T> {
    fn clone(&self) -> Self {
        Recheck(Arc::clone(&self.0))
    }
}

impl<S, T> std::fmt::Debug for Recheck<S, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Recheck(..)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn collects_every_error_with_paths() {
        let v = json!({"a": 5, "b": "x", "c": 1.5, "d": "2.5", "e": 200});
        let mut c = Check::new();
        assert_eq!(c.opt_str(&v, "a", "meta", 10), None);
        assert_eq!(c.opt_bool(&v, "b", "meta"), None);
        assert_eq!(c.opt_f64(&v, "c", "meta"), Some(1.5));
        assert_eq!(c.opt_f64(&v, "d", "meta"), Some(2.5));
        assert_eq!(c.opt_int(&v, "e", "meta", 0..=100), None);
        assert_eq!(c.opt_str(&v, "missing", "meta", 10), None);
        let err = c.finish(()).unwrap_err();
        let paths: Vec<&str> = err.details().iter().map(|d| d.path.as_str()).collect();
        assert_eq!(paths, ["meta.a", "meta.b", "meta.e"]);
    }
}
