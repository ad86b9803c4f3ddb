//! Outgoing mail through the real server: a real SMTP server (Python's aiosmtpd, writing a
//! Maildir) receives what the worker sends; retries, restarts and the outbox.

use std::path::Path;
use std::time::Duration;

use docket::core::ids::{DocumentId, RecipientId};
use docket::{core::db::Db, core::db::now};
use docket::{
    outbox::mail::Kind, outbox::mail::NewMail, outbox::mail::compose, outbox::mail::store,
};
use serde_json::Value;

use crate::support::api::{fixture, two_recipients};
use crate::support::mailbox::{MailBox, free_port, smtp_url};
use crate::support::wait::wait_for;
use crate::support::{TestApp, docket_json};

/// `docket mail list --json`.
fn mail_list(data: &Path) -> Vec<Value> {
    docket_json(data, &["mail", "list"], None)
        .as_array()
        .unwrap()
        .clone()
}

/// Waits until message `id` has `status`, and returns its listing.
async fn wait_status(data: &Path, id: i64, status: &str) -> Value {
    wait_for(Duration::from_secs(30), || {
        match mail_list(data).into_iter().find(|m| m["id"] == id) {
            Some(m) if m["status"] == status => Ok(m),
            m => Err(format!("message {id} never became {status}: {m:?}")),
        }
    })
    .await
}

