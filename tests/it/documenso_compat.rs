//! Requests written for the other signing service's public API v1, sent unchanged but for the
//! base URL and the key: what they ask must work here with the same success status.

use serde_json::json;

use crate::support::TestApp;
use crate::support::api::fixture;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn its_date_formats_and_its_name_for_the_original_download_work() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("ada@example.com", "standard");
    // A format docket did not know before, as such a script sends it.
    let doc = api
        .create_document(json!({
            "title": "NDA", "recipients": [],
            "meta": {"dateFormat": "EEEE, MMMM dd, yyyy HH:mm", "timezone": "Europe/Paris"}
        }))
        .await;
    let id = doc.document_id();
    assert_eq!(
        api.document(id).await["meta"]["dateFormat"],
        "EEEE, MMMM dd, yyyy HH:mm"
    );
    let pdf = fixture("a4-1p.pdf");
    api.upload_ok(doc.upload_url(), pdf.clone()).await;
    for flag in ["true", "1"] {
        let (s, v) = api
            .get(&format!(
                "/api/v1/documents/{id}/download?downloadOriginalDocument={flag}"
            ))
            .await;
        assert_eq!(s, 200, "{flag}: {v}");
        let file = api
            .client()
            .get(v["downloadUrl"].as_str().unwrap())
            .send()
            .await
            .unwrap();
        assert_eq!(file.bytes().await.unwrap().to_vec(), pdf);
    }
    // Not asking for the original: the signed copy, which a draft does not have yet.
    let (s, _) = api
        .get(&format!(
            "/api/v1/documents/{id}/download?downloadOriginalDocument=false"
        ))
        .await;
    assert_ne!(s, 200);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_v1_script_tests_its_key_reads_fields_by_its_names_sends_and_reminds() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("ada@example.com", "standard");
    let (s, me) = api.get("/api/v1/me").await;
    assert_eq!(s, 200, "{me}");
    assert_eq!(me["email"], "ada@example.com");
    assert!(me["name"].is_string() && me["id"].is_i64(), "{me}");
    let (s, _) = app.api("api_not-a-key").get("/api/v1/me").await;
    assert_eq!(s, 401);

    let doc = api
        .create_document(crate::support::api::two_recipients())
        .await;
    let id = doc.document_id();
    api.upload_ok(doc.upload_url(), fixture("a4-1p.pdf")).await;
    let signer = doc.recipient_id(0);
    api.add_fields(
        id,
        json!([{"recipientId": signer, "type": "SIGNATURE", "pageNumber": 1,
                "pageX": 10.5, "pageY": 80, "pageWidth": 30, "pageHeight": 5}]),
    )
    .await;
    let field = &api.document(id).await["fields"][0];
    assert_eq!(
        (&field["page"], &field["positionX"], &field["positionY"]),
        (&json!(1), &json!("10.5"), &json!("80"))
    );
    assert_eq!(
        (&field["width"], &field["height"]),
        (&json!("30"), &json!("5"))
    );

    let (s, sent) = api.send(id).await;
    assert_eq!(s, 200, "{sent}");
    assert_eq!(sent["message"], "Document sent for signing successfully");
    assert_eq!(sent["status"], "PENDING");
    let (s, resent) = api
        .post(
            &format!("/api/v1/documents/{id}/resend"),
            json!({"recipients": [signer]}),
        )
        .await;
    assert_eq!(s, 200, "{resent}");
    assert_eq!(resent["message"], "Document resend successfully initiated");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_template_starts_without_recipients_and_the_answer_carries_it() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("ada@example.com", "standard");
    let (s, created) = api
        .post("/api/v1/templates", json!({"title": "Lease"}))
        .await;
    assert_eq!(s, 200, "{created}");
    let id = created["templateId"].as_i64().unwrap();
    assert_eq!(created["template"]["id"], id);
    assert_eq!(created["template"]["title"], "Lease");
    assert_eq!(created["recipients"], json!([]));
    let (s, r) = api
        .post(
            &format!("/api/v1/templates/{id}/recipients"),
            json!({"name": "Tenant", "email": "tenant@example.com", "role": "SIGNER"}),
        )
        .await;
    assert_eq!(s, 200, "{r}");
    let (_, t) = api.get(&format!("/api/v1/templates/{id}")).await;
    assert_eq!(t["Recipient"][0]["email"], "tenant@example.com");
    app.stop().await;
}

