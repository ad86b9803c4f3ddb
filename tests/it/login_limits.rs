//! Sign-in under load: password checks (argon2id, 19 MiB each) are bounded process-wide, so a
//! burst of logins cannot exhaust memory; and the throttle counts an attempt before checking
//! it, so concurrent wrong passwords get at most the throttle's number of real checks.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use crate::support::login::{LoginForm, PASSWORD, add_account};
use crate::support::{BinServer, TestApp, client};

const EMAIL: &str = "ada@example.com";

/// `sessions::throttle::LOCK_AFTER`: attempts per account before the lock.
const ACCOUNT_LIMIT: usize = 10;

/// The `n`th client address in 127.0.0.0/8 (each has its own throttle count).
fn address(n: usize) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(127, 1, (n / 250) as u8, (n % 250 + 1) as u8))
}

/// What one login POST got back: the status and Retry-After, or why no answer came.
type Answer = Result<(u16, Option<String>), String>;

/// Sends one login POST per `(address, email, password)` at once, each from its own client
/// address, and returns the answers in order.
async fn burst(
    base: &str,
    addr: SocketAddr,
    attempts: Vec<(IpAddr, String, String)>,
) -> Vec<Answer> {
    let url = format!("{base}/auth/login");
    let login = LoginForm::fetch(&client(addr, None), &url).await;
    let tasks: Vec<_> = attempts
        .into_iter()
        .map(|(from, email, password)| {
            let (cookie, form, url) = (
                login.cookie.clone(),
                login.filled(&email, &password),
                url.clone(),
            );
            tokio::spawn(async move {
                let client = reqwest::Client::builder()
                    .resolve("localhost", addr)
                    .local_address(from)
                    .redirect(reqwest::redirect::Policy::none())
                    .timeout(Duration::from_secs(120))
                    .build()
                    .unwrap();
                let resp = client
                    .post(url)
                    .header("cookie", cookie)
                    .form(&form)
                    .send()
                    .await
                    .map_err(|e| format!("{e:?}"))?;
                let retry = resp
                    .headers()
                    .get("retry-after")
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_string);
                let status = resp.status().as_u16();
                resp.bytes().await.map_err(|e| format!("body: {e:?}"))?;
                Ok((status, retry))
            })
        })
        .collect();
    let mut answers = Vec::new();
    for t in tasks {
        answers.push(t.await.unwrap());
    }
    answers
}

fn count(answers: &[Answer], status: u16) -> usize {
    answers
        .iter()
        .filter(|a| matches!(a, Ok((s, _)) if *s == status))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_logins_for_made_up_accounts_cannot_exhaust_memory() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    add_account(&data, EMAIL, "Ada");
    // 300 unbounded checks would need over 5.5 GiB; the cap leaves room for 1 GiB in all.
    let mut server = BinServer::start_capped(
        &[
            "--data-dir",
            data.to_str().unwrap(),
            "--listen",
            "127.0.0.1:0",
            "--tls",
            "off",
        ],
        &[("DOCKET_MAX_PASSWORD_CHECKS", "4")],
        Some(1 << 30),
    );
    let addr = server.addr;
    let base = format!("http://localhost:{}", addr.port());
    // Each from its own address, for its own made-up account: no throttle count reaches a
    // limit, so only the bound on checks stands between the burst and the memory cap.
    let attempts = (0..300)
        .map(|i| {
            let email = format!("nobody-{i}@example.com");
            (address(i), email, "some guess".to_string())
        })
        .collect();
    let answers = burst(&base, addr, attempts).await;

    let dropped: Vec<_> = answers.iter().filter_map(|a| a.as_ref().err()).collect();
    assert!(dropped.is_empty(), "answers that never came: {dropped:?}");
    let (wrong, busy) = (count(&answers, 401), count(&answers, 503));
    assert_eq!(wrong + busy, 300, "only 401 and 503: {answers:?}");
    assert!(wrong >= 1, "some made-up accounts were checked");
    for a in answers.iter().flatten().filter(|(s, _)| *s == 503) {
        let secs: u64 =
            a.1.as_deref()
                .expect("503 has Retry-After")
                .parse()
                .unwrap();
        assert!(secs >= 1);
    }
    assert!(server.is_running(), "the server survived");
    // Four checks of 19 MiB at a time: the resident peak stays far below what 300 would take
    // (glibc arenas kept every freed block before main fixed the mmap threshold: ~1 GB).
    let peak = server.peak_rss_kib();
    assert!(peak < 400 * 1024, "peak RSS {peak} KiB");
    let client = client(addr, None);
    let health = client.get(format!("{base}/healthz")).send().await.unwrap();
    assert_eq!(health.status(), 200);
    // And it still signs people in.
    let real = vec![(address(400), EMAIL.to_string(), PASSWORD.to_string())];
    let answers = burst(&base, addr, real).await;
    assert_eq!(answers[0].as_ref().unwrap().0, 303, "{answers:?}");
    assert!(server.is_running());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_wrong_passwords_for_one_account_get_at_most_the_limit_of_checks() {
    // Enough turns that no attempt is refused for want of one: only the throttle decides.
    let app = TestApp::spawn_with(&["--tls", "off", "--max-password-checks", "32"]).await;
    add_account(&app.data_dir(), EMAIL, "Ada");
    // From 200 addresses, so that only the account's count can stop them.
    let attempts = (0..200)
        .map(|i| (address(i), EMAIL.to_string(), format!("wrong guess {i}")))
        .collect();
    let answers = burst(&app.base, app.addr, attempts).await;

    // A 401 ("wrong e-mail or password") is given only after a real check; a 429 before any.
    let (checked, throttled) = (count(&answers, 401), count(&answers, 429));
    assert_eq!(checked + throttled, 200, "only 401 and 429: {answers:?}");
    assert!(
        (1..=ACCOUNT_LIMIT).contains(&checked),
        "{checked} real checks for a limit of {ACCOUNT_LIMIT}"
    );
    // The account is locked now: even the right password is refused.
    let right = vec![(address(300), EMAIL.to_string(), PASSWORD.to_string())];
    let answers = burst(&app.base, app.addr, right).await;
    assert_eq!(answers[0].as_ref().unwrap().0, 429);
    app.stop().await;
}