fn queue_test(data: &Path, to: &str) -> i64 {
    let out = docket_json(data, &["mail", "test", to], None);
    assert_eq!(out["status"], "QUEUED");
    out["id"].as_i64().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs Python's aiosmtpd")]
async fn signing_request_with_attachment_goes_out_through_smtp() {
    let smtp = MailBox::start();
    let url = smtp.url();
    let app = TestApp::spawn_with(&[
        "--tls",
        "off",
        "--smtp-url",
        &url,
        "--mail-from",
        "Acme Signing <sign@acme.example>",
    ])
    .await;
    let api = app.user_with_key("owner@example.com", "standard");
    let created = api.create_document(two_recipients()).await;
    let doc = created.document_id();
    let rid = created.recipient_id(0);

    let (db, id) = queue_a_signing_request_with_a_pdf(&app, doc, rid).await;
    let got = smtp.wait_for(1).await;
    assert_the_message_has_both_parts_and_the_pdf(&got[0]);

    let listed = wait_status(&app.data_dir(), id, "SENT").await;
    assert_eq!(listed["attempts"], 1);
    assert!(listed.get("text").is_none(), "list never shows bodies");
    // The recipient is marked SENT and the audit log says EMAILED, in the same transaction.
    let (_, view) = api.get(&format!("/api/v1/documents/{doc}")).await;
    let r = view["recipients"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == rid)
        .unwrap();
    assert_eq!(r["sendStatus"], "SENT");
    let events = db
        .read(move |c| docket::signing::documents::audit::list(c, DocumentId::new(doc)))
        .await
        .unwrap();
    assert!(
        events
            .iter()
            .any(|e| e.kind.as_str() == "EMAILED" && e.recipient_id == Some(RecipientId::new(rid)))
    );
}

/// Queues a signing request for recipient `rid` of document `doc` with a PDF attached, as the
/// sending code does: the database and the message's id.
async fn queue_a_signing_request_with_a_pdf(app: &TestApp, doc: i64, rid: i64) -> (Db, i64) {
    let store = crate::support::blob_store(&app.data_dir());
    let pdf = fixture("a4-1p.pdf");
    let blob = std::thread::scope(|s| s.spawn(|| store.put(&pdf)).join().unwrap()).unwrap();
    let db = crate::support::open_db(&app.data_dir());
    let content = compose::SigningRequest {
        title: "NDA <2026>",
        sender_name: "Owner",
        recipient_name: "Ann",
        action: compose::Action::Sign,
        subject: None,
        message: Some("Please & thanks"),
        link: "https://d.example/sign/secret-token",
        deadline: None,
        lang: docket::core::i18n::Lang::En,
    }
    .compose();
    let id = db
        .write(move |tx| {
            docket::core::blob::rows::insert_pdf(tx, &blob, now())?;
            let mut m = NewMail::new(Kind::SigningRequest, "ann@example.com", content);
            m.document_id = Some(DocumentId::new(doc));
            m.recipient_id = Some(RecipientId::new(rid));
            m.attachment = Some((blob.id.as_str().to_string(), "NDA.pdf".into()));
            store::enqueue(tx, &m, now())
        })
        .await
        .unwrap();
    (db, id)
}

/// The message as received: addressed, from the configured sender, with text, escaped HTML
/// and the PDF attached.
fn assert_the_message_has_both_parts_and_the_pdf(raw: &str) {
    assert!(raw.contains("To: ann@example.com"), "{raw}");
    assert!(
        raw.contains("From: \"Acme Signing\" <sign@acme.example>")
            || raw.contains("From: Acme Signing <sign@acme.example>"),
        "{raw}"
    );
    assert!(raw.contains("multipart/mixed"));
    assert!(raw.contains("multipart/alternative"));
    assert!(raw.contains("Content-Type: text/plain"));
    assert!(raw.contains("Content-Type: text/html"));
    assert!(raw.contains("application/pdf"));
    assert!(raw.contains("NDA.pdf"));
    assert!(raw.contains("NDA &lt;2026&gt;"), "HTML part escaped: {raw}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs Python's aiosmtpd")]
async fn a_message_queued_while_smtp_is_down_is_retried_until_it_arrives() {
    let port = free_port();
    let url = smtp_url(port);
    let app =
        TestApp::spawn_with(&["--tls", "off", "--smtp-url", &url, "--retry-base-ms", "300"]).await;
    let data = app.data_dir();
    let id = queue_test(&data, "bob@example.com");
    // The first attempt fails: nothing listens.
    let m = wait_for(Duration::from_secs(30), || {
        let m = mail_list(&data)
            .into_iter()
            .find(|m| m["id"] == id)
            .unwrap();
        if m["attempts"].as_i64().unwrap() >= 1 {
            Ok(m)
        } else {
            Err("no attempt was made".to_string())
        }
    })
    .await;
    assert_eq!(m["status"], "QUEUED");
    assert!(m["lastError"].as_str().is_some_and(|e| !e.is_empty()));
    let smtp = MailBox::start_on(port);
    let got = smtp.wait_for(1).await;
    assert!(got[0].contains("Subject: Docket test message"));
    assert!(got[0].contains("To: bob@example.com"));
    let m = wait_status(&data, id, "SENT").await;
    assert!(m["attempts"].as_i64().unwrap() >= 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs Python's aiosmtpd")]
async fn a_queued_message_survives_a_restart() {
    let port = free_port();
    let url = smtp_url(port);
    let args = ["--tls", "off", "--smtp-url", &url];
    let app = TestApp::spawn_with(&args).await;
    let id = queue_test(&app.data_dir(), "carol@example.com");
    let dir = app.stop().await;
    // Queued while no server ran; the SMTP server comes up, then Docket again.
    let smtp = MailBox::start_on(port);
    let app = TestApp::spawn_in(dir, &args).await;
    let got = smtp.wait_for(1).await;
    assert!(got[0].contains("To: carol@example.com"));
    wait_status(&app.data_dir(), id, "SENT").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_smtp_messages_go_to_the_outbox() {
    let app = TestApp::spawn().await;
    let data = app.data_dir();
    let id = queue_test(&data, "dave@example.com");
    let listed = wait_status(&data, id, "OUTBOX").await;
    assert_eq!(listed["kind"], "TEST");
    assert_eq!(listed["to"], "dave@example.com");
    let shown = docket_json(&data, &["mail", "show", &id.to_string()], None);
    assert_eq!(shown["status"], "OUTBOX");
    assert!(
        shown["text"]
            .as_str()
            .unwrap()
            .contains("outgoing mail works")
    );
    assert!(shown["html"].as_str().unwrap().contains("<p>"));
    let bad = crate::support::docket(&data, &["mail", "test", "not-an-address"], None);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn a_bad_smtp_url_stops_the_server_before_it_serves() {
    let dir = tempfile::tempdir().unwrap();
    let out = crate::support::docket(
        dir.path(),
        &[
            "serve",
            "--tls",
            "off",
            "--listen",
            "127.0.0.1:0",
            "--smtp-url",
            "http://mail.example.com",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--smtp-url") && err.contains("smtp://"),
        "{err}"
    );
}
