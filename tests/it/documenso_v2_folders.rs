//! The API v2's folders and attachments (decision 0127, step 4) over HTTP against the real
//! binary, as the signing service's official clients call them: folders made, found (by
//! parent, kind, name and page), renamed, pinned, moved and deleted, a document and a
//! template put into one (by the v2 update) and found by it, back at the root once the folder
//! is deleted; links added to an envelope and to a document (by number, `7.0` too), found,
//! changed and removed. Another account's folder, envelope, document and attachment are 404;
//! bad input is 400 with `issues` naming each problem's path; every answer is valid against
//! the served OpenAPI document.

use reqwest::Method as M;
use serde_json::{Value, json};

use crate::support::TestApp;
use crate::support::api::Api;
use crate::support::documented::Documented;

/// The paths of a v2 error's issues.
fn issue_paths(e: &Value) -> Vec<Value> {
    e["issues"]
        .as_array()
        .unwrap_or_else(|| panic!("no issues: {e}"))
        .iter()
        .map(|i| i["path"].clone())
        .collect()
}

/// A 404 in the v2 shape.
fn not_found((s, e): (u16, Value)) {
    assert_eq!((s, e["code"].as_str()), (404, Some("NOT_FOUND")), "{e}");
    assert!(e["message"].is_string(), "{e}");
}

/// A 400 in the v2 shape whose issues name `paths`.
fn refused((s, e): (u16, Value), paths: Value) {
    assert_eq!(s, 400, "{e}");
    assert!(e["code"].is_string() && e["message"].is_string(), "{e}");
    assert_eq!(Value::Array(issue_paths(&e)), paths, "{e}");
}

/// Ada and Bob, each with an API key.
fn people(app: &TestApp) -> (Api, Api) {
    (
        app.user_with_key("ada@example.com", "standard"),
        app.user_with_key("bob@example.com", "standard"),
    )
}

/// A draft of `api`'s titled `title`: its number.
async fn draft(api: &Api, title: &str) -> i64 {
    let body = json!({"title": title, "recipients": [
        {"name": "Ann", "email": "ann@example.com", "role": "SIGNER"}]});
    api.create_document(body).await.document_id()
}

/// A template of `api`'s: its number.
async fn template(api: &Api) -> i64 {
    api.create_template(json!({"title": "Offer", "recipients": [
        {"name": "Sam", "email": "sam@example.com", "role": "SIGNER"}]}))
        .await
        .template_id()
}

/// The envelope id of document `doc`.
fn envelope_of(doc: i64) -> String {
    docket::signing::envelope_ids::Envelope::Document(docket::core::ids::DocumentId::new(doc)).id()
}

fn template_envelope(t: i64) -> String {
    docket::signing::envelope_ids::Envelope::Template(docket::core::ids::TemplateId::new(t)).id()
}

/// A new folder of `api`'s: its answer.
async fn folder(api: &Api, body: Value) -> Value {
    let (s, f) = api.post("/api/v2/folder/create", body).await;
    assert_eq!(s, 200, "{f}");
    f
}

