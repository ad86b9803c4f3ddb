//! `multipart/form-data` uploads are bounded as a whole, not only by their file (issue 52,
//! finding 1): under `--max-upload-mb 1`, a 60 MB text field, a part header that never ends,
//! 17 parts, or small fields that add up past the file's maximum and the allowance are refused
//! with 413 naming the limit, while the client still has most of its body to send, and the
//! connection is closed rather than read to the end. Ordinary forms still upload on every route.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::support::TestApp;
use crate::support::api::fixture;

const BOUNDARY: &str = "docket-test-boundary";
const MIB: u64 = 1024 * 1024;
/// What a client may have written by the time a refusal reaches it: the server answers at the
/// piece that crosses a limit, but the kernel's socket buffers on both ends of the loopback
/// (grown by autotuning, several MiB each) take in what the client writes meanwhile. The
/// bodies sent are 60 MB and more, so an answer within this came long before their end.
const EARLY: u64 = 16 * MIB;

/// What a streamed request came to.
#[derive(Debug)]
struct Outcome {
    status: u16,
    answer: String,
    /// Body bytes written when the first byte of the answer arrived.
    sent_when_answered: u64,
    /// Body bytes written in all, and whether the whole body could be written.
    sent: u64,
    finished: bool,
    took: Duration,
}

/// Sends `head` (a request head without its blank line) with a chunked body made as it goes:
/// `start`, then `filler` bytes of `byte`, then `end`, in 64 KiB pieces; reads the answer
/// beside it.
async fn stream(
    app: &TestApp,
    head: &str,
    start: &[u8],
    byte: u8,
    filler: u64,
    end: &[u8],
) -> Outcome {
    let began = Instant::now();
    let conn = tokio::net::TcpStream::connect(app.addr).await.unwrap();
    let (mut rd, mut wr) = conn.into_split();
    let sent = Arc::new(AtomicU64::new(0));
    let (start, end) = (start.to_vec(), end.to_vec());
    let head = format!("{head}\r\nhost: localhost\r\ntransfer-encoding: chunked\r\n\r\n");
    let counter = sent.clone();
    let writer = tokio::spawn(async move {
        wr.write_all(head.as_bytes()).await?;
        let piece = vec![byte; 64 * 1024];
        let mut left = filler;
        let mut write = async |data: &[u8]| -> std::io::Result<()> {
            if data.is_empty() {
                return Ok(());
            }
            let framed = [format!("{:x}\r\n", data.len()).as_bytes(), data, b"\r\n"].concat();
            wr.write_all(&framed).await?;
            counter.fetch_add(data.len() as u64, Ordering::SeqCst);
            Ok(())
        };
        write(&start).await?;
        while left > 0 {
            let n = left.min(piece.len() as u64) as usize;
            write(&piece[..n]).await?;
            left -= n as u64;
        }
        write(&end).await?;
        wr.write_all(b"0\r\n\r\n").await?;
        Ok::<(), std::io::Error>(())
    });
    let mut answer = Vec::new();
    let mut sent_when_answered = None;
    let mut buf = vec![0u8; 16 * 1024];
    let read = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            match rd.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    sent_when_answered.get_or_insert(sent.load(Ordering::SeqCst));
                    answer.extend_from_slice(&buf[..n]);
                    if complete(&answer) {
                        break;
                    }
                }
            }
        }
    })
    .await;
    assert!(read.is_ok(), "no answer within a minute");
    let finished = tokio::time::timeout(Duration::from_secs(60), writer)
        .await
        .expect("the client's writes end within a minute")
        .unwrap()
        .is_ok();
    let answer = String::from_utf8_lossy(&answer).to_string();
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {answer:?}"));
    Outcome {
        status,
        answer,
        sent_when_answered: sent_when_answered.unwrap_or(0),
        sent: sent.load(Ordering::SeqCst),
        finished,
        took: began.elapsed(),
    }
}

/// Whether `answer` holds a whole HTTP answer with a `content-length`.
fn complete(answer: &[u8]) -> bool {
    let text = String::from_utf8_lossy(answer);
    let Some((head, body)) = text.split_once("\r\n\r\n") else {
        return false;
    };
    head.lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse::<usize>().ok())?
        })
        .is_some_and(|n| body.len() >= n)
}

