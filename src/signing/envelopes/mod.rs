//! The signing service's API v2 view of docket's documents and templates: an *envelope* of
//! type DOCUMENT is a document, one of type TEMPLATE a template (decision 0127). This module
//! reads them through the same stores and ownership rule as v1 and the web application and
//! shapes them as the peer's v2 models declare (every key its clients require, nullable keys
//! present as null, only enum values the clients know). It knows nothing of HTTP.
//!
//! - `reads`: the read use cases (get, get-many, find, the audit log).
//! - `meta`, `people`: a document's meta, recipients and fields in v2 shape.
//! - `envelope`, `legacy`: the envelope shapes and the legacy document/template shapes.
//! - `audit_log`: docket's audit events as the peer's audit-log entries.
//! - `folders`, `attachments`: the folder and attachment operations over the use cases of
//!   `signing::folders` and `signing::attachments`.

pub mod attachments;
pub mod audit_log;
pub mod changes;
pub mod envelope;
pub mod folders;
pub mod legacy;
pub mod meta;
pub mod people;
pub mod reads;
pub mod uses;

use serde::Serialize;

use crate::core::timefmt::iso8601_millis;

/// Who reads an answer, as far as its enums go: the peer's generated clients validate every
/// answer against closed enums, and the Python client (`documenso-sdk` 0.6) knows fewer
/// values than the TypeScript one (0.9): no `CANCELLED` status, no `ORGANISATION` template
/// type, nine audit event types fewer. A client that names itself the Python client gets the
/// nearest value it knows; every other client gets docket's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Reader {
    /// `user-agent: speakeasy-sdk/python ...`.
    PythonSdk,
    #[default]
    Other,
}

impl Reader {
    /// The reader a request's `user-agent` names.
    pub fn from_user_agent(ua: Option<&str>) -> Reader {
        match ua {
            Some(ua) if ua.starts_with("speakeasy-sdk/python") => Reader::PythonSdk,
            _ => Reader::Other,
        }
    }

    /// Whether it knows the statuses, types and events only the newer clients know.
    pub fn knows_newer_values(self) -> bool {
        self == Reader::Other
    }
}

/// A time as the peer writes it: RFC 3339 in UTC with milliseconds (as folders are shown too).
pub fn time(ts: i64) -> String {
    iso8601_millis(ts)
}

pub use crate::core::page::Page;

/// `{data: [...]}`, the get-many answers.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct Many<T> {
    pub data: Vec<T>,
}
