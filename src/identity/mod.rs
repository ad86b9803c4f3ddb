//! The identity ring: accounts, their passwords and second factors, browser sessions, API keys,
//! and the principal a request acts as with its scopes. Uses `core` and `outbox`. Its modules,
//! lowest first (each uses only those before it; `tests/rings.rs` checks):

/// What a credential may do.
pub mod scope;

/// Accounts: the record, e-mail, password hashing and the bound on password checks.
pub mod users;

/// Counting failed attempts per account and per address.
pub mod throttle;

/// Second factors: authenticator apps, recovery codes, passkeys.
pub mod factors;

/// Browser sessions: login, the second step, confirmation, CSRF.
pub mod sessions;

/// Use cases across the above: factor changes, the admin's account commands.
pub mod accounts;

/// API keys.
pub mod apikeys;

/// Who a request acts for.
pub mod principal;
