//! Real client libraries, unchanged but for the base URL and the client's credentials, against
//! the real server: openid-client v6 and oauth4webapi alone (Node), authlib and requests-oauthlib
//! (Python) from `tests/clients/`. The test plays the user (login and Allow on the consent page); the library
//! does the protocol.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::Value;

use crate::support::login::{PASSWORD, sign_in};
use crate::support::oauth::{REDIRECT, consent_location, setup};
use crate::support::{TestApp, tools};

/// A client script (Node or Python), talking JSON lines on stdout and reading stdin.
struct Script {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Script {
    fn node(script: &str, env: &[(&str, &str)]) -> Script {
        Script::start(tools::node("clients", "openid-client"), script, env)
    }

    fn python(script: &str, env: &[(&str, &str)]) -> Script {
        let python = tools::python(&["authlib", "requests", "requests_oauthlib"]);
        Script::start(python, script, env)
    }

    fn start(mut interpreter: Command, script: &str, env: &[(&str, &str)]) -> Script {
        let dir = tools::tests_dir("clients");
        let mut child = interpreter
            .arg(dir.join(script))
            .current_dir(&dir)
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the client script starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Script {
            child,
            stdin,
            stdout,
        }
    }

    /// The next JSON line the script prints (blocking; the script's own failures end it).
    fn read(&mut self) -> Value {
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        if line.trim().is_empty() {
            let status = self.child.wait().unwrap();
            panic!("the client script ended ({status}) without an answer; its error is above");
        }
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"))
    }

    fn write(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
    }
}

impl Drop for Script {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs a client script's sign-in for a new app registered on `app`: the script gets the base
/// URL (`ISSUER`), the app's credentials and `REDIRECT_URI`, plus `extra`; it prints the
/// authorization URL, the user (Ada, signed in) allows, the script gets the redirect back and
/// prints what it found. Answers that, and the app's client id.
async fn the_library_signs_in(
    app: &TestApp,
    start: fn(&str, &[(&str, &str)]) -> Script,
    script: &str,
    extra: &[(&str, &str)],
) -> (Value, String) {
    let (id, secret) = setup(app, &[]);
    let mut env = vec![
        ("ISSUER", app.base.as_str()),
        ("CLIENT_ID", id.as_str()),
        ("CLIENT_SECRET", secret.as_str()),
        ("REDIRECT_URI", REDIRECT),
    ];
    env.extend_from_slice(extra);
    let mut script = start(script, &env);
    let cookie = sign_in(app, "ada@example.com", PASSWORD).await.unwrap();
    let first = tokio::task::block_in_place(|| script.read());
    let auth_url = first["authorization_url"].as_str().unwrap().to_string();
    let back = consent_location(app, &cookie, &auth_url, "allow").await;
    script.write(&back);
    (tokio::task::block_in_place(|| script.read()), id)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "outside-tools"),
    ignore = "needs node and openid-client from npm"
)]
async fn openid_client_discovers_signs_in_checks_the_id_token_and_reads_userinfo() {
    let app = TestApp::spawn().await;
    let (out, id) = the_library_signs_in(&app, Script::node, "openid_client.mjs", &[]).await;
    let claims = &out["claims"];
    assert_eq!(claims["iss"], app.base.as_str());
    assert_eq!(claims["aud"], id.as_str());
    assert!(claims["sub"].is_string(), "{claims}");
    assert_eq!(claims["email"], "ada@example.com");
    assert_eq!(claims["name"], "Ada");
    assert_eq!(out["userinfo"]["sub"], claims["sub"]);
    assert_eq!(out["userinfo"]["email"], "ada@example.com");
    assert_eq!(out["scope"], "openid profile email");
    assert_eq!(out["refreshed"]["access_token"], true);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "outside-tools"),
    ignore = "needs node and openid-client from npm"
)]
async fn openid_client_asking_for_max_age_gets_and_checks_auth_time() {
    let app = TestApp::spawn().await;
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let max_age = [("MAX_AGE", "300")];
    let (out, _) = the_library_signs_in(&app, Script::node, "openid_client.mjs", &max_age).await;
    // The library refuses an ID token without auth_time, or one older than max_age, itself.
    let auth_time = out["claims"]["auth_time"].as_u64().expect("auth_time");
    assert!(
        auth_time >= before && auth_time <= before + 60,
        "auth_time {auth_time} is the sign-in's, which came after {before}"
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "outside-tools"),
    ignore = "needs authlib and requests-oauthlib (PyPI)"
)]
async fn authlib_verifies_the_id_token_signature_with_the_published_keys() {
    let app = TestApp::spawn().await;
    let insecure = [("AUTHLIB_INSECURE_TRANSPORT", "1")];
    let (out, id) =
        the_library_signs_in(&app, Script::python, "authlib_client.py", &insecure).await;
    let claims = &out["claims"];
    assert_eq!(out["algorithms"], serde_json::json!(["RS256"]));
    assert_eq!(claims["iss"], app.base.as_str());
    assert_eq!(claims["aud"], id.as_str());
    assert_eq!(claims["preferred_username"], "ada");
    assert_eq!(out["userinfo"]["sub"], claims["sub"]);
    assert_eq!(out["refreshed"]["access_token"], true);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "outside-tools"),
    ignore = "needs authlib and requests-oauthlib (PyPI)"
)]
async fn requests_oauthlib_with_the_newer_scope_names_gets_them_back_and_refreshes() {
    let app = TestApp::spawn().await;
    let insecure = [("OAUTHLIB_INSECURE_TRANSPORT", "1")];
    let (out, _) = the_library_signs_in(
        &app,
        Script::python,
        "requests_oauthlib_client.py",
        &insecure,
    )
    .await;
    assert_eq!(
        out["scope"],
        serde_json::json!(["BOOKING_READ", "PROFILE_READ"])
    );
    assert_eq!(out["me_status"], 200);
    assert_eq!(out["me"]["email"], "ada@example.com");
    assert_eq!(out["refreshed_scope"], out["scope"]);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "outside-tools"),
    ignore = "needs node and openid-client from npm"
)]
async fn oauth4webapi_signs_in_calls_the_identity_check_and_zapier_refreshes_and_revokes() {
    let app = TestApp::spawn().await;
    let (out, _) = the_library_signs_in(&app, Script::node, "oauth4webapi_client.mjs", &[]).await;
    assert_eq!(out["issuer"], app.base.as_str());
    assert_eq!(out["scope"], "READ_BOOKING READ_PROFILE");
    assert_eq!(out["token_type"], "bearer", "the library lower-cases it");
    assert_eq!(out["me"]["status"], 200);
    assert_eq!(out["me"]["body"]["email"], "ada@example.com");
    // The Zapier app's sample bookings through the library's Bearer request: 201, none yet.
    assert_eq!(out["bookings"]["status"], 201);
    assert_eq!(out["bookings"]["body"], serde_json::json!([]));
    assert_eq!(out["refreshed"]["access_token"], true);
    assert_eq!(out["refreshed"]["refresh_token"], true);
    assert_eq!(
        out["revoked"],
        serde_json::json!({"status": 401, "error": "invalid_token"}),
        "a revoked token is refused with RFC 6750's challenge"
    );
    app.stop().await;
}