fn part(name: &str, file: Option<&str>) -> Vec<u8> {
    let file = file
        .map(|f| format!("; filename=\"{f}\""))
        .unwrap_or_default();
    format!("--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"{file}\r\n\r\n")
        .into_bytes()
}

fn closing() -> Vec<u8> {
    format!("\r\n--{BOUNDARY}--\r\n").into_bytes()
}

/// The head of a multipart upload to `path` with `auth` (an `Authorization` value, or none).
fn upload_head(path: &str, auth: Option<&str>) -> String {
    let auth = auth
        .map(|a| format!("\r\nauthorization: {a}"))
        .unwrap_or_default();
    format!("POST {path} HTTP/1.1\r\ncontent-type: multipart/form-data; boundary={BOUNDARY}{auth}")
}

/// `outcome` is a 413 whose message names `limit`, answered while the client had sent at most
/// `within` bytes, on a connection the server then closed before the body's end.
fn refused_early(outcome: &Outcome, limit: &str, within: u64) {
    assert_eq!(outcome.status, 413, "{outcome:?}");
    assert!(
        outcome.answer.contains(r#""code":"payload_too_large""#),
        "{outcome:?}"
    );
    assert!(outcome.answer.contains(limit), "{limit} not in {outcome:?}");
    assert!(
        outcome.sent_when_answered <= within,
        "answered only after {} bytes: {outcome:?}",
        outcome.sent_when_answered
    );
    assert!(
        !outcome.finished,
        "the server read the whole body: {outcome:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn multipart_uploads_are_bounded_as_a_whole_and_refused_at_once() {
    let app = TestApp::spawn_with(&["--tls", "off", "--max-upload-mb", "1"]).await;
    let api = app.user_with_key("owner@example.com", "standard");
    let head = upload_head("/api/v1/documents/upload?title=Big", Some(api.key()));

    // A 60 MB text field under a 1 MiB limit: refused once it passes 64 KiB, long before the
    // client is done; what it could still write went to a closed connection.
    let field = stream(&app, &head, &part("note", None), b'a', 60 * MIB, &closing()).await;
    refused_early(
        &field,
        "that is not the file is larger than the 65536 bytes",
        EARLY,
    );
    assert!(field.sent < 16 * MIB, "{field:?}");
    eprintln!(
        "60 MB field: answered after {} bytes, {} sent in all, {:?}",
        field.sent_when_answered, field.sent, field.took
    );

    // A part header that never ends: refused after 8 KiB of it, not held whole.
    let start =
        format!("--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; x=\"").into_bytes();
    let header = stream(&app, &head, &start, b'h', 300 * MIB, b"\"\r\n\r\n").await;
    refused_early(
        &header,
        "headers in the multipart body are longer than the 8192 bytes",
        EARLY,
    );
    eprintln!(
        "endless header: answered after {} bytes, {:?}",
        header.sent_when_answered, header.took
    );

    // 17 parts, each small.
    let mut many = Vec::new();
    for i in 0..17 {
        many.extend(part(&format!("f{i}"), None));
        many.extend(b"x\r\n");
    }
    let parts = stream(&app, &head, &many, b'-', 60 * MIB, b"").await;
    refused_early(&parts, "more than the 16 parts", EARLY);

    // Fields each within their bound, the parts within theirs, the file under the maximum,
    // but the whole over the maximum and the 64 KiB allowance.
    let mut fields = Vec::new();
    for i in 0..14 {
        fields.extend(part(&format!("f{i}"), None));
        fields.extend(vec![b'z'; 60 * 1024]);
        fields.extend(b"\r\n");
    }
    fields.extend(part("file", Some("a.pdf")));
    fields.extend(b"%PDF-1.7\n");
    let total = stream(&app, &head, &fields, b'%', 60 * MIB, &closing()).await;
    refused_early(&total, "larger than the 1114112 bytes allowed", EARLY);

    // Nothing was made by any of them.
    let (_, list) = api.get("/api/v1/documents").await;
    assert_eq!(list["documents"], json!([]), "{list}");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_signed_put_and_the_raw_body_are_bounded_too() {
    let app = TestApp::spawn_with(&["--tls", "off", "--max-upload-mb", "1"]).await;
    let api = app.user_with_key("owner@example.com", "standard");
    let created = api
        .create_document(json!({"title": "A", "recipients": []}))
        .await;
    let url = url::Url::parse(created.upload_url()).unwrap();
    let target = format!("{}?{}", url.path(), url.query().unwrap());
    let put =
        format!("PUT {target} HTTP/1.1\r\ncontent-type: multipart/form-data; boundary={BOUNDARY}");
    let field = stream(&app, &put, &part("note", None), b'a', 60 * MIB, &closing()).await;
    refused_early(
        &field,
        "that is not the file is larger than the 65536 bytes",
        EARLY,
    );

    // The raw body, without a declared length, stops at the file's maximum.
    let raw = format!("PUT {target} HTTP/1.1\r\ncontent-type: application/pdf");
    let body = stream(&app, &raw, b"%PDF-1.7\n", b'%', 60 * MIB, b"").await;
    refused_early(&body, "larger than the 1 MiB allowed", EARLY);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ordinary_forms_upload_on_every_route() {
    let app = TestApp::spawn_with(&["--tls", "off", "--max-upload-mb", "1"]).await;
    let api = app.user_with_key("owner@example.com", "standard");
    let pdf = fixture("a4-1p.pdf");
    let form = || {
        let file = reqwest::multipart::Part::bytes(pdf.clone())
            .file_name("a4.pdf")
            .mime_str("application/pdf")
            .unwrap();
        reqwest::multipart::Form::new()
            .text("title", "ignored")
            .text("note", "x".repeat(60 * 1024))
            .part("file", file)
    };
    for path in ["/api/v1/documents/upload", "/api/v1/templates/upload"] {
        let resp = api
            .request(reqwest::Method::POST, path)
            .query(&[("title", "Form")])
            .multipart(form())
            .send()
            .await
            .unwrap();
        let status = resp.status();
        let v: Value = resp.json().await.unwrap();
        assert_eq!(status, 200, "{path}: {v}");
        assert_eq!(v["pages"], 1, "{path}: {v}");
    }
    let created = api
        .create_document(json!({"title": "A", "recipients": []}))
        .await;
    let resp = app
        .client
        .put(created.upload_url())
        .multipart(form())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200, "{:?}", resp.text().await);

    app.stop().await;
}
