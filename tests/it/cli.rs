//! The admin CLI through the real binary: every command, `--json` shapes, exit codes, and
//! working while the server runs.

use std::path::Path;

use serde_json::Value;

use crate::support::{BIN, BinServer, docket, docket_json};

fn keys(v: &Value) -> Vec<String> {
    let mut k: Vec<String> = v.as_object().expect("an object").keys().cloned().collect();
    k.sort();
    k
}

fn sorted(list: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = list.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

#[test]
fn user_commands_with_json() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();

    user_add_prints_the_user_and_any_generated_password(d);
    users_are_listed_shown_and_changed(d);

    // Human output works too.
    let out = docket(d, &["user", "list"], None);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("EMAIL") && text.contains("grace@example.com"));
}

/// Adds ada@example.com (generated password), grace@example.com (chosen password, username,
/// tier) and ada@other.org (the same local part).
fn user_add_prints_the_user_and_any_generated_password(d: &Path) {
    let ada = docket_json(
        d,
        &["user", "add", "Ada@Example.com", "--name", "Ada Lovelace"],
        None,
    );
    assert_eq!(
        keys(&ada),
        sorted(&["id", "email", "name", "username", "tier", "password"])
    );
    assert_eq!(ada["email"], "ada@example.com");
    assert_eq!(ada["username"], "ada");
    assert_eq!(ada["tier"], "standard");
    assert!(
        ada["password"].as_str().unwrap().len() >= 16,
        "a strong generated password"
    );

    let grace = docket_json(
        d,
        &[
            "user",
            "add",
            "grace@example.com",
            "--name",
            "Grace",
            "--tier",
            "enterprise",
            "--username",
            "ghopper",
            "--password-stdin",
        ],
        Some("a long password\n"),
    );
    assert_eq!(
        keys(&grace),
        sorted(&["id", "email", "name", "username", "tier"]),
        "no password when chosen"
    );
    assert_eq!(grace["username"], "ghopper");
    assert_eq!(grace["tier"], "enterprise");

    // The same local part again gets a unique username.
    let ada2 = docket_json(
        d,
        &["user", "add", "ada@other.org", "--name", "Ada Two"],
        None,
    );
    assert_eq!(ada2["username"], "ada-2");
}

/// `user list`, `show`, `passwd`, `disable`, `enable` and `set-tier` with `--json`.
fn users_are_listed_shown_and_changed(d: &Path) {
    let list = docket_json(d, &["user", "list"], None);
    let list = list.as_array().expect("list prints an array");
    assert_eq!(list.len(), 3);
    assert_eq!(list[0]["email"], "ada@example.com");
    assert_eq!(list[0]["disabled"], false);

    let shown = docket_json(d, &["user", "show", "grace@example.com"], None);
    assert_eq!(shown["name"], "Grace");
    assert!(shown["created_at"].as_str().unwrap().ends_with('Z'));

    let pw = docket_json(d, &["user", "passwd", "grace@example.com"], None);
    assert_eq!(pw["password_changed"], true);
    assert!(pw["password"].as_str().unwrap().len() >= 16);
    let pw = docket_json(
        d,
        &["user", "passwd", "grace@example.com", "--password-stdin"],
        Some("another long one\n"),
    );
    assert!(pw.get("password").is_none());

    let off = docket_json(d, &["user", "disable", "ada@example.com"], None);
    assert_eq!(off["disabled"], true);
    let on = docket_json(d, &["user", "enable", "ada@example.com"], None);
    assert_eq!(on["disabled"], false);
    let tier = docket_json(
        d,
        &["user", "set-tier", "ada@example.com", "enterprise"],
        None,
    );
    assert_eq!(tier["tier"], "enterprise");
}

#[test]
fn user_errors_have_exit_codes_and_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    docket_json(
        d,
        &["user", "add", "ada@example.com", "--name", "Ada"],
        None,
    );

    let dup = docket(
        d,
        &["user", "add", "ADA@example.com", "--name", "Again"],
        None,
    );
    assert_eq!(dup.status.code(), Some(1));
    let err = String::from_utf8(dup.stderr).unwrap();
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("already exists"), "{err}");

    let bad = docket(d, &["user", "add", "not-an-email", "--name", "X"], None);
    assert_eq!(bad.status.code(), Some(2));
    let short = docket(
        d,
        &[
            "user",
            "add",
            "b@example.com",
            "--name",
            "B",
            "--password-stdin",
        ],
        Some("short\n"),
    );
    assert_eq!(short.status.code(), Some(2));
    let missing = docket(d, &["user", "show", "nobody@example.com"], None);
    assert_eq!(missing.status.code(), Some(1));
    let usage = docket(d, &["user", "frobnicate"], None);
    assert_eq!(usage.status.code(), Some(2));
    let tier = docket(d, &["user", "set-tier", "ada@example.com", "gold"], None);
    assert_eq!(tier.status.code(), Some(2));
}

