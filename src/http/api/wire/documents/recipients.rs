//! A recipient as sent, to a document or a template (`POST .../recipients`, `PATCH
//! .../recipients/{id}`, and the `recipients` of a new one), turned into the checked
//! `NewRecipient` and the draft's `RecipientCommand` by `recipients`' rules.

use serde::Deserialize;
use utoipa::ToSchema;

use super::List;
use super::auth::{RecipientAuthInput, parse_recipient_auth};
use crate::core::error::AppError;
use crate::core::lenient::{Given, Object, OneOrMany};
use crate::signing::documents::check::{Against, Check, join};
use crate::signing::documents::drafts::{RecipientCommand, RecipientSlot};
use crate::signing::documents::recipients::{self, MAX_NAME, NewRecipient, Role, SIGNING_ORDERS};

/// A recipient: added to a document or a template, or changed (PATCH: what is left out keeps
/// its value).
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(example = json!({"name": "Ann", "email": "ann@example.com", "role": "SIGNER"}))]
pub struct RecipientInput {
    #[serde(default)]
    #[schema(value_type = String, format = Email, max_length = 254)]
    pub email: Given<String>,
    #[serde(default)]
    #[schema(value_type = Option<String>, max_length = 200)]
    pub name: Given<String>,
    #[serde(default)]
    /// SIGNER when left out.
    #[schema(value_type = Option<Role>)]
    pub role: Given<Role>,
    #[serde(default)]
    #[schema(value_type = Option<i64>, minimum = 0, maximum = 10000)]
    pub signing_order: Given<i64>,
    #[serde(default)]
    #[schema(value_type = Option<RecipientAuthInput>)]
    pub auth_options: Given<Object<RecipientAuthInput>>,
}

impl RecipientInput {
    /// One recipient: 400 listing every problem.
    pub fn validate(&self) -> Result<NewRecipient, AppError> {
        let mut c = Check::new();
        let r = parse_recipient(&mut c, self, "");
        c.finish(r)?
            .ok_or_else(|| AppError::bad_request("invalid recipient"))
    }

    /// This PATCH's members checked as far as they go alone (the e-mail may be left out):
    /// 400 listing every problem. The use case checks the patched recipient again.
    pub fn validate_patch(&self) -> Result<(), AppError> {
        let mut whole = self.clone();
        if matches!(whole.email, Given::Absent) {
            whole.email = Given::Valid("kept@example.com".into());
        }
        whole.validate().map(drop)
    }

    /// The command to add this recipient: checked alone, or, when it has no e-mail and the
    /// draft gives such a recipient a placeholder address (a template), with that address.
    pub fn add(self) -> RecipientCommand {
        Against::new(move |slot: &RecipientSlot| match &slot.placeholder {
            Some(p) if self.email.is_absent() => RecipientInput {
                email: Given::Valid(p.clone()),
                ..self
            }
            .validate(),
            _ => self.validate(),
        })
    }

    /// The command to change a recipient: this PATCH laid over it, an `email` of `null` its
    /// placeholder address where the draft has one (a template), checked as a whole.
    pub fn patch(mut self) -> RecipientCommand {
        Against::new(move |slot: &RecipientSlot| {
            if let (Given::Null, Some(p)) = (&self.email, &slot.placeholder) {
                self.email = Given::Valid(p.clone());
            }
            match &slot.current {
                Some(current) => self.over(current).validate(),
                None => self.validate(),
            }
        })
    }

    /// This PATCH laid over `current`: members left out keep its values.
    pub fn over(self, current: &NewRecipient) -> RecipientInput {
        let auth = RecipientAuthInput {
            access_auth: Given::Valid(OneOrMany(current.auth.access_auth.clone())),
            action_auth: Given::Valid(OneOrMany(current.auth.action_auth.clone())),
        };
        RecipientInput {
            email: self.email.or(Given::Valid(current.email.clone())),
            name: self.name.or(Given::Valid(current.name.clone())),
            role: self.role.or(Given::Valid(current.role)),
            signing_order: self
                .signing_order
                .or(current.signing_order.map_or(Given::Null, Given::Valid)),
            auth_options: self.auth_options.or(Given::Valid(Object(auth))),
        }
    }
}

