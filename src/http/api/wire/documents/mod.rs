//! The document API's bodies as types, turned into the documents' commands: a new document
//! (`create`), a recipient (`recipients`), `meta`, `attachments` and `authOptions` (`auth`), a
//! draft's settings (`settings`). Templates read the same recipient, meta and auth shapes.

pub mod attachments;
pub mod auth;
pub mod create;
pub mod meta;
pub mod recipients;
pub mod settings;

use crate::core::lenient::{Given, Object};

/// A list of members that are each read on their own.
pub type List<T> = Given<Vec<Given<Object<T>>>>;
