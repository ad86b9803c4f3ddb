//! The signing ring: PDF handling (inspection, rendering, sealing), documents with their
//! recipients and fields, templates, and the workflow that sends a document, lets recipients
//! sign through their links and seals the result. Uses `core`, `outbox`, `identity` and `oauth`.

pub mod attachments;
pub mod bulk;
pub mod documents;
pub mod envelope_ids;
pub mod envelopes;
pub mod folders;
pub mod pdf;
pub mod templates;
pub mod uploads;
pub mod workflow;
pub mod workspaces;
