//! TLS to PostgreSQL (only with `DOCKET_TEST_POSTGRES`; tests/pg/postgres.sh starts the cluster
//! with TLS on, a certificate for `localhost` only, and its CA in `DOCKET_TEST_POSTGRES_CA`):
//! the URL's `sslmode` and `sslrootcert` decide, as with libpq, whether the connection is
//! encrypted and what the server's certificate is checked for.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::{BIN, BinServer, TEST_SECRET_KEY, docket, postgres_for};

/// A password the URLs carry (the cluster trusts loopback, so any will do): never printed.
const PASSWORD: &str = "pg-s3cret-word";

/// The cluster's CA file, or `None` (with a notice) when this run has no PostgreSQL.
fn cluster_ca() -> Option<String> {
    let ca = std::env::var("DOCKET_TEST_POSTGRES_CA").ok();
    if ca.is_none() {
        eprintln!(
            "skipped: TLS to PostgreSQL needs the test cluster \
             (DOCKET_TEST_POSTGRES and DOCKET_TEST_POSTGRES_CA, tests/pg/postgres.sh)"
        );
    }
    ca
}

/// The URL of a fresh database on the cluster, for `host` and `user` (with the password), and
/// `query` appended.
fn database_url(data: &Path, host: &str, user: &str, query: &str) -> String {
    let mut url = url::Url::parse(&postgres_for(data).expect("on PostgreSQL")).unwrap();
    url.set_host(Some(host)).unwrap();
    url.set_username(user).unwrap();
    url.set_password(Some(PASSWORD)).unwrap();
    format!("{url}?{query}")
}

/// Whether a docket connection to `url` is encrypted, as the server sees it; or why it could
/// not connect. (The client blocks: on a thread of its own.)
fn encrypted(url: &str) -> Result<bool, String> {
    let url = url.to_string();
    std::thread::spawn(move || {
        let conn = docket::core::db::Conn::postgres_connect(&url).map_err(|e| e.to_string())?;
        conn.query_row(
            "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
            [],
            |r| r.get::<_, i64>(0),
        )
        .map(|ssl| ssl == 1)
        .map_err(|e| e.to_string())
    })
    .join()
    .unwrap()
}

