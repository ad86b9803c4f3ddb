//! Storage: an older schema upgrades in place keeping its rows, secrets never reach the database
//! in clear, and a backup taken while serving restores into a working data dir.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::json;

use crate::support::api::{Api, create_api_key, fixture};
use crate::support::{TestApp, TestDb, docket, docket_json, on_postgres, skip_on_postgres};

#[test]
fn an_old_database_upgrades_in_place_and_keeps_its_rows() {
    if skip_on_postgres("upgrades a SQLite file from an old schema") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    std::fs::create_dir(&data).unwrap();
    {
        let c = rusqlite::Connection::open(data.join("docket.db")).unwrap();
        c.execute_batch(include_str!("../fixtures/schema_v1.sql"))
            .unwrap();
        c.execute_batch(
            "INSERT INTO users (id, email, username, name, password_hash, created_at, updated_at)
                  VALUES (7, 'old@example.com', 'old', 'Old Timer', '$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHQ$aGFzaA', 100, 100);
             INSERT INTO oauth_clients (id, client_id, name, secret_hash, created_at)
                  VALUES (3, 'legacyclient0000000000000', 'Legacy', 'ab', 100);
             INSERT INTO oauth_client_redirect_uris VALUES (3, 0, 'https://legacy.example/cb');
             INSERT INTO api_keys (user_id, name, key_hash, key_prefix, created_at)
                  VALUES (7, 'old key', 'cd', 'api_XXXX', 100);",
        )
        .unwrap();
    }

    let users = docket_json(&data, &["user", "list"], None);
    assert_eq!(users[0]["email"], "old@example.com");
    assert_eq!(users[0]["id"], 7);
    let clients = docket_json(&data, &["client", "list"], None);
    assert_eq!(clients[0]["client_id"], "legacyclient0000000000000");
    assert_eq!(clients[0]["redirect_uris"][0], "https://legacy.example/cb");
    assert!(
        clients[0]["scopes"].is_null(),
        "the new column exists and is empty"
    );
    let keys = docket_json(&data, &["apikey", "list"], None);
    assert_eq!(keys[0]["name"], "old key");

    let c = rusqlite::Connection::open(data.join("docket.db")).unwrap();
    let version: i64 = c
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, docket::core::db::migrate::LATEST);
    let blobs_table: i64 = c
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name = 'blobs'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(blobs_table, 1);

    // The automatic backup taken before the upgrade holds the old version and the rows.
    let backups: Vec<_> = std::fs::read_dir(data.join("backups"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(backups.len(), 1, "{backups:?}");
    let old = rusqlite::Connection::open(&backups[0]).unwrap();
    let v: i64 = old
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(v, 1);
    let n: i64 = old
        .query_row("SELECT count(*) FROM users", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 1);

    // A second run has nothing to do and takes no further backup.
    docket_json(&data, &["user", "list"], None);
    assert_eq!(std::fs::read_dir(data.join("backups")).unwrap().count(), 1);
}

#[test]
fn a_database_newer_than_the_binary_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    std::fs::create_dir(&data).unwrap();
    if on_postgres() {
        assert!(docket(&data, &["migrate"], None).status.success());
        TestDb::open(&data)
            .execute("UPDATE docket_schema SET version = 999", [])
            .unwrap();
    } else {
        let c = rusqlite::Connection::open(data.join("docket.db")).unwrap();
        c.execute_batch("PRAGMA user_version = 999;").unwrap();
    }
    let out = docket(&data, &["user", "list"], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8(out.stderr).unwrap().contains("newer"));
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|w| w == needle.as_bytes())
}

#[test]
fn secrets_are_absent_in_clear_from_the_database_files() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let password = "Correct-Horse-Battery-Staple-42";
    let [generated, secret, rotated, key] = users_a_client_and_a_key_with_secrets(&data, password);

    let all = crate::support::database_bytes(&data);
    assert!(!all.is_empty());
    for secret in [
        password,
        generated.as_str(),
        secret.as_str(),
        rotated.as_str(),
        key.as_str(),
    ] {
        assert!(!contains(&all, secret), "a secret is stored in clear");
    }
    // What is stored instead: the SHA-256 of the key and an argon2id hash of the password.
    assert!(
        contains(&all, &docket::core::crypto::sha256_hex(&key)),
        "the key's hash is there"
    );
    assert!(contains(&all, "$argon2id$"));
    if !on_postgres() {
        the_database_and_secrets_are_private(&data);
    }
}

