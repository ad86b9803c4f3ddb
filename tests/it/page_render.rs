//! Page images of hostile PDFs through the real binary (address space capped at 1 GiB) and the
//! signing page's image URL: renders are bounded in time and memory, pooled, shared, and
//! cancelled when the client leaves; a page that cannot be drawn gets a placeholder.

use std::io::{BufRead, BufReader};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use lopdf::{Document, Object, Stream, dictionary};
use serde_json::{Value, json};

use crate::support::BinServer;
use crate::support::api::{Api, add_user, create_api_key};
use crate::support::wait::wait_until;

/// The server's own address-space cap: far below what the hostile pages would take in it.
const SERVER_CAP: u64 = 1 << 30;

/// A one-page PDF (A4) whose page draws with `content` and may use Form XObjects `forms`
/// (name, content, the names it uses in turn, defined earlier in the list).
fn pdf(content: Stream, forms: &[(&str, Vec<u8>, Option<&str>)]) -> Vec<u8> {
    let mut doc = Document::with_version("1.5");
    let pages = doc.new_object_id();
    let mut defined: Vec<(String, lopdf::ObjectId)> = Vec::new();
    for (name, body, uses) in forms {
        let mut dict = dictionary! {
            "Type" => "XObject", "Subtype" => "Form",
            "BBox" => vec![0.into(), 0.into(), 595.into(), 842.into()],
        };
        if let Some(used) = uses {
            let id = defined.iter().find(|(n, _)| n == used).unwrap().1;
            dict.set(
                "Resources",
                dictionary! { "XObject" => dictionary! { *used => id } },
            );
        }
        let id = doc.add_object(Stream::new(dict, body.clone()));
        defined.push((name.to_string(), id));
    }
    let mut resources = lopdf::Dictionary::new();
    if let Some((name, id)) = defined.last() {
        resources.set("XObject", dictionary! { name.as_str() => *id });
    }
    let contents = doc.add_object(content);
    let page = doc.add_object(dictionary! {
        "Type" => "Page",
        "Parent" => pages,
        "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()],
        "Resources" => resources,
        "Contents" => contents,
    });
    doc.objects.insert(
        pages,
        Object::Dictionary(
            dictionary! { "Type" => "Pages", "Kids" => vec![page.into()], "Count" => 1 },
        ),
    );
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages });
    doc.trailer.set("Root", catalog);
    let mut out = Vec::new();
    doc.save_to(&mut out).unwrap();
    out
}

/// Form XObjects nested nine deep, each drawing the next ten times, the innermost one
/// tracing a square and ending the path unpainted: 10^9 paths from a file of about 2 KB, work
/// without end at a steady memory (a painted square would add to the renderer's memory each
/// time, so the memory budget, not the deadline, would stop it on a fast enough build).
pub fn nested_forms_pdf() -> Vec<u8> {
    let names: Vec<String> = (0..9).map(|i| format!("X{i}")).collect();
    let ten_times = |name: &str| format!("/{name} Do\n").repeat(10).into_bytes();
    let mut forms = vec![(
        names[0].as_str(),
        b"0 0 1 rg 10 10 100 100 re n\n".to_vec(),
        None,
    )];
    for i in 1..names.len() {
        forms.push((
            names[i].as_str(),
            ten_times(&names[i - 1]),
            Some(names[i - 1].as_str()),
        ));
    }
    let page = Stream::new(dictionary! {}, ten_times(&names[8]));
    let bytes = pdf(page, &forms);
    assert!(bytes.len() < 4096, "{} bytes", bytes.len());
    bytes
}

/// A page whose content stream is 200 MiB of fills (`0 0 1 1 re f`), deflated to well under
/// a megabyte: within an upload budget of 256 MiB inflated, far over a 160 MiB render budget.
pub fn huge_content_pdf() -> Vec<u8> {
    let line = b"0 0 1 1 re f\n";
    let chunk = line.repeat((1 << 20) / line.len());
    let repeats = (200 << 20) / chunk.len();
    let stream = Stream::new(
        dictionary! { "Filter" => "FlateDecode" },
        zlib_of_repeats(&chunk, repeats),
    )
    .with_compression(false);
    let bytes = pdf(stream, &[]);
    assert!(bytes.len() < 2 << 20, "{} bytes", bytes.len());
    bytes
}

/// A zlib stream that inflates to `chunk` repeated `repeats` times, without compressing it
/// all: `chunk` deflated once and flushed to a byte boundary (no references before it) is a
/// run of blocks that may be repeated; an empty final block and the Adler-32 close it.
fn zlib_of_repeats(chunk: &[u8], repeats: usize) -> Vec<u8> {
    use flate2::{Compress, Compression, FlushCompress};
    let mut deflate = Compress::new(Compression::best(), false);
    let mut segment = Vec::with_capacity(chunk.len());
    deflate
        .compress_vec(chunk, &mut segment, FlushCompress::Sync)
        .unwrap();
    assert_eq!(deflate.total_in() as usize, chunk.len());
    let mut out = vec![0x78, 0xda];
    for _ in 0..repeats {
        out.extend_from_slice(&segment);
    }
    out.extend_from_slice(&[0x03, 0x00]); // a final, empty fixed-Huffman block
    let (mut a, mut b) = (1u64, 0u64);
    for _ in 0..repeats {
        for part in chunk.chunks(4096) {
            for &byte in part {
                a += u64::from(byte);
                b += a;
            }
            a %= 65521;
            b %= 65521;
        }
    }
    out.extend_from_slice(&(((b << 16) | a) as u32).to_be_bytes());
    out
}

