//! Secrets at rest and in the process table: backups are owner-only like the live data, and
//! the SMTP password can come from a file instead of the command line.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::mailbox::MailBox;
use crate::support::{BinServer, docket_json};

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn a_backup_is_readable_by_its_owner_only() {
    if crate::support::skip_on_postgres("docket backup copies the SQLite appliance") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    docket_json(
        &data,
        &["user", "add", "ada@example.com", "--name", "Ada"],
        None,
    );
    let dest = tmp.path().join("bk");
    docket_json(&data, &["backup", dest.to_str().unwrap()], None);
    assert_eq!(mode(&dest), 0o700, "the backup directory");
    assert_eq!(mode(&dest.join("docket.db")), 0o600, "the database copy");
    for dir in ["secrets", "tls"] {
        assert_eq!(mode(&dest.join(dir)), 0o700, "{dir}");
        for f in std::fs::read_dir(dest.join(dir)).unwrap() {
            let p = f.unwrap().path();
            assert_eq!(mode(&p), 0o600, "{}", p.display());
        }
    }
}

#[test]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs Python's aiosmtpd")]
fn the_smtp_password_comes_from_a_file_and_stays_out_of_the_process_table() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    // Characters a URL would need escaped are taken as they are.
    let password = "pa:ss/w@rd %41+&";
    let file = tmp.path().join("smtp-password");
    std::fs::write(&file, format!("{password}\n")).unwrap();
    let smtp = MailBox::start_with_auth("docket", password);

    let url = format!("smtp://docket@127.0.0.1:{}?tls=none", smtp.port());
    let server = BinServer::start(
        &[
            "--data-dir",
            data.to_str().unwrap(),
            "--listen",
            "127.0.0.1:0",
            "--tls",
            "off",
            "--smtp-url",
            &url,
            "--retry-base-ms",
            "200",
        ],
        &[("DOCKET_SMTP_PASSWORD_FILE", file.to_str().unwrap())],
    );
    let pid = server.child.id();
    for what in ["cmdline", "environ"] {
        let raw = std::fs::read(format!("/proc/{pid}/{what}")).unwrap();
        let text = String::from_utf8_lossy(&raw);
        assert!(
            !text.contains(password),
            "the password is in /proc/PID/{what}"
        );
    }

    docket_json(&data, &["mail", "test", "bob@example.com"], None);
    let deadline = Instant::now() + Duration::from_secs(30);
    let message = loop {
        if let Some(m) = smtp.messages().into_iter().next() {
            break m;
        }
        let list = docket_json(&data, &["mail", "list"], None);
        assert!(
            Instant::now() < deadline,
            "the authenticated server got no mail: {list}"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(message.contains("To: bob@example.com"), "{message}");
    assert!(
        message.contains("Subject: Docket test message"),
        "{message}"
    );
}

/// A secret key file its group or other users can read stops `docket serve` with one line
/// naming the file and the `chmod` to run, as ssh refuses such a private key; made private,
/// the same file is taken.
#[test]
fn a_secret_key_file_open_to_the_group_or_others_stops_the_start() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let key = tmp.path().join("secret.key");
    let hex = "4a".repeat(32);
    std::fs::write(&key, format!("{hex}\n")).unwrap();
    for open in [0o640, 0o604, 0o660] {
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(open)).unwrap();
        let out = Command::new(crate::support::BIN)
            .args(["serve", "--listen", "127.0.0.1:0", "--tls", "off"])
            .arg("--data-dir")
            .arg(&data)
            .arg("--secret-key-file")
            .arg(&key)
            .env_remove("DOCKET_SECRET_KEY")
            .env_remove("DOCKET_DATABASE_URL")
            .stdout(Stdio::null())
            .output()
            .unwrap();
        assert!(!out.status.success(), "mode {open:o} was accepted");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
        assert!(
            err.contains(&format!("(mode {open:04o})"))
                && err.contains(&format!("chmod 600 {}", key.display())),
            "{err}"
        );
        assert!(!err.contains(&hex), "the key is never printed: {err}");
        assert!(
            !data.join("docket.db").exists(),
            "refused before anything is opened"
        );
    }
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).unwrap();
    let server = BinServer::start_in(&data, &["--secret-key-file", key.to_str().unwrap()]);
    drop(server);
}
