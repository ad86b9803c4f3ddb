//! Fields against the file's pages, and sealing that fails: a re-upload may not strand fields
//! past the new last page, send refuses fields off the file, and a document whose sealing
//! fails shows it, tells its owner once (mail and webhook), is retried, and completes once the
//! cause is gone.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::TestApp;
use crate::support::api::{Api, Signer, fixture, webhook};
use crate::support::mailbox::MailBox;
use crate::support::wait::wait_for;
use crate::support::webhook::Receiver;

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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shorter_reupload_is_refused_while_fields_lie_past_its_last_page() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let created = api.create_document(one_signer("Three pages")).await;
    let id = created.document_id();
    let url = created.upload_url();
    let rid = created.recipient_id(0);
    let three = fixture("mixed-sizes-3p.pdf");
    assert_eq!(api.upload(url, three.clone()).await.0, 200);
    let ids = api
        .add_fields(
            id,
            json!([
                field(rid, "SIGNATURE", 1, 80),
                field(rid, "TEXT", 3, 10),
                field(rid, "TEXT", 3, 30),
                field(rid, "TEXT", 2, 30)
            ]),
        )
        .await;

    a_one_page_file_is_refused_and_changes_nothing(&app, &api, id, url, &ids, &three).await;
    // A two-page file still strands page 3 only.
    let (s, v) = api.upload(url, fixture("ps2pdf-a5-2p.pdf")).await;
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
        let (s, _) = api
            .delete(&format!("/api/v1/documents/{id}/fields/{f}"))
            .await;
        assert_eq!(s, 200);
    }
    let (s, v) = api.upload(url, fixture("a4-1p.pdf")).await;
    assert_eq!((s, v["pages"].as_i64()), (200, Some(1)), "{v}");

    a_templates_reupload_follows_the_same_rule(&app, &api, &three).await;
    app.stop().await;
}

