//! What its scripts expect of mail: placeholders, distribution, completion e-mails, attachments.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn its_placeholders_name_each_recipient_in_requests_and_reminders() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("ada@example.com", "standard");
    let doc = api
        .create_document(json!({
            "title": "NDA <2026>",
            "recipients": [{"name": "Bo <b>", "email": "bo@example.com", "role": "SIGNER"}],
            "meta": {"subject": "{signer.name}: please sign {document.name}",
                     "message": "Dear {signer.name} ({signer.email}),\nsee {document.name}. {not.a.placeholder}"}
        }))
        .await;
    let id = doc.document_id();
    api.upload_ok(doc.upload_url(), fixture("a4-1p.pdf")).await;
    let bo = doc.recipient_id(0);
    api.add_fields(
        id,
        json!([{"recipientId": bo, "type": "SIGNATURE", "pageNumber": 1,
                "pageX": 10, "pageY": 80, "pageWidth": 30, "pageHeight": 5}]),
    )
    .await;
    // The body the other service's example script sends.
    let (s, v) = api.send_with(id, json!({})).await;
    assert_eq!(s, 200, "{v}");
    let sent = queued(&app, id, "SIGNING_REQUEST");
    assert_eq!(sent.len(), 1);
    let (to, subject, text, html) = &sent[0];
    assert_eq!(to, "bo@example.com");
    assert_eq!(subject, "Bo <b>: please sign NDA <2026>");
    assert!(
        text.contains("Dear Bo <b> (bo@example.com),\nsee NDA <2026>. {not.a.placeholder}"),
        "{text}"
    );
    // Filled in before escaping: the HTML part holds the values escaped, never raw.
    assert!(
        html.contains("Dear Bo &lt;b&gt; (bo@example.com),<br>\nsee NDA &lt;2026&gt;."),
        "{html}"
    );
    assert!(
        !html.contains("<b>") && !html.contains("{signer."),
        "{html}"
    );

    let (s, v) = api
        .post(
            &format!("/api/v1/documents/{id}/resend"),
            json!({"recipients": [bo]}),
        )
        .await;
    assert_eq!((s, &v["recipients"]), (200, &json!([bo])), "{v}");
    let sent = queued(&app, id, "SIGNING_REQUEST");
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[1].1, "Reminder: Bo <b>: please sign NDA <2026>");
    assert!(sent[1].2.contains("Dear Bo <b> (bo@example.com)"));
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn distribution_none_mails_no_recipient_and_the_owner_still_gets_the_signed_copy() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("ada@example.com", "standard");
    let meta = json!({"subject": "Please sign", "distributionMethod": "NONE",
                      "emailSettings": {"recipientSigned": false, "ownerRecipientExpired": false}});
    let (id, ann, token, sig) = ready_with_meta(&api, meta).await;
    let shown = api.document(id).await["meta"].clone();
    assert_eq!(shown["distributionMethod"], "NONE");
    let settings = shown["emailSettings"].as_object().unwrap();
    assert_eq!(settings.len(), 9, "every switch is shown: {shown}");
    assert_eq!(settings["recipientSigned"], false);
    assert_eq!(settings["documentCompleted"], true, "left out: on");

    // sendEmail defaults to true, but the owner hands out the links.
    let (s, v) = api.send_with(id, json!({"sendEmail": true})).await;
    assert_eq!(s, 200, "{v}");
    assert!(queued(&app, id, "SIGNING_REQUEST").is_empty());
    assert_eq!(v["recipients"][0]["sendStatus"], "NOT_SENT");
    let (s, v) = api
        .post(
            &format!("/api/v1/documents/{id}/resend"),
            json!({"recipients": [ann]}),
        )
        .await;
    assert_eq!(
        (s, &v["recipients"]),
        (200, &json!([])),
        "nobody reminded: {v}"
    );
    assert!(queued(&app, id, "SIGNING_REQUEST").is_empty());

    ann_finishes(&app, &api, id, &token, sig).await;
    let done = queued(&app, id, "COMPLETED");
    let to: Vec<&str> = done.iter().map(|m| m.0.as_str()).collect();
    assert_eq!(to, ["ada@example.com"], "only the owner's copy");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn send_completion_emails_false_keeps_the_signed_copy_from_everyone() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("ada@example.com", "standard");
    let (id, _, token, sig) = ready_with_meta(&api, json!({})).await;
    let body = json!({"sendEmail": false, "sendCompletionEmails": false});
    let (s, v) = api.send_with(id, body).await;
    assert_eq!(s, 200, "{v}");
    let settings = &v["meta"]["emailSettings"];
    assert_eq!(
        (
            &settings["documentCompleted"],
            &settings["ownerDocumentCompleted"]
        ),
        (&json!(false), &json!(false)),
        "{v}"
    );
    assert!(queued(&app, id, "SIGNING_REQUEST").is_empty());
    ann_finishes(&app, &api, id, &token, sig).await;
    assert!(queued(&app, id, "COMPLETED").is_empty());

    // Without the override everyone gets it: Ann, Cid and the owner.
    let (id, _, token, sig) = ready_with_meta(&api, json!({})).await;
    assert_eq!(api.send(id).await.0, 200);
    ann_finishes(&app, &api, id, &token, sig).await;
    assert_eq!(queued(&app, id, "COMPLETED").len(), 3);

    // sendCompletionEmails: true turns them back on over the document's settings.
    let meta =
        json!({"emailSettings": {"documentCompleted": false, "ownerDocumentCompleted": false}});
    let (id, _, token, sig) = ready_with_meta(&api, meta).await;
    let body = json!({"sendEmail": false, "sendCompletionEmails": true});
    assert_eq!(api.send_with(id, body).await.0, 200);
    ann_finishes(&app, &api, id, &token, sig).await;
    assert_eq!(queued(&app, id, "COMPLETED").len(), 3);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_send_body_that_is_not_an_object_means_the_defaults() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("ada@example.com", "standard");
    for body in [json!([1, 2]), json!("send"), json!(null), json!(7)] {
        let (id, ann, _, _) = ready_with_meta(&api, json!({})).await;
        let (s, v) = api.send_with(id, body.clone()).await;
        assert_eq!(s, 200, "{body}: {v}");
        let sent = queued(&app, id, "SIGNING_REQUEST");
        assert_eq!(sent.len(), 1, "{body}: e-mailed as sendEmail: true");
        assert_eq!(v["recipients"][0]["id"], ann);
    }
    // Inside an object, a switch of the wrong type is refused rather than guessed.
    let (id, _, _, _) = ready_with_meta(&api, json!({})).await;
    for body in [
        json!({"sendEmail": "false"}),
        json!({"sendCompletionEmails": 0}),
    ] {
        let (s, v) = api.send_with(id, body.clone()).await;
        assert_eq!(s, 400, "{body}: {v}");
    }
    assert_eq!(api.document(id).await["status"], "DRAFT");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn email_settings_come_from_the_template_and_document_deleted_is_honoured() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("ada@example.com", "standard");
    let t = api
        .create_template(json!({"title": "Lease", "recipients": [
            {"name": "Tenant", "email": "t@example.com", "role": "SIGNER"}],
            "meta": {"emailSettings": {"documentDeleted": false}}}))
        .await;
    let tid = t.template_id();
    api.upload_ok(t.upload_url(), fixture("a4-1p.pdf")).await;
    let (s, v) = api
        .post(
            &format!("/api/v1/templates/{tid}/generate-document"),
            json!({"recipients": []}),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    let id = v["documentId"].as_i64().unwrap();
    let doc = api.document(id).await;
    assert_eq!(doc["meta"]["emailSettings"]["documentDeleted"], false);
    assert_eq!(doc["meta"]["distributionMethod"], "EMAIL");
    // The request's meta wins over the template's.
    let (s, v) = api
        .post(
            &format!("/api/v1/templates/{tid}/generate-document"),
            json!({"recipients": [], "meta": {"distributionMethod": "NONE"}}),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    let other = api.document(v["documentId"].as_i64().unwrap()).await;
    assert_eq!(other["meta"]["distributionMethod"], "NONE");
    assert_eq!(other["meta"]["emailSettings"]["documentDeleted"], false);

    // Sent by e-mail, then deleted: no cancellation e-mail to the tenant.
    let tenant = doc["recipients"][0]["id"].as_i64().unwrap();
    api.add_fields(
        id,
        json!([{"recipientId": tenant, "type": "SIGNATURE", "pageNumber": 1,
                "pageX": 10, "pageY": 80, "pageWidth": 30, "pageHeight": 5}]),
    )
    .await;
    assert_eq!(api.send_with(id, json!({})).await.0, 200);
    assert_eq!(queued(&app, id, "SIGNING_REQUEST").len(), 1);
    api.wait_document(id, "the request handed to the outbox", |d| {
        d["recipients"][0]["sendStatus"] == "SENT"
    })
    .await;
    let (s, v) = api.delete(&format!("/api/v1/documents/{id}")).await;
    assert_eq!(s, 200, "{v}");
    assert!(queued(&app, id, "CANCELLED").is_empty());
    // Bad settings are a 400 naming the key.
    let (s, v) = api
        .post(
            "/api/v1/documents",
            json!({"title": "x", "recipients": [],
                   "meta": {"emailSettings": {"documentCompleted": "no"}}}),
        )
        .await;
    assert_eq!(s, 400, "{v}");
    assert!(
        v.to_string()
            .contains("meta.emailSettings.documentCompleted"),
        "{v}"
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn link_attachments_are_kept_and_shown_to_signers() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("ada@example.com", "standard");
    let mut body = crate::support::api::two_recipients();
    body["attachments"] = json!([
        {"label": "Terms <v2>", "data": "https://x.example/terms?a=1&b=2", "type": "link"},
        {"label": "Prices", "data": "http://x.example/prices"}
    ]);
    let doc = api.create_document(body).await;
    let id = doc.document_id();
    let shown = api.document(id).await["meta"]["attachments"].clone();
    assert_eq!(
        shown,
        json!([{"label": "Terms <v2>", "data": "https://x.example/terms?a=1&b=2", "type": "link"},
               {"label": "Prices", "data": "http://x.example/prices", "type": "link"}])
    );
    api.upload_ok(doc.upload_url(), fixture("a4-1p.pdf")).await;
    let ann = doc.recipient_id(0);
    api.add_fields(
        id,
        json!([{"recipientId": ann, "type": "SIGNATURE", "pageNumber": 1,
                "pageX": 10, "pageY": 80, "pageWidth": 30, "pageHeight": 5}]),
    )
    .await;
    assert_eq!(api.send(id).await.0, 200);
    let page = app.signer(&doc.token(0)).page().await;
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(
        html.contains(
            r#"<a href="https://x.example/terms?a=1&amp;b=2" target="_blank" rel="noopener noreferrer">Terms &lt;v2&gt;</a>"#
        ),
        "{html}"
    );
    assert!(html.contains(">Prices</a>"), "{html}");

    // Not a link, no label, too many: 400 naming each.
    for (bad, path) in [
        (
            json!([{"label": "x", "data": "javascript:alert(1)"}]),
            "attachments[0].data",
        ),
        (
            json!([{"data": "https://x.example/"}]),
            "attachments[0].label",
        ),
        (
            json!([{"label": "x", "data": "https://x.example/", "type": "file"}]),
            "attachments[0].type",
        ),
        (
            json!(
                (0..11)
                    .map(|i| json!({"label": i.to_string(), "data": "https://x.example/"}))
                    .collect::<Vec<_>>()
            ),
            "attachments",
        ),
    ] {
        let (s, v) = api
            .post(
                "/api/v1/documents",
                json!({"title": "x", "recipients": [], "attachments": bad}),
            )
            .await;
        assert_eq!(s, 400, "{v}");
        assert!(v.to_string().contains(path), "{path}: {v}");
    }
    // None given: no key.
    let plain = api
        .create_document(crate::support::api::two_recipients())
        .await;
    assert!(
        api.document(plain.document_id()).await["meta"]
            .get("attachments")
            .is_none()
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_required_read_only_field_does_not_keep_its_signer_from_finishing() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("ada@example.com", "standard");
    let (id, ann, token, sig) = ready_with_meta(&api, json!({})).await;
    // A fixed reference the signer sees but cannot change, marked required as the peer's
    // templates often mark every field.
    api.add_fields(
        id,
        json!([{"recipientId": ann, "type": "TEXT", "pageNumber": 1, "pageX": 10, "pageY": 20,
                "pageWidth": 30, "pageHeight": 5,
                "fieldMeta": {"type": "text", "text": "REF-42", "readOnly": true, "required": true}}]),
    )
    .await;
    assert_eq!(api.send(id).await.0, 200);
    ann_finishes(&app, &api, id, &token, sig).await;
    app.stop().await;
}