/// The ids of a find's folders, in its order.
fn ids(page: &Value) -> Vec<&str> {
    page["data"]
        .as_array()
        .unwrap_or_else(|| panic!("no data: {page}"))
        .iter()
        .map(|f| f["id"].as_str().unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn folders_are_made_found_changed_and_deleted() {
    let app = TestApp::spawn().await;
    let (ada, bob) = people(&app);

    // Made: at the root (a DOCUMENT folder by default), under another (its kind), of templates.
    let leases = folder(&ada, json!({"name": "  Leases "})).await;
    for (key, want) in [
        ("name", json!("Leases")),
        ("type", json!("DOCUMENT")),
        ("visibility", json!("EVERYONE")),
        ("pinned", json!(false)),
        ("parentId", Value::Null),
    ] {
        assert_eq!(leases[key], want, "{key}: {leases}");
    }
    assert!(
        leases["userId"].is_i64() && leases["teamId"] == leases["userId"],
        "{leases}"
    );
    assert!(
        leases["createdAt"].as_str().unwrap().ends_with('Z'),
        "{leases}"
    );
    let lid = leases["id"].as_str().unwrap().to_string();
    let year = folder(&ada, json!({"name": "2026", "parentId": lid})).await;
    assert_eq!(
        (&year["parentId"], &year["type"]),
        (&json!(lid), &json!("DOCUMENT"))
    );
    let yid = year["id"].as_str().unwrap().to_string();
    let offers = folder(&ada, json!({"name": "Offers", "type": "TEMPLATE"})).await;
    assert_eq!(offers["type"], "TEMPLATE");
    let oid = offers["id"].as_str().unwrap().to_string();
    // A template folder goes under no document folder.
    refused(
        ada.post(
            "/api/v2/folder/create",
            json!({"name": "X", "parentId": lid, "type": "TEMPLATE"}),
        )
        .await,
        json!([["parentId"]]),
    );

    // Found: all, by parent, by kind, by name, by page (the Python client's floats).
    let (s, all) = ada.get("/api/v2/folder").await;
    assert_eq!((s, all["count"].as_i64()), (200, Some(3)), "{all}");
    let (_, under) = ada.get(&format!("/api/v2/folder?parentId={lid}")).await;
    assert_eq!(ids(&under), [yid.as_str()]);
    let (_, kind) = ada.get("/api/v2/folder?type=TEMPLATE").await;
    assert_eq!(ids(&kind), [oid.as_str()]);
    let (_, named) = ada.get("/api/v2/folder?query=LEAS").await;
    assert_eq!(ids(&named), [lid.as_str()]);
    let (s, paged) = ada.get("/api/v2/folder?page=2.0&perPage=2.0").await;
    assert_eq!(s, 200, "{paged}");
    assert_eq!(
        (
            paged["currentPage"].as_i64(),
            paged["perPage"].as_i64(),
            paged["totalPages"].as_i64(),
            paged["data"].as_array().map(Vec::len)
        ),
        (Some(2), Some(2), Some(2), Some(1)),
        "{paged}"
    );
    refused(
        ada.get("/api/v2/folder?perPage=500&type=FOLDER").await,
        json!([["type"], ["perPage"]]),
    );

    // Changed: renamed and pinned (floats nowhere to send here), moved to the root and back.
    let (s, renamed) = ada
        .post(
            "/api/v2/folder/update",
            json!({"folderId": yid, "data": {"name": "2027", "pinned": true}}),
        )
        .await;
    assert_eq!(s, 200, "{renamed}");
    assert_eq!(
        (&renamed["name"], &renamed["pinned"], &renamed["parentId"]),
        (&json!("2027"), &json!(true), &json!(lid))
    );
    let (_, top) = ada
        .post(
            "/api/v2/folder/update",
            json!({"folderId": yid, "data": {"parentId": null}}),
        )
        .await;
    assert_eq!(top["parentId"], Value::Null, "{top}");
    let (_, back) = ada
        .post(
            "/api/v2/folder/update",
            json!({"folderId": yid, "data": {"parentId": lid}}),
        )
        .await;
    assert_eq!(back["parentId"], json!(lid), "{back}");
    // Pinned first in a find.
    let (_, all) = ada.get("/api/v2/folder").await;
    assert_eq!(ids(&all)[0], yid, "{all}");
    // No folder under itself or one inside it; no empty name; fields named by their paths.
    refused(
        ada.post(
            "/api/v2/folder/update",
            json!({"folderId": lid, "data": {"parentId": yid}}),
        )
        .await,
        json!([["data", "parentId"]]),
    );
    refused(
        ada.post(
            "/api/v2/folder/update",
            json!({"folderId": lid, "data": {"name": " ", "pinned": "yes"}}),
        )
        .await,
        json!([["data", "pinned"]]),
    );
    refused(
        ada.post(
            "/api/v2/folder/update",
            json!({"folderId": lid, "data": {"name": " "}}),
        )
        .await,
        json!([["data", "name"]]),
    );
    refused(
        ada.post(
            "/api/v2/folder/create",
            json!({"name": 5, "type": "FOLDER"}),
        )
        .await,
        json!([["name"], ["type"]]),
    );
    refused(
        ada.post("/api/v2/folder/delete", json!({})).await,
        json!([["folderId"]]),
    );

    // A document into the folder (the v2 update, the use case the pages' move calls): found
    // by it in the v2 find, its folder in v1 and v2; a template into the template folder.
    let lease = draft(&ada, "Lease of the mill").await;
    let body = json!({"envelopeId": envelope_of(lease), "data": {"folderId": yid}});
    let (s, moved) = ada.post("/api/v2/envelope/update", body).await;
    assert_eq!((s, &moved["folderId"]), (200, &json!(yid)), "{moved}");
    let (_, inside) = ada.get(&format!("/api/v2/envelope?folderId={yid}")).await;
    assert_eq!(inside["count"], 1, "{inside}");
    assert_eq!(inside["data"][0]["folderId"], json!(yid), "{inside}");
    assert_eq!(ada.document(lease).await["folderId"], json!(yid));
    let offer = template(&ada).await;
    let body = json!({"templateId": offer as f64, "data": {"folderId": oid}});
    let (s, moved) = ada.post("/api/v2/template/update", body).await;
    assert_eq!(s, 200, "{moved}");
    let (_, offers_in) = ada.get(&format!("/api/v2/template?folderId={oid}")).await;
    assert_eq!(offers_in["count"], 1, "{offers_in}");
    // Not into a folder of the other kind.
    let body = json!({"envelopeId": envelope_of(lease), "data": {"folderId": oid}});
    let (s, e) = ada.post("/api/v2/envelope/update", body).await;
    assert_eq!(s, 400, "{e}");

    // Another account's folders: 404 on every operation, and in no find.
    let bobs = folder(&bob, json!({"name": "Bob's"})).await;
    let bid = bobs["id"].as_str().unwrap();
    not_found(ada.get(&format!("/api/v2/folder?parentId={bid}")).await);
    not_found(
        ada.post(
            "/api/v2/folder/create",
            json!({"name": "In Bob's", "parentId": bid}),
        )
        .await,
    );
    not_found(
        ada.post(
            "/api/v2/folder/update",
            json!({"folderId": bid, "data": {"name": "Mine"}}),
        )
        .await,
    );
    not_found(
        ada.post(
            "/api/v2/folder/update",
            json!({"folderId": lid, "data": {"parentId": bid}}),
        )
        .await,
    );
    not_found(
        ada.post("/api/v2/folder/delete", json!({"folderId": bid}))
            .await,
    );
    let (_, mine) = bob.get("/api/v2/folder").await;
    assert_eq!(ids(&mine), [bid], "Bob's find holds only his");
    let (_, theirs) = ada.get("/api/v2/folder?perPage=100").await;
    assert!(!ids(&theirs).contains(&bid), "{theirs}");

    // A personal folder has no visibility; a team's has, and is another workspace's folder
    // for the personal key.
    refused(
        ada.post(
            "/api/v2/folder/update",
            json!({"folderId": lid, "data": {"visibility": "ADMIN"}}),
        )
        .await,
        json!([["data", "visibility"]]),
    );
    let args = [
        "team",
        "create",
        "Sales",
        "--slug",
        "sales",
        "--admin",
        "ada@example.com",
    ];
    let sales = crate::support::docket_json(&app.data_dir(), &args, None)["id"].clone();
    let team = app.key_for("ada@example.com", Some("sales"));
    let shared = folder(&team, json!({"name": "Shared"})).await;
    assert_eq!(shared["teamId"], sales, "a team's folder: {shared}");
    let sid = shared["id"].as_str().unwrap();
    let (s, hidden) = team
        .post(
            "/api/v2/folder/update",
            json!({"folderId": sid, "data": {"visibility": "ADMIN"}}),
        )
        .await;
    assert_eq!(
        (s, &hidden["visibility"]),
        (200, &json!("ADMIN")),
        "{hidden}"
    );
    not_found(
        ada.post("/api/v2/folder/delete", json!({"folderId": sid}))
            .await,
    );
    let (_, personal) = ada.get("/api/v2/folder?perPage=100").await;
    assert!(!ids(&personal).contains(&sid), "{personal}");

    // Deleted with the folder under it; the document goes back to the root.
    let (s, gone) = ada
        .post("/api/v2/folder/delete", json!({"folderId": lid}))
        .await;
    assert_eq!((s, gone), (200, json!({"success": true})));
    let (_, left) = ada.get("/api/v2/folder").await;
    assert_eq!(ids(&left), [oid.as_str()]);
    assert_eq!(ada.document(lease).await["folderId"], Value::Null);
    not_found(
        ada.post("/api/v2/folder/delete", json!({"folderId": yid}))
            .await,
    );
    let (_, still) = bob.get("/api/v2/folder").await;
    assert_eq!(still["count"], 1, "Bob's folder stays");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn links_are_added_found_changed_and_removed_on_envelopes_and_documents() {
    let app = TestApp::spawn().await;
    let (ada, bob) = people(&app);
    let doc = draft(&ada, "Lease").await;
    let tpl = template(&ada).await;
    let envelope = envelope_of(doc);

    // By envelope id, then by the document's number as the Python client writes it.
    let (s, one) = ada
        .post(
            "/api/v2/envelope/attachment/create",
            json!({"envelopeId": envelope, "data": {"label": "Terms", "data": "https://example.com/terms"}}),
        )
        .await;
    assert_eq!(s, 200, "{one}");
    let one = one["id"].as_str().unwrap().to_string();
    let (s, two) = ada
        .post(
            "/api/v2/document/attachment/create",
            json!({"documentId": doc as f64, "data": {"label": "Map", "data": "HTTPS://Example.COM/map"}}),
        )
        .await;
    assert_eq!(s, 200, "{two}");
    let two = two["id"].as_str().unwrap().to_string();
    let (s, found) = ada
        .get(&format!(
            "/api/v2/envelope/attachment?envelopeId={envelope}"
        ))
        .await;
    assert_eq!(s, 200, "{found}");
    assert_eq!(
        found,
        json!({"data": [
            {"id": one, "type": "link", "label": "Terms", "data": "https://example.com/terms"},
            {"id": two, "type": "link", "label": "Map", "data": "https://example.com/map"}
        ]})
    );
    let (s, by_number) = ada
        .get(&format!("/api/v2/document/attachment?documentId={doc}.0"))
        .await;
    assert_eq!((s, &by_number), (200, &found));
    // The same links in the document's meta, as v1 and the signing page read them.
    let v1 = ada.document(doc).await;
    assert_eq!(
        v1["meta"]["attachments"][1]["data"], "https://example.com/map",
        "{v1}"
    );

    // Changed, by either prefix (the id names the attachment).
    let (s, done) = ada
        .post(
            "/api/v2/document/attachment/update",
            json!({"id": two, "data": {"label": "Site map", "data": "https://example.com/site"}}),
        )
        .await;
    assert_eq!((s, done), (200, json!({"success": true})));
    let (s, done) = ada
        .post(
            "/api/v2/envelope/attachment/update",
            json!({"id": one, "data": {"label": "Terms 2", "data": "https://example.com/t2"}}),
        )
        .await;
    assert_eq!((s, done), (200, json!({"success": true})));
    let (_, found) = ada
        .get(&format!("/api/v2/document/attachment?documentId={doc}"))
        .await;
    let labels: Vec<&str> = found["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["Terms 2", "Site map"]);

    // A template's, by its envelope id.
    let tenv = template_envelope(tpl);
    let (s, t) = ada
        .post(
            "/api/v2/envelope/attachment/create",
            json!({"envelopeId": tenv, "data": {"label": "Guide", "data": "https://example.com/g"}}),
        )
        .await;
    assert_eq!(s, 200, "{t}");
    let (_, tfound) = ada
        .get(&format!("/api/v2/envelope/attachment?envelopeId={tenv}"))
        .await;
    assert_eq!(tfound["data"][0]["id"], t["id"], "{tfound}");

    // Bad input: 400 naming each problem.
    refused(
        ada.post(
            "/api/v2/envelope/attachment/create",
            json!({"envelopeId": envelope, "data": {"label": "", "data": "javascript:alert(1)"}}),
        )
        .await,
        json!([["data", "label"], ["data", "data"]]),
    );
    refused(
        ada.post(
            "/api/v2/document/attachment/create",
            json!({"documentId": 1.5, "data": {"label": "L"}}),
        )
        .await,
        json!([["documentId"], ["data", "data"]]),
    );
    refused(
        ada.post("/api/v2/envelope/attachment/update", json!({"id": one}))
            .await,
        json!([["data"]]),
    );
    refused(
        ada.get("/api/v2/document/attachment?documentId=1.5").await,
        json!([["documentId"]]),
    );
    refused(
        ada.get("/api/v2/envelope/attachment").await,
        json!([["envelopeId"]]),
    );
    refused(
        ada.post("/api/v2/document/attachment/delete", json!({"id": 7}))
            .await,
        json!([["id"]]),
    );

    // Another account's envelope, document and attachment: 404 everywhere, nothing changed.
    let bobs_doc = draft(&bob, "Bob's").await;
    let bobs_env = envelope_of(bobs_doc);
    let (_, b) = bob
        .post(
            "/api/v2/document/attachment/create",
            json!({"documentId": bobs_doc, "data": {"label": "B", "data": "https://b.example"}}),
        )
        .await;
    let bobs = b["id"].as_str().unwrap().to_string();
    not_found(
        ada.get(&format!(
            "/api/v2/envelope/attachment?envelopeId={bobs_env}"
        ))
        .await,
    );
    not_found(
        ada.get(&format!(
            "/api/v2/document/attachment?documentId={bobs_doc}"
        ))
        .await,
    );
    not_found(
        ada.post(
            "/api/v2/envelope/attachment/create",
            json!({"envelopeId": bobs_env, "data": {"label": "A", "data": "https://a.example"}}),
        )
        .await,
    );
    not_found(
        ada.post(
            "/api/v2/document/attachment/create",
            json!({"documentId": bobs_doc, "data": {"label": "A", "data": "https://a.example"}}),
        )
        .await,
    );
    for prefix in ["envelope", "document"] {
        not_found(
            ada.post(
                &format!("/api/v2/{prefix}/attachment/update"),
                json!({"id": bobs, "data": {"label": "A", "data": "https://a.example"}}),
            )
            .await,
        );
        not_found(
            ada.post(
                &format!("/api/v2/{prefix}/attachment/delete"),
                json!({"id": bobs}),
            )
            .await,
        );
    }
    not_found(
        ada.post(
            "/api/v2/envelope/attachment/delete",
            json!({"id": "att_nonsense"}),
        )
        .await,
    );
    not_found(
        ada.get("/api/v2/envelope/attachment?envelopeId=envelope_nonsense")
            .await,
    );
    let (_, kept) = bob
        .get(&format!(
            "/api/v2/document/attachment?documentId={bobs_doc}"
        ))
        .await;
    assert_eq!(kept["data"][0]["label"], "B", "{kept}");

    // Removed, by either prefix.
    let (s, done) = ada
        .post("/api/v2/envelope/attachment/delete", json!({"id": one}))
        .await;
    assert_eq!((s, done), (200, json!({"success": true})));
    let (s, done) = ada
        .post("/api/v2/document/attachment/delete", json!({"id": two}))
        .await;
    assert_eq!((s, done), (200, json!({"success": true})));
    let (_, none) = ada
        .get(&format!(
            "/api/v2/envelope/attachment?envelopeId={envelope}"
        ))
        .await;
    assert_eq!(none, json!({"data": []}));
    not_found(
        ada.post("/api/v2/document/attachment/delete", json!({"id": two}))
            .await,
    );
}

/// Each answer is valid against the served OpenAPI document's schema for it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn folders_and_attachments_answer_as_the_openapi_document_says() {
    let app = TestApp::spawn().await;
    let ada = app.user_with_key("ada@example.com", "standard");
    let bob = app.user_with_key("bob@example.com", "standard");
    let doc = draft(&ada, "Lease").await;
    let envelope = envelope_of(doc);
    let mut d = Documented::served(&app).await;

    let f = d
        .call(
            &ada,
            M::POST,
            "/api/v2/folder/create",
            Some(json!({"name": "Leases"})),
            200,
        )
        .await;
    let id = f["id"].as_str().unwrap().to_string();
    d.call(
        &ada,
        M::POST,
        "/api/v2/folder/create",
        Some(json!({"name": "2026", "parentId": id, "type": "DOCUMENT"})),
        200,
    )
    .await;
    d.call(&ada, M::GET, "/api/v2/folder?perPage=5.0", None, 200)
        .await;
    d.call(&ada, M::GET, "/api/v2/folder?type=FOLDER", None, 400)
        .await;
    d.call(
        &ada,
        M::POST,
        "/api/v2/folder/update",
        Some(json!({"folderId": id, "data": {"name": "L", "pinned": true}})),
        200,
    )
    .await;
    let b = bob
        .post("/api/v2/folder/create", json!({"name": "B"}))
        .await
        .1;
    d.call(
        &ada,
        M::POST,
        "/api/v2/folder/update",
        Some(json!({"folderId": b["id"], "data": {"name": "Mine"}})),
        404,
    )
    .await;

    let link = json!({"label": "Terms", "data": "https://example.com/t"});
    let made = d
        .call(
            &ada,
            M::POST,
            "/api/v2/envelope/attachment/create",
            Some(json!({"envelopeId": envelope, "data": link})),
            200,
        )
        .await;
    let made2 = d
        .call(
            &ada,
            M::POST,
            "/api/v2/document/attachment/create",
            Some(json!({"documentId": doc as f64, "data": link})),
            200,
        )
        .await;
    d.call(
        &ada,
        M::GET,
        &format!("/api/v2/envelope/attachment?envelopeId={envelope}"),
        None,
        200,
    )
    .await;
    d.call(
        &ada,
        M::GET,
        &format!("/api/v2/document/attachment?documentId={doc}"),
        None,
        200,
    )
    .await;
    for prefix in ["envelope", "document"] {
        d.call(
            &ada,
            M::POST,
            &format!("/api/v2/{prefix}/attachment/create"),
            Some(json!({"data": {"label": "", "data": "ftp://x"}})),
            400,
        )
        .await;
        d.call(
            &ada,
            M::POST,
            &format!("/api/v2/{prefix}/attachment/update"),
            Some(json!({"id": made["id"], "data": link})),
            200,
        )
        .await;
    }
    d.call(
        &ada,
        M::POST,
        "/api/v2/envelope/attachment/delete",
        Some(json!({"id": made["id"]})),
        200,
    )
    .await;
    d.call(
        &ada,
        M::POST,
        "/api/v2/document/attachment/delete",
        Some(json!({"id": made2["id"]})),
        200,
    )
    .await;
    d.call(
        &ada,
        M::POST,
        "/api/v2/document/attachment/delete",
        Some(json!({"id": made2["id"]})),
        404,
    )
    .await;
    d.call(
        &ada,
        M::POST,
        "/api/v2/folder/delete",
        Some(json!({"folderId": id})),
        200,
    )
    .await;
    d.call(&ada, M::POST, "/api/v2/folder/delete", Some(json!({})), 400)
        .await;
    let bobs_doc = draft(&bob, "Bob's").await;
    d.call(
        &ada,
        M::GET,
        &format!(
            "/api/v2/envelope/attachment?envelopeId={}",
            envelope_of(bobs_doc)
        ),
        None,
        404,
    )
    .await;
    d.call(
        &ada,
        M::GET,
        &format!("/api/v2/document/attachment?documentId={bobs_doc}"),
        None,
        404,
    )
    .await;
    d.call(
        &ada,
        M::GET,
        "/api/v2/document/attachment?documentId=1.5",
        None,
        400,
    )
    .await;
    assert_eq!(d.checked.len(), 22, "{:?}", d.checked);
}
