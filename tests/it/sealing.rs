//! Fields against the file's pages, and sealing that fails: a re-upload may not strand fields
//! past the new last page, send refuses fields off the file, and a document whose sealing
//! fails shows it, tells its owner once (mail and webhook), is retried, and completes once the
//! cause is gone.

use std::time::{Duration, Instant};

use reqwest::Method as M;
use serde_json::{Value, json};

use crate::documents::{call, create, fixture, user_with_key};
use crate::harness::TestApp;
use crate::mail::{SmtpServer, free_port, smtp_url};
use crate::webhooks::Receiver;

fn db(app: &TestApp) -> rusqlite::Connection {
    rusqlite::Connection::open(app.data_dir().join("docket.db")).unwrap()
}

async fn put_pdf(app: &TestApp, url: &str, pdf: Vec<u8>) -> (u16, Value) {
    let resp = app
        .client
        .put(url)
        .header("content-type", "application/pdf")
        .body(pdf)
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    (status, resp.json().await.unwrap_or(Value::Null))
}

async fn post(app: &TestApp, path: &str, body: Value) -> (u16, Value) {
    let resp = app
        .client
        .post(app.url(path))
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    (status, resp.json().await.unwrap_or(Value::Null))
}

async fn get_doc(app: &TestApp, key: &str, id: i64) -> Value {
    let (s, v) = call(app, key, M::GET, &format!("/api/v1/documents/{id}"), None).await;
    assert_eq!(s, 200, "{v}");
    v
}

