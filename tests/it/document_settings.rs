//! `PATCH /api/v1/documents/{id}`: a draft's settings through the API key (what the editor's
//! settings step saves).

use serde_json::json;

use crate::support::TestApp;
use crate::support::api::{detail_paths, fixture, two_recipients};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_draft_s_settings_change_and_what_is_left_out_keeps_its_value() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let mut body = two_recipients();
    body["externalId"] = json!("crm-1");
    body["meta"] =
        json!({"subject": "Old subject", "message": "Hello", "timezone": "Europe/Paris"});
    let created = api.create_document(body).await;
    let id = created.document_id();
    let path = format!("/api/v1/documents/{id}");

    let (s, doc) = api
        .patch(
            &path,
            json!({"title": "  NDA v2 ", "meta": {"subject": "Sign {document.name}",
                "signingOrder": "SEQUENTIAL", "dateFormat": "dd/MM/yyyy",
                "redirectUrl": "https://example.com/thanks", "distributionMethod": "NONE"},
                "authOptions": {"globalAccessAuth": "ACCOUNT"}}),
        )
        .await;
    assert_eq!(s, 200, "{doc}");
    assert_eq!(doc["id"], id);
    assert_eq!(doc["title"], "NDA v2");
    assert_eq!(doc["externalId"], "crm-1");
    let meta = &doc["meta"];
    assert_eq!(meta["subject"], "Sign {document.name}");
    assert_eq!(meta["message"], "Hello", "left out: kept");
    assert_eq!(meta["timezone"], "Europe/Paris", "left out: kept");
    assert_eq!(meta["signingOrder"], "SEQUENTIAL");
    assert_eq!(meta["dateFormat"], "dd/MM/yyyy");
    assert_eq!(meta["redirectUrl"], "https://example.com/thanks");
    assert_eq!(meta["distributionMethod"], "NONE");
    assert_eq!(doc["authOptions"]["globalAccessAuth"], json!(["ACCOUNT"]));
    assert_eq!(doc["recipients"].as_array().unwrap().len(), 2);
    // What the answer says is what is stored.
    assert_eq!(api.document(id).await["meta"], *meta);

    // Null clears what may be empty; an empty body changes nothing.
    let (s, doc) = api
        .patch(
            &path,
            json!({"externalId": null, "meta": {"redirectUrl": null, "message": null},
                "authOptions": {"globalAccessAuth": null}}),
        )
        .await;
    assert_eq!(s, 200, "{doc}");
    assert_eq!(doc["externalId"], json!(null));
    assert_eq!(doc["meta"]["redirectUrl"], json!(null));
    assert_eq!(doc["meta"]["message"], json!(null));
    assert_eq!(doc["meta"]["subject"], "Sign {document.name}");
    assert_eq!(doc["authOptions"]["globalAccessAuth"], json!([]));
    let (s, same) = api.patch(&path, json!({})).await;
    assert_eq!(s, 200);
    assert_eq!(same["title"], "NDA v2");
    assert_eq!(same["meta"], doc["meta"]);

    // Bad values: 400 naming each with its path, and nothing changes.
    let (s, err) = api
        .patch(
            &path,
            json!({"title": "", "externalId": 5, "meta": {"timezone": "Mars/Base",
                "dateFormat": "nope", "redirectUrl": "ftp://x", "signingOrder": "RANDOM",
                "distributionMethod": "PIGEON"}, "authOptions": {"globalAccessAuth": "WHO"}}),
        )
        .await;
    assert_eq!(s, 400, "{err}");
    assert_eq!(
        detail_paths(&err),
        [
            "title",
            "externalId",
            "meta.timezone",
            "meta.dateFormat",
            "meta.redirectUrl",
            "meta.signingOrder",
            "meta.distributionMethod",
            "authOptions.globalAccessAuth"
        ]
    );
    let (s, err) = api.patch(&path, json!([1])).await;
    assert_eq!(s, 400, "{err}");
    assert_eq!(api.document(id).await["title"], "NDA v2");

    // Action authentication is an enterprise feature, as at creation.
    let (s, err) = api
        .patch(
            &path,
            json!({"authOptions": {"globalActionAuth": "PASSKEY"}}),
        )
        .await;
    assert_eq!(s, 403, "{err}");

    // Another user's document is not found; so is one that does not exist.
    let other = app.user_with_key("other@example.com", "standard");
    let (s, _) = other.patch(&path, json!({"title": "Mine"})).await;
    assert_eq!(s, 404);
    let (s, _) = api.patch("/api/v1/documents/999999", json!({})).await;
    assert_eq!(s, 404);
    assert_eq!(api.document(id).await["title"], "NDA v2");

    // Once sent, the settings are fixed: 409.
    api.upload_ok(created.upload_url(), fixture("a4-1p.pdf"))
        .await;
    let sig = |r: i64| {
        json!({"recipientId": r, "type": "SIGNATURE", "pageNumber": 1,
        "pageX": 10, "pageY": 10, "pageWidth": 20, "pageHeight": 5})
    };
    // The second recipient is a CC: only the signer needs a signature field.
    api.add_fields(id, json!([sig(created.recipient_id(0))]))
        .await;
    let (s, v) = api.send(id).await;
    assert_eq!(s, 200, "{v}");
    let (s, err) = api.patch(&path, json!({"title": "Too late"})).await;
    assert_eq!(s, 409, "{err}");
    assert_eq!(api.document(id).await["title"], "NDA v2");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_send_names_what_must_change_by_its_path() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let created = api.create_document(two_recipients()).await;
    let id = created.document_id();
    api.upload_ok(created.upload_url(), fixture("a4-1p.pdf"))
        .await;
    let (s, err) = api.send(id).await;
    assert_eq!(s, 400, "{err}");
    assert_eq!(err["code"], "invalid_state");
    let paths = detail_paths(&err);
    let doc = api.document(id).await;
    let signers: Vec<String> = doc["recipients"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .filter(|(_, r)| r["role"] == "SIGNER")
        .map(|(i, _)| format!("recipients[{i}]"))
        .collect();
    assert!(!signers.is_empty());
    assert_eq!(paths, signers);
    app.stop().await;
}
