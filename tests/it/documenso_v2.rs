//! The signing service's API v2 (`/api/v2`, decision 0127) through its official clients,
//! unchanged but for the base URL: `documenso-sdk` 0.6.0 (PyPI) and
//! `@documenso/sdk-typescript` 0.9.1 (npm), each validating every answer against its own
//! models. The test makes the objects through v1 (the same documents and templates), then the
//! clients read them; the wire rules the clients depend on (numbers as floats, in paths too;
//! the error shape; the `v2-beta` alias; closed enums per client) are checked here directly.

use std::process::Command;

use serde_json::{Value, json};

use crate::support::TestApp;
use crate::support::api::{Api, fixture};
use crate::support::tools;

/// Ada's objects, and Bob's document.
struct Made {
    doc: i64,
    cancelled: i64,
    template: i64,
    other_doc: i64,
}

/// A field of `kind` for recipient `who` on page 1.
fn field(who: &Value, kind: &str, y: i64, meta: Value) -> Value {
    let mut v = json!({"recipientId": who, "type": kind, "pageNumber": 1, "pageX": 10, "pageY": y, "pageWidth": 28, "pageHeight": 4});
    if !meta.is_null() {
        v["fieldMeta"] = meta;
    }
    v
}

/// One field of every type docket has, for `who`.
fn every_field(who: &Value) -> Value {
    let choices = |kind: &str| json!({"type": kind, "values": [{"id": 1, "checked": false, "value": "A"}, {"id": 2, "checked": false, "value": "B"}]});
    json!([
        field(who, "SIGNATURE", 2, Value::Null),
        field(who, "FREE_SIGNATURE", 7, Value::Null),
        field(who, "INITIALS", 12, Value::Null),
        field(who, "NAME", 17, Value::Null),
        field(who, "EMAIL", 22, Value::Null),
        field(who, "DATE", 27, Value::Null),
        field(
            who,
            "TEXT",
            32,
            json!({"type": "text", "label": "Address", "characterLimit": 40})
        ),
        field(
            who,
            "NUMBER",
            37,
            json!({"type": "number", "label": "Seats", "value": 3, "minValue": 1})
        ),
        field(who, "CHECKBOX", 42, choices("checkbox")),
        field(who, "RADIO", 52, choices("radio")),
        field(
            who,
            "SELECT",
            62,
            json!({"type": "select", "values": [{"value": "x"}, {"value": "y"}]})
        ),
        field(
            who,
            "DROPDOWN",
            72,
            json!({"type": "dropdown", "values": [{"value": "p"}]})
        ),
    ])
}

/// A sent document of `api`'s with a signer (every field type) and a CC.
async fn sent_document(api: &Api, title: &str) -> i64 {
    let created = api
        .create_document(json!({"title": title, "recipients": [
            {"name": "Ann", "email": "ann@example.com", "role": "SIGNER"},
            {"name": "Cid", "email": "cid@example.com", "role": "CC"}
        ]}))
        .await;
    let id = created.document_id();
    api.upload_ok(created.upload_url(), fixture("a4-1p.pdf"))
        .await;
    api.add_fields(id, every_field(&created["recipients"][0]["recipientId"]))
        .await;
    let (s, v) = api.send(id).await;
    assert_eq!(s, 200, "{v}");
    id
}

async fn make(app: &TestApp, ada: &Api, bob: &Api) -> Made {
    let doc = sent_document(ada, "Lease").await;
    let cancelled = sent_document(ada, "Old lease").await;
    let (s, v) = ada.delete(&format!("/api/v1/documents/{cancelled}")).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(ada.document(cancelled).await["status"], "CANCELLED");
    let t = ada
        .create_template(json!({"title": "Offer", "recipients": [{"name": "Sam", "email": "sam@example.com", "role": "SIGNER"}]}))
        .await;
    let template = t.template_id();
    let other_doc = sent_document(bob, "Bob's").await;
    let _ = app;
    Made {
        doc,
        cancelled,
        template,
        other_doc,
    }
}

