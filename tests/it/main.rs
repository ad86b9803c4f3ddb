//! Black-box tests: the real server over HTTP(S) and the real binary's command line.

mod harness;

mod cli;
mod http;
mod process;
mod storage;
mod tls;
