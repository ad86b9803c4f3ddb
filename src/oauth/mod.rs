//! The OAuth 2 provider's domain: scopes and registered clients.

pub mod authorize;
pub mod basic;
pub mod clients;
pub mod principal;
pub mod scope;
pub mod tokens;
