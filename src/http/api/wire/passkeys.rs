//! What the pages' scripts send for passkeys, as types: the challenge calls take no members;
//! an answer carries the browser's `credential` (`PublicKeyCredential.toJSON()`), kept as the
//! JSON object it is for `identity::factors::passkey` to read, with the page to go `next` after a login or
//! a confirmation, or the `name` of a passkey being added. A body that is not an object means
//! none of them (`lenient::OrDefault`); a member of the wrong form is reported as missing.

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::core::error::AppError;
use crate::core::lenient::Given;

/// The body of a call asking for a passkey challenge (`.../passkey/options`): nothing is read.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
pub struct ChallengeRequest {}

/// A passkey's answer to a login's or a confirmation's challenge.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct PasskeyProofRequest {
    #[serde(default)]
    pub credential: Given<Map<String, Value>>,
    /// Where to go once done (checked by the caller as a local path).
    #[serde(default)]
    pub next: Given<String>,
}

/// A new passkey: the answer to the registration challenge, and its name.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct NewPasskeyRequest {
    #[serde(default)]
    pub credential: Given<Map<String, Value>>,
    #[serde(default)]
    pub name: Given<String>,
}

impl PasskeyProofRequest {
    /// The answer, as the JSON bytes `factors::passkey` parses: 400 when there is none.
    pub fn answer(&self) -> Result<Vec<u8>, AppError> {
        answer(&self.credential)
    }

    /// The `next` sent, if it is text.
    pub fn next(&self) -> Option<&str> {
        self.next.valid().map(String::as_str)
    }
}

impl NewPasskeyRequest {
    /// The answer, as the JSON bytes `factors::passkey` parses: 400 when there is none.
    pub fn answer(&self) -> Result<Vec<u8>, AppError> {
        answer(&self.credential)
    }

    /// The name given, "Passkey" when none is (checked later by `factors::passkey_name`).
    pub fn name(&self) -> String {
        self.name
            .valid()
            .cloned()
            .unwrap_or_else(|| "Passkey".to_string())
    }
}

fn answer(credential: &Given<Map<String, Value>>) -> Result<Vec<u8>, AppError> {
    let credential = credential
        .valid()
        .ok_or_else(|| AppError::bad_request("credential must be the passkey's answer"))?;
    serde_json::to_vec(credential).map_err(AppError::internal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::lenient::{OrDefault, from_slice};

    fn read<T: serde::de::DeserializeOwned + Default>(body: &str) -> T {
        from_slice::<OrDefault<T>>(body.as_bytes()).unwrap().0
    }

    #[test]
    fn answers_need_a_credential_object() {
        let proof: PasskeyProofRequest = read(r#"{"credential": {"id": "x"}, "next": "/a"}"#);
        assert_eq!(proof.answer().unwrap(), br#"{"id":"x"}"#);
        assert_eq!(proof.next(), Some("/a"));
        let bad: PasskeyProofRequest = read(r#"{"credential": "x", "next": 5}"#);
        assert!(bad.answer().is_err());
        assert_eq!(bad.next(), None);
        assert!(read::<PasskeyProofRequest>("[1]").answer().is_err());
        let new: NewPasskeyRequest = read(r#"{"credential": {}, "name": "Laptop"}"#);
        assert_eq!((new.answer().is_ok(), new.name()), (true, "Laptop".into()));
        assert_eq!(
            read::<NewPasskeyRequest>(r#"{"name": 1}"#).name(),
            "Passkey"
        );
    }
}
