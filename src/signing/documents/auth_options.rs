//! Authentication options of a document, a template and a recipient (`authOptions`): the
//! methods each level may ask for, their checks and stored JSON, and the tier they need.

use serde::{Deserialize, Serialize};

use super::check::{Check, join};
use super::request::{AuthOptionsInput, Methods as Sent, RecipientAuthInput};
use crate::core::error::AppError;
use crate::identity::users::Tier;
use crate::{core::lenient::Given, core::lenient::Object};

/// The action authentication a recipient needs, and what they proved when they finished
/// (`recipients.auth_method`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ActionAuth {
    #[serde(rename = "ACCOUNT")]
    Account,
    #[serde(rename = "TWO_FACTOR_AUTH")]
    TwoFactor,
    #[serde(rename = "PASSKEY")]
    Passkey,
    /// The recipient's account password, typed again on the signing page.
    #[serde(rename = "PASSWORD")]
    Password,
}

impl ActionAuth {
    pub const ALL: [ActionAuth; 4] = [
        ActionAuth::Account,
        ActionAuth::TwoFactor,
        ActionAuth::Passkey,
        ActionAuth::Password,
    ];

    pub fn parse(s: &str) -> Option<ActionAuth> {
        Self::ALL.into_iter().find(|a| a.as_str() == s)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ActionAuth::Account => "ACCOUNT",
            ActionAuth::TwoFactor => "TWO_FACTOR_AUTH",
            ActionAuth::Passkey => "PASSKEY",
            ActionAuth::Password => "PASSWORD",
        }
    }
}

crate::sql_text_enum!(ActionAuth);

/// A recipient's `actionAuth` that waives the document's `globalActionAuth` for them.
pub const EXPLICIT_NONE: &str = "EXPLICIT_NONE";

/// Authentication methods as the signing service's API v1 gives and shows them: a list (any
/// one of several action methods will do). Requests may give one value, an array, or null;
/// stored JSON from before lists were allowed holds one string or null, read the same way.
pub type Methods = Vec<String>;

mod methods {
    use serde::{Deserialize, Deserializer};

    /// One string, null or a list of strings.
    pub fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Stored {
            One(String),
            Many(Vec<String>),
        }
        Ok(match Option::<Stored>::deserialize(d)? {
            None => Vec::new(),
            Some(Stored::One(s)) => vec![s],
            Some(Stored::Many(v)) => v,
        })
    }
}

/// Document-level authentication options: how every recipient authenticates.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = DocumentAuthOptions)]
pub struct AuthOptions {
    #[serde(default, deserialize_with = "methods::read")]
    pub global_access_auth: Methods,
    #[serde(default, deserialize_with = "methods::read")]
    pub global_action_auth: Methods,
}

impl AuthOptions {
    pub fn is_empty(&self) -> bool {
        self.global_access_auth.is_empty() && self.global_action_auth.is_empty()
    }
}

/// TWO_FACTOR_AUTH access leaves reading open and asks for a current TOTP code of the
/// recipient's account at finishing (`signing::auth::Requirement::of`).
pub const ACCESS_AUTH: &[&str] = &["ACCOUNT", "TWO_FACTOR_AUTH"];
pub const ACTION_AUTH: &[&str] = &["ACCOUNT", "PASSKEY", "TWO_FACTOR_AUTH", "PASSWORD"];
pub const RECIPIENT_ACTION_AUTH: &[&str] = &[
    "ACCOUNT",
    "PASSKEY",
    "TWO_FACTOR_AUTH",
    "PASSWORD",
    EXPLICIT_NONE,
];

/// Methods as sent at `path`: one of `allowed`, a list of them (repeats dropped), or null
/// (none). `EXPLICIT_NONE` stands alone.
fn methods(c: &mut Check, given: &Sent, path: &str, allowed: &[&str]) -> Vec<String> {
    let message = format!(
        "must be one of {}, a list of them, or null",
        allowed.join(", ")
    );
    let Some(list) = c.given(given, path, &message) else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for s in &list.0 {
        if !allowed.contains(&s.as_str()) {
            c.fail(path, message);
            return Vec::new();
        }
        if !out.contains(s) {
            out.push(s.clone());
        }
    }
    if out.len() > 1 && out.iter().any(|m| m == EXPLICIT_NONE) {
        c.fail(
            path,
            format!("{EXPLICIT_NONE} cannot be combined with other methods"),
        );
        return Vec::new();
    }
    out
}

/// A document's `authOptions`: `globalAccessAuth` and `globalActionAuth`, each one value, a
/// list or null.
pub fn parse_auth_options(c: &mut Check, raw: &Given<Object<AuthOptionsInput>>) -> AuthOptions {
    if raw.is_absent() {
        return AuthOptions::default();
    }
    match c.given(raw, "authOptions", "must be an object") {
        Some(Object(raw)) => parse_global_auth(c, raw, "authOptions"),
        None => AuthOptions::default(),
    }
}

