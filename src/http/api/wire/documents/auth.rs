//! `authOptions` as sent, of a document (or a template) and of a recipient: one method, a list
//! of them, or null each, turned into the stored options by `auth_options`' rules.

use serde::Deserialize;
use utoipa::ToSchema;

use crate::core::lenient::{Given, Object, OneOrMany};
use crate::signing::documents::auth_options::{
    ACCESS_AUTH, ACTION_AUTH, AuthOptions, RECIPIENT_ACTION_AUTH, RecipientAuth, check_methods,
    methods_message,
};
use crate::signing::documents::check::{Check, join};

/// Authentication methods as sent: one, a list of them, or null.
pub type Methods = Given<OneOrMany<String>>;

/// A recipient's own authentication, over the document's.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecipientAuthInput {
    #[serde(default)]
    #[schema(schema_with = access_methods_schema)]
    pub access_auth: Methods,
    #[serde(default)]
    #[schema(schema_with = recipient_action_methods_schema)]
    pub action_auth: Methods,
}

/// A document's authentication options: `globalAccessAuth` and `globalActionAuth`.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = AuthOptions)]
pub struct AuthOptionsInput {
    #[serde(default)]
    #[schema(schema_with = access_methods_schema)]
    pub global_access_auth: Methods,
    #[serde(default)]
    #[schema(schema_with = action_methods_schema)]
    pub global_action_auth: Methods,
}

/// Methods as sent at `path`, by `check_methods` against `allowed` (none when they break it,
/// the problem recorded in `c`).
fn methods(c: &mut Check, given: &Methods, path: &str, allowed: &[&str]) -> Vec<String> {
    let Some(list) = c.given(given, path, &methods_message(allowed)) else {
        return Vec::new();
    };
    check_methods(&list.0, allowed).unwrap_or_else(|why| {
        c.fail(path, why);
        Vec::new()
    })
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

/// A recipient's `authOptions` at `path`: `accessAuth` and `actionAuth`.
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

fn methods_schema(allowed: Vec<&'static str>) -> utoipa::openapi::schema::Schema {
    use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, OneOfBuilder, Type};
    let one = || {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(allowed.clone()))
    };
    OneOfBuilder::new()
        .item(one())
        .item(ArrayBuilder::new().items(one()))
        .item(ObjectBuilder::new().schema_type(Type::Null))
        .description(Some(
            "One method, a list of them (any one will do), or null",
        ))
        .into()
}

pub fn access_methods_schema() -> utoipa::openapi::schema::Schema {
    methods_schema(ACCESS_AUTH.to_vec())
}

pub fn action_methods_schema() -> utoipa::openapi::schema::Schema {
    methods_schema(ACTION_AUTH.to_vec())
}

fn recipient_action_methods_schema() -> utoipa::openapi::schema::Schema {
    methods_schema(RECIPIENT_ACTION_AUTH.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signing::documents::auth_options::EXPLICIT_NONE;
    use serde_json::{Value, json};

    fn g<T: serde::de::DeserializeOwned>(v: Value) -> Given<T> {
        crate::core::lenient::member(&json!({ "v": v }), "v")
    }

    #[test]
    fn auth_options_are_read_or_refused() {
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
    }
}
