//! Hostile PDF uploads against the real binary under an address-space cap: a small file that
//! would expand to gigabytes of parsed objects is refused with a clear 400, the server keeps
//! running and its memory stays small.

use std::io::Write;

use serde_json::{Value, json};

use crate::support::api::{Api, add_user, create_api_key};
use crate::support::{BinServer, client};

/// The child's address space: far below what the hostile files cost unchecked (2 to 8 GB).
const CAP: u64 = 1 << 30;

/// Peak resident memory allowed after refusing them (an idle server takes about 15 MiB).
const MAX_PEAK_RSS_KIB: u64 = 300 << 10;

/// A PDF of one page (objects 1 to 3) followed by `extra` objects numbered from 4, with a
/// correct cross-reference table. `count` is the page tree's /Count (1 is true).
pub fn pdf_with(extra: &[Vec<u8>], count: u32) -> Vec<u8> {
    let mut objects: Vec<Vec<u8>> = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        format!("<< /Type /Pages /Kids [3 0 R] /Count {count} >>").into_bytes(),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>".to_vec(),
    ];
    objects.extend(extra.iter().cloned());
    let mut out = b"%PDF-1.5\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        out.extend_from_slice(body);
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for offset in offsets {
        out.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

/// An object stream holding object `number`: `body` deflated.
pub fn object_stream(number: u32, body: &[u8]) -> Vec<u8> {
    let header = format!("{number} 0 ");
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    z.write_all(header.as_bytes()).unwrap();
    z.write_all(body).unwrap();
    let data = z.finish().unwrap();
    let mut out = format!(
        "<< /Type /ObjStm /N 1 /First {} /Filter /FlateDecode /Length {} >>\nstream\n",
        header.len(),
        data.len()
    )
    .into_bytes();
    out.extend_from_slice(&data);
    out.extend_from_slice(b"\nendstream");
    out
}

/// One array holding 16 million empty arrays: just under lopdf's bound of 32 MiB for one
/// inflated stream, so only the budget stops it; about 32 KB deflated.
pub fn empty_arrays() -> Vec<u8> {
    let mut body = Vec::with_capacity(32 << 20);
    body.push(b'[');
    body.extend(std::iter::repeat_n(*b"[]", (16 << 20) - 8).flatten());
    body.push(b']');
    body
}

/// Arrays nested `depth` levels, each also holding a number.
pub fn nested(depth: usize) -> Vec<u8> {
    let mut body = b"[1 ".repeat(depth);
    body.extend(b"]".repeat(depth));
    body
}

struct Server {
    server: BinServer,
    api: Api,
    _tmp: tempfile::TempDir,
}

impl Server {
    fn start() -> Server {
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path().join("data");
        let data_arg = data.to_str().unwrap().to_string();
        let server = BinServer::start_capped(
            &[
                "--data-dir",
                &data_arg,
                "--listen",
                "127.0.0.1:0",
                "--tls",
                "off",
            ],
            &[],
            Some(CAP),
        );
        add_user(
            &data,
            "owner@example.com",
            &["--name", "Owner", "--tier", "standard"],
        );
        let key = create_api_key(&data, "owner@example.com")["key"]
            .as_str()
            .unwrap()
            .to_string();
        let api = Api::new(
            client(server.addr, None),
            &format!("http://{}", server.addr),
            &key,
        );
        Server {
            server,
            api,
            _tmp: tmp,
        }
    }

    /// Creates a document and uploads `pdf` to it: the status and JSON answer.
    async fn upload(&self, pdf: Vec<u8>) -> (u16, Value) {
        let created: Value = self
            .api
            .post_response(
                "/api/v1/documents",
                &json!({"title": "hostile", "recipients": []}),
            )
            .await
            .json()
            .await
            .unwrap();
        let upload = created["uploadUrl"].as_str().expect("an upload URL");
        let path = &upload[upload.find("/api/").expect("a path in the upload URL")..];
        self.api.upload(&self.api.url(path), pdf).await
    }

    /// The server is alive, answers /healthz and took at most MAX_PEAK_RSS_KIB.
    async fn assert_healthy(&mut self) {
        assert!(self.server.is_running(), "the server exited");
        let health = self
            .api
            .client()
            .get(self.api.url("/healthz"))
            .send()
            .await
            .unwrap();
        assert_eq!(health.status(), 200);
        let peak = self.server.peak_rss_kib();
        assert!(
            peak < MAX_PEAK_RSS_KIB,
            "peak RSS {} MiB, over the {} MiB allowed",
            peak >> 10,
            MAX_PEAK_RSS_KIB >> 10
        );
    }
}

fn assert_too_complex(status: u16, answer: &Value, reason: &str) {
    assert_eq!(status, 400, "{answer}");
    let text = answer.to_string();
    assert!(text.contains("pdf_too_complex"), "{text}");
    assert!(text.contains("the PDF is too complex"), "{text}");
    assert!(text.contains(reason), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_object_stream_of_16_million_arrays_is_refused_in_little_memory() {
    let mut server = Server::start();
    let pdf = pdf_with(&[object_stream(5, &empty_arrays())], 1);
    assert!(pdf.len() < 48 << 10, "{} bytes", pdf.len());
    let (status, answer) = server.upload(pdf).await;
    assert_too_complex(status, &answer, "more than 1000000 values");
    server.assert_healthy().await;
    // A good file is still accepted.
    let good = pdf_with(&[b"[1 2 3]".to_vec()], 1);
    assert_eq!(server.upload(good).await.0, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_such_streams_and_a_wrong_page_count_do_not_load_twice() {
    // /Count 2 for one page sends the check to a second, rebuilt load.
    let mut server = Server::start();
    let arrays = empty_arrays();
    let pdf = pdf_with(&[object_stream(5, &arrays), object_stream(7, &arrays)], 2);
    let (status, answer) = server.upload(pdf).await;
    assert_too_complex(status, &answer, "more than 1000000 values");
    server.assert_healthy().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deep_nesting_is_refused_with_its_reason() {
    let mut server = Server::start();
    // Within lopdf's own limit of 100 levels, which would otherwise take it silently.
    let (status, answer) = server.upload(pdf_with(&[nested(90)], 1)).await;
    assert_too_complex(status, &answer, "nested more than 64 levels deep");
    // Far past it, in an object stream.
    let deep = pdf_with(&[object_stream(5, &nested(200_000))], 1);
    let (status, answer) = server.upload(deep).await;
    assert_too_complex(status, &answer, "nested more than 64 levels deep");
    // Nesting a real file could have is fine.
    let (status, answer) = server.upload(pdf_with(&[nested(20)], 1)).await;
    assert_eq!(status, 200, "{answer}");
    server.assert_healthy().await;
}
