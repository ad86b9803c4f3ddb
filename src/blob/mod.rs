//! Content files ("blobs") under `<data>/blobs/`, and HMAC-signed, expiring URLs to them.

pub mod rows;
pub mod signed_url;
pub mod store;

pub use signed_url::{SignedUrlError, UrlSigner};
pub use store::{BlobId, BlobStore, BlobWriter};