/// The ids of the fields `body` (an array) created, in order.
async fn add_fields(app: &TestApp, key: &str, path: &str, body: Value) -> Vec<i64> {
    let (s, v) = call(app, key, M::POST, path, Some(body)).await;
    assert_eq!(s, 200, "{v}");
    v["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["id"].as_i64().unwrap())
        .collect()
}

fn field(rid: i64, kind: &str, page: i64, y: i64) -> Value {
    let mut f = json!({"recipientId": rid, "type": kind, "pageNumber": page, "pageX": 10, "pageY": y, "pageWidth": 30, "pageHeight": 5});
    if kind == "TEXT" {
        f["fieldMeta"] = json!({"type": "text"});
    }
    f
}

fn one_signer(title: &str) -> Value {
    json!({"title": title, "recipients": [{"name": "Ann Signer", "email": "ann@example.com", "role": "SIGNER"}]})
}

/// The uploaded (original) file of document `id`, as downloaded.
async fn original(app: &TestApp, key: &str, id: i64) -> Vec<u8> {
    let (s, v) = call(
        app,
        key,
        M::GET,
        &format!("/api/v1/documents/{id}/download?original=true"),
        None,
    )
    .await;
    assert_eq!(s, 200, "{v}");
    let resp = app
        .client
        .get(v["downloadUrl"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    resp.bytes().await.unwrap().to_vec()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shorter_reupload_is_refused_while_fields_lie_past_its_last_page() {
    let app = TestApp::spawn().await;
    let key = user_with_key(&app, "owner@example.com", "standard");
    let created = create(&app, &key, one_signer("Three pages")).await;
    let id = created["documentId"].as_i64().unwrap();
    let url = created["uploadUrl"].as_str().unwrap();
    let rid = created["recipients"][0]["recipientId"].as_i64().unwrap();
    let three = fixture("mixed-sizes-3p.pdf");
    assert_eq!(put_pdf(&app, url, three.clone()).await.0, 200);
    let ids = add_fields(
        &app,
        &key,
        &format!("/api/v1/documents/{id}/fields"),
        json!([
            field(rid, "SIGNATURE", 1, 80),
            field(rid, "TEXT", 3, 10),
            field(rid, "TEXT", 3, 30),
            field(rid, "TEXT", 2, 30)
        ]),
    )
    .await;
    let before = get_doc(&app, &key, id).await;

    // One page: the fields on pages 2 and 3 would be stranded; 409 names each, by page.
    let (s, v) = put_pdf(&app, url, fixture("a4-1p.pdf")).await;
    assert_eq!((s, v["code"].as_str()), (409, Some("conflict")), "{v}");
    let msg = v["message"].as_str().unwrap();
    let expected = format!(
        "field {} is on page 2; fields {} and {} are on page 3; the new file has 1 page",
        ids[3], ids[1], ids[2]
    );
    assert!(msg.starts_with(&expected), "{msg}");

    // Nothing changed: same file, same fields, one upload in the audit log, no stray blob.
    let after = get_doc(&app, &key, id).await;
    assert_eq!(after["fields"], before["fields"]);
    assert_eq!(after["updatedAt"], before["updatedAt"]);
    assert_eq!(original(&app, &key, id).await, three);
    let (_, log) = call(
        &app,
        &key,
        M::GET,
        &format!("/api/v1/documents/{id}/audit-log"),
        None,
    )
    .await;
    let uploads = log["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "UPLOADED")
        .count();
    assert_eq!(uploads, 1, "{log}");
    let blobs: i64 = db(&app)
        .query_row("SELECT count(*) FROM blobs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(blobs, 1);

    // A two-page file still strands page 3 only.
    let (s, v) = put_pdf(&app, url, fixture("ps2pdf-a5-2p.pdf")).await;
    assert_eq!(s, 409, "{v}");
    let msg = v["message"].as_str().unwrap();
    assert!(
        msg.starts_with(&format!(
            "fields {} and {} are on page 3; the new file has 2 pages",
            ids[1], ids[2]
        )),
        "{msg}"
    );

    // Once those fields are gone, the shorter file is accepted.
    for f in &ids[1..] {
        let (s, _) = call(
            &app,
            &key,
            M::DELETE,
            &format!("/api/v1/documents/{id}/fields/{f}"),
            None,
        )
        .await;
        assert_eq!(s, 200);
    }
    let (s, v) = put_pdf(&app, url, fixture("a4-1p.pdf")).await;
    assert_eq!((s, v["pages"].as_i64()), (200, Some(1)), "{v}");

    // A template's re-upload follows the same rule.
    let (s, t) = call(
        &app,
        &key,
        M::POST,
        "/api/v1/templates",
        Some(json!({"title": "T", "recipients": [{"name": "A", "email": "a@example.com", "role": "SIGNER"}]})),
    )
    .await;
    assert_eq!(s, 200, "{t}");
    let tid = t["templateId"].as_i64().unwrap();
    let turl = t["uploadUrl"].as_str().unwrap();
    let trid = t["recipients"][0]["recipientId"].as_i64().unwrap();
    assert_eq!(put_pdf(&app, turl, three.clone()).await.0, 200);
    let tids = add_fields(
        &app,
        &key,
        &format!("/api/v1/templates/{tid}/fields"),
        json!([field(trid, "SIGNATURE", 1, 80), field(trid, "TEXT", 3, 10)]),
    )
    .await;
    let (s, v) = put_pdf(&app, turl, fixture("a4-1p.pdf")).await;
    assert_eq!(s, 409, "{v}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .starts_with(&format!("field {} is on page 3;", tids[1])),
        "{v}"
    );
    let pages: String = db(&app)
        .query_row(
            "SELECT page_sizes FROM templates WHERE id = ?1",
            [tid],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(
        serde_json::from_str::<Vec<Value>>(&pages).unwrap().len(),
        3,
        "the template keeps its file"
    );
    app.stop().await;
}

/// A one-signer document on a one-page file with a SIGNATURE and a TEXT field, uploaded, not
/// sent. Returns (id, signer token, signature field, text field).
async fn one_pager(app: &TestApp, key: &str, title: &str) -> (i64, String, i64, i64) {
    let created = create(app, key, one_signer(title)).await;
    let id = created["documentId"].as_i64().unwrap();
    let rid = created["recipients"][0]["recipientId"].as_i64().unwrap();
    let (s, v) = put_pdf(
        app,
        created["uploadUrl"].as_str().unwrap(),
        fixture("a4-1p.pdf"),
    )
    .await;
    assert_eq!(s, 200, "{v}");
    let ids = add_fields(
        app,
        key,
        &format!("/api/v1/documents/{id}/fields"),
        json!([field(rid, "SIGNATURE", 1, 80), field(rid, "TEXT", 1, 10)]),
    )
    .await;
    let token = created["recipients"][0]["token"]
        .as_str()
        .unwrap()
        .to_string();
    (id, token, ids[0], ids[1])
}

async fn send(app: &TestApp, key: &str, id: i64) -> (u16, Value) {
    call(
        app,
        key,
        M::POST,
        &format!("/api/v1/documents/{id}/send"),
        Some(json!({"sendEmail": false})),
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn send_refuses_fields_off_the_files_pages_naming_them() {
    let app = TestApp::spawn().await;
    let key = user_with_key(&app, "owner@example.com", "standard");
    let (id, _, sig, text) = one_pager(&app, &key, "Off the page").await;
    // The API no longer lets a field end up here (uploads refuse, fields are checked at
    // creation), but databases from before that check hold such drafts: a re-upload used to
    // keep fields past the new last page. The test writes that state directly.
    let c = db(&app);
    c.execute("UPDATE fields SET page_number = 4 WHERE id = ?1", [sig])
        .unwrap();
    c.execute(
        "UPDATE fields SET page_x = 90, page_width = 30 WHERE id = ?1",
        [text],
    )
    .unwrap();

    let (s, v) = send(&app, &key, id).await;
    assert_eq!((s, v["code"].as_str()), (409, Some("conflict")), "{v}");
    let msg = v["message"].as_str().unwrap();
    assert!(
        msg.contains(&format!(
            "field {sig} is on page 4, but the file has 1 page"
        )),
        "{msg}"
    );
    assert!(
        msg.contains(&format!("field {text} reaches past the right edge")),
        "{msg}"
    );
    assert_eq!(get_doc(&app, &key, id).await["status"], "DRAFT");

    // Put back on the page, the document sends.
    c.execute("UPDATE fields SET page_number = 1 WHERE id = ?1", [sig])
        .unwrap();
    c.execute("UPDATE fields SET page_x = 10 WHERE id = ?1", [text])
        .unwrap();
    let (s, v) = send(&app, &key, id).await;
    assert_eq!((s, v["status"].as_str()), (200, Some("PENDING")), "{v}");
    app.stop().await;
}

const PNG_SIGNATURE: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAACgAAAAMCAYAAAAQw/9NAAAAMklEQVR4nGMQEJb6z4AGBpMYBhhMjsMQGzQOGXXciHEcNjCYHDe0QnPQOGTUcSMtkwAAwO52gdvTiIsAAAAASUVORK5CYII=";

/// Polls document `id` until `done` holds (30 s at most); returns it.
async fn wait_doc(
    app: &TestApp,
    key: &str,
    id: i64,
    what: &str,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let doc = get_doc(app, key, id).await;
        if done(&doc) {
            return doc;
        }
        assert!(Instant::now() < deadline, "never {what}: {doc}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A received message with quoted-printable soft line breaks undone, so that text split
/// across lines can be searched.
fn unfolded(raw: &str) -> String {
    raw.replace("=\r\n", "").replace("=\n", "")
}

/// Waits until the Maildir holds a message satisfying `which`; returns all such.
async fn wait_mail(smtp: &SmtpServer, which: impl Fn(&str) -> bool) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let m: Vec<String> = smtp
            .messages()
            .iter()
            .map(|m| unfolded(m))
            .filter(|m| which(m))
            .collect();
        if !m.is_empty() {
            return m;
        }
        assert!(Instant::now() < deadline, "no such mail arrived");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_sealing_is_shown_told_once_retried_and_completes_once_fixed() {
    let maildir = tempfile::tempdir().unwrap();
    let port = free_port();
    let smtp = SmtpServer::start(port, maildir.path());
    let url = smtp_url(port);
    let app = TestApp::spawn_with(&[
        "--tls",
        "off",
        "--smtp-url",
        &url,
        "--allow-private-webhooks",
        "--retry-base-ms",
        "200",
    ])
    .await;
    let key = user_with_key(&app, "owner@example.com", "standard");
    let rx = Receiver::start(&[]).await;
    let (s, hook) = call(
        &app,
        &key,
        M::POST,
        "/api/v1/webhooks",
        Some(json!({"url": rx.url(), "events": ["DOCUMENT_SEAL_FAILED", "DOCUMENT_COMPLETED"]})),
    )
    .await;
    assert_eq!(s, 200, "{hook}");

    let (id, ann, sig, text) = one_pager(&app, &key, "Stranded").await;
    assert_eq!(send(&app, &key, id).await.0, 200);
    let doc = get_doc(&app, &key, id).await;
    assert!(doc.get("sealing").is_none(), "no failure yet: {doc}");
    // A PENDING document with a field past its file's last page: what databases from before
    // the upload and send checks may hold (sent before this fix). Sealing cannot place it.
    db(&app)
        .execute("UPDATE fields SET page_number = 3 WHERE id = ?1", [sig])
        .unwrap();
    let (s, v) = post(
        &app,
        &format!("/sign/{ann}/fields/{sig}"),
        json!({"signature": PNG_SIGNATURE}),
    )
    .await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = post(
        &app,
        &format!("/sign/{ann}/fields/{text}"),
        json!({"value": "x"}),
    )
    .await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = post(&app, &format!("/sign/{ann}/complete"), json!({})).await;
    assert_eq!(
        (s, v["documentCompleting"].as_bool()),
        (200, Some(true)),
        "{v}"
    );

    // The failure shows in the API, with the reason and the next attempt.
    let doc = wait_doc(&app, &key, id, "FAILED", |d| {
        d["sealing"]["status"] == "FAILED"
    })
    .await;
    assert_eq!(doc["status"], "PENDING");
    let sealing = &doc["sealing"];
    assert!(sealing["attempts"].as_i64().unwrap() >= 1, "{sealing}");
    assert!(
        sealing["lastError"]
            .as_str()
            .unwrap()
            .contains("a field is on page 3, but the document has 1 pages"),
        "{sealing}"
    );
    assert!(sealing["nextAttemptAt"].is_string(), "{sealing}");

    // The owner is told: a mail and a webhook event carrying the document with its sealing.
    let told = wait_mail(&smtp, |m| m.contains("Subject: Sealing failed")).await;
    assert!(told[0].contains("To: owner@example.com"), "{}", told[0]);
    assert!(told[0].contains("page 3"), "{}", told[0]);
    let got = rx.wait_for(1).await;
    let event: Value = serde_json::from_str(&got[0].body).unwrap();
    assert_eq!(event["event"], "DOCUMENT_SEAL_FAILED");
    assert_eq!(event["payload"]["id"], id);
    assert_eq!(event["payload"]["sealing"]["status"], "FAILED");

    // It is retried: attempts go up while the cause stays.
    let doc = wait_doc(&app, &key, id, "retried", |d| {
        d["sealing"]["attempts"].as_i64().unwrap_or(0) >= 3
    })
    .await;
    assert_eq!(doc["status"], "PENDING");
    assert_eq!(doc["sealing"]["status"], "FAILED");

    // The cause fixed, a later attempt seals and completes the document as usual.
    db(&app)
        .execute("UPDATE fields SET page_number = 1 WHERE id = ?1", [sig])
        .unwrap();
    let doc = wait_doc(&app, &key, id, "COMPLETED", |d| d["status"] == "COMPLETED").await;
    let sealing = &doc["sealing"];
    assert_eq!(sealing["status"], "SEALED", "{sealing}");
    assert!(sealing["attempts"].as_i64().unwrap() >= 4, "{sealing}");
    assert!(sealing["nextAttemptAt"].is_null(), "{sealing}");
    let (s, v) = call(
        &app,
        &key,
        M::GET,
        &format!("/api/v1/documents/{id}/download"),
        None,
    )
    .await;
    assert_eq!(s, 200, "{v}");

    // The completion mail and event follow the failure notices (queued after them), and there
    // was one notice of each kind, not one per retry.
    wait_mail(&smtp, |m| {
        m.contains("To: owner@example.com") && m.contains("Subject: Completed:")
    })
    .await;
    let got = rx.wait_for(2).await;
    let events: Vec<String> = got
        .iter()
        .map(|r| {
            serde_json::from_str::<Value>(&r.body).unwrap()["event"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(events, ["DOCUMENT_SEAL_FAILED", "DOCUMENT_COMPLETED"]);
    let notices = smtp
        .messages()
        .into_iter()
        .filter(|m| m.contains("Subject: Sealing failed"))
        .count();
    assert_eq!(notices, 1);
    // The failed attempts left no sealed file behind: the original and the one sealed file.
    let blobs: i64 = db(&app)
        .query_row("SELECT count(*) FROM blobs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(blobs, 2);
    app.stop().await;
}
