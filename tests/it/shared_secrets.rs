//! Secrets in the database, sealed under the secret key. Several nodes on one PostgreSQL
//! database share them: what one node signs, another accepts, and both serve a certificate
//! from the same local CA; a node with another key, or none, refuses to start (only on
//! PostgreSQL: `DOCKET_TEST_POSTGRES`, see tests/pg/postgres.sh). A single node given a key
//! keeps them in its database too, and `docket secrets check` tells a wrong key.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::api::{Api, fixture};
use crate::support::{BIN, BinServer, client, docket, docket_json, on_postgres, postgres_for};

/// A private key file holding `hex`.
fn key_file(path: &Path, hex: &str) -> String {
    std::fs::write(path, format!("{hex}\n")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).unwrap();
    path.to_str().unwrap().to_string()
}

/// `docket serve` on `data` with TLS auto, the shared database and `key`.
fn node(data: &Path, url: &str, key: &str) -> BinServer {
    BinServer::start(
        &[
            "--data-dir",
            data.to_str().unwrap(),
            "--listen",
            "127.0.0.1:0",
            "--database-url",
            url,
            "--secret-key-file",
            key,
        ],
        &[],
    )
}

/// `docket serve` that must stop by itself: its exit success and what it printed on stderr.
fn refused_start(args: &[&str]) -> (bool, String) {
    let mut child = Command::new(BIN)
        .arg("serve")
        .args(args)
        .args(["--listen", "127.0.0.1:0", "--tls", "off"])
        .env_remove("DOCKET_SECRET_KEY")
        .env_remove("DOCKET_SECRET_KEY_FILE")
        .env_remove("DOCKET_DATABASE_URL")
        .env("DOCKET_OUTBOUND", "loopback-only")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("docket serve {args:?} did not stop by itself");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut err = String::new();
    use std::io::Read;
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (status.success(), err)
}

