//! Sending and signing through the real server: preconditions, turns, validation, rejection,
//! cancellation, completion with a sealed file, downloads and the audit log.

use reqwest::Method as M;
use serde_json::{Value, json};

use crate::support::TestApp;
use crate::support::api::{Api, PNG_SIGNATURE, Signer, fixture};

/// A one-page document with a SEQUENTIAL signer (order 1), approver (order 2) and CC, the
/// signer's fields of several types, uploaded but not sent. Returns (id, signer, approver, cc,
/// field ids by type).
async fn prepared(app: &TestApp, api: &Api) -> (i64, Signer, Signer, Signer, Value) {
    let created = api.create_document(json!({"title": "Lease", "recipients": [
            {"name": "Ann Signer", "email": "ann@example.com", "role": "SIGNER", "signingOrder": 1},
            {"name": "Bob Approver", "email": "bob@example.com", "role": "APPROVER", "signingOrder": 2},
            {"name": "Cid Copy", "email": "cid@example.com", "role": "CC", "signingOrder": 3}
        ], "meta": {"signingOrder": "SEQUENTIAL", "timezone": "Europe/Paris", "dateFormat": "yyyy-MM-dd"}}))
    .await;
    let id = created.document_id();
    let (s, _) = api.upload(created.upload_url(), fixture("a4-1p.pdf")).await;
    assert_eq!(s, 200);
    let r = &created["recipients"];
    let ann = r[0]["recipientId"].as_i64().unwrap();
    let field = |kind: &str, y: i64, meta: Value| {
        let mut f = json!({"recipientId": ann, "type": kind, "pageNumber": 1, "pageX": 10, "pageY": y, "pageWidth": 30, "pageHeight": 5});
        if !meta.is_null() {
            f["fieldMeta"] = meta;
        }
        f
    };
    let (s, v) = api
        .post(
            &format!("/api/v1/documents/{id}/fields"),
            json!([
                field("SIGNATURE", 80, Value::Null),
                field("DATE", 88, Value::Null),
                field(
                    "NUMBER",
                    10,
                    json!({"type": "number", "minValue": 1, "maxValue": 10, "required": true})
                ),
                field(
                    "SELECT",
                    20,
                    json!({"type": "select", "values": [{"value": "Monthly"}, {"value": "Yearly"}]})
                ),
                field("TEXT", 30, json!({"type": "text", "characterLimit": 5})),
            ]),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    let (_, doc) = api.get(&format!("/api/v1/documents/{id}")).await;
    let mut by_type = json!({});
    for f in doc["fields"].as_array().unwrap() {
        by_type[f["type"].as_str().unwrap()] = f["id"].clone();
    }
    let signer = |i: usize| app.signer(r[i]["token"].as_str().unwrap());
    (id, signer(0), signer(1), signer(2), by_type)
}

async fn fill_ann(ann: &Signer, f: &Value) {
    for (kind, body) in [
        ("SIGNATURE", json!({"signature": PNG_SIGNATURE})),
        ("NUMBER", json!({"value": "7"})),
        ("SELECT", json!({"value": "Yearly"})),
        ("TEXT", json!({"value": "Flat2"})),
    ] {
        let (s, v) = ann.fill(&f[kind], body).await;
        assert_eq!(s, 200, "{kind}: {v}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn send_checks_its_preconditions_once() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let bare = api.create_document(json!({"title": "No file", "recipients": [{"name": "A", "email": "a@example.com", "role": "SIGNER"}]})).await;
    // What the document lacks is a 400, as the other signing service answers.
    let (s, v) = api.send(bare.document_id()).await;
    assert_eq!((s, v["code"].as_str()), (400, Some("invalid_state")), "{v}");
    assert!(v["message"].as_str().unwrap().contains("upload"), "{v}");

    let (id, _, _, _, _) = prepared(&app, &api).await;
    // Remove the signer's signature field: sending must name the signer.
    let (_, doc) = api.get(&format!("/api/v1/documents/{id}")).await;
    let sig = doc["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["type"] == "SIGNATURE")
        .unwrap()["id"]
        .clone();
    let (s, _) = api
        .delete(&format!("/api/v1/documents/{id}/fields/{sig}"))
        .await;
    assert_eq!(s, 200);
    let (s, v) = api.send(id).await;
    assert_eq!(s, 400);
    assert!(
        v["message"].as_str().unwrap().contains("ann@example.com"),
        "{v}"
    );

    let (id, ..) = prepared(&app, &api).await;
    let (s, v) = api.send(id).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["status"], "PENDING");
    // A second send changes nothing, and answers the document as the other service does.
    let (s, v) = api.send(id).await;
    assert_eq!((s, &v["status"]), (200, &json!("PENDING")), "{v}");
    // Another user's document is a 404.
    let other = app.user_with_key("other@example.com", "standard");
    let (s, _) = other.send(id).await;
    assert_eq!(s, 404);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sequential_turns_validation_and_completion() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let (id, ann, bob, cid, f) = prepared(&app, &api).await;
    let (s, _) = ann.state().await;
    assert_eq!(s, 404, "a draft's links do not work yet");
    assert_eq!(api.send(id).await.0, 200);

    only_the_signer_whose_turn_it_is_acts(&ann, &bob, &cid, &f).await;
    the_server_refuses_what_the_page_would_not_allow(&ann, &f).await;
    fill_ann(&ann, &f).await;
    let (s, v) = ann.complete(json!({})).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["documentCompleting"], false);
    // Twice: 409.
    let (s, _) = ann.complete(json!({})).await;
    assert_eq!(s, 409);
    let (s, _) = ann.fill(&f["TEXT"], json!({"value": "new"})).await;
    assert_eq!(s, 409, "a finished signer cannot change a value");
    the_date_was_filled_at_completion(&api, id).await;

    // Now the approver's turn; their approval completes the document.
    let (_, st) = bob.state().await;
    assert_eq!(st["yourTurn"], true);
    let (s, v) = bob.complete(json!({})).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["documentCompleting"], true);
    let doc = api.wait_status(id, "COMPLETED").await;
    assert!(doc["completedAt"].is_string());

    the_sealed_and_the_original_file_download(&app, &api, id).await;
    // Finished links show a page saying so, with 409.
    let page = ann.page().await;
    assert_eq!(page.status(), 409);
    the_audit_log_tells_the_story_in_order(&api, id).await;
    app.stop().await;
}

/// The page opens; each recipient sees only their own fields; out of turn, nothing changes.
async fn only_the_signer_whose_turn_it_is_acts(
    ann: &Signer,
    bob: &Signer,
    cid: &Signer,
    f: &Value,
) {
    let page = ann.page().await;
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("Lease"));
    let (_, st) = ann.state().await;
    assert_eq!(st["yourTurn"], true);
    assert_eq!(st["recipient"]["readStatus"], "OPENED");
    assert_eq!(st["fields"].as_array().unwrap().len(), 5);
    let (_, st) = bob.state().await;
    assert_eq!(st["yourTurn"], false);
    assert_eq!(st["fields"], json!([]));

    // Out of turn: 409, nothing changes.
    let (s, v) = bob.complete(json!({})).await;
    assert_eq!(s, 409, "{v}");
    let (s, _) = cid.complete(json!({})).await;
    assert_eq!(s, 409, "a CC never acts");
    // Someone else's field: 404.
    let (s, _) = bob.fill(&f["TEXT"], json!({"value": "x"})).await;
    assert_eq!(s, 409, "not their turn comes first");
}

