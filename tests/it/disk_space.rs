//! A full disk (issue 52, finding 8): below `--min-free-mb` the real binary refuses new work
//! with 507 `insufficient_storage` and `Retry-After`, logs one warning (not one error per
//! request), says `degraded` on `/readyz` (503) and in `/healthz`'s body (200), and keeps
//! reads, downloads and the signing of documents already sent working. First with a threshold
//! above any disk's free space (no mount needed), then on a small file system filled to the
//! last byte, as the outside test did.

use std::path::Path;
use std::time::Duration;

use nix::sys::signal::Signal;
use serde_json::{Value, json};

use crate::support::api::{Api, Signer, add_user, create_api_key, fixture};
use crate::support::wait::eventually;
use crate::support::{BinServer, client};

/// A threshold no disk reaches: 1 PiB, in MiB.
const ABOVE_ANY_DISK: &str = "1073741824";

/// The API client of a user with a key on the server at `server`'s address.
fn owner(server: &BinServer, data: &Path) -> Api {
    add_user(data, "owner@example.com", &["--name", "Owner"]);
    let key = create_api_key(data, "owner@example.com")["key"]
        .as_str()
        .unwrap()
        .to_string();
    Api::new(client(server.addr, None), &base(server), &key)
}

fn base(server: &BinServer) -> String {
    format!("http://127.0.0.1:{}", server.addr.port())
}

/// A document sent to one signer with one signature field: its id, the field and the signer's
/// token.
async fn sent_document(api: &Api, title: &str) -> (i64, i64, String) {
    let created = api
        .create_document(json!({"title": title, "recipients": [
            {"name": "Ann Signer", "email": "ann@example.com", "role": "SIGNER"}]}))
        .await;
    let id = created.document_id();
    api.upload_ok(created.upload_url(), fixture("a4-1p.pdf"))
        .await;
    let field = api
        .add_fields(
            id,
            json!([{"recipientId": created.recipient_id(0), "type": "SIGNATURE",
                   "pageNumber": 1, "pageX": 10, "pageY": 80, "pageWidth": 30, "pageHeight": 5}]),
        )
        .await[0];
    let (s, v) = api.send(id).await;
    assert_eq!(s, 200, "{v}");
    (id, field, created.token(0))
}

/// `path` on `server`: the status and the JSON answer.
async fn probe(server: &BinServer, path: &str) -> (u16, Value) {
    let resp = client(server.addr, None)
        .get(format!("{}{path}", base(server)))
        .send()
        .await
        .unwrap();
    (resp.status().as_u16(), resp.json().await.unwrap())
}

