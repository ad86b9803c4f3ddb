//! Uploads: multipart and real-world files, refusals that leave nothing behind, signed URLs
//! (tampered, swapped, expired), size limits, replacing a draft's file, streamed large files.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uploads_accept_multipart_and_real_world_files() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    for (name, pages) in [
        ("a4-1p.pdf", 1),
        ("scan-3p.pdf", 3),
        ("bad-xref-offsets.pdf", 1),
        ("bad-startxref.pdf", 1),
        ("linearized-3p.pdf", 3),
        ("signed-2rev.pdf", 1),
        ("objstm-3p.pdf", 3),
        ("rotated-4p.pdf", 4),
        ("ps2pdf-a5-2p.pdf", 2),
    ] {
        let created = api
            .create_document(json!({"title": name, "recipients": []}))
            .await;
        let part = reqwest::multipart::Part::bytes(fixture(name))
            .file_name(name.to_string())
            .mime_str("application/pdf")
            .unwrap();
        let form = reqwest::multipart::Form::new()
            .text("note", "ignored")
            .part("file", part);
        let resp = app
            .client
            .put(created.upload_url())
            .multipart(form)
            .send()
            .await
            .unwrap();
        let status = resp.status();
        let up: Value = resp.json().await.unwrap();
        assert_eq!(status, 200, "{name}: {up}");
        assert_eq!(up["pages"], pages, "{name}");
    }
    app.stop().await;
}

fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(files_under(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_uploads_are_refused_and_leave_nothing_behind() {
    let app = TestApp::spawn_with(&["--tls", "off", "--max-upload-mb", "1"]).await;
    let api = app.user_with_key("owner@example.com", "standard");
    let a = api
        .create_document(json!({"title": "A", "recipients": []}))
        .await;
    let b = api
        .create_document(json!({"title": "B", "recipients": []}))
        .await;
    let url_a = a.upload_url().to_string();
    let url_b = b.upload_url().to_string();
    let pdf = fixture("a4-1p.pdf");

    what_is_not_a_plain_pdf_is_refused(&app, &url_a, &pdf).await;
    tampered_swapped_and_unsigned_urls_are_refused(&app, &url_a, &url_b, &pdf).await;
    too_large_bodies_are_refused(&app, &url_a);

    // Nothing was kept: no blob files, no temp files, the document has no file.
    let blobs = stored_blob_ids(&app.data_dir());
    assert!(blobs.is_empty(), "{blobs:?}");
    let temp = files_under(&app.data_dir().join("blobs/tmp"));
    assert!(temp.is_empty(), "{temp:?}");
    let c = app.db_rw();
    let (n, blob): (i64, Option<String>) = c
        .query_row(
            "SELECT (SELECT count(*) FROM blobs), blob_id FROM documents WHERE id = ?1",
            [a.document_id()],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((n, blob), (0, None));

    a_good_upload_replaces_the_last_until_the_draft_is_sent(
        &app,
        &c,
        &url_a,
        a.document_id(),
        &pdf,
    )
    .await;
    app.stop().await;
}

/// PUTs `body` as `ct` to `url` (no credential): the status and the JSON answer (`Null` when
/// it is not JSON).
async fn put(app: &TestApp, url: String, ct: &'static str, body: Vec<u8>) -> (u16, Value) {
    let req = app.client.put(url).header("content-type", ct).body(body);
    let r = req.send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json::<Value>().await.unwrap_or(Value::Null))
}

/// Not a PDF, encrypted, empty, wrong content type.
async fn what_is_not_a_plain_pdf_is_refused(app: &TestApp, url_a: &str, pdf: &[u8]) {
    let (s, v) = put(
        app,
        url_a.to_string(),
        "application/pdf",
        fixture("not-a-pdf-png.pdf"),
    )
    .await;
    assert_eq!(s, 415, "{v}");
    assert!(v["message"].as_str().unwrap().contains("not a PDF"));
    let (s, v) = put(
        app,
        url_a.to_string(),
        "application/pdf",
        fixture("encrypted-aes256.pdf"),
    )
    .await;
    assert_eq!(s, 400);
    assert!(v["message"].as_str().unwrap().contains("password"), "{v}");
    let (s, _) = put(app, url_a.to_string(), "application/pdf", Vec::new()).await;
    assert_eq!(s, 400);
    let (s, _) = put(app, url_a.to_string(), "text/plain", pdf.to_vec()).await;
    assert_eq!(s, 415);
}

/// Tampered, swapped and unsigned URLs.
async fn tampered_swapped_and_unsigned_urls_are_refused(
    app: &TestApp,
    url_a: &str,
    url_b: &str,
    pdf: &[u8],
) {
    let tampered = url_a.replace("sig=", "sig=A");
    assert_eq!(
        put(app, tampered, "application/pdf", pdf.to_vec()).await.0,
        403
    );
    let sig_b = url_b.split('?').nth(1).unwrap();
    let swapped = format!("{}?{sig_b}", url_a.split('?').next().unwrap());
    assert_eq!(
        put(app, swapped, "application/pdf", pdf.to_vec()).await.0,
        403
    );
    let later = url_a.replace("exp=", "exp=9");
    assert_eq!(
        put(app, later, "application/pdf", pdf.to_vec()).await.0,
        403
    );
    assert_eq!(
        put(
            app,
            url_a.split('?').next().unwrap().to_string(),
            "application/pdf",
            pdf.to_vec()
        )
        .await
        .0,
        403
    );
}

/// Too large, declared or streamed: 413.
fn too_large_bodies_are_refused(app: &TestApp, url_a: &str) {
    // Declared: the answer comes before any of the body is sent.
    let path = url_a.strip_prefix(&app.base).unwrap().to_string();
    let head = format!(
        "PUT {path} HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/pdf\r\ncontent-length: {}\r\n\r\n",
        3 * 1024 * 1024
    );
    let (status, text) = crate::support::raw_status(app.addr, head.as_bytes());
    assert_eq!(status, 413, "{text}");
    // Streamed without a length: refused once it passes the limit (1 MiB + 1 byte sent, all of
    // which the server reads).
    let mut chunked = format!(
        "PUT {path} HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/pdf\r\ntransfer-encoding: chunked\r\n\r\n"
    )
    .into_bytes();
    for size in [512 * 1024, 512 * 1024, 1] {
        chunked.extend_from_slice(format!("{size:x}\r\n").as_bytes());
        chunked.extend(std::iter::repeat_n(b'%', size));
        chunked.extend_from_slice(b"\r\n");
    }
    let (status, text) = crate::support::raw_status(app.addr, &chunked);
    assert_eq!(status, 413, "{text}");
    assert!(text.contains("payload_too_large"), "{text}");
}

/// A good upload works, a second one replaces it (whose file is removed just after the
/// answer), and after the draft stage it is 409.
async fn a_good_upload_replaces_the_last_until_the_draft_is_sent(
    app: &TestApp,
    c: &crate::support::TestDb,
    url_a: &str,
    id: i64,
    pdf: &[u8],
) {
    assert_eq!(
        put(app, url_a.to_string(), "application/pdf", pdf.to_vec())
            .await
            .0,
        200
    );
    assert_eq!(
        put(
            app,
            url_a.to_string(),
            "application/octet-stream",
            fixture("scan-3p.pdf")
        )
        .await
        .0,
        200
    );
    // The replaced file is removed just after the answer.
    let mut left = stored_blob_ids(&app.data_dir()).len();
    for _ in 0..40 {
        if left == 1 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        left = stored_blob_ids(&app.data_dir()).len();
    }
    assert_eq!(left, 1, "the replaced file is gone");
    c.execute(
        "UPDATE documents SET status = 'PENDING' WHERE id = ?1",
        [id],
    )
    .unwrap();
    assert_eq!(
        put(app, url_a.to_string(), "application/pdf", pdf.to_vec())
            .await
            .0,
        409
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_upload_url_is_403() {
    let app = TestApp::spawn_with(&["--tls", "off", "--upload-url-ttl", "1"]).await;
    let api = app.user_with_key("owner@example.com", "standard");
    let created = api
        .create_document(json!({"title": "T", "recipients": []}))
        .await;
    tokio::time::sleep(std::time::Duration::from_millis(2100)).await;
    let resp = app
        .client
        .put(created.upload_url())
        .body(fixture("a4-1p.pdf"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 403);
    let v: Value = resp.json().await.unwrap();
    assert!(v["message"].as_str().unwrap().contains("expired"), "{v}");
    app.stop().await;
}

/// A 1-page PDF of about `mib` MiB: the page draws an image XObject whose stream is
/// incompressible bytes, so the upload spans many writer pieces.
fn big_pdf(mib: usize) -> Vec<u8> {
    use lopdf::{Document, Object, Stream, dictionary};
    let mut doc = Document::with_version("1.7");
    let mut noise = vec![0u8; mib << 20];
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for b in noise.iter_mut() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        *b = x as u8;
    }
    let side = ((noise.len() / 3) as f64).sqrt() as i64;
    noise.truncate((side * side * 3) as usize);
    let image = doc.add_object(Stream::new(
        dictionary! {"Type" => "XObject", "Subtype" => "Image", "Width" => side, "Height" => side,
        "ColorSpace" => "DeviceRGB", "BitsPerComponent" => 8},
        noise,
    ));
    let content = doc.add_object(Stream::new(
        dictionary! {},
        b"q 500 0 0 500 50 150 cm /Im Do Q".to_vec(),
    ));
    let pages = doc.new_object_id();
    let page = doc.add_object(dictionary! {"Type" => "Page", "Parent" => pages,
    "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()], "Contents" => content,
    "Resources" => dictionary! {"XObject" => dictionary! {"Im" => image}}});
    doc.objects.insert(
        pages,
        Object::Dictionary(
            dictionary! {"Type" => "Pages", "Kids" => vec![page.into()], "Count" => 1},
        ),
    );
    let catalog = doc.add_object(dictionary! {"Type" => "Catalog", "Pages" => pages});
    doc.trailer.set("Root", catalog);
    let mut out = Vec::new();
    doc.save_to(&mut out).unwrap();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_upload_streamed_in_small_chunks_is_stored_whole() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let pdf = big_pdf(3);
    let created = api
        .create_document(json!({"title": "Big", "recipients": []}))
        .await;
    // 10,000-byte chunks: many pieces of the body, none aligned with the server's own.
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
        pdf.chunks(10_000).map(|c| Ok(c.to_vec())).collect();
    let resp = app
        .client
        .put(created.upload_url())
        .header("content-type", "application/pdf")
        .body(reqwest::Body::wrap_stream(futures_util::stream::iter(
            chunks,
        )))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let up: Value = resp.json().await.unwrap();
    assert_eq!(up["pages"], 1);
    assert_eq!(up["size"], pdf.len());
    assert_eq!(up["sha256"], docket::core::crypto::sha256_hex(&pdf));
    // Exactly one stored file, byte for byte the upload; no temp file left.
    let data = app.data_dir();
    let stored = stored_blob_ids(&data);
    assert_eq!(stored.len(), 1, "{stored:?}");
    assert!(stored_blob(&data, &stored[0]) == pdf);
    assert!(files_under(&data.join("blobs/tmp")).is_empty());
    app.stop().await;
}
