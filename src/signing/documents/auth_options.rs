//! Authentication options of a document, a template and a recipient (`authOptions`): the
//! methods each level may ask for, their checks and stored JSON, and the tier they need.

use serde::{Deserialize, Serialize};

use crate::core::error::AppError;
use crate::identity::users::Tier;

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

/// What a list of methods that breaks the rules is told: one of `allowed`, a list of them, or
/// null.
pub fn methods_message(allowed: &[&str]) -> String {
    format!(
        "must be one of {}, a list of them, or null",
        allowed.join(", ")
    )
}

/// The methods `sent`, each one of `allowed`, repeats dropped; `EXPLICIT_NONE` stands alone.
/// Err: the message saying what is wrong.
pub fn check_methods(sent: &[String], allowed: &[&str]) -> Result<Methods, String> {
    let mut out: Vec<String> = Vec::new();
    for s in sent {
        if !allowed.contains(&s.as_str()) {
            return Err(methods_message(allowed));
        }
        if !out.contains(s) {
            out.push(s.clone());
        }
    }
    if out.len() > 1 && out.iter().any(|m| m == EXPLICIT_NONE) {
        return Err(format!(
            "{EXPLICIT_NONE} cannot be combined with other methods"
        ));
    }
    Ok(out)
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

    #[test]
    fn action_auth_needs_the_enterprise_tier() {
        assert!(require_tier(Tier::Standard, "x").is_err());
        assert!(require_tier(Tier::Enterprise, "x").is_ok());
    }

    #[test]
    fn methods_are_allowed_ones_without_repeats_and_explicit_none_alone() {
        let sent = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            check_methods(&sent(&["PASSWORD", "PASSKEY", "PASSWORD"]), ACTION_AUTH).unwrap(),
            ["PASSWORD", "PASSKEY"]
        );
        assert_eq!(
            check_methods(&sent(&["SMS"]), ACTION_AUTH).unwrap_err(),
            methods_message(ACTION_AUTH)
        );
        assert!(check_methods(&sent(&[EXPLICIT_NONE, "ACCOUNT"]), RECIPIENT_ACTION_AUTH).is_err());
        assert!(check_methods(&sent(&[EXPLICIT_NONE]), RECIPIENT_ACTION_AUTH).is_ok());
    }

    #[test]
    fn stored_methods_read_as_lists() {
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
