//! Black-box tests: the real server over HTTP(S) and the real binary's command line.

mod harness;

mod bookings;
mod browser;
mod cli;
mod documents;
mod http;
mod mail;
mod oauth_flow;
mod oauth_rules;
mod process;
mod scope_containment;
mod signing;
mod signing_e2e;
mod storage;
mod templates;
mod tls;
mod webhooks;