/// `globalAccessAuth` and `globalActionAuth` at `path` (an `authOptions` object, or a template
/// body, where the signing service's newer schema puts them at the top level).
pub fn parse_global_auth(c: &mut Check, raw: &AuthOptionsInput, path: &str) -> AuthOptions {
    AuthOptions {
        global_access_auth: methods(
            c,
            &raw.global_access_auth,
            &join(path, "globalAccessAuth"),
            ACCESS_AUTH,
        ),
        global_action_auth: methods(
            c,
            &raw.global_action_auth,
            &join(path, "globalActionAuth"),
            ACTION_AUTH,
        ),
    }
}

/// A recipient's options: `accessAuth` (ACCOUNT) and `actionAuth`: how the recipient
/// authenticates.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = RecipientAuthOptions)]
pub struct RecipientAuth {
    #[serde(default, deserialize_with = "methods::read")]
    pub access_auth: Methods,
    #[serde(default, deserialize_with = "methods::read")]
    pub action_auth: Methods,
}

impl RecipientAuth {
    pub fn is_empty(&self) -> bool {
        self.access_auth.is_empty() && self.action_auth.is_empty()
    }
}

pub fn parse_recipient_auth(
    c: &mut Check,
    raw: &Given<Object<RecipientAuthInput>>,
    path: &str,
) -> RecipientAuth {
    if raw.is_absent() {
        return RecipientAuth::default();
    }
    let Some(Object(raw)) = c.given(raw, path, "must be an object") else {
        return RecipientAuth::default();
    };
    RecipientAuth {
        access_auth: methods(c, &raw.access_auth, &join(path, "accessAuth"), ACCESS_AUTH),
        action_auth: methods(
            c,
            &raw.action_auth,
            &join(path, "actionAuth"),
            RECIPIENT_ACTION_AUTH,
        ),
    }
}

/// 403 unless the account may use action authentication (enterprise tier).
pub fn require_tier(tier: Tier, what: &str) -> Result<(), AppError> {
    if tier == Tier::Enterprise {
        Ok(())
    } else {
        Err(AppError::Forbidden(format!(
            "{what} is available only to enterprise-tier accounts"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn g<T: serde::de::DeserializeOwned>(v: Value) -> Given<T> {
        crate::core::lenient::member(&json!({ "v": v }), "v")
    }

    #[test]
    fn auth_options_and_tiers() {
        let mut c = Check::new();
        let a = parse_auth_options(
            &mut c,
            &g(json!({"globalAccessAuth": null, "globalActionAuth": "PASSKEY"})),
        );
        assert!(c.is_ok());
        assert_eq!(a.global_action_auth, vec!["PASSKEY"]);
        assert!(a.global_access_auth.is_empty());
        let mut c = Check::new();
        parse_auth_options(&mut c, &g(json!({"globalActionAuth": "SMS"})));
        assert!(!c.is_ok());
        assert!(require_tier(Tier::Standard, "x").is_err());
        assert!(require_tier(Tier::Enterprise, "x").is_ok());
    }

    #[test]
    fn auth_methods_come_as_one_or_a_list_and_are_stored_as_lists() {
        let mut c = Check::new();
        let a = parse_auth_options(
            &mut c,
            &g(json!({"globalAccessAuth": ["ACCOUNT"],
                         "globalActionAuth": ["PASSWORD", "PASSKEY", "PASSWORD"]})),
        );
        assert!(c.is_ok());
        assert_eq!(a.global_action_auth, vec!["PASSWORD", "PASSKEY"]);
        assert_eq!(
            serde_json::to_value(&a).unwrap(),
            json!({"globalAccessAuth": ["ACCOUNT"], "globalActionAuth": ["PASSWORD", "PASSKEY"]})
        );
        let r = parse_recipient_auth(
            &mut c,
            &g(json!({"actionAuth": ["EXPLICIT_NONE"]})),
            "authOptions",
        );
        assert!(c.is_ok());
        assert_eq!(r.action_auth, vec![EXPLICIT_NONE]);
        for bad in [
            json!({"actionAuth": ["EXPLICIT_NONE", "ACCOUNT"]}),
            json!({"actionAuth": [1]}),
            json!({"accessAuth": ["PASSKEY"]}),
        ] {
            let mut c = Check::new();
            parse_recipient_auth(&mut c, &g(bad.clone()), "authOptions");
            assert!(!c.is_ok(), "{bad}");
        }
        // What older rows hold reads as lists too.
        let old: RecipientAuth =
            serde_json::from_str(r#"{"accessAuth":null,"actionAuth":"PASSKEY"}"#).unwrap();
        assert_eq!(
            (old.access_auth.len(), old.action_auth),
            (0, vec!["PASSKEY".to_string()])
        );
        let old: AuthOptions = serde_json::from_str("{}").unwrap();
        assert!(old.is_empty());
    }
}