/// Adds Ada with `password`, Bob with a generated one, the client Cal (its secret rotated) and
/// an API key for Ada: [Bob's password, Cal's first secret, the rotated one, the key].
fn users_a_client_and_a_key_with_secrets(data: &Path, password: &str) -> [String; 4] {
    docket_json(
        data,
        &[
            "user",
            "add",
            "ada@example.com",
            "--name",
            "Ada",
            "--password-stdin",
        ],
        Some(&format!("{password}\n")),
    );
    let generated = docket_json(
        data,
        &["user", "add", "bob@example.com", "--name", "Bob"],
        None,
    );
    let generated = generated["password"].as_str().unwrap().to_string();
    let client = docket_json(
        data,
        &[
            "client",
            "add",
            "--name",
            "Cal",
            "--redirect-uri",
            "https://cal.example.com/cb",
        ],
        None,
    );
    let secret = client["client_secret"].as_str().unwrap().to_string();
    let rotated = docket_json(
        data,
        &[
            "client",
            "rotate-secret",
            client["client_id"].as_str().unwrap(),
        ],
        None,
    );
    let rotated = rotated["client_secret"].as_str().unwrap().to_string();
    let key = docket_json(
        data,
        &["apikey", "create", "--user", "ada@example.com"],
        None,
    );
    let key = key["key"].as_str().unwrap().to_string();
    [generated, secret, rotated, key]
}

