//! Black-box tests: the real server over HTTP(S) and the real binary's command line.
//!
//! Each file below holds the tests of one area; what they share (starting a server, the API
//! client, signing in, a webhook receiver, a mail box, waiting) is in `support/`. Tests that
//! need tools from outside the Rust toolchain (Chromium, Node, Python, poppler) are gated by
//! the `outside-tools` feature: see `support/tools.rs`.

mod support;

mod accounts;
mod accounts_browser;
mod app_documents;
mod app_session;
mod audit_bounds;
mod auth_browser;
mod auth_first;
mod authenticator;
mod basic_credentials;
mod blob_store;
mod bookings;
mod browser;
mod calcom_compat;
mod cli;
mod clients;
mod cluster;
mod cluster_kill;
mod cluster_limits;
mod cluster_restore;
mod connections;
mod credential_cache;
mod dashboard;
mod dashboard_browser;
mod direct_links;
mod disk_space;
mod documenso_compat;
mod documenso_examples;
mod document_page_browser;
mod document_settings;
mod documents;
mod editor_browser;
mod editor_pages;
mod factor_guard;
mod hostile_pdf;
mod http;
mod journey_browser;
mod login_limits;
mod mail;
mod oauth_flow;
mod oauth_rules;
mod oidc;
mod openapi_answers;
mod page_cache;
mod page_render;
mod pg_blip;
mod pg_tls;
mod process;
mod proxies;
mod recipient_auth;
mod recipient_input;
mod reject_rule;
mod request_log;
mod reset_next;
mod scope_containment;
mod sealing;
mod secret_files;
mod settings_browser;
mod settings_tokens;
mod settings_webhooks;
mod shared_secrets;
mod signing;
mod signing_e2e;
mod sqlite_syncs;
mod storage;
mod template_editing;
mod template_pages;
mod templates;
mod templates_browser;
mod tls;
mod wal_soak;
mod webhook_delivery;
mod webhooks;
mod write_receipts;
mod zapier;