/// New work on `api` is refused with 507 `insufficient_storage` and `Retry-After`: a document,
/// an upload that makes one, a template.
async fn new_work_is_refused(api: &Api) {
    let doc = json!({"title": "New", "recipients": []});
    for (path, body) in [
        ("/api/v1/documents", doc.clone()),
        ("/api/v1/templates", doc.clone()),
    ] {
        let resp = api.post_response(path, &body).await;
        assert_eq!(resp.status(), 507, "{path}");
        assert_eq!(resp.headers()["retry-after"], "60", "{path}");
        let v: Value = resp.json().await.unwrap();
        assert_eq!(v["error"], "insufficient_storage", "{v}");
        assert_eq!(v["code"], "insufficient_storage", "{v}");
        assert!(v["message"].as_str().unwrap().contains("disk space"), "{v}");
    }
    let resp = api
        .request(
            reqwest::Method::POST,
            "/api/v1/documents/upload?title=Upload",
        )
        .header("content-type", "application/pdf")
        .body(fixture("a4-1p.pdf"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 507);
    let v: Value = resp.json().await.unwrap();
    assert_eq!(v["code"], "insufficient_storage", "{v}");
}

/// What still works while low: lists, reads, downloads (each audited), and the signer of a
/// document already sent signs and completes it, and it is sealed.
async fn work_under_way_goes_on(api: &Api, id: i64, field: i64, signer: &Signer, downloads: usize) {
    let (s, v) = api.get("/api/v1/documents").await;
    assert_eq!(s, 200, "{v}");
    for _ in 0..downloads {
        assert!(api.original(id).await.starts_with(b"%PDF"));
    }
    let (s, v) = signer.sign(field).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = signer.complete(json!({})).await;
    assert_eq!(s, 200, "{v}");
    api.wait_status(id, "COMPLETED").await;
    let (s, v) = api.get(&format!("/api/v1/documents/{id}/download")).await;
    assert_eq!(s, 200, "{v}");
    let signed = api
        .client()
        .get(v["downloadUrl"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(signed.status(), 200);
}

/// The JSON log lines of a stopped server.
fn log_lines(mut server: BinServer) -> Vec<Value> {
    let stderr = server.stderr.take().unwrap();
    assert_eq!(server.stop_with(Signal::SIGTERM).code(), Some(0));
    std::io::read_to_string(stderr)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn message(line: &Value) -> &str {
    line["message"]
        .as_str()
        .or(line["fields"]["message"].as_str())
        .unwrap_or_default()
}

/// No error line, and at most `warnings` about the disk.
fn quiet_about_the_disk(lines: &[Value], warnings: usize) {
    let errors: Vec<&Value> = lines.iter().filter(|l| l["level"] == "ERROR").collect();
    assert!(errors.is_empty(), "errors logged: {errors:?}");
    let warned: Vec<&Value> = lines
        .iter()
        .filter(|l| l["level"] == "WARN" && message(l).contains("disk"))
        .collect();
    assert!(
        (1..=warnings).contains(&warned.len()),
        "disk warnings: {warned:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn below_its_threshold_a_node_refuses_new_work_with_507_and_finishes_what_is_under_way() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let server = BinServer::start_in(&data, &["--tls", "off"]);
    let api = owner(&server, &data);
    let (id, field, token) = sent_document(&api, "Under way").await;
    let (s, v) = probe(&server, "/readyz").await;
    assert_eq!((s, v["status"].as_str()), (200, Some("ready")), "{v}");
    assert_eq!(server.stop_with(Signal::SIGTERM).code(), Some(0));

    let args = ["--tls", "off", "--log-format", "json"];
    let low = [&args[..], &["--min-free-mb", ABOVE_ANY_DISK]].concat();
    let server = BinServer::start_in(&data, &low);
    let key = api.key().to_string();
    let api = Api::new(client(server.addr, None), &base(&server), &key);
    let (s, v) = probe(&server, "/readyz").await;
    assert_eq!(s, 503, "{v}");
    assert_eq!(
        (v["status"].as_str(), v["disk"].as_str()),
        (Some("degraded"), Some("low"))
    );
    assert_eq!(v["min_free_bytes"], json!(1u64 << 50), "{v}");
    assert!(v["free_bytes"].as_u64().unwrap() < 1 << 50, "{v}");
    assert!(v["reason"].as_str().unwrap().contains("disk space"), "{v}");
    let (s, v) = probe(&server, "/healthz").await;
    assert_eq!((s, v["status"].as_str()), (200, Some("degraded")), "{v}");

    for _ in 0..20 {
        new_work_is_refused(&api).await;
    }
    let signer = Signer::at(&base(&server), &token);
    work_under_way_goes_on(&api, id, field, &signer, 5).await;
    assert!(
        !data.join("reserved-space").exists(),
        "no reserve is held while low"
    );
    quiet_about_the_disk(&log_lines(server), 1);

    // With room again, new work is taken and the node is ready.
    let server = BinServer::start_in(&data, &args);
    let api = Api::new(client(server.addr, None), &base(&server), &key);
    let (s, v) = probe(&server, "/readyz").await;
    assert_eq!((s, v["status"].as_str()), (200, Some("ready")), "{v}");
    let (s, v) = probe(&server, "/healthz").await;
    assert_eq!((s, v["status"].as_str()), (200, Some("ok")), "{v}");
    sent_document(&api, "After").await;
    assert_eq!(
        std::fs::metadata(data.join("reserved-space"))
            .unwrap()
            .len(),
        64 << 20,
        "a quarter of the default 256 MiB is held in reserve"
    );
}

/// The outside test's setting: the data dir alone on a 64 MiB file system (a tmpfs), which a
/// file then fills to the last byte.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "outside-tools"),
    ignore = "needs root and mount (a small tmpfs for the data dir)"
)]
async fn on_a_small_file_system_filled_to_the_last_byte_the_node_degrades_and_recovers() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(small) = SmallFs::mount(tmp.path(), 64) else {
        return;
    };
    let data = small.dir.join("data");
    let args = [
        "--tls",
        "off",
        "--log-format",
        "json",
        "--min-free-mb",
        "24",
    ];
    let server = BinServer::start_in(&data, &args);
    let api = owner(&server, &data);
    let (id, field, token) = sent_document(&api, "Under way").await;
    assert_eq!(
        std::fs::metadata(data.join("reserved-space"))
            .unwrap()
            .len(),
        6 << 20,
        "a quarter of the threshold is held in reserve"
    );

    let filler = small.dir.join("filler");
    fill(&filler);
    let v = ready_becomes(&server, 503).await;
    assert_eq!(
        (v["status"].as_str(), v["disk"].as_str()),
        (Some("degraded"), Some("low"))
    );
    assert_eq!(v["min_free_bytes"], json!(24u64 << 20), "{v}");
    let (s, v) = probe(&server, "/healthz").await;
    assert_eq!((s, v["status"].as_str()), (200, Some("degraded")), "{v}");
    // The reserve is given back: what is under way has room although the disk was full.
    assert!(!data.join("reserved-space").exists());
    for _ in 0..50 {
        new_work_is_refused(&api).await;
    }
    // Each download writes an audit event first: more than the log's spare room held.
    let signer = Signer::at(&base(&server), &token);
    work_under_way_goes_on(&api, id, field, &signer, 200).await;

    std::fs::remove_file(&filler).unwrap();
    let v = ready_becomes(&server, 200).await;
    assert_eq!(v["status"], "ready", "{v}");
    sent_document(&api, "After").await;
    assert_eq!(
        std::fs::metadata(data.join("reserved-space"))
            .unwrap()
            .len(),
        6 << 20,
        "the reserve is taken back"
    );
    let lines = log_lines(server);
    quiet_about_the_disk(&lines, 1);
    assert!(
        lines
            .iter()
            .any(|l| l["level"] == "INFO" && message(l).contains("disk space is back")),
        "the recovery is logged"
    );

    // Without a threshold, a write that finds the disk full is still a 507, not a 500.
    let open = ["--tls", "off", "--log-format", "json", "--min-free-mb", "0"];
    let server = BinServer::start_in(&data, &open);
    let api = Api::new(client(server.addr, None), &base(&server), api.key());
    fill(&filler);
    for _ in 0..20 {
        let resp = api
            .request(reqwest::Method::POST, "/api/v1/documents/upload?title=Full")
            .header("content-type", "application/pdf")
            .body(fixture("a4-1p.pdf"))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 507);
        assert_eq!(resp.headers()["retry-after"], "60");
    }
    std::fs::remove_file(&filler).unwrap();
    quiet_about_the_disk(&log_lines(server), 1);
}

/// Waits (10 s at most) until `/readyz` answers `status`; its answer.
async fn ready_becomes(server: &BinServer, status: u16) -> Value {
    eventually(Duration::from_secs(10), || async {
        match probe(server, "/readyz").await {
            (s, v) if s == status => Ok(v),
            (s, v) => Err(format!("/readyz answers {s} {v}, not {status}")),
        }
    })
    .await
}

/// Writes `path` until the file system has no byte left: 1 MiB blocks, then 4 KiB ones.
fn fill(path: &Path) {
    use std::io::Write;
    let mut f = std::fs::File::create(path).unwrap();
    for size in [1 << 20, 4096, 1] {
        let block = vec![7u8; size];
        while f.write_all(&block).is_ok() {}
    }
    let _ = f.sync_all();
}

/// A tmpfs of its own, unmounted when dropped.
struct SmallFs {
    dir: std::path::PathBuf,
}

impl SmallFs {
    /// A `mib` MiB tmpfs mounted on a new directory in `parent`; `None` (said on stderr) when
    /// this process may not mount (not root, or no mount in this container).
    fn mount(parent: &Path, mib: u32) -> Option<SmallFs> {
        // SAFETY: geteuid has no preconditions and cannot fail.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("skipped: mounting a small file system needs root");
            return None;
        }
        let dir = parent.join("small");
        std::fs::create_dir(&dir).unwrap();
        let size = format!("size={mib}m,mode=0700");
        let (ok, out) = crate::support::tools::run(
            "mount",
            &["-t", "tmpfs", "-o", &size, "tmpfs", dir.to_str().unwrap()],
        );
        if !ok {
            eprintln!("skipped: mount is not permitted here: {out}");
            return None;
        }
        Some(SmallFs { dir })
    }
}

impl Drop for SmallFs {
    fn drop(&mut self) {
        let _ = crate::support::tools::command("umount")
            .args(["-l", self.dir.to_str().unwrap()])
            .status();
    }
}
