//! What a person does to their own account, and an admin to anyone's, across the user record,
//! second factors and sessions: changing factors after confirming who they are; the name, the
//! password and the e-mail (`profile`), a forgotten password (`recovery`) and the one-time links
//! both mail (`links`); creating, disabling and resetting accounts.

pub mod access;
pub mod admin;
pub mod factors;
pub mod links;
pub mod profile;
pub mod recovery;
