//! The lowest ring: storage (the database and blob stores), errors, cryptography, secrets and
//! keys, time, retries and the embedded assets. Knows nothing of users, documents or HTTP.
//! Inside it the modules have an order of their own, lowest first: large_blocks, client_address,
//! disk_space, error, crypto, timefmt, html, datadir, lenient, db, i18n, ids, owner, retry, settings,
//! version, assets, secrets, keyring, tls, outbound, ratelimit, blob, context (each uses only
//! those before it; `tests/rings.rs`).

pub mod assets;
pub mod blob;
pub mod client_address;
pub mod context;
pub mod crypto;
pub mod datadir;
pub mod db;
pub mod disk_space;
pub mod error;
pub mod html;
pub mod i18n;
pub mod ids;
pub mod keyring;
#[cfg(target_os = "linux")]
pub mod large_blocks;
pub mod lenient;
pub mod outbound;
pub mod owner;
pub mod page;
pub mod ratelimit;
pub mod retry;
pub mod secrets;
pub mod settings;
pub mod timefmt;
pub mod tls;
pub mod version;