#[test]
fn client_commands_print_what_an_app_needs() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let (id, secret) = client_add_prints_the_ids_and_urls(d);
    client_add_human_output_lists_the_five_items(d);

    let public = docket_json(
        d,
        &[
            "client",
            "add",
            "--name",
            "Phone",
            "--redirect-uri",
            "com.example.phone:/cb",
            "--public",
            "--scope",
            "READ_PROFILE",
        ],
        None,
    );
    assert!(public["client_secret"].is_null());
    let public_id = public["client_id"].as_str().unwrap();

    clients_are_listed_and_shown_without_their_secret(d, &id, public_id);
    secrets_are_rotated_and_clients_removed(d, &id, &secret, public_id);

    let bad = docket(
        d,
        &[
            "client",
            "add",
            "--name",
            "Bad",
            "--redirect-uri",
            "http://evil.example/cb",
        ],
        None,
    );
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8(bad.stderr).unwrap().contains("https"));
}

/// Adds the confidential client "Cal" with two redirect URIs: its id and secret.
fn client_add_prints_the_ids_and_urls(d: &Path) -> (String, String) {
    let added = docket_json(
        d,
        &[
            "client",
            "add",
            "--name",
            "Cal",
            "--redirect-uri",
            "https://cal.example.com/cb",
            "--redirect-uri",
            "http://localhost:3000/cb",
            "--logo-url",
            "https://cal.example.com/logo.png",
            "--app-url",
            "https://cal.example.com",
            "--public-url",
            "https://docket.example.org",
        ],
        None,
    );
    assert_eq!(
        keys(&added),
        sorted(&[
            "client_id",
            "client_secret",
            "authorization_url",
            "token_url",
            "refresh_token_url",
            "name",
            "redirect_uris"
        ])
    );
    let id = added["client_id"].as_str().unwrap().to_string();
    let secret = added["client_secret"].as_str().unwrap().to_string();
    assert!(secret.len() >= 40);
    assert_eq!(
        added["authorization_url"],
        "https://docket.example.org/auth/oauth2/authorize"
    );
    assert_eq!(
        added["token_url"],
        "https://docket.example.org/api/auth/oauth/token"
    );
    assert_eq!(
        added["refresh_token_url"],
        "https://docket.example.org/api/auth/oauth/refreshToken"
    );
    assert_eq!(added["redirect_uris"].as_array().unwrap().len(), 2);
    (id, secret)
}

/// Human output lists the five items.
fn client_add_human_output_lists_the_five_items(d: &Path) {
    let out = docket(
        d,
        &[
            "client",
            "add",
            "--name",
            "Other",
            "--redirect-uri",
            "https://o.example/cb",
        ],
        None,
    );
    let text = String::from_utf8(out.stdout).unwrap();
    for item in [
        "Client ID",
        "Client Secret",
        "Authorization URL",
        "Access Token Request URL",
        "Refresh Token Request URL",
    ] {
        assert!(text.contains(item), "{item} missing from {text}");
    }
}

/// The three clients are listed; Cal (`id`) and the public Phone (`public_id`) are shown,
/// without a secret.
fn clients_are_listed_and_shown_without_their_secret(d: &Path, id: &str, public_id: &str) {
    let list = docket_json(d, &["client", "list"], None);
    assert_eq!(list.as_array().unwrap().len(), 3);
    let shown = docket_json(d, &["client", "show", id], None);
    assert_eq!(shown["name"], "Cal");
    assert_eq!(shown["logo_url"], "https://cal.example.com/logo.png");
    assert!(
        shown.get("client_secret").is_none(),
        "the secret is never shown again"
    );
    let phone = docket_json(d, &["client", "show", public_id], None);
    assert_eq!(phone["scopes"], "READ_PROFILE");
    assert_eq!(phone["public"], true);
}

/// Cal's (`id`) `secret` is rotated, the public client's cannot be; Cal is removed.
fn secrets_are_rotated_and_clients_removed(d: &Path, id: &str, secret: &str, public_id: &str) {
    let rotated = docket_json(d, &["client", "rotate-secret", id], None);
    let new_secret = rotated["client_secret"].as_str().unwrap();
    assert_ne!(new_secret, secret);
    let no_secret = docket(d, &["client", "rotate-secret", public_id], None);
    assert_eq!(no_secret.status.code(), Some(1));

    let removed = docket_json(d, &["client", "remove", id], None);
    assert_eq!(removed["removed"], true);
    assert_eq!(
        docket(d, &["client", "show", id], None).status.code(),
        Some(1)
    );
}