/// `docket serve` on `data` with `--database-url url` until it stops by itself (60 s at most):
/// its exit code and what it printed on stderr.
fn serve_fails(data: &Path, url: &str) -> (i32, String) {
    let mut child = Command::new(BIN)
        .args(["serve", "--listen", "127.0.0.1:0", "--tls", "off"])
        .args(["--data-dir", data.to_str().unwrap(), "--database-url", url])
        .env_remove("DOCKET_DATABASE_URL")
        .env_remove("DOCKET_SECRET_KEY_FILE")
        .env("DOCKET_SECRET_KEY", TEST_SECRET_KEY)
        .env("DOCKET_OUTBOUND", "loopback-only")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("docket serve with {url} did not stop by itself");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().unwrap();
    let code = out.status.code().unwrap_or(-1);
    (code, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// `docket serve` on `data` with `--database-url url`: it answers `/healthz` with 200.
async fn serves(data: &Path, url: &str) {
    let server = BinServer::start_in(data, &["--tls", "off", "--database-url", url]);
    let health = reqwest::get(format!("http://{}/healthz", server.addr))
        .await
        .unwrap();
    assert_eq!(health.status(), 200, "with {url}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_started_with_sslmode_require_or_verify_full_serves() {
    let Some(ca) = cluster_ca() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    serves(
        &data,
        &database_url(&data, "127.0.0.1", "postgres", "sslmode=require"),
    )
    .await;
    let full = format!("sslmode=verify-full&sslrootcert={ca}");
    serves(&data, &database_url(&data, "localhost", "postgres", &full)).await;
    // The admin commands connect the same way.
    let url = database_url(&data, "localhost", "postgres", &full);
    let out = docket(&data, &["migrate", "--database-url", &url], None);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "docket migrate: {err}");
}

#[test]
fn require_encrypts_disable_does_not_and_prefer_encrypts_when_it_can() {
    if cluster_ca().is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let url = |query| database_url(tmp.path(), "127.0.0.1", "postgres", query);
    assert_eq!(encrypted(&url("sslmode=require")), Ok(true));
    assert_eq!(encrypted(&url("sslmode=disable")), Ok(false));
    assert_eq!(encrypted(&url("sslmode=prefer")), Ok(true));
    assert_eq!(encrypted(&url("application_name=docket")), Ok(true));
}

#[test]
fn verify_full_checks_the_host_name_and_verify_ca_only_the_chain() {
    let Some(ca) = cluster_ca() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let url = |host, mode| {
        let query = format!("sslmode={mode}&sslrootcert={ca}");
        database_url(tmp.path(), host, "postgres", &query)
    };
    assert_eq!(encrypted(&url("localhost", "verify-full")), Ok(true));
    assert_eq!(encrypted(&url("127.0.0.1", "verify-ca")), Ok(true));
    // The certificate names `localhost` only.
    let err = encrypted(&url("127.0.0.1", "verify-full")).unwrap_err();
    assert!(err.contains("certificate not valid for name"), "{err}");
    assert!(!err.contains(PASSWORD), "{err}");
    // Without sslrootcert the public roots are used, and this CA is not among them.
    let query = "sslmode=verify-ca";
    let err = encrypted(&database_url(tmp.path(), "localhost", "postgres", query)).unwrap_err();
    assert!(err.contains("UnknownIssuer"), "{err}");
}

#[test]
fn a_server_that_does_not_trust_the_certificate_refuses_to_start_with_one_line() {
    let Some(_) = cluster_ca() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    // Another CA, which did not issue the cluster's certificate.
    let other = rcgen::generate_simple_self_signed(vec!["localhost".into()]).unwrap();
    let other_ca = tmp.path().join("other-ca.pem");
    std::fs::write(&other_ca, other.cert.pem()).unwrap();
    let query = format!("sslmode=verify-full&sslrootcert={}", other_ca.display());
    let url = database_url(&data, "localhost", "postgres", &query);
    let started = Instant::now();
    let (code, err) = serve_fails(&data, &url);
    assert_ne!(code, 0, "{err}");
    let errors: Vec<&str> = err.lines().filter(|l| l.contains("error")).collect();
    assert_eq!(errors.len(), 1, "{err}");
    assert!(
        errors[0].contains("invalid peer certificate: UnknownIssuer"),
        "{err}"
    );
    assert!(!err.contains(PASSWORD), "{err}");
    // Refused at once: a certificate does not get better by waiting for the pool.
    assert!(started.elapsed() < Duration::from_secs(8), "{err}");

    // An sslmode docket does not know stops it before any connection.
    let url = database_url(&data, "localhost", "postgres", "sslmode=verify");
    let (code, err) = serve_fails(&data, &url);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("sslmode=verify is not known"), "{err}");
    assert!(!err.contains(PASSWORD), "{err}");
}

#[test]
fn a_role_the_server_takes_only_over_tls_is_refused_in_plain() {
    if cluster_ca().is_none() {
        return;
    }
    let admin = std::env::var("DOCKET_TEST_POSTGRES").unwrap();
    std::thread::spawn(move || {
        let conn = docket::core::db::Conn::postgres_connect(&admin).unwrap();
        conn.execute_batch(
            "DO $$ BEGIN CREATE ROLE docket_tls_only LOGIN SUPERUSER; \
             EXCEPTION WHEN duplicate_object THEN NULL; END $$",
        )
        .unwrap();
    })
    .join()
    .unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let url = |query| database_url(tmp.path(), "127.0.0.1", "docket_tls_only", query);
    let err = encrypted(&url("sslmode=disable")).unwrap_err();
    assert!(err.contains("no encryption"), "{err}");
    assert_eq!(encrypted(&url("sslmode=require")), Ok(true));
}

/// A relay on loopback to the cluster that answers "N" (no TLS here) to the client's TLS
/// request and then passes everything on in plain text: what anything in the path can do to
/// `sslmode=prefer`. Answers until the test ends.
fn downgrading_relay(to: std::net::SocketAddr) -> u16 {
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream};
    /// PostgreSQL's SSLRequest: length 8, code 80877103.
    const SSL_REQUEST: [u8; 8] = [0, 0, 0, 8, 4, 210, 22, 47];
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(mut client) = client else { return };
            std::thread::spawn(move || {
                let mut head = [0u8; 8];
                client.read_exact(&mut head)?;
                let mut server = TcpStream::connect(to)?;
                if head == SSL_REQUEST {
                    client.write_all(b"N")?;
                } else {
                    server.write_all(&head)?;
                }
                let (mut c2, mut s2) = (client.try_clone()?, server.try_clone()?);
                std::thread::spawn(move || std::io::copy(&mut s2, &mut c2));
                std::io::copy(&mut client, &mut server)?;
                Ok::<_, std::io::Error>(())
            });
        }
    });
    port
}