/// The envelope id of a document (as the API v2 writes it).
async fn envelope_of(api: &Api, doc: i64) -> String {
    let (s, v) = api.get(&format!("/api/v2/document/{doc}")).await;
    assert_eq!(s, 200, "{v}");
    v["envelopeId"].as_str().unwrap().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_wire_takes_what_the_clients_send_and_answers_as_they_read() {
    let app = TestApp::spawn().await;
    let ada = app.user_with_key("ada@example.com", "standard");
    let bob = app.user_with_key("bob@example.com", "standard");
    let m = make(&app, &ada, &bob).await;
    let envelope = envelope_of(&ada, m.doc).await;
    assert!(
        envelope.starts_with("envelope_") && envelope.len() == 25,
        "{envelope}"
    );

    // The Python client's floats, in the path and the query; the raw key and `Bearer`.
    let (s, doc) = ada.get(&format!("/api/v2/document/{}.0", m.doc)).await;
    assert_eq!((s, doc["id"].as_i64()), (200, Some(m.doc)), "{doc}");
    assert_eq!(doc["documentMeta"]["documentId"], m.doc);
    let raw = app
        .client
        .get(app.url(&format!("/api/v2/envelope/{envelope}")))
        .header("authorization", ada.key())
        .send()
        .await
        .unwrap();
    assert_eq!(raw.status(), 200);
    let env: Value = raw.json().await.unwrap();
    assert_eq!(env["type"], "DOCUMENT");
    assert_eq!(env["secondaryId"], format!("document_{}", m.doc));
    assert_eq!(env["fields"].as_array().unwrap().len(), 12);
    assert!(
        env["fields"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["envelopeItemId"] == env["envelopeItems"][0]["id"])
    );
    for key in [
        "externalId",
        "completedAt",
        "deletedAt",
        "folderId",
        "templateId",
        "directLink",
        "formValues",
    ] {
        assert!(
            env.get(key).is_some_and(Value::is_null),
            "{key} present and null: {env}"
        );
    }
    let (s, page) = ada
        .get("/api/v2/envelope?page=1.0&perPage=2.0&orderByDirection=desc")
        .await;
    assert_eq!(s, 200, "{page}");
    assert_eq!(
        (
            page["count"].as_i64(),
            page["perPage"].as_i64(),
            page["totalPages"].as_i64()
        ),
        (Some(3), Some(2), Some(2))
    );

    // The `v2-beta` alias.
    let (s, beta) = ada.get(&format!("/api/v2-beta/envelope/{envelope}")).await;
    assert_eq!((s, &beta["id"]), (200, &json!(envelope)));

    // A cancelled document: CANCELLED to a client that knows it, REJECTED to the Python client.
    let cancelled = envelope_of(&ada, m.cancelled).await;
    let (_, c) = ada.get(&format!("/api/v2/envelope/{cancelled}")).await;
    assert_eq!(c["status"], "CANCELLED");
    let py = app
        .client
        .get(app.url(&format!("/api/v2/envelope/{cancelled}")))
        .header("authorization", ada.key())
        .header(
            "user-agent",
            "speakeasy-sdk/python 0.6.0 2.811.4 1.0.0 documenso_sdk",
        )
        .send()
        .await
        .unwrap();
    assert_eq!(py.json::<Value>().await.unwrap()["status"], "REJECTED");

    // Errors: `message` and `code` always, `issues` with paths for bad input; another
    // workspace's envelope is a 404; a fraction is no number.
    let other = envelope_of(&bob, m.other_doc).await;
    let (s, e) = ada.get(&format!("/api/v2/envelope/{other}")).await;
    assert_eq!((s, e["code"].as_str()), (404, Some("NOT_FOUND")), "{e}");
    assert!(e["message"].is_string());
    let (s, e) = ada.get(&format!("/api/v2/document/{}.5", m.doc)).await;
    assert_eq!(s, 404, "{e}");
    assert!(e["code"].is_string() && e["message"].is_string(), "{e}");
    let (s, e) = ada.get("/api/v2/envelope?perPage=500&type=FOLDER").await;
    assert_eq!(s, 400, "{e}");
    let paths: Vec<&Value> = e["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| &i["path"])
        .collect();
    assert_eq!(paths, [&json!(["type"]), &json!(["perPage"])], "{e}");
    let (s, e) = app
        .api("api_nonsense")
        .get(&format!("/api/v2/envelope/{envelope}"))
        .await;
    assert_eq!(
        (s, e["code"].is_string(), e["message"].is_string()),
        (401, true, true),
        "{e}"
    );
    let (s, e) = ada.get("/api/v2/no-such-thing").await;
    assert_eq!((s, e["code"].is_string()), (404, true), "{e}");
    let (s, e) = ada
        .post(
            "/api/v2/envelope/get-many",
            json!({"ids": {"type": "envelopeId", "ids": vec!["x"; 101]}}),
        )
        .await;
    assert_eq!(
        (s, &e["issues"][0]["path"]),
        (400, &json!(["ids", "ids"])),
        "{e}"
    );

    // get-many leaves out what the caller does not reach.
    let (s, many) = ada
        .post(
            "/api/v2/envelope/get-many",
            json!({"ids": {"type": "envelopeId", "ids": [envelope, other, "envelope_nonsense"]}}),
        )
        .await;
    assert_eq!(s, 200, "{many}");
    assert_eq!(many["data"].as_array().unwrap().len(), 1);
    // By number, as the Python client writes them.
    let (s, many) = ada
        .post("/api/v2/envelope/get-many", json!({"ids": {"type": "documentId", "ids": [m.doc as f64, m.cancelled as f64, m.other_doc as f64]}}))
        .await;
    assert_eq!(
        (s, many["data"].as_array().map(Vec::len)),
        (200, Some(2)),
        "{many}"
    );
}

/// The environment the client scripts read.
async fn script_env(app: &TestApp, ada: &Api, bob: &Api) -> Vec<(String, String)> {
    let m = make(app, ada, bob).await;
    vec![
        ("DOCKET_V2".into(), app.url("/api/v2")),
        ("KEY".into(), ada.key().to_string()),
        ("DOC".into(), m.doc.to_string()),
        ("CANCELLED".into(), m.cancelled.to_string()),
        ("TEMPLATE".into(), m.template.to_string()),
        ("OTHER_DOC".into(), m.other_doc.to_string()),
        ("ENVELOPE".into(), envelope_of(ada, m.doc).await),
        ("OTHER_ENVELOPE".into(), envelope_of(bob, m.other_doc).await),
    ]
}

/// Runs a client script to its end; its one JSON line.
fn run(mut cmd: Command, script: &str, env: &[(String, String)]) -> Value {
    let dir = tools::tests_dir("clients");
    let out = cmd
        .arg(dir.join(script))
        .current_dir(&dir)
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .output()
        .expect("the client script runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{script} failed ({}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// What both clients must have found.
fn check_reads(r: &Value) {
    assert_eq!(r["envelope"]["title"], "Lease", "{r}");
    assert_eq!(
        r["envelope"]["recipients"],
        json!(["ann@example.com", "cid@example.com"])
    );
    let types = r["envelope"]["fieldTypes"].as_array().unwrap();
    assert_eq!(types.len(), 11, "every type, SELECT as DROPDOWN: {r}");
    assert_eq!(r["find"]["count"], 3);
    assert_eq!(r["find"]["types"], json!(["DOCUMENT", "TEMPLATE"]));
    assert_eq!(r["findTemplates"].as_array().unwrap().len(), 1);
    assert_eq!(
        r["page2"],
        json!({"currentPage": 2, "perPage": 1, "totalPages": 3, "n": 1})
    );
    assert_eq!(r["many"].as_array().unwrap().len(), 1);
    let audit: Vec<&str> = r["audit"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(
        audit.contains(&"DOCUMENT_CREATED") && audit.contains(&"DOCUMENT_SENT"),
        "{audit:?}"
    );
    assert_eq!(r["document"]["fields"], 12);
    assert_eq!(r["document"]["dataType"], "S3_PATH");
    assert_eq!(r["documents"].as_array().unwrap().len(), 2);
    assert_eq!(r["documentsMany"].as_array().unwrap().len(), 1);
    assert_eq!(r["template"]["recipients"], 1);
    assert_eq!(r["templates"].as_array().unwrap().len(), 1);
    assert_eq!(r["templatesMany"].as_array().unwrap().len(), 1);
    assert_eq!(r["refused"]["envelope"][0], "NOT_FOUND");
    assert_eq!(r["refused"]["document"], "NOT_FOUND");
    assert!(
        !r["refused"]["perPage"].as_array().unwrap().is_empty(),
        "{r}"
    );
    assert_eq!(r["unauthorized"], "UNAUTHORIZED");
    check_folders_and_attachments(r);
}

/// What both clients must have done with folders and attachments.
fn check_folders_and_attachments(r: &Value) {
    let f = &r["folders"];
    assert_eq!(f["made"], json!(["Leases", "2026", "TEMPLATE"]), "{r}");
    assert_eq!(f["yearParent"], true);
    assert_eq!(f["under"], json!(["2026"]));
    assert_eq!(f["templates"], json!(["Offers"]));
    assert_eq!(f["moved"], json!(["2027", true, null]));
    assert!(!f["emptyName"].as_array().unwrap().is_empty(), "{f}");
    assert_eq!(f["deleted"], json!([true, true, true]));
    assert_eq!((&f["left"], &f["deletedAgain"]), (&json!(0), &json!(404)));
    let a = &r["attachments"];
    assert_eq!(
        a["found"],
        json!([
            ["link", "Terms", "https://example.com/terms"],
            ["link", "Map", "https://example.com/map"]
        ]),
        "{r}"
    );
    assert_eq!(a["changed"], json!([true, true]));
    assert_eq!(a["after"], json!(["Terms 2", "Map 2"]));
    assert!(!a["badUrl"].as_array().unwrap().is_empty(), "{a}");
    assert_eq!(
        (
            &a["otherEnvelope"],
            &a["otherDocument"],
            &a["createOnOther"]
        ),
        (&json!("NOT_FOUND"), &json!("NOT_FOUND"), &json!(404))
    );
    assert_eq!(
        (&a["deleted"], &a["left"]),
        (&json!([true, true]), &json!(0))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "outside-tools"),
    ignore = "needs documenso-sdk from PyPI"
)]
async fn the_python_client_reads_every_envelope_document_and_template() {
    let app = TestApp::spawn().await;
    let ada = app.user_with_key("ada@example.com", "standard");
    let bob = app.user_with_key("bob@example.com", "standard");
    let env = script_env(&app, &ada, &bob).await;
    let r = tokio::task::spawn_blocking(move || {
        run(tools::python(&["documenso_sdk"]), "documenso_v2.py", &env)
    })
    .await
    .unwrap();
    check_reads(&r);
    // The Python client knows no CANCELLED: it reads REJECTED.
    assert_eq!(r["cancelledStatus"], "REJECTED");
    assert_eq!(r["manyByNumber"].as_array().map(Vec::len), Some(1), "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(
    not(feature = "outside-tools"),
    ignore = "needs @documenso/sdk-typescript from npm"
)]
async fn the_typescript_client_reads_every_envelope_document_and_template() {
    let app = TestApp::spawn().await;
    let ada = app.user_with_key("ada@example.com", "standard");
    let bob = app.user_with_key("bob@example.com", "standard");
    let env = script_env(&app, &ada, &bob).await;
    let node = tools::node("clients", "@documenso/sdk-typescript");
    let r = tokio::task::spawn_blocking(move || run(node, "documenso_v2.mjs", &env))
        .await
        .unwrap();
    check_reads(&r);
    assert_eq!(r["cancelledStatus"], "CANCELLED");
}

/// Each read's answer is valid against the served OpenAPI document's schema for it (the
/// document names every key the answer has).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reads_answer_as_the_openapi_document_says() {
    use crate::support::documented::Documented;
    use reqwest::Method as M;
    let app = TestApp::spawn().await;
    let ada = app.user_with_key("ada@example.com", "standard");
    let bob = app.user_with_key("bob@example.com", "standard");
    let m = make(&app, &ada, &bob).await;
    let envelope = envelope_of(&ada, m.doc).await;
    let mut d = Documented::served(&app).await;
    d.call(
        &ada,
        M::GET,
        &format!("/api/v2/envelope/{envelope}"),
        None,
        200,
    )
    .await;
    d.call(&ada, M::GET, "/api/v2/envelope?perPage=5", None, 200)
        .await;
    d.call(
        &ada,
        M::GET,
        &format!("/api/v2/envelope/{envelope}/audit-log"),
        None,
        200,
    )
    .await;
    let ids = json!({"ids": {"type": "envelopeId", "ids": [envelope]}});
    d.call(&ada, M::POST, "/api/v2/envelope/get-many", Some(ids), 200)
        .await;
    d.call(
        &ada,
        M::GET,
        &format!("/api/v2/document/{}", m.doc),
        None,
        200,
    )
    .await;
    d.call(&ada, M::GET, "/api/v2/document", None, 200).await;
    let ids = json!({"documentIds": [m.doc]});
    d.call(&ada, M::POST, "/api/v2/document/get-many", Some(ids), 200)
        .await;
    d.call(
        &ada,
        M::GET,
        &format!("/api/v2/template/{}", m.template),
        None,
        200,
    )
    .await;
    d.call(&ada, M::GET, "/api/v2/template", None, 200).await;
    let ids = json!({"templateIds": [m.template]});
    d.call(&ada, M::POST, "/api/v2/template/get-many", Some(ids), 200)
        .await;
    let other = envelope_of(&bob, m.other_doc).await;
    d.call(
        &ada,
        M::GET,
        &format!("/api/v2/envelope/{other}"),
        None,
        404,
    )
    .await;
    d.call(&ada, M::GET, "/api/v2/envelope?perPage=0", None, 400)
        .await;
}
