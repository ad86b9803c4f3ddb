//! Content files ("blobs"): the store (under `<data>/blobs/`, or in an S3 bucket with
//! `--blob-url s3://...`), its SQL rows, and HMAC-signed, expiring URLs to them.

pub mod rows;
pub mod s3;
mod s3_error;
pub mod signed_url;
pub mod store;
pub mod sweep;
pub mod url;

pub use signed_url::{Signature, SignedUrlError, UrlSigner};
pub use store::{BlobId, BlobStore, BlobWriter};
pub use url::BlobUrl;

#[cfg(test)]
mod s3_tests;