/// What `docket serve` on `data` with `url` logged by the time it answered, then stopped.
fn start_log(data: &Path, url: &str) -> String {
    let mut server = BinServer::start_in(data, &["--tls", "off", "--database-url", url]);
    let stderr = server.stderr.take().unwrap();
    let status = server.stop_with(nix::sys::signal::Signal::SIGTERM);
    assert_eq!(status.code(), Some(0));
    std::io::read_to_string(stderr).unwrap()
}

#[test]
fn an_unencrypted_or_unchecked_connection_is_warned_about_at_start() {
    let Some(ca) = cluster_ca() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let not_encrypted = "the connection to PostgreSQL is not encrypted";
    let unchecked =
        "the connection to PostgreSQL is encrypted but the server's certificate is not checked";

    // Loopback without sslmode is `prefer`: downgraded by the relay, and told.
    let direct = url::Url::parse(&database_url(&data, "127.0.0.1", "postgres", "")).unwrap();
    let cluster = (direct.host_str().unwrap(), direct.port().unwrap());
    let cluster = std::net::ToSocketAddrs::to_socket_addrs(&cluster)
        .unwrap()
        .next()
        .unwrap();
    let mut relayed = direct.clone();
    relayed.set_port(Some(downgrading_relay(cluster))).unwrap();
    let relayed = |query: &str| format!("{}?{query}", relayed.as_str().split('?').next().unwrap());
    let log = start_log(&data, &relayed(""));
    let line = log.lines().find(|l| l.contains(not_encrypted));
    let line = line.unwrap_or_else(|| panic!("no warning in {log}"));
    assert!(
        line.contains("WARN") && line.contains("sslmode=prefer"),
        "{line}"
    );
    assert!(!log.contains(PASSWORD), "{log}");

    let log = start_log(&data, &relayed("sslmode=prefer"));
    assert!(log.contains(not_encrypted), "{log}");
    let log = start_log(
        &data,
        &database_url(&data, "127.0.0.1", "postgres", "sslmode=disable"),
    );
    assert!(
        log.contains(&format!("{not_encrypted} (sslmode=disable)")),
        "{log}"
    );

    // Encrypted, to whoever answered: told too.
    for query in ["sslmode=require", "sslmode=prefer", ""] {
        let log = start_log(&data, &database_url(&data, "127.0.0.1", "postgres", query));
        assert!(log.contains(unchecked), "{query}: {log}");
        assert!(!log.contains(not_encrypted), "{query}: {log}");
    }
    // A checked certificate is not.
    let full = format!("sslmode=verify-full&sslrootcert={ca}");
    let log = start_log(&data, &database_url(&data, "localhost", "postgres", &full));
    assert!(
        !log.contains(unchecked) && !log.contains(not_encrypted),
        "{log}"
    );
}