/// Values the page would not allow are refused by the server, and so is completing with
/// required fields empty.
async fn the_server_refuses_what_the_page_would_not_allow(ann: &Signer, f: &Value) {
    for (kind, body) in [
        ("NUMBER", json!({"value": "11"})),
        ("NUMBER", json!({"value": "abc"})),
        ("SELECT", json!({"value": "Weekly"})),
        ("TEXT", json!({"value": "toolong"})),
        ("DATE", json!({"value": "2020-01-01"})),
        (
            "SIGNATURE",
            json!({"signature": "data:image/png;base64,AAAA"}),
        ),
    ] {
        let (s, v) = ann.fill(&f[kind], body.clone()).await;
        assert_eq!(s, 400, "{kind} {body}: {v}");
    }
    // Completing with required fields empty is refused.
    let (s, v) = ann.complete(json!({})).await;
    assert_eq!(s, 400, "{v}");
}

/// The date was filled at completion in the document's zone and format; the signer is SIGNED.
async fn the_date_was_filled_at_completion(api: &Api, id: i64) {
    let (_, doc) = api.get(&format!("/api/v1/documents/{id}")).await;
    let date = doc["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["type"] == "DATE")
        .unwrap();
    let value = date["customText"].as_str().unwrap();
    assert_eq!(value.len(), 10, "{value}");
    assert_eq!(&value[4..5], "-");
    assert_eq!(doc["recipients"][0]["signingStatus"], "SIGNED");
    assert!(doc["recipients"][0]["signedAt"].is_string());
}

/// The sealed file downloads and carries a signature; the original is still there; a tampered
/// download URL is refused.
async fn the_sealed_and_the_original_file_download(app: &TestApp, api: &Api, id: i64) {
    let (s, v) = api.get(&format!("/api/v1/documents/{id}/download")).await;
    assert_eq!(s, 200, "{v}");
    let sealed = app
        .client
        .get(v["downloadUrl"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(sealed.status(), 200);
    assert_eq!(sealed.headers()["content-type"], "application/pdf");
    let bytes = sealed.bytes().await.unwrap();
    assert!(bytes.starts_with(b"%PDF-"));
    assert!(
        bytes.windows(10).any(|w| w == b"/ByteRange"),
        "the sealed file is signed"
    );
    let (s, v) = api
        .get(&format!("/api/v1/documents/{id}/download?original=true"))
        .await;
    assert_eq!(s, 200);
    let original = app
        .client
        .get(v["downloadUrl"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(
        original.bytes().await.unwrap().as_ref(),
        fixture("a4-1p.pdf").as_slice()
    );
    // A tampered download URL is refused.
    let tampered = v["downloadUrl"].as_str().unwrap().replace("sig=", "sig=0");
    assert_eq!(app.client.get(tampered).send().await.unwrap().status(), 403);
}

/// The audit log tells the story in order.
async fn the_audit_log_tells_the_story_in_order(api: &Api, id: i64) {
    let events = api.audit(id).await;
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    let expect = [
        "SENT",
        "OPENED",
        "FIELD_FILLED",
        "SIGNED",
        "APPROVED",
        "COMPLETED",
        "DOWNLOADED",
    ];
    let mut at = 0;
    for e in expect {
        at += kinds[at..]
            .iter()
            .position(|k| *k == e)
            .unwrap_or_else(|| panic!("{e} missing after {at} in {kinds:?}"));
    }
    let opened = events.iter().find(|e| e["type"] == "OPENED").unwrap();
    assert_eq!(opened["actor"], "ann@example.com");
    assert_eq!(opened["ipAddress"], "127.0.0.1");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rejection_and_cancellation_stop_everything() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let (id, ann, bob, _, f) = prepared(&app, &api).await;
    assert_eq!(api.send(id).await.0, 200);
    let (s, _) = ann.reject("  ").await;
    assert_eq!(s, 400, "a reason is required");
    let (s, v) = ann.reject("Wrong rent").await;
    assert_eq!(s, 200, "{v}");
    let (_, doc) = api.get(&format!("/api/v1/documents/{id}")).await;
    assert_eq!(doc["status"], "REJECTED");
    assert_eq!(doc["recipients"][0]["signingStatus"], "REJECTED");
    for (who, path, body) in [
        (&ann, "reject", json!({"reason": "again"})),
        (&ann, "complete", json!({})),
        (&bob, "complete", json!({})),
    ] {
        let (s, _) = who.call(M::POST, &format!("/{path}"), Some(body)).await;
        assert_eq!(s, 409);
    }
    let (s, _) = ann.fill(&f["TEXT"], json!({"value": "x"})).await;
    assert_eq!(s, 409);
    let (s, _) = api.get(&format!("/api/v1/documents/{id}/download")).await;
    assert_eq!(s, 400, "no sealed file for a rejected document");

    // Cancellation: the page answers 410, actions 409, and nothing changes.
    let (id, ann, _, _, f) = prepared(&app, &api).await;
    assert_eq!(api.send(id).await.0, 200);
    let (s, v) = api.delete(&format!("/api/v1/documents/{id}")).await;
    assert_eq!((s, v["status"].as_str()), (200, Some("CANCELLED")));
    let page = ann.page().await;
    assert_eq!(page.status(), 410);
    assert!(
        page.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let (s, v) = ann.fill(&f["TEXT"], json!({"value": "x"})).await;
    assert_eq!((s, v["code"].as_str()), (409, Some("conflict")));
    let (s, _) = ann.complete(json!({})).await;
    assert_eq!(s, 409);
    let (_, doc) = api.get(&format!("/api/v1/documents/{id}")).await;
    assert_eq!(doc["status"], "CANCELLED");
    assert_eq!(
        doc["recipients"][0]["signingStatus"], "NOT_SIGNED",
        "nothing changed"
    );
    assert!(
        doc["fields"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["inserted"] == false)
    );

    // Unknown links: 404 page.
    let page = app.signer("no-such-token").page().await;
    assert_eq!(page.status(), 404);
    assert!(
        page.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn form_values_fill_the_pdfs_form_at_send() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let make = |values: Value| json!({"title": "Form", "recipients": [{"name": "Ann", "email": "ann@example.com", "role": "SIGNER"}], "formValues": values});
    let prepare = |values: Value| {
        let api = &api;
        async move {
            let created = api.create_document(make(values)).await;
            let id = created.document_id();
            let (put, _) = api
                .upload(created.upload_url(), fixture("form-3-fields.pdf"))
                .await;
            assert_eq!(put, 200);
            let rid = created["recipients"][0]["recipientId"].clone();
            let sig = json!({"recipientId": rid, "type": "SIGNATURE", "pageNumber": 1, "pageX": 10, "pageY": 80, "pageWidth": 30, "pageHeight": 8});
            let path = format!("/api/v1/documents/{id}/fields");
            assert_eq!(api.post(&path, sig).await.0, 200);
            id
        }
    };
    // Unknown names, when the caller asks for strictness: 400 listing them, and the document
    // stays a DRAFT with its file.
    let id = prepare(json!({"applicant.name": "Zoë", "nickname": "Z", "pet": "cat"})).await;
    let strict = format!("/api/v1/documents/{id}/send?strictFormValues=true");
    let (s, v) = api.post(&strict, json!({"sendEmail": false})).await;
    assert_eq!(s, 400, "{v}");
    let msg = v["message"].as_str().unwrap();
    assert!(
        msg.contains("nickname") && msg.contains("pet") && !msg.contains("Zoë"),
        "{msg}"
    );
    let (_, doc) = api.get(&format!("/api/v1/documents/{id}")).await;
    assert_eq!(doc["status"], "DRAFT");
    let lenient = format!("/api/v1/documents/{id}/send?strictFormValues=maybe");
    let (s, v) = api.post(&lenient, json!({"sendEmail": false})).await;
    assert_eq!(
        (s, v["code"].as_str()),
        (400, Some("invalid_request")),
        "{v}"
    );

    // By default, as the signing service: sent, the names that match filled, the others
    // left out and named in the audit log's SENT event.
    let (s, v) = api.send(id).await;
    assert_eq!(s, 200, "{v}");
    let sent = api
        .audit(id)
        .await
        .into_iter()
        .find(|e| e["type"] == "SENT");
    let sent = sent.expect("SENT is recorded");
    assert_eq!(
        sent["data"]["formValues"]["filled"],
        json!(["applicant.name"])
    );
    assert_eq!(
        sent["data"]["formValues"]["unmatched"],
        json!(["nickname", "pet"])
    );
    let filled = lopdf::Document::load_mem(&api.original(id).await).unwrap();
    assert!(
        filled
            .objects
            .values()
            .filter_map(|o| o.as_dict().ok())
            .any(|d| {
                d.get(b"T").ok().and_then(|x| x.as_str().ok()) == Some(b"name")
                    && d.get(b"V").is_ok()
            }),
        "the matching name is filled"
    );

    // Known names: sent, and the file now carries the values.
    let id = prepare(json!({"applicant.name": "Zoë", "city": "Paris", "agree": true})).await;
    let (s, v) = api.send(id).await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = api
        .get(&format!("/api/v1/documents/{id}/download?original=true"))
        .await;
    let file = app
        .client
        .get(v["downloadUrl"].as_str().unwrap())
        .send()
        .await
        .unwrap();
    let bytes = file.bytes().await.unwrap();
    let pdf = lopdf::Document::load_mem(&bytes).unwrap();
    let value_of = |t: &[u8]| {
        pdf.objects
            .values()
            .filter_map(|o| o.as_dict().ok())
            .find(|d| d.get(b"T").ok().and_then(|x| x.as_str().ok()) == Some(t))
            .and_then(|d| d.get(b"V").ok().cloned())
    };
    assert_eq!(value_of(b"city").unwrap().as_str().unwrap(), b"Paris");
    assert_eq!(value_of(b"agree").unwrap().as_name().unwrap(), b"Yes");
    let name = value_of(b"name").unwrap();
    let utf16: Vec<u16> = name.as_str().unwrap()[2..]
        .chunks(2)
        .map(|c| u16::from_be_bytes([c[0], c[1]]))
        .collect();
    assert_eq!(String::from_utf16(&utf16).unwrap(), "Zoë");
    app.stop().await;
}

/// The signing service sends a PDF without form fields as it is, whatever `formValues` say;
/// so does docket, unless the caller asks for strictness.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn form_values_for_a_pdf_without_a_form_leave_it_unchanged() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let plain = fixture("a4-1p.pdf");
    let mut ids = Vec::new();
    for _ in 0..2 {
        let created = api
            .create_document(json!({"title": "Plain", "recipients": [{"name": "Ann", "email": "ann@example.com", "role": "SIGNER"}], "formValues": {"nickname": "Z", "agree": true}}))
            .await;
        let id = created.document_id();
        api.upload_ok(created.upload_url(), plain.clone()).await;
        let rid = created.recipient_id(0);
        api.add_fields(id, json!({"recipientId": rid, "type": "SIGNATURE", "pageNumber": 1, "pageX": 10, "pageY": 80, "pageWidth": 30, "pageHeight": 8}))
            .await;
        ids.push(id);
    }
    let strict = format!("/api/v1/documents/{}/send?strictFormValues=true", ids[0]);
    let (s, v) = api.post(&strict, json!({"sendEmail": false})).await;
    assert_eq!(s, 400, "{v}");
    assert!(v["message"].as_str().unwrap().contains("nickname"), "{v}");

    for (id, query) in [(ids[0], "?strictFormValues=false"), (ids[1], "")] {
        let path = format!("/api/v1/documents/{id}/send{query}");
        let (s, v) = api.post(&path, json!({"sendEmail": false})).await;
        assert_eq!((s, v["status"].as_str()), (200, Some("PENDING")), "{v}");
        assert_eq!(api.original(id).await, plain, "the PDF is sent unchanged");
        let sent = api
            .audit(id)
            .await
            .into_iter()
            .find(|e| e["type"] == "SENT");
        let sent = sent.expect("SENT is recorded");
        assert_eq!(sent["data"]["formValues"]["filled"], json!([]));
        assert_eq!(
            sent["data"]["formValues"]["unmatched"],
            json!(["agree", "nickname"])
        );
    }
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parallel_lets_everyone_act_at_once_and_a_viewer_marks_it_viewed() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let created = api
        .create_document(json!({"title": "Minutes", "recipients": [
            {"name": "Ann", "email": "ann@example.com", "role": "SIGNER"},
            {"name": "Vic", "email": "vic@example.com", "role": "VIEWER"},
            {"name": "Cid", "email": "cid@example.com", "role": "CC"}
        ]}))
        .await;
    let id = created.document_id();
    let (put, _) = api
        .upload(created.upload_url(), fixture("mixed-sizes-3p.pdf"))
        .await;
    assert_eq!(put, 200);
    let r = &created["recipients"];
    let sig = json!({"recipientId": r[0]["recipientId"], "type": "SIGNATURE", "pageNumber": 3, "pageX": 10, "pageY": 80, "pageWidth": 30, "pageHeight": 8});
    let path = format!("/api/v1/documents/{id}/fields");
    assert_eq!(api.post(&path, sig).await.0, 200);
    assert_eq!(api.send(id).await.0, 200);
    let signer = |i: usize| app.signer(r[i]["token"].as_str().unwrap());
    let (ann, vic, cid) = (signer(0), signer(1), signer(2));
    // Both the signer and the viewer may act now; the CC never.
    for t in [&ann, &vic] {
        let (_, st) = t.state().await;
        assert_eq!(st["yourTurn"], true, "{st}");
    }
    let (_, st) = cid.state().await;
    assert_eq!(st["yourTurn"], false);
    // The viewer finishes first; the document waits for the signer.
    let (s, v) = vic.complete(json!({})).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["documentCompleting"], false);
    let (_, doc) = api.get(&format!("/api/v1/documents/{id}")).await;
    assert_eq!(doc["status"], "PENDING");
    assert_eq!(doc["recipients"][1]["signingStatus"], "SIGNED");
    let (s, _) = ann
        .fill(&doc["fields"][0]["id"], json!({"typed": "Ann"}))
        .await;
    assert_eq!(s, 200);
    let (s, v) = ann.complete(json!({})).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["documentCompleting"], true);
    api.wait_status(id, "COMPLETED").await;
    let (_, log) = api.get(&format!("/api/v1/documents/{id}/audit-log")).await;
    let kinds: Vec<&str> = log["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    for k in [
        "CREATED",
        "UPLOADED",
        "SENT",
        "VIEWED",
        "SIGNED",
        "COMPLETED",
    ] {
        assert!(kinds.contains(&k), "{k} in {kinds:?}");
    }
    app.stop().await;
}
