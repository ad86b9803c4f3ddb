//! What the real binary's log shows of request paths that carry one-time secrets (signing
//! links, the account link mailed to recipients): never the secret, at any log level.

use std::io::Read;

use nix::sys::signal::Signal;

use crate::support::{BinServer, client};

/// Every secret-carrying path the appliance serves, as a client may spell it, with the
/// method: `{}` stands for the secret.
const SECRET_PATHS: &[(&str, &str)] = &[
    ("GET", "/sign/{}"),
    ("GET", "/sign/{}/state"),
    ("GET", "/sign/{}/pages/1-800.png"),
    ("GET", "/sign/{}/fields/3/signature.png"),
    ("POST", "/sign/{}/fields/3"),
    ("POST", "/sign/{}/complete"),
    ("POST", "/sign/{}/reject"),
    ("POST", "/sign/{}/passkey-challenge"),
    ("POST", "/sign/{}/email-code"),
    ("POST", "/sign/{}/account"),
    ("GET", "/auth/signup/{}"),
    ("POST", "/auth/signup/{}"),
    ("GET", "//auth//signup/{}/"),
    ("GET", "/AUTH/%73ignup/{}"),
    ("GET", "/invitations/{}"),
    ("POST", "/invitations/{}"),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_in_paths_never_reach_the_log() {
    for (format, level) in [("text", "info"), ("json", "trace")] {
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path().join("data");
        let args = ["--tls", "off", "--log-format", format, "--log-level", level];
        let mut server = BinServer::start_in(&data, &args);
        // Read the log as it comes: at trace level it is more than a pipe holds.
        let mut stderr = server.stderr.take().unwrap();
        // As bytes: a log line that is not UTF-8 must not stop the reading (the server would
        // then block on a full pipe).
        let reader = std::thread::spawn(move || {
            let mut log = Vec::new();
            stderr.read_to_end(&mut log).unwrap();
            String::from_utf8_lossy(&log).into_owned()
        });
        let c = client(server.addr, None);
        let base = format!("http://127.0.0.1:{}", server.addr.port());
        let mut secrets = Vec::new();
        for (n, (method, shape)) in SECRET_PATHS.iter().enumerate() {
            let secret = format!("Zq{n}x7SeCrEtT0kEn{n}w");
            let path = shape.replace("{}", &secret);
            let req = match *method {
                "GET" => c.get(format!("{base}{path}")),
                _ => c
                    .post(format!("{base}{path}"))
                    .header("content-type", "application/json")
                    .body("{}"),
            };
            let resp = req.send().await.unwrap();
            assert!(
                resp.status().as_u16() < 500,
                "{method} {path}: {}",
                resp.status()
            );
            secrets.push((path, secret));
        }
        let status = server.stop_with(Signal::SIGTERM);
        assert_eq!(status.code(), Some(0));
        let log = reader.join().unwrap();
        for (path, secret) in &secrets {
            assert!(
                !log.contains(secret.as_str()),
                "{format}/{level}: the log shows the secret of {path}:\n{}",
                log.lines().find(|l| l.contains(secret.as_str())).unwrap()
            );
        }
        let redacted = log
            .lines()
            .filter(|l| l.contains("[redacted]") && (l.contains("path=") || l.contains("\"path\"")))
            .count();
        assert!(
            redacted >= SECRET_PATHS.len(),
            "{format}/{level}: {redacted} request lines redacted:\n{log}"
        );
    }
}