#[tokio::test(flavor = "multi_thread")]
async fn nodes_with_one_key_share_their_secrets_and_another_key_is_refused() {
    if !on_postgres() {
        eprintln!(
            "skipped: set DOCKET_TEST_POSTGRES (tests/pg/postgres.sh) to run the cluster test"
        );
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let url = postgres_for(&tmp.path().join("shared")).unwrap();
    let key = key_file(
        &tmp.path().join("secret.key"),
        "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff",
    );
    let (a_dir, b_dir) = (tmp.path().join("a"), tmp.path().join("b"));
    let (a, b) = {
        let (url, key) = (url.clone(), key.clone());
        let (a_dir, b_dir) = (a_dir.clone(), b_dir.clone());
        tokio::task::spawn_blocking(move || (node(&a_dir, &url, &key), node(&b_dir, &url, &key)))
            .await
            .unwrap()
    };

    // Both serve a leaf of the one local CA: a client trusting A's CA talks to B.
    let ca = std::fs::read(a_dir.join("tls/ca.pem")).unwrap();
    assert_eq!(std::fs::read(b_dir.join("tls/ca.pem")).unwrap(), ca);
    assert!(
        !a_dir.join("tls/ca.key").exists(),
        "the CA key is in the database"
    );
    let (to_a, to_b) = (client(a.addr, Some(&ca)), client(b.addr, Some(&ca)));
    let (base_a, base_b) = (
        format!("https://localhost:{}", a.addr.port()),
        format!("https://localhost:{}", b.addr.port()),
    );

    // One ID token key, published by both.
    let jwks = |c: reqwest::Client, base: String| async move {
        let r = c
            .get(format!("{base}/.well-known/jwks.json"))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        r.json::<Value>().await.unwrap()
    };
    let (jwks_a, jwks_b) = (
        jwks(to_a.clone(), base_a.clone()).await,
        jwks(to_b.clone(), base_b.clone()).await,
    );
    assert_eq!(jwks_a, jwks_b);
    assert!(jwks_a["keys"][0]["kid"].is_string(), "{jwks_a}");

    // An upload URL signed by A is accepted at B.
    let cli = {
        let (a_dir, url) = (a_dir.clone(), url.clone());
        tokio::task::spawn_blocking(move || {
            let url = url.as_str();
            docket_json(
                &a_dir,
                &[
                    "--database-url",
                    url,
                    "user",
                    "add",
                    "ada@example.com",
                    "--name",
                    "Ada",
                ],
                None,
            );
            docket_json(
                &a_dir,
                &[
                    "--database-url",
                    url,
                    "apikey",
                    "create",
                    "--user",
                    "ada@example.com",
                ],
                None,
            )
        })
        .await
        .unwrap()
    };
    let api_key = cli["key"].as_str().unwrap();
    let at_a = Api::new(to_a, &base_a, api_key);
    let created = at_a
        .create_document(json!({"title": "Across", "recipients": [{"name": "Ann", "email": "ann@example.com", "role": "SIGNER"}]}))
        .await;
    let signed = created.upload_url().to_string();
    assert!(signed.starts_with(&base_a), "{signed}");
    let at_b = Api::new(to_b, &base_b, api_key);
    let to_node_b = signed.replacen(&base_a, &base_b, 1);
    // A tampered signature is refused there, and the one A made is accepted.
    let tampered = format!("{to_node_b}x");
    assert_ne!(at_b.upload(&tampered, fixture("a4-1p.pdf")).await.0, 200);
    let (status, body) = at_b.upload(&to_node_b, fixture("a4-1p.pdf")).await;
    assert_eq!(status, 200, "B accepts what A signed: {body}");

    // The admin command opens every shared secret with the same key.
    let checked = tokio::task::spawn_blocking({
        let (a_dir, url, key) = (a_dir.clone(), url.clone(), key.clone());
        move || {
            docket_json(
                &a_dir,
                &[
                    "--database-url",
                    &url,
                    "--secret-key-file",
                    &key,
                    "secrets",
                    "check",
                ],
                None,
            )
        }
    })
    .await
    .unwrap();
    assert_eq!(checked["store"], "database", "{checked}");
    assert!(
        checked["secrets"]
            .as_array()
            .unwrap()
            .contains(&json!("oidc-signing.pem")),
        "{checked}"
    );

    // A third node with another key, or none, does not start, and says why.
    let other = key_file(
        &tmp.path().join("other.key"),
        "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100",
    );
    let c_dir = tmp.path().join("c");
    let c = c_dir.to_str().unwrap();
    let (ok, err) = tokio::task::spawn_blocking({
        let (url, other, c) = (url.clone(), other.clone(), c.to_string());
        move || {
            refused_start(&[
                "--data-dir",
                &c,
                "--database-url",
                &url,
                "--secret-key-file",
                &other,
            ])
        }
    })
    .await
    .unwrap();
    assert!(!ok);
    assert!(
        err.contains("the secret key does not match this database's; give every node the same --secret-key-file"),
        "{err}"
    );
    assert!(!err.contains("ffeeddcc"), "the key is never printed: {err}");
    let (ok, err) = tokio::task::spawn_blocking({
        let (url, c) = (url.clone(), c.to_string());
        move || refused_start(&["--data-dir", &c, "--database-url", &url])
    })
    .await
    .unwrap();
    assert!(!ok);
    assert!(err.contains("--secret-key-file"), "{err}");
    drop((a, b));
}

#[test]
fn a_single_node_given_a_key_keeps_its_secrets_in_the_database() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let key = key_file(
        &tmp.path().join("secret.key"),
        "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0",
    );
    let server = BinServer::start_in(&data, &["--secret-key-file", &key]);
    let checked = docket_json(
        &data,
        &["secrets", "check", "--secret-key-file", &key],
        None,
    );
    assert_eq!(checked["store"], "database", "{checked}");
    let names: Vec<&str> = checked["secrets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    for name in [
        "account-secrets.key",
        "hmac-1.key",
        "key-check",
        "local-ca",
        "webhook-secrets.key",
    ] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }
    let files: Vec<_> = std::fs::read_dir(data.join("secrets")).unwrap().collect();
    assert!(files.is_empty(), "no secret files beside the database");
    assert!(data.join("tls/ca.pem").exists() && !data.join("tls/ca.key").exists());
    drop(server);

    let other = key_file(
        &tmp.path().join("other.key"),
        "1f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0",
    );
    let out = docket(
        &data,
        &["secrets", "check", "--secret-key-file", &other],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("does not match this database's"), "{err}");
    if !on_postgres() {
        // Without the key, SQLite falls back to files: the check says so, it does not fail.
        let files = docket_json(&data, &["secrets", "check"], None);
        assert_eq!(files["store"], "files", "{files}");
    }
}

