//! The API v2's changes to a whole envelope (`/api/v2/{envelope,document,template}/update`,
//! `delete`, `distribute`, `redistribute`) over the wire: each group's body names its own id,
//! numbers as floats, the change made by the use case v1 makes it with (the same rules: only a
//! draft's settings change), another workspace's envelope a 404, and every answer as the
//! served OpenAPI document says.

use reqwest::Method as M;
use serde_json::{Value, json};

use crate::support::TestApp;
use crate::support::api::{Api, fixture};
use crate::support::documented::Documented;

/// A draft of `api`'s with a signer and a signature field; its number.
async fn draft(api: &Api, title: &str) -> i64 {
    let created = api
        .create_document(json!({"title": title, "recipients": [
            {"name": "Ann", "email": "ann@example.com", "role": "SIGNER"}
        ]}))
        .await;
    let id = created.document_id();
    api.upload_ok(created.upload_url(), fixture("a4-1p.pdf"))
        .await;
    let who = &created["recipients"][0]["recipientId"];
    api.add_fields(
        id,
        json!([{"recipientId": who, "type": "SIGNATURE", "pageNumber": 1, "pageX": 10,
            "pageY": 10, "pageWidth": 20, "pageHeight": 5}]),
    )
    .await;
    id
}

async fn envelope_of(api: &Api, doc: i64) -> String {
    let (s, v) = api.get(&format!("/api/v2/document/{doc}")).await;
    assert_eq!(s, 200, "{v}");
    v["envelopeId"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn envelopes_are_updated_sent_reminded_and_deleted_by_the_v1_rules() {
    let app = TestApp::spawn().await;
    let ada = app.user_with_key("ada@example.com", "standard");
    let bob = app.user_with_key("bob@example.com", "standard");
    let mut d = Documented::served(&app).await;
    let doc = draft(&ada, "Lease").await;
    let envelope = envelope_of(&ada, doc).await;

    // Update, envelope form: data and meta, as the clients send them.
    let body = json!({"envelopeId": envelope, "data": {"title": "Lease (v2)", "externalId": "L-7"},
        "meta": {"subject": "Please sign", "timezone": "Europe/Berlin",
            "emailSettings": {"documentCompleted": true, "recipientSigned": true}}});
    let v = d
        .call(&ada, M::POST, "/api/v2/envelope/update", Some(body), 200)
        .await;
    assert_eq!(
        (&v["title"], &v["externalId"]),
        (&json!("Lease (v2)"), &json!("L-7")),
        "{v}"
    );
    assert_eq!(v["documentMeta"]["subject"], "Please sign", "{v}");
    // The legacy form, the number as the Python client writes it; null clears externalId.
    let body = json!({"documentId": doc as f64, "data": {"externalId": null}});
    let v = d
        .call(&ada, M::POST, "/api/v2/document/update", Some(body), 200)
        .await;
    assert_eq!(
        (v["id"].as_i64(), &v["externalId"]),
        (Some(doc), &Value::Null),
        "{v}"
    );
    assert_eq!(v["title"], "Lease (v2)");
    // The same checks as v1: an empty title is refused with its path; nothing changes.
    let body = json!({"envelopeId": envelope, "data": {"title": ""}});
    let (s, e) = ada.post("/api/v2/envelope/update", body).await;
    assert_eq!(
        (s, e["code"].as_str()),
        (400, Some("VALIDATION_ERROR")),
        "{e}"
    );
    assert_eq!(e["issues"][0]["path"], json!(["title"]), "{e}");
    // A folder that is not the workspace's is a 404; out of any folder is fine.
    let body = json!({"envelopeId": envelope, "data": {"folderId": "no-such-folder"}});
    assert_eq!(ada.post("/api/v2/envelope/update", body).await.0, 404);
    let body = json!({"envelopeId": envelope, "data": {"folderId": null}});
    assert_eq!(ada.post("/api/v2/envelope/update", body).await.0, 200);

    // Another workspace's envelope is a 404 for every change; so is an id docket never gave.
    for path in ["update", "delete", "distribute"] {
        let (s, e) = bob
            .post(
                &format!("/api/v2/envelope/{path}"),
                json!({"envelopeId": envelope}),
            )
            .await;
        assert_eq!(
            (s, e["code"].as_str()),
            (404, Some("NOT_FOUND")),
            "{path}: {e}"
        );
        let (s, _) = bob
            .post(
                &format!("/api/v2/document/{path}"),
                json!({"documentId": doc}),
            )
            .await;
        assert_eq!(s, 404, "{path}");
    }
    let body = json!({"envelopeId": "envelope_nothing"});
    assert_eq!(ada.post("/api/v2/envelope/delete", body).await.0, 404);
    let body = json!({"envelopeId": envelope, "recipients": [1]});
    assert_eq!(bob.post("/api/v2/envelope/redistribute", body).await.0, 404);
    // A missing id names its path.
    let (s, e) = ada
        .post("/api/v2/document/update", json!({"data": {}}))
        .await;
    assert_eq!(
        (s, &e["issues"][0]["path"]),
        (400, &json!(["documentId"])),
        "{e}"
    );

    // Distribute: PENDING, each recipient's link; meta set first.
    let body = json!({"envelopeId": envelope, "meta": {"subject": "Now please sign"}});
    let sent = d
        .call(
            &ada,
            M::POST,
            "/api/v2/envelope/distribute",
            Some(body),
            200,
        )
        .await;
    assert_eq!(
        (&sent["success"], &sent["id"]),
        (&json!(true), &json!(envelope)),
        "{sent}"
    );
    let link = sent["recipients"][0]["signingUrl"].as_str().unwrap();
    assert!(
        link.contains(sent["recipients"][0]["token"].as_str().unwrap()),
        "{sent}"
    );
    let v1 = ada.document(doc).await;
    assert_eq!(
        (&v1["status"], &v1["meta"]["subject"]),
        (&json!("PENDING"), &json!("Now please sign"))
    );
    // Once sent, the settings no longer change (v1's 409, answered 400 as the peer does).
    let body = json!({"envelopeId": envelope, "data": {"title": "Too late"}});
    let (s, e) = ada.post("/api/v2/envelope/update", body).await;
    assert_eq!(s, 400, "{e}");
    assert_eq!(ada.document(doc).await["title"], "Lease (v2)");
    // Redistribute: the recipient whose turn it is.
    let rid = sent["recipients"][0]["id"].as_i64().unwrap();
    let body = json!({"envelopeId": envelope, "recipients": [rid as f64]});
    let v = d
        .call(
            &ada,
            M::POST,
            "/api/v2/envelope/redistribute",
            Some(body),
            200,
        )
        .await;
    assert_eq!(v, json!({"success": true}));
    let body = json!({"documentId": doc, "recipients": (0..101).collect::<Vec<_>>()});
    let (s, e) = ada.post("/api/v2/document/redistribute", body).await;
    assert_eq!(
        (s, &e["issues"][0]["path"]),
        (400, &json!(["recipients"])),
        "{e}"
    );

    // The legacy distribute answers the document.
    let other = draft(&ada, "Second").await;
    let body = json!({"documentId": other});
    let v = d
        .call(
            &ada,
            M::POST,
            "/api/v2/document/distribute",
            Some(body),
            200,
        )
        .await;
    assert_eq!(
        (v["id"].as_i64(), &v["status"]),
        (Some(other), &json!("PENDING")),
        "{v}"
    );

    // A template is used, not sent.
    let t = ada
        .create_template(json!({"title": "Offer", "recipients": [{"name": "Sam", "email": "sam@example.com", "role": "SIGNER"}]}))
        .await
        .template_id();
    let (_, tv) = ada.get(&format!("/api/v2/template/{t}")).await;
    let tenv = tv["envelopeId"].as_str().unwrap().to_string();
    let (s, e) = ada
        .post("/api/v2/envelope/distribute", json!({"envelopeId": tenv}))
        .await;
    assert_eq!(s, 400, "{e}");
    // A template's update, in its legacy form.
    let body = json!({"templateId": format!("{t}.0"), "data": {"title": "Offer 2026"}});
    let body = json!({"templateId": t as f64, "data": body["data"]});
    let v = d
        .call(&ada, M::POST, "/api/v2/template/update", Some(body), 200)
        .await;
    assert_eq!(v["title"], "Offer 2026", "{v}");

    // Delete: a pending document is cancelled; a draft removed; a template removed.
    let v = d
        .call(
            &ada,
            M::POST,
            "/api/v2/envelope/delete",
            Some(json!({"envelopeId": envelope})),
            200,
        )
        .await;
    assert_eq!(v, json!({"success": true}));
    assert_eq!(ada.document(doc).await["status"], "CANCELLED");
    let third = draft(&ada, "Third").await;
    let v = d
        .call(
            &ada,
            M::POST,
            "/api/v2/document/delete",
            Some(json!({"documentId": third as f64})),
            200,
        )
        .await;
    assert_eq!(v, json!({"success": true}));
    assert_eq!(ada.get(&format!("/api/v2/document/{third}")).await.0, 404);
    d.call(
        &ada,
        M::POST,
        "/api/v2/template/delete",
        Some(json!({"templateId": t})),
        200,
    )
    .await;
    assert_eq!(ada.get(&format!("/api/v2/envelope/{tenv}")).await.0, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_template_is_used_as_v1_generates_and_sent_at_once_when_asked() {
    let app = TestApp::spawn().await;
    let ada = app.user_with_key("ada@example.com", "standard");
    let bob = app.user_with_key("bob@example.com", "standard");
    let mut d = Documented::served(&app).await;
    let t = crate::bulk_send::lease(&ada).await;
    let (_, tv) = ada.get(&format!("/api/v2/template/{t}")).await;
    let tenant = tv["recipients"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "Tenant")
        .unwrap()["id"]
        .as_i64()
        .unwrap();
    // Numbers as the Python client sends them; `override` sets the title and the meta.
    let body = json!({"templateId": t as f64, "externalId": "lease-zoe",
        "recipients": [{"id": tenant as f64, "email": "zoe@example.com", "name": "Zoe"}],
        "override": {"title": "Lease: Zoe", "subject": "Your lease"},
        "distributeDocument": true});
    let v = d
        .call(&ada, M::POST, "/api/v2/template/use", Some(body), 200)
        .await;
    assert_eq!(
        (&v["title"], &v["status"]),
        (&json!("Lease: Zoe"), &json!("PENDING")),
        "{v}"
    );
    assert_eq!(
        (&v["externalId"], &v["templateId"]),
        (&json!("lease-zoe"), &json!(t)),
        "{v}"
    );
    assert_eq!(v["documentMeta"]["subject"], "Your lease");
    let emails: Vec<&str> = v["recipients"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["email"].as_str().unwrap())
        .collect();
    assert!(emails.contains(&"zoe@example.com"), "{emails:?}");
    assert_eq!(v["fields"].as_array().unwrap().len(), 4, "{v}");
    // Without distributeDocument it stays a draft; a tenant left without an address is
    // refused as v1 refuses it, naming the recipient.
    let body =
        json!({"templateId": t, "recipients": [{"id": tenant, "email": "yves@example.com"}]});
    let v = d
        .call(&ada, M::POST, "/api/v2/template/use", Some(body), 200)
        .await;
    assert_eq!(v["status"], "DRAFT", "{v}");
    let (s, e) = ada
        .post(
            "/api/v2/template/use",
            json!({"templateId": t, "distributeDocument": true}),
        )
        .await;
    assert_eq!(s, 400, "{e}");
    // Another workspace's template is a 404; so is a recipient id the template lacks.
    let body = json!({"templateId": t, "recipients": [{"id": tenant, "email": "x@example.com"}]});
    let (s, e) = bob.post("/api/v2/template/use", body).await;
    assert_eq!((s, e["code"].as_str()), (404, Some("NOT_FOUND")), "{e}");
    let body = json!({"templateId": t, "recipients": [{"id": 999_999, "email": "x@example.com"}]});
    assert_eq!(ada.post("/api/v2/template/use", body).await.0, 400);
}
