//! The lowest ring: storage (the database and blob stores), errors, cryptography, secrets and
//! keys, time, retries and the embedded assets. Knows nothing of users, documents or HTTP.
//! Its modules are listed in their own order: each uses only those above it in this list.

pub mod assets;
pub mod blob;
pub mod context;
pub mod crypto;
pub mod datadir;
pub mod db;
pub mod error;
pub mod html;
pub mod keyring;
pub mod lenient;
pub mod outbound;
pub mod ratelimit;
pub mod retry;
pub mod secrets;
pub mod settings;
pub mod timefmt;
pub mod tls;
pub mod version;