/// The names of the files in `dir`, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

/// An existing SQLite data dir given a key: its secrets move into the database, sealed, and
/// the plaintext files go once the database file itself holds them (not only its write-ahead
/// log); what was handed out before (a signed URL, the ID token key, the CA) still holds.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_data_dir_given_a_key_keeps_no_plaintext_secret_files() {
    if crate::support::skip_on_postgres("a data dir without a key is SQLite's") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let key = key_file(&tmp.path().join("secret.key"), &"5e".repeat(32));
    let jwks = |server: &BinServer, ca: &[u8]| {
        let (c, port) = (client(server.addr, Some(ca)), server.addr.port());
        async move {
            let url = format!("https://localhost:{port}/.well-known/jwks.json");
            let r = c.get(url).send().await.unwrap();
            assert_eq!(r.status(), 200);
            r.json::<Value>().await.unwrap()["keys"][0]["kid"].clone()
        }
    };

    // Without a key: files, as a single node has always kept them.
    let server = {
        let data = data.clone();
        tokio::task::spawn_blocking(move || BinServer::start_in(&data, &[]))
            .await
            .unwrap()
    };
    let ca = std::fs::read(data.join("tls/ca.pem")).unwrap();
    let kid = jwks(&server, &ca).await;
    assert!(kid.is_string(), "{kid}");
    let base = format!("https://localhost:{}", server.addr.port());
    let api_key = tokio::task::spawn_blocking({
        let data = data.clone();
        move || {
            docket_json(
                &data,
                &["user", "add", "ada@example.com", "--name", "Ada"],
                None,
            );
            docket_json(
                &data,
                &["apikey", "create", "--user", "ada@example.com"],
                None,
            )
        }
    })
    .await
    .unwrap()["key"]
        .as_str()
        .unwrap()
        .to_string();
    let before = Api::new(client(server.addr, Some(&ca)), &base, &api_key);
    let created = before
        .create_document(json!({"title": "Signed before", "recipients": [{"name": "Ann", "email": "ann@example.com", "role": "SIGNER"}]}))
        .await;
    let signed_before = created.upload_url().to_string();
    assert_eq!(
        names_in(&data.join("secrets")),
        [
            "account-secrets.key",
            "hmac-1.key",
            "oidc-signing.pem",
            "webhook-secrets.key"
        ]
    );
    assert!(data.join("tls/ca.key").exists());
    drop(server);

    // With the key: the same secrets, from the database only.
    let server = {
        let (data, key) = (data.clone(), key.clone());
        tokio::task::spawn_blocking(move || {
            BinServer::start_in(&data, &["--secret-key-file", &key])
        })
        .await
        .unwrap()
    };
    assert_eq!(names_in(&data.join("secrets")), Vec::<String>::new());
    assert!(!data.join("tls/ca.key").exists(), "the CA key went");
    assert_eq!(
        std::fs::read(data.join("tls/ca.pem")).unwrap(),
        ca,
        "the same CA"
    );
    assert_eq!(jwks(&server, &ca).await, kid, "the same ID token key");
    let base_after = format!("https://localhost:{}", server.addr.port());
    let after = Api::new(client(server.addr, Some(&ca)), &base_after, &api_key);
    let url = signed_before.replacen(&base, &base_after, 1);
    let (status, body) = after.upload(&url, fixture("a4-1p.pdf")).await;
    assert_eq!(status, 200, "a URL signed before still holds: {body}");

    // The database file alone, without its write-ahead log, holds every secret: the files
    // went only after a checkpoint made the rows durable.
    let copy = tmp.path().join("copy.db");
    std::fs::copy(data.join("docket.db"), &copy).unwrap();
    let db = rusqlite::Connection::open(&copy).unwrap();
    let mut names: Vec<String> = db
        .prepare("SELECT name FROM shared_secrets ORDER BY name")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    names.retain(|n| n != "key-check");
    assert_eq!(
        names,
        [
            "account-secrets.key",
            "hmac-1.key",
            "local-ca",
            "oidc-signing.pem",
            "webhook-secrets.key"
        ]
    );
    drop(server);
}
