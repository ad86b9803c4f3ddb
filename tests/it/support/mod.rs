//! What the black-box tests share, so that a test file holds tests and reads as a story.
//!
//! - [`server`]: the server under test, in this process (`TestApp`) or as the real binary in a
//!   child process (`BinServer`), and an HTTP client for either.
//! - [`cli`]: the real binary's command line on a data dir (`docket`, `docket_json`).
//! - [`stores`]: where a data dir's rows and files live (SQLite and files, or the PostgreSQL
//!   run's database and bucket), and direct access to them (`TestDb`).
//! - [`api`]: the typed API client (`Api`, `Signer`), fixtures and request bodies.
//! - [`documented`]: the served OpenAPI document as a checker of real answers (`Documented`).
//! - [`login`]: signing in through the login page (`sign_in`, `LoginForm`).
//! - [`oauth`]: Ada and the client "Cal", the consent page, the identity endpoint.
//! - [`webhook`]: a webhook receiver (`Receiver`).
//! - [`mailbox`]: a real SMTP server keeping what it receives (`MailBox`).
//! - [`stalling`]: servers and a proxy that stall or freeze, for failure tests.
//! - [`wait`]: polling for what happens in the background (`wait_until`, `wait_for`).
//! - [`sealed_pdf`]: poppler's verdict on a sealed PDF (one valid signature, values in place).
//! - [`tools`]: tools from outside the Rust toolchain (Chromium, Node, Python, poppler) and
//!   the `outside-tools` feature that gates the tests using them.

pub mod api;
pub mod cli;
pub mod documented;
pub mod login;
pub mod mailbox;
pub mod oauth;
pub mod sealed_pdf;
pub mod server;
pub mod stalling;
pub mod stores;
pub mod tools;
pub mod wait;
pub mod webhook;

pub use cli::{docket, docket_json};
pub use server::{BIN, BinServer, TestApp, client, raw_status};
pub use stores::{
    TEST_SECRET_KEY, TestDb, blob_store, blob_url_for, database_bytes, on_postgres, open_db,
    postgres_for, skip_on_postgres, stored_blob, stored_blob_ids,
};
