//! A real SMTP server for the mail tests: Python's aiosmtpd on 127.0.0.1 writing what it
//! receives into a Maildir (an outside tool: the tests that use it are gated, see
//! [`super::tools`]).

use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use tempfile::TempDir;

use super::tools;
use super::wait::wait_for;

/// aiosmtpd with an AUTH check: mail only after AUTH (PLAIN or LOGIN, without TLS: loopback
/// only) as `SMTP_USER` / `SMTP_PASSWORD`.
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

/// aiosmtpd on 127.0.0.1:`port`, delivering into the Maildir `md` in a folder of its own;
/// killed on drop.
pub struct MailBox {
    child: Child,
    port: u16,
    dir: TempDir,
}

impl MailBox {
    /// A mail box on a free port.
    pub fn start() -> MailBox {
        Self::start_on(free_port())
    }

    /// A mail box on `port` (one a server was told of before the mail box came up).
    pub fn start_on(port: u16) -> MailBox {
        let dir = tempfile::tempdir().unwrap();
        let child = tools::python(&["aiosmtpd"])
            .args(["-m", "aiosmtpd", "-n", "-l", &format!("127.0.0.1:{port}")])
            .args(["-c", "aiosmtpd.handlers.Mailbox"])
            // Python's Maildir creates its folders only when the directory does not exist.
            .arg(dir.path().join("md"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 -m aiosmtpd runs");
        Self::listening(child, port, dir)
    }

    /// A mail box on a free port that takes mail only after AUTH as `user` / `password`.
    pub fn start_with_auth(user: &str, password: &str) -> MailBox {
        let (dir, port) = (tempfile::tempdir().unwrap(), free_port());
        let child = tools::python(&["aiosmtpd"])
            .args(["-c", AUTH_SMTP, &port.to_string()])
            .arg(dir.path().join("md"))
            .env("SMTP_USER", user)
            .env("SMTP_PASSWORD", password)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("python3 with aiosmtpd runs");
        Self::listening(child, port, dir)
    }

    /// Waits (15 s at most) until `child` listens on `port`.
    fn listening(child: Child, port: u16, dir: TempDir) -> MailBox {
        let mail_box = MailBox { child, port, dir };
        let deadline = Instant::now() + Duration::from_secs(15);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "aiosmtpd did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        mail_box
    }

    /// `--smtp-url` for a server to send here.
    pub fn url(&self) -> String {
        smtp_url(self.port)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The folder holding the Maildir `md`.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The messages received so far, raw.
    pub fn messages(&self) -> Vec<String> {
        let Ok(entries) = std::fs::read_dir(self.dir.path().join("md/new")) else {
            return Vec::new();
        };
        entries
            .filter_map(|e| std::fs::read_to_string(e.ok()?.path()).ok())
            .collect()
    }

    /// Waits (30 s at most) for `n` messages; returns all received.
    pub async fn wait_for(&self, n: usize) -> Vec<String> {
        wait_for(Duration::from_secs(30), || {
            let m = self.messages();
            if m.len() >= n {
                Ok(m)
            } else {
                Err("no mail arrived".to_string())
            }
        })
        .await
    }

    /// The messages received so far, decoded by tests/support/maildir.py: JSON objects with
    /// `to`, `subject`, `text` and `attachments` (each saved into `out`, with its `path`).
    pub fn decoded(&self, out: &Path) -> Vec<Value> {
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/support/maildir.py");
        let output = tools::command("python3")
            .arg(script)
            .arg(self.dir.path().join("md"))
            .arg(out)
            .output()
            .expect("python3 runs");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_slice(&output.stdout).unwrap()
    }
}

impl Drop for MailBox {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A port on 127.0.0.1 free at the time of asking.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The `--smtp-url` of an SMTP server on 127.0.0.1:`port`, without TLS.
pub fn smtp_url(port: u16) -> String {
    format!("smtp://127.0.0.1:{port}?tls=none")
}
