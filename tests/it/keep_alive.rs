//! Kept-alive connections reused right at the idle limit, against the real binary: a request
//! sent on a connection the server has not closed yet is answered, never dropped by the idle
//! close, whole or in two pieces either side of the limit; and the limit is advertised.
//!
//! A request may still be written the instant after the server closes an idle connection
//! (the client looked, saw it open, and wrote): no server can answer that one, and the client
//! sees the close (end of stream) and retries. What the server must never do is close a
//! connection with a request already in its socket: the kernel then resets the connection
//! instead of closing it, and the client gets `ECONNRESET`. So the test tells the two apart.

use std::net::SocketAddr;
use std::os::fd::AsRawFd;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::support::BinServer;

const IDLE_SECS: u64 = 2;
const REQUEST: &[u8] =
    b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nUser-Agent: keep-alive-test\r\n\r\n";

/// What became of a request sent on a kept-alive connection.
#[derive(Debug, PartialEq)]
enum Reuse {
    /// The server had closed the connection before the client wrote: the client knows to open
    /// another, nothing was lost.
    ClosedBefore,
    /// The server closed the connection cleanly before the request reached it, as the client
    /// wrote it (the end of stream came, no reset): nothing the server had received was lost.
    ClosedAsSent,
    /// Answered: the response head.
    Answered(String),
}

/// How a wait for a response ended.
enum Read {
    Head(String),
    /// End of stream: the server closed the connection cleanly.
    Closed,
    /// The connection was reset: the server closed it with unread bytes in its socket.
    Reset(std::io::Error),
}

/// Whether the server has closed `conn`, as the kernel knows it now (a peek that does not
/// wait: tokio's readiness may not have seen the close yet).
fn closed_by_server(conn: &TcpStream) -> bool {
    let mut byte = 0u8;
    // SAFETY: a one-byte peek that does not wait, on a socket this function borrows.
    let n = unsafe {
        libc::recv(
            conn.as_raw_fd(),
            (&raw mut byte).cast(),
            1,
            libc::MSG_PEEK | libc::MSG_DONTWAIT,
        )
    };
    match n {
        0 => true,
        1.. => panic!("the server sent something unasked"),
        _ => std::io::Error::last_os_error().kind() != std::io::ErrorKind::WouldBlock,
    }
}

/// One response read whole from `conn`: its head, or how the connection ended first.
async fn read_response(conn: &mut TcpStream) -> Read {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = match tokio::time::timeout(Duration::from_secs(10), conn.read(&mut buf))
            .await
            .expect("an answer within 10 s")
        {
            Ok(0) => return Read::Closed,
            Ok(n) => n,
            Err(e) => return Read::Reset(e),
        };
        got.extend_from_slice(&buf[..n]);
        let Some(end) = got.windows(4).position(|w| w == b"\r\n\r\n") else {
            continue;
        };
        let head = String::from_utf8_lossy(&got[..end]).to_ascii_lowercase();
        let length: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .map_or(0, |v| v.trim().parse().unwrap());
        if got.len() >= end + 4 + length {
            return Read::Head(head);
        }
    }
}

/// Sends the request on `conn` after `wait`, in two pieces `split` apart when given, unless the
/// server closed the connection first; panics when the server reset the connection with the
/// request in it.
async fn reuse(conn: &mut TcpStream, wait: Duration, split: Option<Duration>) -> Reuse {
    tokio::time::sleep(wait).await;
    if closed_by_server(conn) {
        return Reuse::ClosedBefore;
    }
    let sent = match split {
        None => conn.write_all(REQUEST).await,
        Some(gap) => {
            let (first, rest) = REQUEST.split_at(20);
            let first = conn.write_all(first).await;
            tokio::time::sleep(gap).await;
            match first {
                Ok(()) => conn.write_all(rest).await,
                e => e,
            }
        }
    };
    match read_response(conn).await {
        Read::Head(head) => Reuse::Answered(head),
        Read::Closed => Reuse::ClosedAsSent,
        Read::Reset(e) => panic!(
            "a request sent {wait:?} after the last answer (split {split:?}, write {sent:?}) was \
             dropped without an answer: {e}"
        ),
    }
}

async fn answered(addr: SocketAddr) -> TcpStream {
    let mut conn = TcpStream::connect(addr).await.unwrap();
    conn.set_nodelay(true).unwrap();
    conn.write_all(REQUEST).await.unwrap();
    let Read::Head(head) = read_response(&mut conn).await else {
        panic!("the first request was not answered");
    };
    assert!(head.starts_with("http/1.1 200"), "{head}");
    // Advertised a little shorter than the real limit, for clients to retire it first.
    assert!(
        head.lines()
            .any(|l| l == format!("keep-alive: timeout={}", IDLE_SECS - 1)),
        "{head}"
    );
    conn
}

/// Many connections, each reused once at a moment spread across the idle limit (from 150 ms
/// before to 150 ms after it), the request whole or in two pieces 120 ms apart: each is
/// answered, or found closed before it was sent, or met an orderly close as it was sent; none
/// is met by a reset.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_reused_at_the_idle_limit_is_answered_or_found_closed_first() {
    let dir = tempfile::tempdir().unwrap();
    let idle = IDLE_SECS.to_string();
    let args = ["--tls", "off", "--idle-timeout-secs", &idle];
    let server = BinServer::start_in(&dir.path().join("data"), &args);
    let limit = Duration::from_secs(IDLE_SECS);
    let runs = (0..48u64).map(|i| {
        let addr = server.addr;
        async move {
            let mut conn = answered(addr).await;
            // Spread evenly, in a shuffled order, over 300 ms around the limit.
            let offset = Duration::from_millis((i * 29) % 48 * 300 / 48);
            let wait = (limit + offset).saturating_sub(Duration::from_millis(150));
            let split = (i % 2 == 1).then_some(Duration::from_millis(120));
            (wait, reuse(&mut conn, wait, split).await)
        }
    });
    let outcomes = futures_util::future::join_all(runs).await;
    let (mut kept, mut closed, mut crossed) = (0, 0, 0);
    for (wait, outcome) in outcomes {
        match outcome {
            Reuse::ClosedBefore => closed += 1,
            Reuse::ClosedAsSent => crossed += 1,
            Reuse::Answered(head) => {
                assert!(head.starts_with("http/1.1 200"), "after {wait:?}: {head}");
                kept += 1;
            }
        }
    }
    eprintln!(
        "reused at the limit: {kept} answered, {closed} found closed before sending, {crossed} \
         closed cleanly as sent"
    );
    // Both sides of the limit were exercised.
    assert!(kept > 0 && closed > 0, "{kept} answered, {closed} closed");
}