/// The binary serving with JSON logs collected, a user and an API key.
struct Server {
    bin: BinServer,
    api: Api,
    logs: Arc<Mutex<Vec<Value>>>,
    _tmp: tempfile::TempDir,
}

impl Server {
    fn start(extra: &[&str]) -> Server {
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path().join("data");
        add_user(&data, "o@example.com", &["--name", "O"]);
        let key = create_api_key(&data, "o@example.com")["key"]
            .as_str()
            .unwrap()
            .to_string();
        let mut args = vec![
            "--data-dir",
            data.to_str().unwrap(),
            "--listen",
            "127.0.0.1:0",
            "--tls",
            "off",
            "--log-format",
            "json",
        ];
        args.extend_from_slice(extra);
        let mut bin = BinServer::start_capped(&args, &[], Some(SERVER_CAP));
        let logs = Arc::new(Mutex::new(Vec::new()));
        let stderr = bin.stderr.take().unwrap();
        let sink = logs.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Ok(v) = serde_json::from_str::<Value>(&line) {
                    sink.lock().unwrap().push(v);
                }
            }
        });
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(60))
            .build()
            .unwrap();
        Server {
            api: Api::new(http, &format!("http://{}", bin.addr), &key),
            bin,
            logs,
            _tmp: tmp,
        }
    }

    /// Sends `body` to `path` with the key, asserting a success; the JSON answer.
    async fn expect_ok(&self, method: reqwest::Method, path: &str, body: Value) -> Value {
        let resp = self
            .api
            .request(method, path)
            .json(&body)
            .send()
            .await
            .unwrap();
        assert!(resp.status().is_success(), "{path}: {}", resp.status());
        resp.json().await.unwrap()
    }

    /// Uploads `pdf` as a document for one signer, sends it, and returns the signer's token.
    async fn signing_token(&self, pdf: Vec<u8>) -> String {
        let created = self
            .expect_ok(
                reqwest::Method::POST,
                "/api/v1/documents",
                json!({"title": "Hostile", "recipients": [
                    {"name": "Ann", "email": "ann@example.com", "role": "SIGNER"}]}),
            )
            .await;
        let upload = self
            .api
            .client()
            .put(created["uploadUrl"].as_str().unwrap())
            .header("content-type", "application/pdf")
            .body(pdf)
            .send()
            .await
            .unwrap();
        assert_eq!(upload.status(), 200, "{}", upload.text().await.unwrap());
        let id = created["documentId"].as_i64().unwrap();
        let ann = &created["recipients"][0];
        self.expect_ok(
            reqwest::Method::POST,
            &format!("/api/v1/documents/{id}/fields"),
            json!([{"recipientId": ann["recipientId"], "type": "SIGNATURE", "pageNumber": 1,
                    "pageX": 10, "pageY": 80, "pageWidth": 30, "pageHeight": 5}]),
        )
        .await;
        self.expect_ok(
            reqwest::Method::POST,
            &format!("/api/v1/documents/{id}/send"),
            json!({"sendEmail": false}),
        )
        .await;
        ann["token"].as_str().unwrap().to_string()
    }

    fn page_url(&self, token: &str, width: u32) -> String {
        self.api
            .url(&format!("/sign/{token}/pages/1.png?w={width}"))
    }

    fn pid(&self) -> i32 {
        self.bin.child.id() as i32
    }

    /// The "page render" log lines so far (one per render started and finished).
    fn renders(&self) -> Vec<Value> {
        self.logs
            .lock()
            .unwrap()
            .iter()
            .filter(|l| l["message"] == "page render")
            .cloned()
            .collect()
    }

    async fn healthz_answers_within(&self, bound: Duration) {
        let started = Instant::now();
        let resp = self
            .api
            .client()
            .get(self.api.url("/healthz"))
            .timeout(bound)
            .send()
            .await
            .expect("/healthz answers while a page renders");
        assert_eq!(resp.status(), 200);
        assert!(started.elapsed() <= bound);
    }
}

/// Processes whose parent is `pid` and that are not zombies.
fn live_children(pid: i32) -> usize {
    let mut n = 0;
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid ...; comm may hold spaces, so parse after the last ')'.
        let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
            continue;
        };
        let mut fields = rest.split_whitespace();
        let (state, ppid) = (
            fields.next(),
            fields.next().and_then(|p| p.parse::<i32>().ok()),
        );
        if ppid == Some(pid) && state != Some("Z") {
            n += 1;
        }
    }
    n
}

