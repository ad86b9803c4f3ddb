//! A webhook receiver for the tests: a small HTTP/1.1 server on 127.0.0.1 that records every
//! request it takes and answers it as the test chose (a status per request, a status per
//! path, after a delay).

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::wait::wait_for;

/// One request a [`Receiver`] took, and the status it answered.
#[derive(Debug, Clone)]
pub struct Received {
    /// The request target's path, e.g. `/hook`.
    pub path: String,
    /// Header names in lower case.
    pub headers: HashMap<String, String>,
    pub body: String,
    pub status: u16,
}

impl Received {
    /// The body as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("a webhook body is JSON ({e}): {}", self.body))
    }
}

/// How a [`Receiver`] answers.
#[derive(Default)]
struct Answers {
    /// The statuses of the first requests, in order; 200 after them.
    statuses: VecDeque<u16>,
    /// Paths always answered 500, whatever `statuses` holds.
    failing: Vec<String>,
    /// How long each request is held before its answer.
    delay: Duration,
}

impl Answers {
    fn status(&mut self, path: &str) -> u16 {
        if self.failing.iter().any(|p| p == path) {
            500
        } else {
            self.statuses.pop_front().unwrap_or(200)
        }
    }
}

/// What a receiver's connections share.
#[derive(Default)]
struct Shared {
    got: Mutex<Vec<Received>>,
    answers: Mutex<Answers>,
    in_hand: AtomicUsize,
    most_at_once: AtomicUsize,
}

/// A webhook receiver on 127.0.0.1, stopped on drop.
pub struct Receiver {
    addr: SocketAddr,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl Receiver {
    /// Answers each request with the next of `statuses`, then 200.
    pub async fn start(statuses: &[u16]) -> Receiver {
        Self::start_on("127.0.0.1:0".parse().unwrap(), statuses).await
    }

    /// As [`Receiver::start`], on `addr` (a port a webhook was registered for earlier).
    pub async fn start_on(addr: SocketAddr, statuses: &[u16]) -> Receiver {
        Self::serve(
            addr,
            Answers {
                statuses: statuses.iter().copied().collect(),
                ..Answers::default()
            },
        )
        .await
    }

    /// Holds each request for `delay`, then answers it with the next of `statuses`, then 200.
    pub async fn slow(delay: Duration, statuses: &[u16]) -> Receiver {
        let answers = Answers {
            statuses: statuses.iter().copied().collect(),
            delay,
            ..Answers::default()
        };
        Self::serve("127.0.0.1:0".parse().unwrap(), answers).await
    }

    /// Answers 500 to requests for `/<name>` for each name in `failing`, 200 to the others.
    pub async fn failing_at(failing: &[&str]) -> Receiver {
        let answers = Answers {
            failing: failing.iter().map(|n| format!("/{n}")).collect(),
            ..Answers::default()
        };
        Self::serve("127.0.0.1:0".parse().unwrap(), answers).await
    }

    async fn serve(addr: SocketAddr, answers: Answers) -> Receiver {
        let listener = TcpListener::bind(addr).await.unwrap();
        let addr = listener.local_addr().unwrap();
        let shared = Arc::new(Shared {
            answers: Mutex::new(answers),
            ..Shared::default()
        });
        let on = shared.clone();
        let task = tokio::spawn(async move {
            while let Ok((sock, _)) = listener.accept().await {
                tokio::spawn(answer(sock, on.clone()));
            }
        });
        Receiver { addr, shared, task }
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The URL of its path `/hook`.
    pub fn url(&self) -> String {
        self.url_at("hook")
    }

    /// The URL of its path `/<name>`.
    pub fn url_at(&self, name: &str) -> String {
        format!("http://127.0.0.1:{}/{name}", self.addr.port())
    }

    /// Every request taken so far, in the order answered.
    pub fn received(&self) -> Vec<Received> {
        self.shared.got.lock().unwrap().clone()
    }

    /// The bodies of the requests for `/<name>` so far.
    pub fn bodies_at(&self, name: &str) -> Vec<String> {
        let path = format!("/{name}");
        self.received()
            .into_iter()
            .filter(|r| r.path == path)
            .map(|r| r.body)
            .collect()
    }

    /// The most requests it held at once.
    pub fn most_at_once(&self) -> usize {
        self.shared.most_at_once.load(Ordering::SeqCst)
    }

    /// Waits (30 s at most) until it has taken `n` requests; returns all taken.
    pub async fn wait_for(&self, n: usize) -> Vec<Received> {
        wait_for(Duration::from_secs(30), || {
            let got = self.received();
            if got.len() >= n {
                Ok(got)
            } else {
                Err(format!("only {} requests arrived", got.len()))
            }
        })
        .await
    }

    /// Waits (30 s at most) until `/<name>` has had `n` requests; returns their bodies.
    pub async fn wait_for_at(&self, name: &str, n: usize) -> Vec<String> {
        wait_for(Duration::from_secs(30), || {
            let got = self.bodies_at(name);
            if got.len() >= n {
                Ok(got)
            } else {
                Err(format!("{name} got only {}", got.len()))
            }
        })
        .await
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Reads one request from `sock`, holds it, records it and answers it; then closes.
async fn answer(mut sock: TcpStream, shared: Arc<Shared>) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        let n = sock.read(&mut chunk).await.unwrap_or(0);
        if n == 0 {
            return;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
    let path = head
        .split_whitespace()
        .nth(1)
        .unwrap_or_default()
        .split('?')
        .next()
        .unwrap_or_default()
        .to_string();
    let headers: HashMap<String, String> = head
        .lines()
        .skip(1)
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let len: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + len {
        let n = sock.read(&mut chunk).await.unwrap_or(0);
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let body = String::from_utf8_lossy(&buf[head_end..]).to_string();
    let in_hand = shared.in_hand.fetch_add(1, Ordering::SeqCst) + 1;
    shared.most_at_once.fetch_max(in_hand, Ordering::SeqCst);
    let delay = shared.answers.lock().unwrap().delay;
    tokio::time::sleep(delay).await;
    let status = shared.answers.lock().unwrap().status(&path);
    shared.got.lock().unwrap().push(Received {
        path,
        headers,
        body,
        status,
    });
    shared.in_hand.fetch_sub(1, Ordering::SeqCst);
    // A short body, which the delivery log keeps the start of.
    let body = format!("received: {status}");
    let reply = format!(
        "HTTP/1.1 {status} X\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = sock.write_all(reply.as_bytes()).await;
    let _ = sock.shutdown().await;
}