#[test]
fn apikey_commands() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    docket_json(
        d,
        &["user", "add", "ada@example.com", "--name", "Ada"],
        None,
    );
    let created = docket_json(
        d,
        &[
            "apikey",
            "create",
            "--user",
            "ada@example.com",
            "--name",
            "ci",
            "--expires-in-days",
            "30",
        ],
        None,
    );
    assert_eq!(
        keys(&created),
        sorted(&["id", "key", "user", "name", "expires_at"])
    );
    let key = created["key"].as_str().unwrap();
    assert!(key.starts_with("api_") && key.len() >= 36);
    assert!(key[4..].chars().all(|c| c.is_ascii_alphanumeric()));
    assert_eq!(created["user"], "ada@example.com");
    assert!(created["expires_at"].as_str().unwrap().ends_with('Z'));
    let forever = docket_json(d, &["apikey", "create", "--user", "ada@example.com"], None);
    assert!(forever["expires_at"].is_null());

    let list = docket_json(d, &["apikey", "list", "--user", "ada@example.com"], None);
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0]["state"], "active");
    assert!(list[0].get("key").is_none(), "keys are never listed");
    assert_eq!(list[0]["prefix"].as_str().unwrap(), &key[..8]);

    let id = created["id"].to_string();
    let revoked = docket_json(d, &["apikey", "revoke", &id], None);
    assert_eq!(revoked["state"], "revoked");
    assert_eq!(
        docket(d, &["apikey", "revoke", &id], None).status.code(),
        Some(1)
    );
    assert_eq!(
        docket(
            d,
            &["apikey", "create", "--user", "nobody@example.com"],
            None
        )
        .status
        .code(),
        Some(1)
    );
    assert_eq!(
        docket(d, &["apikey", "revoke", "999"], None).status.code(),
        Some(1)
    );
}

/// `docket user list | head -0`: a reader that stops early ends the command the way it ends any
/// Unix tool (SIGPIPE), never with a panic on the closed pipe.
#[test]
fn output_into_a_closed_pipe_ends_quietly() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};
    let tmp = tempfile::tempdir().unwrap();
    let mut child = Command::new(BIN)
        .args(["user", "list"])
        .env("DOCKET_DATA_DIR", tmp.path())
        .env_remove("DOCKET_DATABASE_URL")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Closed before the command has opened its database, so its first write meets no reader.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(
        out.status.signal(),
        Some(13),
        "ended by SIGPIPE: {:?}",
        out.status
    );
}

#[test]
fn version_prints_version_commit_and_sqlite() {
    let tmp = tempfile::tempdir().unwrap();
    let v = docket_json(tmp.path(), &["version"], None);
    assert_eq!(v["version"], env!("CARGO_PKG_VERSION"));
    assert!(v["sqlite"].as_str().unwrap().starts_with("3."));
    assert!(v["commit"].is_string());
    assert!(v["schema"].as_i64().unwrap() >= 2);
    let help = docket(tmp.path(), &["--help"], None);
    let text = String::from_utf8(help.stdout).unwrap();
    for cmd in ["serve", "user", "client", "apikey", "backup", "version"] {
        assert!(text.contains(cmd), "--help lists {cmd}");
    }
}

#[test]
fn admin_commands_work_while_the_server_runs_and_use_its_public_url() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let server = BinServer::start_in(&data, &["--tls", "off"]);
    let public = server.banner_value("public url").unwrap();
    docket_json(
        &data,
        &["user", "add", "ada@example.com", "--name", "Ada"],
        None,
    );
    let client = docket_json(
        &data,
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
    assert_eq!(
        client["authorization_url"],
        format!("{public}/auth/oauth2/authorize")
    );
    docket_json(
        &data,
        &["apikey", "create", "--user", "ada@example.com"],
        None,
    );
    assert_eq!(
        docket_json(&data, &["user", "list"], None)
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let backup = tmp.path().join("bk");
    if crate::support::on_postgres() {
        // A cluster is backed up with pg_dump and bucket versioning (docs/operate/backups.md).
        let out = docket(&data, &["backup", backup.to_str().unwrap()], None);
        assert!(!out.status.success());
        assert!(String::from_utf8_lossy(&out.stderr).contains("pg_dump"));
    } else {
        let report = docket_json(&data, &["backup", backup.to_str().unwrap()], None);
        assert_eq!(report["schema_version"], docket::core::db::migrate::LATEST);
    }
    drop(server);
}
