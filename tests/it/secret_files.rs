//! Secrets at rest and in the process table: backups are owner-only like the live data, and
//! the SMTP password can come from a file instead of the command line.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::mail::free_port;
use crate::{harness::BinServer, harness::docket_json};

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn a_backup_is_readable_by_its_owner_only() {
    if crate::harness::skip_on_postgres("docket backup copies the SQLite appliance") {
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

/// aiosmtpd on 127.0.0.1:`port` that takes mail only after AUTH as `user`/`password`
/// (PLAIN or LOGIN, without TLS: loopback only), delivering into the Maildir `dir/md`.
struct AuthSmtp(Child);

const AUTH_SMTP: &str = r#"
import os, sys, threading
from aiosmtpd.controller import Controller
from aiosmtpd.handlers import Mailbox
from aiosmtpd.smtp import AuthResult, LoginPassword
port, maildir = int(sys.argv[1]), sys.argv[2]
user, password = os.environ["SMTP_USER"].encode(), os.environ["SMTP_PASSWORD"].encode()
def check(server, session, envelope, mechanism, data):
    ok = isinstance(data, LoginPassword) and data.login == user and data.password == password
    return AuthResult(success=ok)
Controller(Mailbox(maildir), hostname="127.0.0.1", port=port, authenticator=check,
           auth_required=True, auth_require_tls=False).start()
threading.Event().wait()
"#;

impl AuthSmtp {
    fn start(port: u16, dir: &Path, user: &str, password: &str) -> AuthSmtp {
        let child = Command::new("python3")
            .args(["-c", AUTH_SMTP, &port.to_string()])
            .arg(dir.join("md"))
            .env("SMTP_USER", user)
            .env("SMTP_PASSWORD", password)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 with aiosmtpd runs");
        let deadline = Instant::now() + Duration::from_secs(15);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "aiosmtpd did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        AuthSmtp(child)
    }
}

impl Drop for AuthSmtp {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn the_smtp_password_comes_from_a_file_and_stays_out_of_the_process_table() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    // Characters a URL would need escaped are taken as they are.
    let password = "pa:ss/w@rd %41+&";
    let file = tmp.path().join("smtp-password");
    std::fs::write(&file, format!("{password}\n")).unwrap();
    let port = free_port();
    let _smtp = AuthSmtp::start(port, tmp.path(), "docket", password);

    let url = format!("smtp://docket@127.0.0.1:{port}?tls=none");
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
        let got: Vec<String> = std::fs::read_dir(tmp.path().join("md/new"))
            .map(|d| {
                d.filter_map(|e| std::fs::read_to_string(e.ok()?.path()).ok())
                    .collect()
            })
            .unwrap_or_default();
        if let Some(m) = got.into_iter().next() {
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
        let out = Command::new(crate::harness::BIN)
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
