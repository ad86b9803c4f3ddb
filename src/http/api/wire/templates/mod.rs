//! The template API's bodies as types, turned into the templates' commands: a new template,
//! the direct link's settings, and a document to make from a template (`generate-document`, and `create-document`
//! that names the template's recipients by position).

pub mod create;
pub mod create_document;
pub mod direct_link;
pub mod generate;
pub mod prefill;