/// The database file and the secrets are the owner's only (0600), in a 0700 data dir.
fn the_database_and_secrets_are_private(data: &Path) {
    let mode = std::fs::metadata(data.join("docket.db"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    let dir_mode = std::fs::metadata(data).unwrap().permissions().mode();
    assert_eq!(dir_mode & 0o777, 0o700);
    for entry in std::fs::read_dir(data.join("secrets")).unwrap() {
        let mode = entry.unwrap().metadata().unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_taken_while_serving_restores_into_a_working_data_dir() {
    if skip_on_postgres("docket backup copies the SQLite appliance") {
        return;
    }
    let app = TestApp::spawn().await;
    let data = app.data_dir();
    docket_json(
        &data,
        &["user", "add", "ada@example.com", "--name", "Ada"],
        None,
    );
    // A blob, written the way the server writes them, and its row.
    let blobs = docket::core::blob::BlobStore::open(&data.join("blobs")).unwrap();
    let stored = blobs.put(b"%PDF-1.7 backup me").unwrap();
    let db = docket::core::db::Db::open(&data.join("docket.db"), &data.join("backups"), 1).unwrap();
    let (id, sha) = (stored.id.to_string(), stored.sha256.clone());
    db.write(move |c| {
        c.execute(
            "INSERT INTO blobs (id, size, sha256, content_type, created_at) VALUES (?1, 18, ?2, 'application/pdf', 0)",
            [&id, &sha],
        )?;
        Ok(())
    })
    .await
    .unwrap();

    // Keep the server busy with writes while the backup runs.
    let writer_data = data.clone();
    let writer = std::thread::spawn(move || {
        for i in 0..20 {
            let email = format!("load{i}@example.com");
            docket_json(
                &writer_data,
                &["user", "add", &email, "--name", "Load"],
                None,
            );
        }
    });
    let dest = app.dir.path().join("backup-1");
    let report = docket_json(&data, &["backup", dest.to_str().unwrap()], None);
    writer.join().unwrap();
    assert_eq!(report["blobs"], 1);
    assert_eq!(app.get("/healthz").await.status(), 200, "still serving");

    let copied = std::fs::read(
        dest.join("blobs")
            .join(&stored.id.as_str()[..2])
            .join(stored.id.as_str()),
    )
    .unwrap();
    assert_eq!(copied, b"%PDF-1.7 backup me");
    assert!(dest.join("secrets/hmac-1.key").exists());
    let _dir = app.stop().await; // keeps the temp dir (and the backup in it) alive

    // Restore = use the copy as a data dir.
    let restored = docket_json(&dest, &["user", "show", "ada@example.com"], None);
    assert_eq!(restored["name"], "Ada");
    let check = rusqlite::Connection::open(dest.join("docket.db")).unwrap();
    let ok: String = check
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(ok, "ok");

    // Backing up onto an existing directory is refused and changes nothing.
    let again = docket(&data, &["backup", dest.to_str().unwrap()], None);
    assert_eq!(again.status.code(), Some(1));
}

/// Issue 6: a backup, restored as a data dir on a new server, serves the same documents and
/// files, and the API key, OAuth tokens and signing links issued before it still work.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restored_backup_serves_the_same_documents_tokens_and_blobs() {
    if skip_on_postgres("docket backup copies the SQLite appliance") {
        return;
    }
    let app = TestApp::spawn().await;
    let data = app.data_dir();
    let (client_id, secret) = crate::support::oauth::setup(&app, &[]);
    let api = app.api(
        create_api_key(&data, "ada@example.com")["key"]
            .as_str()
            .unwrap(),
    );
    let (access, refresh) = oauth_tokens_for_ada(&app, &client_id, &secret).await;
    let (id, token) = a_sent_document_for_ann(&api).await;
    let (_, before) = api.get(&format!("/api/v1/documents/{id}")).await;
    let old_base = app.base.clone();

    let target = tempfile::tempdir().unwrap();
    let dest = target.path().join("data");
    let report = docket_json(&data, &["backup", dest.to_str().unwrap()], None);
    assert_eq!(report["blobs"], 1);
    let _old = app.stop().await;

    let restored = TestApp::spawn_in(target, &["--tls", "off"]).await;
    let api = restored.api(api.key());
    // The same document (signing URLs name the new server's address).
    let (s, after) = api.get(&format!("/api/v1/documents/{id}")).await;
    assert_eq!(s, 200, "the API key still works");
    let before = before.to_string().replace(&old_base, &restored.base);
    assert_eq!(after.to_string(), before);
    // The OAuth access and refresh tokens still work.
    let (s, list) = restored
        .api(&format!("Bearer {access}"))
        .get("/api/v1/documents")
        .await;
    assert_eq!(s, 200);
    assert_eq!(list["documents"][0]["id"], id);
    let refreshed = crate::oauth_rules::refresh(&restored, &client_id, &secret, &refresh).await;
    assert_eq!(refreshed.status(), 200);
    the_signing_link_and_the_file_still_work(&restored, &api, id, &token).await;
    restored.stop().await;
}

/// Ada signs in and allows client `client_id` READ_DOCUMENT: (access token, refresh token).
async fn oauth_tokens_for_ada(app: &TestApp, client_id: &str, secret: &str) -> (String, String) {
    let cookie =
        crate::support::login::sign_in(app, "ada@example.com", crate::support::login::PASSWORD)
            .await
            .unwrap();
    let code = crate::oauth_rules::code(app, &cookie, client_id, "READ_DOCUMENT", &[]).await;
    crate::oauth_rules::pair(crate::oauth_rules::redeem(app, client_id, secret, &code, &[]).await)
        .await
}

/// A document for Ann with a signature field, sent: (its id, Ann's signing token).
async fn a_sent_document_for_ann(api: &Api) -> (i64, String) {
    let created = api.create_document(json!({"title": "Kept", "recipients": [{"name": "Ann", "email": "ann@example.com", "role": "SIGNER"}]})).await;
    let id = created.document_id();
    let (put, _) = api.upload(created.upload_url(), fixture("a4-1p.pdf")).await;
    assert_eq!(put, 200);
    let rid = created["recipients"][0]["recipientId"].clone();
    let field = json!({"recipientId": rid, "type": "SIGNATURE", "pageNumber": 1, "pageX": 10, "pageY": 80, "pageWidth": 30, "pageHeight": 8});
    let path = format!("/api/v1/documents/{id}/fields");
    assert_eq!(api.post(&path, field).await.0, 200);
    let sent = api.send(id).await;
    assert_eq!(sent.0, 200, "{}", sent.1);
    (id, created.token(0))
}

/// The signing link still works and the page renders from the restored file; the file
/// itself downloads byte for byte.
async fn the_signing_link_and_the_file_still_work(
    restored: &TestApp,
    api: &Api,
    id: i64,
    token: &str,
) {
    let state = restored.get(&format!("/sign/{token}/state")).await;
    assert_eq!(state.status(), 200);
    let st: serde_json::Value = state.json().await.unwrap();
    assert_eq!(st["yourTurn"], true);
    let png = restored.get(&format!("/sign/{token}/pages/1.png")).await;
    assert_eq!(png.status(), 200);
    assert!(png.bytes().await.unwrap().starts_with(b"\x89PNG"));
    // The file itself, byte for byte.
    let (s, v) = api
        .get(&format!("/api/v1/documents/{id}/download?original=true"))
        .await;
    assert_eq!(s, 200);
    let file = restored
        .client
        .get(v["downloadUrl"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(
        file.bytes().await.unwrap().as_ref(),
        fixture("a4-1p.pdf").as_slice()
    );
}
