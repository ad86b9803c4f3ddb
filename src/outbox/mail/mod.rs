//! Outgoing mail: messages queued in `mail_queue` inside the
//! transaction of what they report (`store::enqueue`), composed by `compose`, and sent by the
//! `worker` through SMTP (`smtp`) or filed in the outbox when no SMTP server is configured.
//! The administrator's use cases on the queue are in `manage`; `prune` removes one-time links
//! from what has left and deletes old messages.

pub mod compose;
pub mod compose_account;
pub mod compose_team;
pub mod manage;
pub mod prune;
pub mod smtp;
pub mod store;
pub mod worker;

#[cfg(test)]
mod bodies_test;

use crate::core::ids::{DocumentId, RecipientId};
use serde::Serialize;

/// Why a message is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Kind {
    SigningRequest,
    Completed,
    Rejected,
    Cancelled,
    /// To the owner, once, when sealing a finished document first fails.
    SealFailed,
    /// A link to create an account, for a recipient whose document asks for one.
    AccountInvite,
    /// A six-digit code a recipient asked for to finish (TWO_FACTOR_AUTH by e-mail).
    EmailedCode,
    /// To an account, when how it signs in changed (a second factor added, replaced or removed).
    SecurityNotice,
    /// A one-time link to choose a new password ("Forgot password?").
    PasswordReset,
    /// A one-time link, to a new address, that makes it the account's e-mail.
    EmailChange,
    /// To the owner, when a visitor of a template's direct link has signed the document it made.
    DirectLinkSigned,
    /// An invitation to join a team (a one-time link).
    TeamInvitation,
    /// To a person an administrator added to a team.
    TeamAdded,
    /// To a person an administrator removed from a team.
    TeamRemoved,
    /// To the owner, once, when a recipient's time to act passed before they finished.
    RecipientExpired,
    Test,
}

impl Kind {
    pub const ALL: [Kind; 16] = [
        Kind::SigningRequest,
        Kind::Completed,
        Kind::Rejected,
        Kind::Cancelled,
        Kind::SealFailed,
        Kind::AccountInvite,
        Kind::EmailedCode,
        Kind::SecurityNotice,
        Kind::PasswordReset,
        Kind::EmailChange,
        Kind::DirectLinkSigned,
        Kind::TeamInvitation,
        Kind::TeamAdded,
        Kind::TeamRemoved,
        Kind::RecipientExpired,
        Kind::Test,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::SigningRequest => "SIGNING_REQUEST",
            Kind::Completed => "COMPLETED",
            Kind::Rejected => "REJECTED",
            Kind::Cancelled => "CANCELLED",
            Kind::SealFailed => "SEAL_FAILED",
            Kind::AccountInvite => "ACCOUNT_INVITE",
            Kind::EmailedCode => "EMAILED_CODE",
            Kind::SecurityNotice => "SECURITY_NOTICE",
            Kind::PasswordReset => "PASSWORD_RESET",
            Kind::EmailChange => "EMAIL_CHANGE",
            Kind::DirectLinkSigned => "DIRECT_LINK_SIGNED",
            Kind::TeamInvitation => "TEAM_INVITATION",
            Kind::TeamAdded => "TEAM_ADDED",
            Kind::TeamRemoved => "TEAM_REMOVED",
            Kind::RecipientExpired => "RECIPIENT_EXPIRED",
            Kind::Test => "TEST",
        }
    }

    pub fn parse(s: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

crate::sql_text_enum!(Kind);

/// Where a queued message is: waiting (`QUEUED`), handed to the SMTP server (`SENT`), filed in
/// the outbox because none is configured (`OUTBOX`), or given up on (`FAILED`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Status {
    Queued,
    Sent,
    Outbox,
    Failed,
}

impl Status {
    pub const ALL: [Status; 4] = [Status::Queued, Status::Sent, Status::Outbox, Status::Failed];

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Queued => "QUEUED",
            Status::Sent => "SENT",
            Status::Outbox => "OUTBOX",
            Status::Failed => "FAILED",
        }
    }

    pub fn parse(s: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|x| x.as_str() == s)
    }
}

crate::sql_text_enum!(Status);

/// A message to queue.
#[derive(Debug, Clone)]
pub struct NewMail {
    pub document_id: Option<DocumentId>,
    /// For a signing request: the recipient whose `sendStatus` becomes SENT once it is sent.
    pub recipient_id: Option<RecipientId>,
    pub kind: Kind,
    pub to: String,
    pub subject: String,
    pub text: String,
    pub html: String,
    /// A blob id and the file name it is attached under (e.g. the sealed PDF).
    pub attachment: Option<(String, String)>,
    /// When the body holds a one-time link (a password reset, an e-mail change, an account
    /// or team invitation), the time it stops working. The database keeps such links only as hashes,
    /// so the body is the one whole copy: it is removed once the message is sent or given up,
    /// and from a message filed in the outbox once the link has expired (`store::scrub`).
    pub link_until: Option<i64>,
}

impl NewMail {
    /// A message of `kind` to `to` with the composed `content`, tied to nothing.
    pub fn new(kind: Kind, to: impl Into<String>, content: compose::Composed) -> NewMail {
        NewMail {
            document_id: None,
            recipient_id: None,
            kind,
            to: to.into(),
            subject: content.subject,
            text: content.text,
            html: content.html,
            attachment: None,
            link_until: None,
        }
    }

    /// The same message, marked as holding a one-time link that works until `until`.
    pub fn with_one_time_link(mut self, until: i64) -> NewMail {
        self.link_until = Some(until);
        self
    }
}
