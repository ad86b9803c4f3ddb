//! Docket: a self-hosted OAuth 2 provider and document-signing appliance in one binary.
//!
//! The HTTP layer (`http`) is thin; the domain modules (`users`, `oauth`, `apikeys`, `blob`)
//! know nothing of warp and keep their SQL in their own `store.rs`.

#![recursion_limit = "512"]

pub mod admin;
pub mod apikeys;
pub mod app;
pub mod assets;
pub mod backup;
pub mod blob;
pub mod bookings;
pub mod cli;
pub mod config;
pub mod context;
pub mod crypto;
pub mod datadir;
pub mod db;
pub mod documents;
pub mod error;
pub mod factors;
pub mod http;
pub mod keyring;
pub mod lenient;
pub mod logging;
pub mod mail;
pub mod oauth;
pub mod outbound;
pub mod pdf;
pub mod proxy;
pub mod ratelimit;
pub mod retry;
pub mod secret_files;
pub mod secrets;
pub mod server;
pub mod sessions;
pub mod settings;
pub mod signing;
pub mod systemd;
pub mod templates;
pub mod timefmt;
pub mod tls;
pub mod users;
pub mod version;
pub mod webhooks;
