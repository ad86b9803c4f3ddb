//! The binary as a process: signals, environment variables, JSON logs with request ids, and the
//! embedded defaults.

use nix::sys::signal::Signal;

use crate::support::{BinServer, client};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_and_sigint_stop_the_server_with_exit_code_0() {
    for signal in [Signal::SIGTERM, Signal::SIGINT] {
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path().join("data");
        let server = BinServer::start_in(&data, &[]);
        let ca = std::fs::read(data.join("tls/ca.pem")).unwrap();
        let c = client(server.addr, Some(&ca));
        let url = format!("https://localhost:{}/healthz", server.addr.port());
        assert_eq!(c.get(&url).send().await.unwrap().status(), 200);
        let status = server.stop_with(signal);
        assert_eq!(status.code(), Some(0), "{signal}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_flag_is_also_an_environment_variable_and_logs_carry_request_ids() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let server = BinServer::start(
        &[],
        &[
            ("DOCKET_DATA_DIR", data.to_str().unwrap()),
            ("DOCKET_LISTEN", "127.0.0.1:0"),
            ("DOCKET_TLS", "off"),
            ("DOCKET_PUBLIC_URL", "https://docket.example.org"),
            ("DOCKET_LOG_FORMAT", "json"),
            ("DOCKET_LOG_LEVEL", "info"),
        ],
    );
    assert_eq!(
        server.banner_value("public url").as_deref(),
        Some("https://docket.example.org")
    );
    // DOCKET_DATA_DIR was honoured: the data dir holds the database (or, on PostgreSQL, the
    // secrets every data dir has).
    if crate::support::on_postgres() {
        assert!(data.join("secrets").is_dir());
    } else {
        assert!(data.join("docket.db").exists());
    }
    let c = client(server.addr, None);
    let resp = c
        .get(format!("http://127.0.0.1:{}/healthz", server.addr.port()))
        .header("x-request-id", "log-me-123")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let mut server = server;
    let stderr = server.stderr.take().unwrap();
    let status = server.stop_with(Signal::SIGTERM);
    assert_eq!(status.code(), Some(0));
    let logs = std::io::read_to_string(stderr).unwrap();
    let line = logs
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find(|v| v["path"] == "/healthz")
        .unwrap_or_else(|| panic!("no JSON log line for the request in {logs}"));
    assert_eq!(line["span"]["request_id"], "log-me-123");
    assert_eq!(line["status"], 200);
}

#[test]
fn bad_flags_are_usage_errors() {
    let out = std::process::Command::new(crate::support::BIN)
        .args(["serve", "--tls", "files"])
        .env("DOCKET_DATA_DIR", "/nonexistent-docket-test")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("--tls-cert"), "{err}");
    let out = std::process::Command::new(crate::support::BIN)
        .args(["serve", "--listen", "nonsense"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// `docket serve` with no flags: TLS on 127.0.0.1:8443, data in the platform data dir.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_no_flags_it_answers_https_localhost_8443() {
    let home = tempfile::tempdir().unwrap();
    let server = BinServer::start_on_default_port(
        &[],
        &[
            ("HOME", home.path().to_str().unwrap()),
            ("XDG_DATA_HOME", ""),
        ],
    );
    assert_eq!(server.addr.to_string(), "127.0.0.1:8443");
    assert_eq!(
        server.banner_value("public url").as_deref(),
        Some("https://localhost:8443")
    );
    let data = home.path().join(".local/share/docket");
    let ca = std::fs::read(data.join("tls/ca.pem")).expect("CA in the default data dir");
    let c = client(server.addr, Some(&ca));
    let resp = c
        .get("https://localhost:8443/healthz")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(server.stop_with(Signal::SIGTERM).code(), Some(0));
}

/// An idle keep-alive connection must not hold the shutdown for the whole drain limit.
#[test]
fn idle_keep_alive_connections_do_not_delay_shutdown() {
    use std::io::{Read, Write};
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let server = BinServer::start_in(&data, &["--tls", "off"]);
    let mut conn = std::net::TcpStream::connect(server.addr).unwrap();
    conn.write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .unwrap();
    let mut buf = [0u8; 1024];
    let n = conn.read(&mut buf).unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
    // The connection stays open and idle.
    let started = std::time::Instant::now();
    let status = server.stop_with(Signal::SIGTERM);
    assert_eq!(status.code(), Some(0));
    assert!(
        started.elapsed() < std::time::Duration::from_secs(8),
        "shutdown waited {:?} for an idle connection",
        started.elapsed()
    );
    drop(conn);
}
