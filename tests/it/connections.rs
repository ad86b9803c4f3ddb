//! Connection limits against the real binary: a body that stops arriving is cut off, idle
//! connections are closed, many slow clients from one address cannot starve another, and the
//! connection caps hold. Different clients are different loopback source addresses.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use crate::support::api::create_api_key;
use crate::support::{BinServer, client, docket};

/// A connection to `server` from the loopback address `from`.
async fn connect_from(from: &str, server: SocketAddr) -> TcpStream {
    let socket = TcpSocket::new_v4().unwrap();
    socket
        .bind(format!("{from}:0").parse().unwrap())
        .expect("Linux routes all of 127/8 to lo");
    socket.connect(server).await.unwrap()
}

/// A connection from `from` that the server holds: not closed within a second of connecting
/// (one over a cap is closed at once). Tries again while the server still counts a connection
/// that just ended, whose place it frees a moment after the client has seen it close.
async fn held_from(from: &str, server: SocketAddr) -> TcpStream {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let mut conn = connect_from(from, server).await;
        if read_until_closed(&mut conn, Duration::from_secs(1))
            .await
            .is_none()
        {
            return conn;
        }
        assert!(
            Instant::now() < deadline,
            "the server never held a connection from {from}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Reads until the server closes the connection (or resets it), for at most `limit`; the bytes
/// received, or `None` when the connection was still open at the end.
async fn read_until_closed(conn: &mut TcpStream, limit: Duration) -> Option<Vec<u8>> {
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        match tokio::time::timeout_at(deadline, conn.read(&mut buf)).await {
            Err(_) => return None,
            Ok(Ok(0)) | Ok(Err(_)) => return Some(got),
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
        }
    }
}

/// `GET /healthz` on a fresh connection from `from`; its status, within `limit`.
async fn healthz_from(from: &str, server: SocketAddr, limit: Duration) -> Option<u16> {
    let mut conn = connect_from(from, server).await;
    conn.write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .await
        .ok()?;
    let text = read_until_closed(&mut conn, limit).await?;
    String::from_utf8_lossy(&text)
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
}

/// True when a connection from `from` is closed at once, without an answer to a request.
async fn refused_from(from: &str, server: SocketAddr) -> bool {
    let mut conn = connect_from(from, server).await;
    // The server may have closed it already; then the write fails, which is as good.
    let _ = conn
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await;
    read_until_closed(&mut conn, Duration::from_secs(3)).await == Some(vec![])
}

/// True once a connection from `from` is refused, trying until `within` has passed: the
/// server accepts the connections that fill a cap at its own pace (slow on a loaded machine),
/// and a connection it still serves takes no lasting place.
async fn refused_within(from: &str, server: SocketAddr, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    loop {
        if refused_from(from, server).await {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn serve(dir: &tempfile::TempDir, extra: &[&str]) -> BinServer {
    let mut args = vec!["--tls", "off"];
    args.extend_from_slice(extra);
    BinServer::start_in(&dir.path().join("data"), &args)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_that_stops_arriving_is_answered_408_and_the_connection_closed() {
    let dir = tempfile::tempdir().unwrap();
    let server = serve(&dir, &["--body-timeout-secs", "2"]);
    let mut conn = connect_from("127.0.0.1", server.addr).await;
    let started = Instant::now();
    conn.write_all(
        b"POST /auth/login HTTP/1.1\r\nHost: localhost\r\n\
          Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nemail=",
    )
    .await
    .unwrap();
    let answer = read_until_closed(&mut conn, Duration::from_secs(15))
        .await
        .expect("a client that sent 6 of 1000 bytes is cut off");
    let elapsed = started.elapsed();
    let text = String::from_utf8_lossy(&answer);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(
        text.to_ascii_lowercase().contains("connection: close"),
        "{text}"
    );
    assert!(elapsed >= Duration::from_secs(2), "{elapsed:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_are_closed_after_the_idle_timeout() {
    let dir = tempfile::tempdir().unwrap();
    let server = serve(&dir, &["--idle-timeout-secs", "2"]);
    // A connection that never sends anything.
    let mut silent = connect_from("127.0.0.1", server.addr).await;
    // A keep-alive connection after one answered request.
    let mut kept = connect_from("127.0.0.1", server.addr).await;
    kept.write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .unwrap();
    let mut buf = [0u8; 4096];
    let n = kept.read(&mut buf).await.unwrap();
    assert!(buf[..n].starts_with(b"HTTP/1.1 200"));
    let (a, b) = tokio::join!(
        read_until_closed(&mut silent, Duration::from_secs(10)),
        read_until_closed(&mut kept, Duration::from_secs(10)),
    );
    assert_eq!(a, Some(vec![]), "a silent connection is closed");
    assert_eq!(b, Some(vec![]), "an idle keep-alive connection is closed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_hundred_slow_uploads_from_one_address_leave_healthz_answering() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let out = docket(
        &data,
        &["user", "add", "o@example.com", "--name", "O"],
        None,
    );
    assert!(out.status.success());
    let key = create_api_key(&data, "o@example.com")["key"]
        .as_str()
        .unwrap()
        .to_string();
    // The per-address cap would hide the cause: each slow upload used to hold two blocking
    // threads, so 300 of them filled tokio's blocking pool and every database call waited.
    let server = serve(&dir, &["--max-connections-per-ip", "1000"]);
    let created: serde_json::Value = client(server.addr, None)
        .post(format!(
            "http://127.0.0.1:{}/api/v1/documents",
            server.addr.port()
        ))
        .header("authorization", &key)
        .json(&serde_json::json!({"title": "t", "recipients": []}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let url = created["uploadUrl"].as_str().unwrap();
    let path = &url[url.find("/api/").unwrap()..];
    let head = format!(
        "PUT {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/pdf\r\n\
         Content-Length: 1000\r\n\r\n%PDF-1"
    );
    let mut slow = Vec::new();
    for _ in 0..300 {
        let mut c = connect_from("127.0.0.2", server.addr).await;
        c.write_all(head.as_bytes()).await.unwrap();
        slow.push(c);
    }
    for _ in 0..3 {
        tokio::time::sleep(Duration::from_secs(1)).await;
        assert_eq!(
            healthz_from("127.0.0.3", server.addr, Duration::from_secs(5)).await,
            Some(200),
            "/healthz answers while 300 uploads are stalled"
        );
    }
    // The slow uploads are still open (waiting for the body timeout), not refused.
    let mut buf = [0u8; 64];
    for c in slow.iter_mut().take(5) {
        assert!(
            tokio::time::timeout(Duration::from_millis(50), c.read(&mut buf))
                .await
                .is_err()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connection_caps_hold_per_address_and_in_all() {
    let dir = tempfile::tempdir().unwrap();
    let server = serve(
        &dir,
        // Held connections send nothing: keep them past the idle timeout however slow a
        // loaded machine makes the steps below.
        &[
            "--max-connections",
            "8",
            "--max-connections-per-ip",
            "5",
            "--idle-timeout-secs",
            "3600",
        ],
    );
    let addr = server.addr;
    let mut held = Vec::new();
    for _ in 0..5 {
        held.push(connect_from("127.0.0.2", addr).await);
    }
    // A sixth from the same address is closed without an answer (once the server has
    // accepted the five).
    assert!(
        refused_within("127.0.0.2", addr, Duration::from_secs(15)).await,
        "over the per-address cap"
    );
    // Another address is served.
    assert_eq!(
        healthz_from("127.0.0.3", addr, Duration::from_secs(5)).await,
        Some(200)
    );
    // Fill the total (5 + 3 = 8): then every address is refused.
    for from in ["127.0.0.3", "127.0.0.4", "127.0.0.5"] {
        held.push(held_from(from, addr).await);
    }
    assert!(
        refused_within("127.0.0.6", addr, Duration::from_secs(15)).await,
        "over the total cap"
    );
    // Closing one frees its place.
    held.remove(0);
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        match healthz_from("127.0.0.6", addr, Duration::from_secs(5)).await {
            Some(200) => break,
            other => assert!(Instant::now() < deadline, "never served again: {other:?}"),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
