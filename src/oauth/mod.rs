//! The OAuth 2 provider's domain: scopes and registered clients.

pub mod clients;
pub mod scope;