/// A sent document for a SIGNER (Ann) and a CC, Ann with one signature field: (id, Ann's
/// recipient id, her token, her signature field).
async fn sent_for_ann(api: &crate::support::api::Api) -> (i64, i64, String, i64) {
    let doc = api
        .create_document(crate::support::api::two_recipients())
        .await;
    let id = doc.document_id();
    api.upload_ok(doc.upload_url(), fixture("a4-1p.pdf")).await;
    let ann = doc.recipient_id(0);
    let sig = api
        .add_fields(
            id,
            json!([{"recipientId": ann, "type": "SIGNATURE", "pageNumber": 1,
                    "pageX": 10, "pageY": 80, "pageWidth": 30, "pageHeight": 5}]),
        )
        .await[0];
    let (s, v) = api.send(id).await;
    assert_eq!(s, 200, "{v}");
    (id, ann, doc.token(0), sig)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fields_change_while_pending_for_recipients_who_have_not_finished() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("ada@example.com", "standard");
    let (id, ann, token, sig) = sent_for_ann(&api).await;
    let path = format!("/api/v1/documents/{id}/fields");
    let text = json!({"recipientId": ann, "type": "TEXT", "pageNumber": 1, "pageX": 10,
                      "pageY": 50, "pageWidth": 30, "pageHeight": 5,
                      "fieldMeta": {"type": "text", "required": true}});
    let (s, v) = api.post(&path, text).await;
    assert_eq!(s, 200, "{v}");
    let added = v["fields"][0]["id"].as_i64().unwrap();
    let (s, v) = api
        .patch(&format!("{path}/{added}"), json!({"pageY": 60}))
        .await;
    assert_eq!((s, &v["pageY"]), (200, &json!(60.0)), "{v}");
    // The signer's only signature field stays.
    let (s, _) = api.delete(&format!("{path}/{sig}")).await;
    assert_eq!(s, 409);
    let (s, _) = api
        .patch(
            &format!("{path}/{sig}"),
            json!({"type": "TEXT", "fieldMeta": {"type": "text"}}),
        )
        .await;
    assert_eq!(s, 409);
    // Ann sees the new field, must fill it, and signs.
    let ann_link = app.signer(&token);
    assert_eq!(ann_link.sign(sig).await.0, 200);
    let (s, _) = ann_link.complete(json!({})).await;
    assert_eq!(s, 400, "the added required field is still empty");
    let (s, _) = ann_link.fill(added, json!({"value": "ACME"})).await;
    assert_eq!(s, 200);
    // A filled field no longer changes.
    let (s, _) = api.delete(&format!("{path}/{added}")).await;
    assert_eq!(s, 409);
    assert_eq!(ann_link.complete(json!({})).await.0, 200);
    // Once she has finished, her fields are closed.
    let late = json!({"recipientId": ann, "type": "TEXT", "pageNumber": 1, "pageX": 10,
                      "pageY": 20, "pageWidth": 30, "pageHeight": 5,
                      "fieldMeta": {"type": "text"}});
    let (s, v) = api.post(&path, late).await;
    assert_eq!(s, 400, "{v}");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_document_names_template_recipients_by_position() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("ada@example.com", "standard");
    let t = api
        .create_template(json!({"title": "Lease", "recipients": [
            {"name": "Tenant", "email": "t@example.com", "role": "SIGNER"},
            {"name": "Agent", "email": "a@example.com", "role": "SIGNER"}]}))
        .await;
    let id = t.template_id();
    api.upload_ok(t.upload_url(), fixture("a4-1p.pdf")).await;
    let path = format!("/api/v1/templates/{id}/create-document");
    let body = json!({"title": "Lease for Bo", "recipients": [
        {"name": "Bo", "email": "bo@example.com", "role": "APPROVER"}]});
    let (s, v) = api.post(&path, body).await;
    assert_eq!(s, 200, "{v}");
    let doc = api.document(v["documentId"].as_i64().unwrap()).await;
    assert_eq!(doc["title"], "Lease for Bo");
    let r = &doc["recipients"];
    assert_eq!(
        (&r[0]["email"], &r[0]["role"]),
        (&json!("bo@example.com"), &json!("APPROVER"))
    );
    assert_eq!(
        r[1]["email"], "a@example.com",
        "the rest keep the template's"
    );
    // More recipients than the template has, or no title: 400.
    let three = json!({"title": "x", "recipients": [{"email": "1@example.com"},
        {"email": "2@example.com"}, {"email": "3@example.com"}]});
    assert_eq!(api.post(&path, three).await.0, 400);
    let untitled = json!({"recipients": [{"email": "1@example.com"}]});
    assert_eq!(api.post(&path, untitled).await.0, 400);
    app.stop().await;
}

