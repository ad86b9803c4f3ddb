//! What a person does to their own account, and an admin to anyone's, across the user record,
//! second factors and sessions: changing factors after confirming who they are; creating,
//! disabling and resetting accounts.

pub mod admin;
pub mod factors;
