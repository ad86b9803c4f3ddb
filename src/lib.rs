//! Docket: a self-hosted OAuth 2 provider and document-signing appliance in one binary.
//!
//! The modules form rings that import one way, listed here from the lowest: a module may use
//! those before it in this list and never those after (`tests/rings.rs` fails otherwise). The
//! HTTP layer is thin: it authenticates, parses a typed request, calls one use case and
//! replies; the rings below it know nothing of warp and keep their SQL in their own `store.rs`.
//! See docs/develop/architecture.md, "Layout".

#![recursion_limit = "512"]

/// Storage, errors, cryptography, secrets, time, retries, embedded assets.
pub mod core;

/// Mail and webhook deliveries queued by the domain, and their workers.
pub mod outbox;

/// Accounts, second factors, sessions, API keys, the principal of a request.
pub mod identity;

/// The OAuth 2 / OpenID Connect provider.
pub mod oauth;

/// The scheduling service's bookings that apps read.
pub mod bookings;

/// Teams: their members and roles, who sees and may do what in a team.
pub mod teams;

/// PDFs, documents, templates, and the signing workflow.
pub mod signing;

/// Webhook endpoints and the Zapier apps' subscriptions: how apps subscribe to events.
pub mod integrations;

/// Routes, pages and the server: authenticate, parse, call one use case, reply.
pub mod http;

// The composition root: parse the command line, configure, start, administer.
pub mod logging;

pub mod cli;

pub mod config;

pub mod backup;

pub mod secret_files;

pub mod systemd;

pub mod admin;

pub mod app;