/// Checks one recipient at `path` (`None` when it has a problem, each recorded in `c`).
pub fn parse_recipient(c: &mut Check, raw: &RecipientInput, path: &str) -> Option<NewRecipient> {
    let before = c.error_count();
    let email = match raw.email.valid() {
        Some(e) => recipients::email(e)
            .map_err(|why| c.fail(join(path, "email"), why))
            .ok(),
        None => {
            c.fail(join(path, "email"), "required: an e-mail address");
            None
        }
    };
    let name = c
        .text(&raw.name, &join(path, "name"), MAX_NAME)
        .unwrap_or_default();
    let role = match &raw.role {
        Given::Absent | Given::Null => Some(Role::Signer),
        Given::Valid(role) => Some(*role),
        Given::Invalid(_) => {
            c.fail(join(path, "role"), recipients::role_message());
            None
        }
    };
    let signing_order = c.whole(
        &raw.signing_order,
        &join(path, "signingOrder"),
        SIGNING_ORDERS,
    );
    let auth = parse_recipient_auth(c, &raw.auth_options, &join(path, "authOptions"));
    if c.error_count() != before {
        return None;
    }
    Some(NewRecipient {
        email: email?,
        name,
        role: role?,
        signing_order,
        auth,
    })
}

/// Checks a non-empty list of recipients; the same e-mail twice is an error.
pub fn parse_recipients(
    c: &mut Check,
    raw: &List<RecipientInput>,
    path: &str,
    max: usize,
) -> Vec<NewRecipient> {
    let Some(list) = raw.valid() else {
        c.fail(path, "required: an array of recipients");
        return Vec::new();
    };
    if list.len() > max {
        c.fail(path, format!("at most {max} recipients"));
        return Vec::new();
    }
    let mut out: Vec<NewRecipient> = Vec::new();
    for (i, r) in list.iter().enumerate() {
        let p = format!("{path}[{i}]");
        let Some(Object(r)) = c.given(r, &p, "must be an object") else {
            if r.is_absent() {
                c.fail(&p, "must be an object");
            }
            continue;
        };
        if let Some(rec) = parse_recipient(c, r, &p) {
            if out.iter().any(|o| o.email == rec.email) {
                c.fail(format!("{p}.email"), "the same e-mail appears twice");
            } else {
                out.push(rec);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::lenient::from_slice;

    #[test]
    fn recipients_default_to_signers_and_reject_duplicates() {
        let mut c = Check::new();
        let list = parse_recipients(
            &mut c,
            &from_slice(
                br#"[{"email": "A@x.org", "name": "A"}, {"email": "a@x.org", "role": "CC"}, {"email": "b@x.org", "role": "CC", "signingOrder": 1}]"#,
            )
            .unwrap(),
            "recipients",
            100,
        );
        let err = c.finish(()).unwrap_err();
        assert_eq!(err.details()[0].path, "recipients[1].email");
        assert_eq!(list.len(), 2);
        assert_eq!(list[0].role, Role::Signer);
        assert_eq!(list[1].signing_order, Some(1));
    }

    #[test]
    fn bad_fields_are_named() {
        let mut c = Check::new();
        parse_recipient(
            &mut c,
            &from_slice(br#"{"email": "nope", "role": "BOSS", "signingOrder": -1}"#).unwrap(),
            "r",
        );
        let err = c.finish(()).unwrap_err();
        let paths: Vec<&str> = err.details().iter().map(|d| d.path.as_str()).collect();
        assert_eq!(paths, ["r.email", "r.role", "r.signingOrder"]);
    }

    #[test]
    fn a_patch_keeps_what_it_leaves_out_and_clears_what_it_nulls() {
        let current = NewRecipient {
            email: "a@x.org".into(),
            name: "Ann".into(),
            role: Role::Approver,
            signing_order: Some(2),
            auth: Default::default(),
        };
        let patch: RecipientInput =
            from_slice(br#"{"name": "Bea", "signingOrder": null}"#).unwrap();
        let r = patch.over(&current).validate().unwrap();
        assert_eq!(
            (r.name.as_str(), r.role, r.signing_order),
            ("Bea", Role::Approver, None)
        );
        assert_eq!(r.email, "a@x.org");
    }
}
