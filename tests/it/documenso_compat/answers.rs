//! What the other service's scripts expect of its answers: status codes, what a delete
//! answers, authentication options as lists, assistants, paging.

use super::*;

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
