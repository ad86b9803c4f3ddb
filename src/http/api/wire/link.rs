//! What a recipient's page sends on the signing link, as types: the value of a field
//! (`FillRequest`), which becomes the domain's `values::Filled`; and, to finish (`complete`)
//! or refuse (`reject`), the optional reason and the proof of the action's authentication in
//! `auth`, which becomes the domain's `Proof`. A body that is not an object means none of its
//! members (`lenient::OrDefault`). The link's use cases check what they are given.

use serde::Deserialize;
use serde_json::{Map, Number, Value};
use utoipa::ToSchema;

use crate::core::error::AppError;
use crate::core::lenient::{Given, Object};
use crate::signing::documents::values::{Entry, Filled, Mark};
use crate::signing::workflow::auth::Proof;

/// `POST /sign/{token}/fields/{id}`: `{"value": ...}` for text, numbers, choices and
/// checkboxes, `{"signature": "data:image/png;base64,..."}` or `{"typed": "..."}` for a
/// signature or initials. A member of the wrong form is kept (`Given::Invalid`) so that the
/// check's message names what is missing.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct FillRequest {
    /// The value of a text, number, choice or checkbox field.
    #[serde(default)]
    pub value: Given<FilledValue>,
    /// A drawn signature or initials: a PNG data URL.
    #[serde(default)]
    pub signature: Given<String>,
    /// A typed signature or initials (sent, even as `null`, it is the one read).
    #[serde(default)]
    pub typed: Given<String>,
}

/// `value`: text, a number, or the checked boxes' values.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum FilledValue {
    Text(String),
    Number(Number),
    /// Checkboxes: each item should be one of the field's option values.
    List(Vec<Given<String>>),
}

impl FillRequest {
    /// What was sent, in the domain's terms: a number as written, and `typed`, once sent,
    /// before `signature`.
    pub fn filled(&self) -> Filled {
        let value = match self.value.valid() {
            Some(FilledValue::Text(s)) => Entry::Text(s.clone()),
            Some(FilledValue::Number(n)) => Entry::Text(n.to_string()),
            Some(FilledValue::List(items)) => {
                Entry::Choices(items.iter().map(|i| i.valid().cloned()).collect())
            }
            None => Entry::Missing,
        };
        let mark = match (&self.typed, self.signature.valid()) {
            (Given::Absent, Some(drawn)) => Mark::Drawn(drawn.clone()),
            (Given::Absent, None) => Mark::Missing,
            (typed, _) => Mark::Typed(typed.valid().cloned()),
        };
        Filled { value, mark }
    }
}

/// `POST /sign/{token}/complete` and `POST /sign/{token}/reject`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[schema(as = SigningAction, example = json!({"reason": "Wrong amount",
    "auth": {"method": "TWO_FACTOR_AUTH", "code": "123456"}}))]
pub struct ActionRequest {
    #[serde(default)]
    /// Why the recipient refuses (reject only).
    #[schema(value_type = Option<String>)]
    pub reason: Given<String>,
    #[serde(default)]
    /// The proof the document's action authentication asks for.
    #[schema(value_type = Option<ProofInput>)]
    pub auth: Given<Object<ProofInput>>,
}

/// `auth`: the method and what it takes.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
pub struct ProofInput {
    #[serde(default)]
    #[schema(value_type = String, required = true, pattern = "^(TWO_FACTOR_AUTH|PASSKEY|PASSWORD)$")]
    pub method: Given<String>,
    #[serde(default)]
    /// TWO_FACTOR_AUTH: the six-digit code, from the account's authenticator app or e-mailed
    /// by `POST /sign/{token}/email-code`.
    #[schema(value_type = Option<String>, max_length = 32)]
    pub code: Given<String>,
    #[serde(default)]
    /// PASSKEY: the passkey's answer (PublicKeyCredential.toJSON()).
    #[schema(value_type = Option<Object>)]
    pub credential: Given<Map<String, Value>>,
    #[serde(default)]
    /// PASSWORD: the account's password.
    #[schema(value_type = Option<String>, max_length = 1024)]
    pub password: Given<String>,
}

impl ActionRequest {
    /// The reason given, `""` when none.
    pub fn reason(&self) -> String {
        self.reason.valid().cloned().unwrap_or_default()
    }