/// Checks a placeholder answer: 200, marked, a PNG of the page's shape (A4 at `width`).
async fn assert_placeholder(resp: reqwest::Response, width: u32) {
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-type"], "image/png");
    assert_eq!(
        resp.headers()
            .get("x-docket-page")
            .map(|v| v.to_str().unwrap()),
        Some("placeholder")
    );
    let png = resp.bytes().await.unwrap();
    let info = png::Decoder::new(std::io::Cursor::new(&png[..]))
        .read_info()
        .unwrap()
        .info()
        .size();
    assert_eq!(
        info,
        (width, (f64::from(width) * 842.0 / 595.0).round() as u32)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nested_forms_get_a_placeholder_within_the_time_budget_and_the_server_stays_responsive() {
    let server = Server::start(&["--render-timeout-secs", "3"]);
    let token = server.signing_token(nested_forms_pdf()).await;
    let started = Instant::now();
    let request = tokio::spawn(server.api.client().get(server.page_url(&token, 800)).send());
    wait_until("a render process starts", Duration::from_secs(10), || {
        live_children(server.pid()) == 1
    })
    .await;
    server.healthz_answers_within(Duration::from_secs(2)).await;
    assert_placeholder(request.await.unwrap().unwrap(), 800).await;
    // The deadline (3 s) plus room for a loaded machine; without it the render runs for hours.
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    let renders = server.renders();
    assert_eq!(renders.len(), 1, "{renders:?}");
    assert_eq!(renders[0]["outcome"], "placeholder");
    assert!(
        renders[0]["reason"]
            .as_str()
            .unwrap()
            .contains("longer than 3 s"),
        "{renders:?}"
    );
    assert_eq!(live_children(server.pid()), 0);

    // The placeholder is kept: the next request is answered from the cache.
    assert_placeholder(
        server
            .api
            .client()
            .get(server.page_url(&token, 800))
            .send()
            .await
            .unwrap(),
        800,
    )
    .await;
    assert_eq!(server.renders().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn content_that_inflates_past_the_memory_budget_gets_a_placeholder_and_the_server_survives() {
    let mut server = Server::start(&["--render-memory-mb", "160", "--render-timeout-secs", "120"]);
    let token = server.signing_token(huge_content_pdf()).await;
    let before_kib = server.bin.peak_rss_kib();
    let resp = server
        .api
        .client()
        .get(server.page_url(&token, 800))
        .send()
        .await
        .unwrap();
    assert_placeholder(resp, 800).await;
    let renders = server.renders();
    assert_eq!(renders.len(), 1, "{renders:?}");
    assert!(
        renders[0]["reason"]
            .as_str()
            .unwrap()
            .contains("more than 160 MiB"),
        "{renders:?}"
    );
    assert!(server.bin.is_running());
    // The content (200 MiB inflated) never came into the server's own memory.
    let grown_mib = (server.bin.peak_rss_kib() - before_kib) / 1024;
    assert!(grown_mib < 64, "the server grew by {grown_mib} MiB");
    server.healthz_answers_within(Duration::from_secs(5)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_requests_for_one_page_share_one_render() {
    let server = Server::start(&["--render-timeout-secs", "3"]);
    let token = server.signing_token(nested_forms_pdf()).await;
    let requests: Vec<_> = (0..5)
        .map(|_| tokio::spawn(server.api.client().get(server.page_url(&token, 800)).send()))
        .collect();
    wait_until("a render process starts", Duration::from_secs(10), || {
        live_children(server.pid()) >= 1
    })
    .await;
    let mut most = 0;
    while requests.iter().any(|r| !r.is_finished()) {
        most = most.max(live_children(server.pid()));
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    for r in requests {
        assert_placeholder(r.await.unwrap().unwrap(), 800).await;
    }
    assert_eq!(most, 1, "one render process at a time");
    let renders = server.renders();
    assert_eq!(renders.len(), 1, "{renders:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_leaves_stops_the_render() {
    let server = Server::start(&["--render-timeout-secs", "120"]);
    let token = server.signing_token(nested_forms_pdf()).await;
    let request = tokio::spawn(server.api.client().get(server.page_url(&token, 800)).send());
    wait_until("a render process starts", Duration::from_secs(10), || {
        live_children(server.pid()) == 1
    })
    .await;
    // The client gives up: its connection closes.
    request.abort();
    let _ = request.await;
    wait_until(
        "the render process is gone after the client left",
        Duration::from_secs(10),
        || live_children(server.pid()) == 0,
    )
    .await;
    assert!(server.renders().is_empty(), "the render never finished");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn beyond_the_pool_and_its_wait_the_answer_is_503_with_retry_after() {
    let server = Server::start(&["--render-workers", "1", "--render-timeout-secs", "120"]);
    let token = server.signing_token(nested_forms_pdf()).await;
    let first = tokio::spawn(server.api.client().get(server.page_url(&token, 800)).send());
    wait_until("a render process starts", Duration::from_secs(10), || {
        live_children(server.pid()) == 1
    })
    .await;
    // Another width is another render; the only slot is taken.
    let resp = server
        .api
        .client()
        .get(server.page_url(&token, 1200))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 503);
    let retry: u64 = resp.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry), "{retry}");
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["code"], "overloaded", "{body}");
    assert_eq!(live_children(server.pid()), 1);
    first.abort();
}
