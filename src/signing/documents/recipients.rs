//! Recipients of documents and templates: roles, statuses, and the rules a recipient follows
//! (read from the wire by `http::api::wire::documents::recipients`).

use serde::{Deserialize, Serialize};

use super::auth_options::RecipientAuth;
use crate::identity::users::Email;

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

/// At most this many characters in a recipient's name.
pub const MAX_NAME: usize = 200;

/// The signing orders a recipient may have.
pub const SIGNING_ORDERS: std::ops::RangeInclusive<i64> = 0..=10_000;

/// The message for a role that names none.
pub fn role_message() -> String {
    let names: Vec<&str> = Role::ALL.iter().map(|r| r.as_str()).collect();
    let (last, rest) = names.split_last().expect("roles");
    format!("must be {} or {last}", rest.join(", "))
}

/// A recipient's address as stored (checked and lowercased), or the message saying why `raw`
/// is none.
pub fn email(raw: &str) -> Result<String, String> {
    Email::check(raw)
        .map(|e| e.as_str().to_string())
        .map_err(|why| format!("{raw:?} is not a valid e-mail address ({why})"))
}

/// A new signing token: 32 base62 characters (about 190 bits), URL-safe.
pub fn new_token() -> String {
    crate::core::crypto::random_base62(32)
}
