//! Recipients of documents and templates: roles, statuses, and validation of what clients send.

use serde::{Deserialize, Serialize};

use super::auth_options::{RecipientAuth, parse_recipient_auth};
use super::check::{Check, join};
use super::request::{List, RecipientInput};
use crate::identity::users::Email;
use crate::{core::lenient::Given, core::lenient::Object};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum Role {
    Signer,
    Approver,
    Viewer,
    Cc,
    /// Fills in fields for the recipients after them in a SEQUENTIAL signing order (never
    /// their signatures), then finishes; signing passes on to the next recipient.
    Assistant,
}

impl Role {
    pub const ALL: [Role; 5] = [
        Role::Signer,
        Role::Approver,
        Role::Viewer,
        Role::Cc,
        Role::Assistant,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Signer => "SIGNER",
            Role::Approver => "APPROVER",
            Role::Viewer => "VIEWER",
            Role::Cc => "CC",
            Role::Assistant => "ASSISTANT",
        }
    }
    pub fn parse(s: &str) -> Option<Role> {
        Self::ALL.into_iter().find(|r| r.as_str() == s)
    }
}

crate::sql_text_enum!(Role);

/// Whether a recipient has finished: signed (or approved, or viewed), or rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum SigningStatus {
    NotSigned,
    Signed,
    Rejected,
}

impl SigningStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            SigningStatus::NotSigned => "NOT_SIGNED",
            SigningStatus::Signed => "SIGNED",
            SigningStatus::Rejected => "REJECTED",
        }
    }
    pub fn parse(s: &str) -> Option<SigningStatus> {
        use SigningStatus::*;
        [NotSigned, Signed, Rejected]
            .into_iter()
            .find(|x| x.as_str() == s)
    }
}

crate::sql_text_enum!(SigningStatus);

/// Whether a recipient has opened their link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ReadStatus {
    NotOpened,
    Opened,
}

impl ReadStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ReadStatus::NotOpened => "NOT_OPENED",
            ReadStatus::Opened => "OPENED",
        }
    }
    pub fn parse(s: &str) -> Option<ReadStatus> {
        [ReadStatus::NotOpened, ReadStatus::Opened]
            .into_iter()
            .find(|x| x.as_str() == s)
    }
}

crate::sql_text_enum!(ReadStatus);

/// Whether a recipient's signing request has reached them: e-mailed, or their link opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum SendStatus {
    NotSent,
    Sent,
}

impl SendStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            SendStatus::NotSent => "NOT_SENT",
            SendStatus::Sent => "SENT",
        }
    }
    pub fn parse(s: &str) -> Option<SendStatus> {
        [SendStatus::NotSent, SendStatus::Sent]
            .into_iter()
            .find(|x| x.as_str() == s)
    }
}

crate::sql_text_enum!(SendStatus);

/// A recipient as a client describes it, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct NewRecipient {
    pub email: String,
    pub name: String,
    pub role: Role,
    pub signing_order: Option<i64>,
    pub auth: RecipientAuth,
}

/// The message for a role that names none.
fn role_message() -> String {
    let names: Vec<&str> = Role::ALL.iter().map(|r| r.as_str()).collect();
    let (last, rest) = names.split_last().expect("roles");
    format!("must be {} or {last}", rest.join(", "))
}

/// Checks one recipient at `path` (`None` when it has a problem, each recorded in `c`).
pub fn parse_recipient(c: &mut Check, raw: &RecipientInput, path: &str) -> Option<NewRecipient> {
    let before = c.error_count();
    let email = match raw.email.valid() {
        Some(e) => match Email::check(e) {
            Ok(e) => Some(e.as_str().to_string()),
            Err(why) => {
                c.fail(
                    join(path, "email"),
                    format!("{e:?} is not a valid e-mail address ({why})"),
                );
                None
            }
        },
        None => {
            c.fail(join(path, "email"), "required: an e-mail address");
            None
        }
    };
    let name = c
        .text(&raw.name, &join(path, "name"), 200)
        .unwrap_or_default();
    let role = match &raw.role {
        Given::Absent | Given::Null => Some(Role::Signer),
        Given::Valid(role) => Some(*role),
        Given::Invalid(_) => {
            c.fail(join(path, "role"), role_message());
            None
        }
    };
    let signing_order = c.whole(&raw.signing_order, &join(path, "signingOrder"), 0..=10_000);
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

/// A new signing token: 32 base62 characters (about 190 bits), URL-safe.
pub fn new_token() -> String {
    crate::core::crypto::random_base62(32)
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
}