    /// The proof sent, if any: 400 when `auth` names no known method or lacks what it takes.
    pub fn proof(&self) -> Result<Option<Proof>, AppError> {
        let auth = match &self.auth {
            Given::Absent | Given::Null => return Ok(None),
            Given::Valid(Object(auth)) => auth,
            Given::Invalid(_) => &ProofInput::default(),
        };
        match auth.method.valid().map(String::as_str) {
            Some("TWO_FACTOR_AUTH") => match auth.code.valid() {
                Some(code) if code.len() <= 32 => Ok(Some(Proof::Code(code.clone()))),
                _ => Err(AppError::bad_request(
                    "auth.code must be the six-digit code",
                )),
            },
            Some("PASSKEY") => match auth.credential.valid() {
                Some(c) => Ok(Some(Proof::Passkey(Value::Object(c.clone())))),
                None => Err(AppError::bad_request(
                    "auth.credential must be the passkey's answer (PublicKeyCredential.toJSON())",
                )),
            },
            Some("PASSWORD") => match auth.password.valid() {
                Some(p) if !p.is_empty() && p.len() <= 1024 => Ok(Some(Proof::Password(p.clone()))),
                _ => Err(AppError::bad_request(
                    "auth.password must be your account's password",
                )),
            },
            _ => Err(AppError::bad_request(
                "auth.method must be TWO_FACTOR_AUTH, PASSKEY or PASSWORD",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::lenient::{OrDefault, from_slice};

    fn proof(body: &str) -> Result<Option<Proof>, AppError> {
        from_slice::<OrDefault<ActionRequest>>(body.as_bytes())?
            .0
            .proof()
    }

    #[test]
    fn proofs_are_read_strictly() {
        assert!(proof("{}").unwrap().is_none());
        assert!(proof("[1]").unwrap().is_none());
        let totp = proof(r#"{"auth": {"method": "TWO_FACTOR_AUTH", "code": "123456"}}"#);
        assert!(matches!(totp.unwrap(), Some(Proof::Code(c)) if c == "123456"));
        assert!(proof(r#"{"auth": {"method": "TWO_FACTOR_AUTH"}}"#).is_err());
        assert!(proof(r#"{"auth": {"method": "PASSKEY", "credential": "x"}}"#).is_err());
        assert!(proof(r#"{"auth": {"method": "SMS"}}"#).is_err());
        assert!(proof(r#"{"auth": "x"}"#).is_err());
        let typed = proof(r#"{"auth": {"method": "PASSWORD", "password": "pw"}}"#);
        assert!(matches!(typed.unwrap(), Some(Proof::Password(p)) if p == "pw"));
        assert!(proof(r#"{"auth": {"method": "PASSWORD"}}"#).is_err());
        assert_eq!(
            format!("{:?}", Proof::Password("pw".into())),
            "Password(***)"
        );
    }

    fn read(body: &str) -> FillRequest {
        from_slice::<OrDefault<FillRequest>>(body.as_bytes())
            .unwrap()
            .0
    }

    #[test]
    fn values_are_read_in_their_forms() {
        assert_eq!(
            read(r#"{"value": " x "}"#).value,
            Given::Valid(FilledValue::Text(" x ".into()))
        );
        let n = read(r#"{"value": 7.5}"#).value;
        assert!(matches!(n, Given::Valid(FilledValue::Number(n)) if n.to_string() == "7.5"));
        let list = read(r#"{"value": ["a", 1]}"#).value;
        let Given::Valid(FilledValue::List(items)) = list else {
            panic!("{list:?}")
        };
        assert_eq!(items[0], Given::Valid("a".into()));
        assert!(items[1].is_invalid());
        assert!(read(r#"{"value": true}"#).value.is_invalid());
        assert_eq!(read(r#"{"typed": null}"#).typed, Given::Null);
        assert_eq!(read("[1]"), FillRequest::default());
    }

    #[test]
    fn what_is_filled_keeps_the_value_and_the_mark() {
        let filled = |body: &str| read(body).filled();
        assert_eq!(filled(r#"{"value": 7.5}"#).value, Entry::Text("7.5".into()));
        assert_eq!(
            filled(r#"{"value": ["a", 1]}"#).value,
            Entry::Choices(vec![Some("a".into()), None])
        );
        assert_eq!(filled(r#"{"value": true}"#), Filled::default());
        assert_eq!(
            filled(r#"{"typed": null, "signature": "s"}"#).mark,
            Mark::Typed(None)
        );
        assert_eq!(
            filled(r#"{"signature": "s", "value": "v"}"#),
            Filled {
                value: Entry::Text("v".into()),
                mark: Mark::Drawn("s".into())
            }
        );
    }

    #[test]
    fn a_reason_that_is_no_text_is_none() {
        let r = |body: &str| {
            from_slice::<OrDefault<ActionRequest>>(body.as_bytes())
                .unwrap()
                .0
        };
        assert_eq!(r(r#"{"reason": "late"}"#).reason(), "late");
        assert_eq!(r(r#"{"reason": 5}"#).reason(), "");
    }
}