/// One page: the fields `ids` on pages 2 and 3 of document `id` (on `three`) would be
/// stranded; 409 names each, by page. Nothing changed: same file, same fields, one upload in
/// the audit log, no stray blob.
async fn a_one_page_file_is_refused_and_changes_nothing(
    app: &TestApp,
    api: &Api,
    id: i64,
    url: &str,
    ids: &[i64],
    three: &[u8],
) {
    let before = api.document(id).await;

    let (s, v) = api.upload(url, fixture("a4-1p.pdf")).await;
    assert_eq!((s, v["code"].as_str()), (409, Some("conflict")), "{v}");
    let msg = v["message"].as_str().unwrap();
    let expected = format!(
        "field {} is on page 2; fields {} and {} are on page 3; the new file has 1 page",
        ids[3], ids[1], ids[2]
    );
    assert!(msg.starts_with(&expected), "{msg}");

    let after = api.document(id).await;
    assert_eq!(after["fields"], before["fields"]);
    assert_eq!(after["updatedAt"], before["updatedAt"]);
    assert_eq!(api.original(id).await, three);
    let (_, log) = api.get(&format!("/api/v1/documents/{id}/audit-log")).await;
    let uploads = log["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "UPLOADED")
        .count();
    assert_eq!(uploads, 1, "{log}");
    let blobs: i64 = app
        .db()
        .query_row("SELECT count(*) FROM blobs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(blobs, 1);
}

/// A template's re-upload follows the same rule: a field on page 3 keeps its three-page file.
async fn a_templates_reupload_follows_the_same_rule(app: &TestApp, api: &Api, three: &[u8]) {
    let t = api
        .create_template(json!({"title": "T", "recipients": [{"name": "A", "email": "a@example.com", "role": "SIGNER"}]}))
        .await;
    let tid = t["templateId"].as_i64().unwrap();
    let turl = t["uploadUrl"].as_str().unwrap();
    let trid = t["recipients"][0]["recipientId"].as_i64().unwrap();
    assert_eq!(api.upload(turl, three.to_vec()).await.0, 200);
    let tids = api
        .add_template_fields(
            tid,
            json!([field(trid, "SIGNATURE", 1, 80), field(trid, "TEXT", 3, 10)]),
        )
        .await;
    let (s, v) = api.upload(turl, fixture("a4-1p.pdf")).await;
    assert_eq!(s, 409, "{v}");
    assert!(
        v["message"]
            .as_str()
            .unwrap()
            .starts_with(&format!("field {} is on page 3;", tids[1])),
        "{v}"
    );
    let pages: String = app
        .db()
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
}

/// A one-signer document on a one-page file with a SIGNATURE and a TEXT field, uploaded, not
/// sent. Returns (id, signer, signature field, text field).
async fn one_pager(app: &TestApp, api: &Api, title: &str) -> (i64, Signer, i64, i64) {
    let created = api.create_document(one_signer(title)).await;
    let id = created.document_id();
    let rid = created.recipient_id(0);
    let (s, v) = api.upload(created.upload_url(), fixture("a4-1p.pdf")).await;
    assert_eq!(s, 200, "{v}");
    let ids = api
        .add_fields(
            id,
            json!([field(rid, "SIGNATURE", 1, 80), field(rid, "TEXT", 1, 10)]),
        )
        .await;
    let signer = app.signer(created["recipients"][0]["token"].as_str().unwrap());
    (id, signer, ids[0], ids[1])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn send_refuses_fields_off_the_files_pages_naming_them() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let (id, _, sig, text) = one_pager(&app, &api, "Off the page").await;
    // The API no longer lets a field end up here (uploads refuse, fields are checked at
    // creation), but databases from before that check hold such drafts: a re-upload used to
    // keep fields past the new last page. The test writes that state directly.
    let c = app.db_rw();
    c.execute("UPDATE fields SET page_number = 4 WHERE id = ?1", [sig])
        .unwrap();
    c.execute(
        "UPDATE fields SET page_x = 90, page_width = 30 WHERE id = ?1",
        [text],
    )
    .unwrap();

    let (s, v) = api.send(id).await;
    assert_eq!((s, v["code"].as_str()), (400, Some("invalid_state")), "{v}");
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
    assert_eq!(api.document(id).await["status"], "DRAFT");

    // Put back on the page, the document sends.
    c.execute("UPDATE fields SET page_number = 1 WHERE id = ?1", [sig])
        .unwrap();
    c.execute("UPDATE fields SET page_x = 10 WHERE id = ?1", [text])
        .unwrap();
    let (s, v) = api.send(id).await;
    assert_eq!((s, v["status"].as_str()), (200, Some("PENDING")), "{v}");
    app.stop().await;
}

/// A received message with quoted-printable soft line breaks undone, so that text split
/// across lines can be searched.
fn unfolded(raw: &str) -> String {
    raw.replace("=\r\n", "").replace("=\n", "")
}

/// Waits until the mail box holds a message satisfying `which` (unfolded); returns all such.
async fn wait_mail(smtp: &MailBox, which: impl Fn(&str) -> bool) -> Vec<String> {
    wait_for(Duration::from_secs(30), || {
        let m: Vec<String> = smtp
            .messages()
            .iter()
            .map(|m| unfolded(m))
            .filter(|m| which(m))
            .collect();
        if m.is_empty() {
            Err("no such mail arrived".to_string())
        } else {
            Ok(m)
        }
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs Python's aiosmtpd")]
async fn failed_sealing_is_shown_told_once_retried_and_completes_once_fixed() {
    let smtp = MailBox::start();
    let url = smtp.url();
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
    let api = app.user_with_key("owner@example.com", "standard");
    let rx = Receiver::start(&[]).await;
    api.add_webhook(webhook(
        &rx.url(),
        &["DOCUMENT_SEAL_FAILED", "DOCUMENT_COMPLETED"],
    ))
    .await;

    let (id, ann, sig, text) = one_pager(&app, &api, "Stranded").await;
    assert_eq!(api.send(id).await.0, 200);
    let doc = api.document(id).await;
    assert!(doc.get("sealing").is_none(), "no failure yet: {doc}");
    // A PENDING document with a field past its file's last page: what databases from before
    // the upload and send checks may hold (sent before this fix). Sealing cannot place it.
    app.db_rw()
        .execute("UPDATE fields SET page_number = 3 WHERE id = ?1", [sig])
        .unwrap();
    the_signer_fills_and_completes(&ann, sig, text).await;

    the_failure_shows_in_the_api(&api, id).await;
    the_owner_is_told_by_mail_and_webhook(&smtp, &rx, id).await;
    // It is retried: attempts go up while the cause stays.
    let doc = api
        .wait_document(id, "retried", |d| {
            d["sealing"]["attempts"].as_i64().unwrap_or(0) >= 3
        })
        .await;
    assert_eq!(doc["status"], "PENDING");
    assert_eq!(doc["sealing"]["status"], "FAILED");

    // The cause fixed, a later attempt seals and completes the document as usual.
    app.db_rw()
        .execute("UPDATE fields SET page_number = 1 WHERE id = ?1", [sig])
        .unwrap();
    the_document_seals_and_completes(&api, id).await;
    completion_follows_one_notice_of_each_kind(&app, &smtp, &rx).await;
    app.stop().await;
}

/// The signer signs `sig`, fills `text` and completes, which starts sealing.
async fn the_signer_fills_and_completes(ann: &Signer, sig: i64, text: i64) {
    let (s, v) = ann.sign(sig).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = ann.fill(text, json!({"value": "x"})).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = ann.complete(json!({})).await;
    assert_eq!(
        (s, v["documentCompleting"].as_bool()),
        (200, Some(true)),
        "{v}"
    );
}

/// The failure shows in the API, with the reason and the next attempt.
async fn the_failure_shows_in_the_api(api: &Api, id: i64) {
    let doc = api
        .wait_document(id, "FAILED", |d| d["sealing"]["status"] == "FAILED")
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
}

/// The owner is told: a mail and a webhook event carrying document `id` with its sealing.
async fn the_owner_is_told_by_mail_and_webhook(smtp: &MailBox, rx: &Receiver, id: i64) {
    let told = wait_mail(smtp, |m| m.contains("Subject: Sealing failed")).await;
    assert!(told[0].contains("To: owner@example.com"), "{}", told[0]);
    assert!(told[0].contains("page 3"), "{}", told[0]);
    let got = rx.wait_for(1).await;
    let event: Value = serde_json::from_str(&got[0].body).unwrap();
    assert_eq!(event["event"], "DOCUMENT_SEAL_FAILED");
    assert_eq!(event["payload"]["id"], id);
    assert_eq!(event["payload"]["sealing"]["status"], "FAILED");
}

/// Document `id` becomes COMPLETED, SEALED after several attempts, and downloads.
async fn the_document_seals_and_completes(api: &Api, id: i64) {
    let doc = api
        .wait_document(id, "COMPLETED", |d| d["status"] == "COMPLETED")
        .await;
    let sealing = &doc["sealing"];
    assert_eq!(sealing["status"], "SEALED", "{sealing}");
    assert!(sealing["attempts"].as_i64().unwrap() >= 4, "{sealing}");
    assert!(sealing["nextAttemptAt"].is_null(), "{sealing}");
    let (s, v) = api.get(&format!("/api/v1/documents/{id}/download")).await;
    assert_eq!(s, 200, "{v}");
}

/// The completion mail and event follow the failure notices (queued after them), and there
/// was one notice of each kind, not one per retry; no failed attempt left a file behind.
async fn completion_follows_one_notice_of_each_kind(app: &TestApp, smtp: &MailBox, rx: &Receiver) {
    wait_mail(smtp, |m| {
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
    let blobs: i64 = app
        .db()
        .query_row("SELECT count(*) FROM blobs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(blobs, 2);
}