/// Signing requests queued for recipient `id`.
fn invitations(app: &TestApp, id: i64) -> i64 {
    app.db()
        .query_row(
            "SELECT count(*) FROM mail_queue WHERE recipient_id = ?1 AND kind = 'SIGNING_REQUEST'",
            [id],
            |r| r.get(0),
        )
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn what_it_answers_400_is_400_and_a_second_send_is_a_success() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("ada@example.com", "standard");
    // A draft without its file: sending, and downloading either copy, are 400.
    let bare = api
        .create_document(crate::support::api::two_recipients())
        .await;
    let bare_id = bare.document_id();
    assert_eq!(api.send(bare_id).await.0, 400);
    for q in ["", "?downloadOriginalDocument=true"] {
        let (s, v) = api
            .get(&format!("/api/v1/documents/{bare_id}/download{q}"))
            .await;
        assert_eq!((s, v["code"].as_str()), (400, Some("invalid_state")), "{v}");
    }
    // The same address twice on a document.
    let recipients = format!("/api/v1/documents/{bare_id}/recipients");
    let (s, v) = api
        .post(
            &recipients,
            json!({"name": "A", "email": "ann@example.com"}),
        )
        .await;
    assert_eq!(s, 400, "{v}");

    let (id, ann, token, sig) = sent_for_ann(&api).await;
    // Sent without e-mail: sending again changes nothing but e-mails those whose turn it is
    // and who were never asked; a third time e-mails nobody.
    assert_eq!(invitations(&app, ann), 0);
    for _ in 0..2 {
        let (s, v) = api.send_with(id, json!({})).await;
        assert_eq!(s, 200, "{v}");
        assert_eq!(v["status"], "PENDING");
        assert_eq!(v["message"], "Document sent for signing successfully");
        assert_eq!(invitations(&app, ann), 1);
    }
    // Not finished yet: no signed copy.
    let (s, _) = api.get(&format!("/api/v1/documents/{id}/download")).await;
    assert_eq!(s, 400);
    // An empty reminder list reminds nobody.
    let (s, v) = api
        .post(
            &format!("/api/v1/documents/{id}/resend"),
            json!({"recipients": []}),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["message"], "Document resend successfully initiated");
    assert_eq!(v["recipients"], json!([]));
    assert_eq!(invitations(&app, ann), 1);

    // Ann signs: she can no longer be changed or removed.
    let link = app.signer(&token);
    assert_eq!(link.sign(sig).await.0, 200);
    assert_eq!(link.complete(json!({})).await.0, 200);
    let ann_path = format!("/api/v1/documents/{id}/recipients/{ann}");
    assert_eq!(api.patch(&ann_path, json!({"name": "Ann B."})).await.0, 400);
    assert_eq!(api.delete(&ann_path).await.0, 400);
    let done = api.wait_status(id, "COMPLETED").await;
    assert_eq!(done["status"], "COMPLETED");
    // A finished document: sending, resending, recipients and fields are 400.
    let (s, v) = api.send(id).await;
    assert_eq!((s, v["code"].as_str()), (400, Some("invalid_state")), "{v}");
    let path = format!("/api/v1/documents/{id}/resend");
    assert_eq!(api.post(&path, json!({"recipients": [ann]})).await.0, 400);
    let recipients = format!("/api/v1/documents/{id}/recipients");
    let (s, v) = api
        .post(&recipients, json!({"name": "Z", "email": "z@example.com"}))
        .await;
    assert_eq!(s, 400, "{v}");
    let field = json!({"recipientId": ann, "type": "TEXT", "pageNumber": 1, "pageX": 10,
                       "pageY": 20, "pageWidth": 30, "pageHeight": 5,
                       "fieldMeta": {"type": "text"}});
    let (s, v) = api
        .post(&format!("/api/v1/documents/{id}/fields"), field)
        .await;
    assert_eq!(s, 400, "{v}");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deleting_answers_what_was_deleted_and_empty_values_are_empty_strings() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("ada@example.com", "standard");
    let doc = api
        .create_document(crate::support::api::two_recipients())
        .await;
    let id = doc.document_id();
    api.upload_ok(doc.upload_url(), fixture("a4-1p.pdf")).await;
    let ann = doc.recipient_id(0);
    let field = api
        .add_fields(
            id,
            json!([{"recipientId": ann, "type": "TEXT", "pageNumber": 1, "pageX": 10,
                    "pageY": 80, "pageWidth": 30, "pageHeight": 5,
                    "fieldMeta": {"type": "text"}}]),
        )
        .await[0];
    // Nothing typed yet: "" as the other service shows it, not null.
    assert_eq!(api.document(id).await["fields"][0]["customText"], "");

    let (s, v) = api
        .delete(&format!("/api/v1/documents/{id}/fields/{field}"))
        .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(
        (&v["id"], &v["documentId"], &v["recipientId"], &v["type"]),
        (&json!(field), &json!(id), &json!(ann), &json!("TEXT"))
    );
    assert_eq!(
        (&v["customText"], &v["deleted"]),
        (&json!(""), &json!(true))
    );

    let path = format!("/api/v1/documents/{id}/recipients");
    let (_, added) = api
        .post(
            &path,
            json!({"name": "Dee", "email": "dee@example.com", "role": "VIEWER"}),
        )
        .await;
    let dee = added["id"].as_i64().unwrap();
    let (s, v) = api.delete(&format!("{path}/{dee}")).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(
        (&v["id"], &v["documentId"], &v["email"], &v["role"]),
        (
            &json!(dee),
            &json!(id),
            &json!("dee@example.com"),
            &json!("VIEWER")
        )
    );
    assert_eq!(
        (&v["signingUrl"], &v["deleted"]),
        (&json!(""), &json!(true))
    );

    let (s, v) = api.delete(&format!("/api/v1/documents/{id}")).await;
    assert_eq!(s, 200, "{v}");
    for key in ["userId", "teamId", "createdAt", "updatedAt", "completedAt"] {
        assert!(v.get(key).is_some(), "{key}: {v}");
    }
    assert_eq!(
        (&v["id"], &v["externalId"], &v["title"], &v["status"]),
        (&json!(id), &json!("ext-1"), &json!("NDA"), &json!("DRAFT"))
    );
    assert_eq!(
        (&v["deleted"], &v["outcome"]),
        (&json!(true), &json!("DELETED"))
    );

    let t = api
        .create_template(json!({"title": "Lease", "externalId": "t-1"}))
        .await;
    let (s, v) = api
        .delete(&format!("/api/v1/templates/{}", t.template_id()))
        .await;
    assert_eq!(s, 200, "{v}");
    for key in ["userId", "teamId", "createdAt", "updatedAt"] {
        assert!(v.get(key).is_some(), "{key}: {v}");
    }
    assert_eq!(
        (&v["id"], &v["externalId"], &v["title"], &v["type"]),
        (
            &json!(t.template_id()),
            &json!("t-1"),
            &json!("Lease"),
            &json!("PRIVATE")
        )
    );
    assert_eq!(v["deleted"], true);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auth_options_come_as_lists_and_templates_take_them_at_the_top_level() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("ada@example.com", "enterprise");
    // A template as the newer schema creates it: the lists at the top level.
    let (s, created) = api
        .post(
            "/api/v1/templates",
            json!({"title": "Lease", "globalAccessAuth": ["ACCOUNT"],
                   "globalActionAuth": ["PASSWORD"]}),
        )
        .await;
    assert_eq!(s, 200, "{created}");
    let tid = created["templateId"].as_i64().unwrap();
    let (s, r) = api
        .post(
            &format!("/api/v1/templates/{tid}/recipients"),
            json!({"name": "T", "email": "t@example.com",
                   "authOptions": {"actionAuth": ["PASSKEY", "PASSWORD"]}}),
        )
        .await;
    assert_eq!(s, 200, "{r}");
    let (_, t) = api.get(&format!("/api/v1/templates/{tid}")).await;
    let text = t["Recipient"][0]["authOptions"].as_str().unwrap();
    let shown: serde_json::Value = serde_json::from_str(text).unwrap();
    assert_eq!(
        shown,
        json!({"accessAuth": [], "actionAuth": ["PASSKEY", "PASSWORD"]})
    );
    // A bad value in a list is a 400 naming it.
    let (s, v) = api
        .post(
            "/api/v1/templates",
            json!({"title": "x", "globalActionAuth": ["SMS"]}),
        )
        .await;
    assert_eq!(s, 400, "{v}");
    assert!(
        v["message"].as_str().unwrap().contains("globalActionAuth"),
        "{v}"
    );

    // A document with lists: its link asks for the account before it shows anything.
    let doc = api
        .create_document(json!({
            "title": "NDA",
            "authOptions": {"globalAccessAuth": ["ACCOUNT"], "globalActionAuth": []},
            "recipients": [{"name": "Ann", "email": "ann@example.com",
                            "authOptions": {"actionAuth": ["PASSWORD"]}}]
        }))
        .await;
    let id = doc.document_id();
    api.upload_ok(doc.upload_url(), fixture("a4-1p.pdf")).await;
    api.add_fields(
        id,
        json!([{"recipientId": doc.recipient_id(0), "type": "SIGNATURE", "pageNumber": 1,
                "pageX": 10, "pageY": 80, "pageWidth": 30, "pageHeight": 5}]),
    )
    .await;
    assert_eq!(api.send(id).await.0, 200);
    let (s, v) = app.signer(&doc.token(0)).state().await;
    assert_eq!((s, &v["code"]), (401, &json!("account_required")), "{v}");
    // A recipient's list on update.
    let (s, v) = api
        .patch(
            &format!("/api/v1/documents/{id}/recipients/{}", doc.recipient_id(0)),
            json!({"authOptions": {"actionAuth": ["TWO_FACTOR_AUTH", "PASSKEY"]}}),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    // A change that leaves them out keeps them.
    let (s, v) = api
        .patch(
            &format!("/api/v1/documents/{id}/recipients/{}", doc.recipient_id(0)),
            json!({"name": "Ann B."}),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    let stored: String = app
        .db()
        .query_row(
            "SELECT auth_options FROM recipients WHERE id = ?1",
            [doc.recipient_id(0)],
            |r| r.get(0),
        )
        .unwrap();
    let stored: serde_json::Value = serde_json::from_str(&stored).unwrap();
    assert_eq!(stored["actionAuth"], json!(["TWO_FACTOR_AUTH", "PASSKEY"]));
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_assistant_fills_in_for_the_next_signer_before_her_turn() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("ada@example.com", "standard");
    let doc = api
        .create_document(json!({
            "title": "Lease",
            "meta": {"signingOrder": "SEQUENTIAL"},
            "recipients": [
                {"name": "Asa", "email": "asa@example.com", "role": "ASSISTANT", "signingOrder": 1},
                {"name": "Ann", "email": "ann@example.com", "role": "SIGNER", "signingOrder": 2}
            ]
        }))
        .await;
    let id = doc.document_id();
    assert_eq!(api.document(id).await["recipients"][0]["role"], "ASSISTANT");
    api.upload_ok(doc.upload_url(), fixture("a4-1p.pdf")).await;
    let ann = doc.recipient_id(1);
    let box_at = |kind: &str, y: i64, meta: serde_json::Value| {
        json!({"recipientId": ann, "type": kind, "pageNumber": 1, "pageX": 10, "pageY": y,
               "pageWidth": 30, "pageHeight": 5, "fieldMeta": meta})
    };
    let ids = api
        .add_fields(
            id,
            json!([
                box_at("SIGNATURE", 80, json!(null)),
                box_at("TEXT", 60, json!({"type": "text", "required": true}))
            ]),
        )
        .await;
    let (sig, text) = (ids[0], ids[1]);
    assert_eq!(api.send(id).await.0, 200);

    // Asa's turn: she sees Ann's text field, named as Ann's, and not Ann's signature.
    let asa = app.signer(&doc.token(0));
    let (s, v) = asa.state().await;
    assert_eq!((s, &v["yourTurn"]), (200, &json!(true)), "{v}");
    let fields = v["fields"].as_array().unwrap();
    assert_eq!(fields.len(), 1, "{v}");
    assert_eq!(
        (&fields[0]["id"], &fields[0]["forRecipient"]["email"]),
        (&json!(text), &json!("ann@example.com"))
    );
    assert_eq!(asa.sign(sig).await.0, 404, "never a signature");
    let ann_link = app.signer(&doc.token(1));
    let (s, _) = ann_link.fill(text, json!({"value": "mine"})).await;
    assert_eq!(s, 409, "not Ann's turn yet");
    let (s, v) = asa.fill(text, json!({"value": "Flat 2"})).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = asa.complete(json!({})).await;
    assert_eq!(s, 200, "{v}");
    assert!(
        api.audit(id).await.iter().any(|e| e["type"] == "ASSISTED"),
        "the audit log says she assisted"
    );
    let (s, _) = asa.fill(text, json!({"value": "again"})).await;
    assert_eq!(s, 409, "finished");

    // Ann's turn: the field is filled; she signs and the document completes.
    let (_, v) = ann_link.state().await;
    let filled = v["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == text)
        .unwrap()
        .clone();
    assert_eq!(
        (&filled["inserted"], &filled["value"]),
        (&json!(true), &json!("Flat 2"))
    );
    assert_eq!(ann_link.sign(sig).await.0, 200);
    let (s, v) = ann_link.complete(json!({})).await;
    assert_eq!(s, 200, "{v}");
    api.wait_status(id, "COMPLETED").await;

    // Templates take the role too.
    let t = api
        .create_template(json!({"title": "T", "recipients": [
            {"name": "A", "email": "a@example.com", "role": "ASSISTANT"}]}))
        .await;
    let (_, tv) = api
        .get(&format!("/api/v1/templates/{}", t.template_id()))
        .await;
    assert_eq!(tv["Recipient"][0]["role"], "ASSISTANT");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn more_per_page_than_served_is_served_as_a_hundred_and_answers_carry_external_ids() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("ada@example.com", "standard");
    let created = api
        .create_document(crate::support::api::two_recipients())
        .await;
    assert_eq!(created.0["externalId"], "ext-1");
    for path in [
        "/api/v1/documents?perPage=500",
        "/api/v1/templates?perPage=101",
    ] {
        let (s, v) = api.get(path).await;
        assert_eq!(s, 200, "{path}: {v}");
    }
    let (_, v) = api.get("/api/v1/documents?perPage=500").await;
    assert_eq!(v["documents"][0]["externalId"], "ext-1");
    assert_eq!(api.get("/api/v1/documents?perPage=0").await.0, 400);

    let t = api
        .create_template(json!({"title": "Lease", "recipients": [
            {"name": "T", "email": "t@example.com", "role": "SIGNER"}]}))
        .await;
    api.upload_ok(t.upload_url(), fixture("a4-1p.pdf")).await;
    let (s, v) = api
        .post(
            &format!("/api/v1/templates/{}/generate-document", t.template_id()),
            json!({"externalId": "gen-7", "recipients": [
                {"id": t.0["recipients"][0]["recipientId"], "email": "bo@example.com"}]}),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["externalId"], "gen-7");
    app.stop().await;
}

/// The assistant's signing page in Chromium (`tests/browser/assistant.mjs`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs chromium and node")]
async fn an_assistant_prepares_the_document_in_chromium() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("ada@example.com", "standard");
    let doc = api
        .create_document(json!({
            "title": "Lease",
            "meta": {"signingOrder": "SEQUENTIAL"},
            "recipients": [
                {"name": "Asa", "email": "asa@example.com", "role": "ASSISTANT", "signingOrder": 1},
                {"name": "Ann", "email": "ann@example.com", "role": "SIGNER", "signingOrder": 2}
            ]
        }))
        .await;
    let id = doc.document_id();
    api.upload_ok(doc.upload_url(), fixture("a4-1p.pdf")).await;
    let ann = doc.recipient_id(1);
    let text = api
        .add_fields(
            id,
            json!([{"recipientId": ann, "type": "SIGNATURE", "pageNumber": 1, "pageX": 10,
                    "pageY": 80, "pageWidth": 30, "pageHeight": 5},
                   {"recipientId": ann, "type": "TEXT", "pageNumber": 1, "pageX": 10,
                    "pageY": 60, "pageWidth": 30, "pageHeight": 5,
                    "fieldMeta": {"type": "text", "required": true}}]),
        )
        .await[1];
    assert_eq!(api.send(id).await.0, 200);
    let link = app.url(&format!("/sign/{}", doc.token(0)));
    tokio::task::spawn_blocking(move || {
        crate::support::tools::browser_step("assistant.mjs", &[&link, "Ann"]);
    })
    .await
    .unwrap();
    let d = api.document(id).await;
    let filled = d["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == text)
        .unwrap()
        .clone();
    assert_eq!(filled["customText"], "Flat 2");
    assert_eq!(d["recipients"][0]["signingStatus"], "SIGNED");
    app.stop().await;
}

/// A field for `rid` at `y` percent down page 1, of `kind`, with `meta` (if not null).
fn placed(rid: i64, kind: &str, y: i64, meta: serde_json::Value) -> serde_json::Value {
    let mut f = json!({"recipientId": rid, "type": kind, "pageNumber": 1, "pageX": 10,
                       "pageY": y, "pageWidth": 30, "pageHeight": 5});
    if !meta.is_null() {
        f["fieldMeta"] = meta;
    }
    f
}

/// The field `id` among a document's (or template's) `fields`.
fn field_in(fields: &serde_json::Value, id: i64) -> &serde_json::Value {
    fields
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == id)
        .unwrap_or_else(|| panic!("no field {id} in {fields}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropdown_stays_a_dropdown_in_every_answer_and_webhook() {
    let app = TestApp::spawn_with(&["--tls", "off", "--allow-private-webhooks"]).await;
    let api = app.user_with_key("ada@example.com", "standard");
    let rx = crate::support::webhook::Receiver::start(&[]).await;
    api.add_webhook(crate::support::api::webhook(&rx.url(), &["DOCUMENT_SENT"]))
        .await;
    let doc = api
        .create_document(crate::support::api::two_recipients())
        .await;
    let id = doc.document_id();
    api.upload_ok(doc.upload_url(), fixture("a4-1p.pdf")).await;
    let ann = doc.recipient_id(0);
    let choices = json!({"type": "dropdown", "values": [{"value": "A"}, {"value": "B"}]});
    let (s, added) = api
        .post(
            &format!("/api/v1/documents/{id}/fields"),
            json!([
                placed(ann, "SIGNATURE", 80, json!(null)),
                placed(ann, "DROPDOWN", 60, choices)
            ]),
        )
        .await;
    assert_eq!(s, 200, "{added}");
    let dd = added["fields"][1]["id"].as_i64().unwrap();
    let is_dropdown = |f: &serde_json::Value| {
        assert_eq!(
            (&f["type"], &f["fieldMeta"]["type"]),
            (&json!("DROPDOWN"), &json!("dropdown")),
            "{f}"
        );
    };
    is_dropdown(&added["fields"][1]);
    let (s, patched) = api
        .patch(
            &format!("/api/v1/documents/{id}/fields/{dd}"),
            json!({"pageX": 20}),
        )
        .await;
    assert_eq!(s, 200, "{patched}");
    is_dropdown(&patched);
    is_dropdown(field_in(&api.document(id).await["fields"], dd));
    let (_, list) = api.get("/api/v1/documents").await;
    is_dropdown(field_in(&list["documents"][0]["fields"], dd));

    assert_eq!(api.send(id).await.0, 200);
    let sent: serde_json::Value = serde_json::from_str(&rx.wait_for(1).await[0].body).unwrap();
    is_dropdown(field_in(&sent["payload"]["fields"], dd));
    // It is filled as a list to pick one of.
    let signer = app.signer(&doc.token(0));
    assert_eq!(signer.fill(dd, json!({"value": "C"})).await.0, 400);
    let (s, v) = signer.fill(dd, json!({"value": "B"})).await;
    assert_eq!(s, 200, "{v}");

    // Templates, and the documents made from them, keep the name too.
    let t = api
        .create_template(
            json!({"title": "T", "recipients": [{"name": "R", "email": "r@example.com"}]}),
        )
        .await;
    let tid = t.template_id();
    api.upload_ok(t.upload_url(), fixture("a4-1p.pdf")).await;
    let rid = t.recipient_id(0);
    let (s, v) = api
        .post(
            &format!("/api/v1/templates/{tid}/fields"),
            json!([placed(
                rid,
                "DROPDOWN",
                10,
                json!({"type": "dropdown", "values": [{"value": "X"}]})
            )]),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    is_dropdown(&v["fields"][0]);
    let (_, got) = api.get(&format!("/api/v1/templates/{tid}")).await;
    is_dropdown(&got["Field"][0]);
    let (s, made) = api
        .post(
            &format!("/api/v1/templates/{tid}/generate-document"),
            json!({"recipients": []}),
        )
        .await;
    assert_eq!(s, 200, "{made}");
    let generated = api.document(made["documentId"].as_i64().unwrap()).await;
    is_dropdown(&generated["fields"][0]);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn field_meta_keeps_every_layout_key_it_was_sent_and_checks_them() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("ada@example.com", "standard");
    let doc = api
        .create_document(crate::support::api::two_recipients())
        .await;
    let id = doc.document_id();
    api.upload_ok(doc.upload_url(), fixture("a4-1p.pdf")).await;
    let ann = doc.recipient_id(0);
    let sent = [
        (
            "TEXT",
            json!({"type": "text", "label": "Ref", "textAlign": "right", "lineHeight": 2,
            "letterSpacing": 1.5, "verticalAlign": "top", "overflow": "crop", "fontSize": 14,
            "characterLimit": 0}),
        ),
        (
            "NUMBER",
            json!({"type": "number", "value": "12", "textAlign": "center",
            "verticalAlign": "middle", "numberFormat": "123,456,789.00"}),
        ),
        (
            "RADIO",
            json!({"type": "radio", "direction": "horizontal",
            "values": [{"id": 1, "checked": false, "value": "Yes"}]}),
        ),
        (
            "CHECKBOX",
            json!({"type": "checkbox", "direction": "vertical", "validationRule": "",
            "validationLength": 0, "values": [{"id": 1, "checked": true, "value": "I agree"}]}),
        ),
        (
            "NAME",
            json!({"type": "name", "textAlign": "center", "overflow": "auto"}),
        ),
        (
            "DATE",
            json!({"type": "date", "textAlign": "right", "overflow": "auto"}),
        ),
        (
            "SIGNATURE",
            json!({"type": "signature", "overflow": "auto"}),
        ),
    ];
    let body: Vec<_> = sent
        .iter()
        .enumerate()
        .map(|(i, (kind, meta))| placed(ann, kind, 5 + 10 * i as i64, meta.clone()))
        .collect();
    let ids = api.add_fields(id, json!(body)).await;
    let doc_fields = api.document(id).await["fields"].clone();
    for ((kind, meta), fid) in sent.iter().zip(&ids) {
        let got = &field_in(&doc_fields, *fid)["fieldMeta"];
        for (k, v) in meta.as_object().unwrap() {
            let same = got[k] == *v || (got[k].as_f64().is_some() && got[k].as_f64() == v.as_f64());
            assert!(same, "{kind}: {k} sent {v}, answered {}", got[k]);
        }
    }
    // Wrong values are a 400 naming each.
    let bad = placed(
        ann,
        "TEXT",
        5,
        json!({"type": "text", "textAlign": "justify", "lineHeight": 0.5, "letterSpacing": 101,
               "verticalAlign": "center", "overflow": "scroll"}),
    );
    let (s, v) = api
        .post(&format!("/api/v1/documents/{id}/fields"), bad)
        .await;
    assert_eq!(s, 400, "{v}");
    let text = v.to_string();
    for key in [
        "textAlign",
        "lineHeight",
        "letterSpacing",
        "verticalAlign",
        "overflow",
    ] {
        assert!(text.contains(&format!("fieldMeta.{key}")), "{key}: {v}");
    }
    let radio = placed(ann, "RADIO", 5, json!({"type": "radio", "direction": "up"}));
    let (s, v) = api
        .post(&format!("/api/v1/documents/{id}/fields"), radio)
        .await;
    assert_eq!(s, 400, "{v}");
    assert!(v.to_string().contains("fieldMeta.direction"), "{v}");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn choice_fields_may_lack_values_until_the_document_is_sent() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("ada@example.com", "standard");
    let doc = api
        .create_document(crate::support::api::two_recipients())
        .await;
    let id = doc.document_id();
    api.upload_ok(doc.upload_url(), fixture("a4-1p.pdf")).await;
    let (ann, cid) = (doc.recipient_id(0), doc.recipient_id(1));
    let ids = api
        .add_fields(
            id,
            json!([
                placed(ann, "SIGNATURE", 80, json!(null)),
                placed(ann, "RADIO", 10, json!({"type": "radio"})),
                placed(
                    ann,
                    "CHECKBOX",
                    20,
                    json!({"type": "checkbox", "values": []})
                ),
                placed(ann, "DROPDOWN", 30, json!({"type": "dropdown"})),
                // Not a signer's: nobody has to fill it.
                placed(cid, "RADIO", 40, json!({"type": "radio"}))
            ]),
        )
        .await;
    let d = api.document(id).await;
    assert!(
        field_in(&d["fields"], ids[1])["fieldMeta"]
            .get("values")
            .is_none()
    );
    assert_eq!(
        field_in(&d["fields"], ids[2])["fieldMeta"]["values"],
        json!([])
    );
    let (s, v) = api.send(id).await;
    assert_eq!(s, 400, "{v}");
    let msg = v["message"].as_str().unwrap();
    for (fid, kind) in [
        (ids[1], "RADIO"),
        (ids[2], "CHECKBOX"),
        (ids[3], "DROPDOWN"),
    ] {
        assert!(msg.contains(&format!("field {fid} ({kind})")), "{msg}");
    }
    assert!(!msg.contains(&format!("field {} ", ids[4])), "{msg}");
    assert_eq!(api.document(id).await["status"], "DRAFT");
    let values = [
        json!({"type": "radio", "values": [{"id": 1, "checked": false, "value": "Yes"}]}),
        json!({"type": "checkbox", "values": [{"id": 1, "checked": false, "value": "Ok"}]}),
        json!({"type": "dropdown", "values": [{"value": "One"}]}),
    ];
    for (fid, meta) in ids[1..4].iter().zip(values) {
        let (s, v) = api
            .patch(
                &format!("/api/v1/documents/{id}/fields/{fid}"),
                json!({"fieldMeta": meta}),
            )
            .await;
        assert_eq!(s, 200, "{v}");
    }
    let (s, v) = api.send(id).await;
    assert_eq!(s, 200, "{v}");
    // Once sent, a signer gets no new choice field without values.
    let (s, v) = api
        .post(
            &format!("/api/v1/documents/{id}/fields"),
            placed(ann, "DROPDOWN", 50, json!({"type": "dropdown"})),
        )
        .await;
    assert_eq!(s, 400, "{v}");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generate_document_prefills_fields_that_the_signer_then_cannot_change() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("ada@example.com", "standard");
    let t = api
        .create_template(json!({"title": "Order",
            "meta": {"dateFormat": "dd/MM/yyyy", "timezone": "Europe/Paris"},
            "recipients": [{"name": "Ann", "email": "ann@example.com", "role": "SIGNER"}]}))
        .await;
    let tid = t.template_id();
    api.upload_ok(t.upload_url(), fixture("a4-1p.pdf")).await;
    let r = t.recipient_id(0);
    let ids = api
        .add_template_fields(
            tid,
            json!([
                placed(r, "SIGNATURE", 80, json!(null)),
                placed(
                    r,
                    "TEXT",
                    5,
                    json!({"type": "text", "label": "Company", "required": true})
                ),
                placed(r, "NUMBER", 15, json!({"type": "number", "maxValue": 100})),
                placed(
                    r,
                    "RADIO",
                    25,
                    json!({"type": "radio", "values": [
                       {"id": 1, "checked": false, "value": "Small"},
                       {"id": 2, "checked": false, "value": "Large"}]})
                ),
                placed(
                    r,
                    "CHECKBOX",
                    35,
                    json!({"type": "checkbox", "values": [
                       {"id": 1, "checked": false, "value": "Red"},
                       {"id": 2, "checked": true, "value": "Blue"}]})
                ),
                placed(
                    r,
                    "DROPDOWN",
                    45,
                    json!({"type": "dropdown", "values": [{"value": "EUR"}, {"value": "USD"}]})
                ),
                placed(r, "DATE", 55, json!(null)),
                placed(r, "TEXT", 65, json!({"type": "text", "label": "Notes"}))
            ]),
        )
        .await;
    let generate = |prefill: serde_json::Value| {
        let api = api.clone();
        async move {
            api.post(
                &format!("/api/v1/templates/{tid}/generate-document"),
                json!({"recipients": [{"id": r, "email": "ann@example.com"}], "prefillFields": prefill}),
            )
            .await
        }
    };
    // Unknown ids and mismatched types are refused, naming the item.
    let (s, v) = generate(json!([{"id": 999_999, "type": "text", "value": "x"}])).await;
    assert_eq!(s, 400, "{v}");
    assert!(v.to_string().contains("prefillFields[0].id"), "{v}");
    let (s, v) = generate(json!([{"id": ids[1], "type": "number", "value": "1"}])).await;
    assert_eq!(s, 400, "{v}");
    assert!(v.to_string().contains("prefillFields[0].type"), "{v}");
    let (s, v) = generate(json!([{"id": ids[5], "type": "dropdown", "value": "GBP"}])).await;
    assert_eq!(s, 400, "{v}");

    let (s, made) = generate(json!([
        {"id": ids[1], "type": "text", "value": "Acme", "label": "Company name"},
        {"id": ids[2], "type": "number", "value": "42"},
        {"id": ids[3], "type": "radio", "value": "Large"},
        {"id": ids[4], "type": "checkbox", "value": ["Red"]},
        {"id": ids[5], "type": "dropdown", "value": "USD"},
        {"id": ids[6], "type": "date", "value": "2026-03-01"}
    ]))
    .await;
    assert_eq!(s, 200, "{made}");
    let doc = made["documentId"].as_i64().unwrap();
    // A new address for the recipient keeps the owner's values.
    let rid = made["recipients"][0]["recipientId"].as_i64().unwrap();
    let (s, v) = api
        .patch(
            &format!("/api/v1/documents/{doc}/recipients/{rid}"),
            json!({"email": "ann.b@example.com"}),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    let d = api.document(doc).await;
    let fields = d["fields"].as_array().unwrap();
    let by_type = |kind: &str| -> Vec<&serde_json::Value> {
        fields.iter().filter(|f| f["type"] == kind).collect()
    };
    let text = by_type("TEXT");
    let (company, notes) = if text[0]["pageY"] == 5.0 {
        (text[0], text[1])
    } else {
        (text[1], text[0])
    };
    assert_eq!(
        (&company["inserted"], &company["customText"]),
        (&json!(true), &json!("Acme"))
    );
    assert_eq!(company["fieldMeta"]["text"], "Acme");
    assert_eq!(company["fieldMeta"]["label"], "Company name");
    assert_eq!(company["fieldMeta"]["readOnly"], true);
    assert_eq!(notes["inserted"], false);
    assert_eq!(by_type("NUMBER")[0]["customText"], "42");
    assert_eq!(by_type("NUMBER")[0]["fieldMeta"]["value"], "42");
    let radio = by_type("RADIO")[0];
    assert_eq!(radio["customText"], "Large");
    assert_eq!(radio["fieldMeta"]["values"][1]["checked"], true);
    let boxes = by_type("CHECKBOX")[0];
    assert_eq!(boxes["inserted"], true);
    assert_eq!(
        (
            &boxes["fieldMeta"]["values"][0]["checked"],
            &boxes["fieldMeta"]["values"][1]["checked"]
        ),
        (&json!(true), &json!(false))
    );
    assert_eq!(by_type("DROPDOWN")[0]["fieldMeta"]["defaultValue"], "USD");
    assert_eq!(by_type("DROPDOWN")[0]["customText"], "USD");
    assert_eq!(by_type("DATE")[0]["customText"], "01/03/2026");

    // The signer cannot change them, and finishes with the rest.
    assert_eq!(api.send(doc).await.0, 200);
    let token = api.document(doc).await["recipients"][0]["token"]
        .as_str()
        .unwrap()
        .to_string();
    let signer = app.signer(&token);
    let (s, v) = signer
        .fill(company["id"].clone(), json!({"value": "Other"}))
        .await;
    assert_eq!(s, 400, "{v}");
    let (s, v) = signer.sign(by_type("SIGNATURE")[0]["id"].clone()).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = signer.complete(json!({})).await;
    assert_eq!(s, 200, "{v}");
    let done = api.wait_status(doc, "COMPLETED").await;
    let date = field_in(&done["fields"], by_type("DATE")[0]["id"].as_i64().unwrap());
    assert_eq!(date["customText"], "01/03/2026");
    assert_eq!(
        field_in(&done["fields"], company["id"].as_i64().unwrap())["customText"],
        "Acme"
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn documents_carry_folder_id_and_fields_their_recipient() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("ada@example.com", "standard");
    let doc = api
        .create_document(crate::support::api::two_recipients())
        .await;
    let id = doc.document_id();
    api.upload_ok(doc.upload_url(), fixture("a4-1p.pdf")).await;
    let fid = api
        .add_fields(
            id,
            json!([placed(doc.recipient_id(0), "SIGNATURE", 80, json!(null))]),
        )
        .await[0];
    let d = api.document(id).await;
    assert!(d.as_object().unwrap().contains_key("folderId"), "{d}");
    assert!(d["folderId"].is_null());
    let f = field_in(&d["fields"], fid);
    assert_eq!(f["secondaryId"], format!("field_{fid}"));
    assert_eq!(
        f["recipient"],
        json!({"name": "Ann", "email": "ann@example.com", "signingStatus": "NOT_SIGNED"})
    );
    let (_, list) = api.get("/api/v1/documents").await;
    let item = &list["documents"][0];
    assert!(item.as_object().unwrap().contains_key("folderId") && item["folderId"].is_null());
    app.stop().await;
}

/// A queued message: (to, subject, text, html).
type Queued = (String, String, String, String);

/// Messages of `kind` queued about document `doc`, oldest first.
fn queued(app: &TestApp, doc: i64, kind: &str) -> Vec<Queued> {
    app.db()
        .query_map(
            "SELECT to_addr, subject, body_text, body_html FROM mail_queue
             WHERE document_id = ?1 AND kind = ?2 ORDER BY id",
            docket::params![doc, kind.to_string()],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap()
}

/// A document for Ann (SIGNER, with a signature field) and Cid (CC) with `meta`, its file
/// uploaded: (id, Ann's id, her token, her field).
async fn ready_with_meta(
    api: &crate::support::api::Api,
    meta: serde_json::Value,
) -> (i64, i64, String, i64) {
    let mut body = crate::support::api::two_recipients();
    body["meta"] = meta;
    let doc = api.create_document(body).await;
    let id = doc.document_id();
    api.upload_ok(doc.upload_url(), fixture("a4-1p.pdf")).await;
    let ann = doc.recipient_id(0);
    let sig = api
        .add_fields(
            id,
            json!([{"recipientId": ann, "type": "SIGNATURE", "pageNumber": 1,
                    "pageX": 10, "pageY": 80, "pageWidth": 30, "pageHeight": 5}]),
        )
        .await[0];
    (id, ann, doc.token(0), sig)
}

/// Ann signs and finishes; the document is sealed (COMPLETED).
async fn ann_finishes(
    app: &TestApp,
    api: &crate::support::api::Api,
    id: i64,
    token: &str,
    sig: i64,
) {
    let link = app.signer(token);
    assert_eq!(link.sign(sig).await.0, 200);
    assert_eq!(link.complete(json!({})).await.0, 200);
    api.wait_status(id, "COMPLETED").await;
}

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
