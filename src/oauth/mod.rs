//! The OAuth 2 provider's domain: scopes, registered clients, the authorization request and
//! its consent, the token endpoints' use cases, and the principal behind a credential.

pub mod account;
pub mod answers;
pub mod authorize;
pub mod basic;
pub mod bearer;
pub mod clients;
pub mod consent;
pub mod identity;
pub mod login_mark;
pub mod oidc;
pub mod prompt;
pub mod token_endpoint;
pub mod tokens;
pub mod verified;
