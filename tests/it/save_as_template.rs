//! "Save as template" from a document, through the real server: the document page's form (and
//! `POST /api/v1/documents/{id}/template`) makes a template titled as the document with its
//! recipients, every field's place, type and settings (never a value filled in), its meta and
//! its PDF, the same stored file; deleting the document or the template leaves the other's file
//! in place. Another user's document is a 404; in a team, the template is the team's, seen as
//! the document was, a document the member's role does not see is a 404, and authentication
//! options the member's account may not ask for are a 403 that says why.

use reqwest::Method;
use serde_json::{Value, json};

use crate::support::api::{Api, create_api_key, fixture};
use crate::support::login::{Browser, PASSWORD, add_account, answer_of, browser, call};
use crate::support::{TestApp, docket_json, stored_blob_ids};

/// The document page's form posted as `b` at `path`: status, `Location` and body.
async fn save_form(app: &TestApp, b: &Browser, path: &str) -> (u16, String, String) {
    let resp = app
        .client
        .post(app.url(path))
        .header("cookie", &b.cookie)
        .form(&[("csrf_token", b.csrf.as_str())])
        .send()
        .await
        .unwrap();
    answer_of(resp).await
}

/// The template's id in a `Location` of the form: `<base>/templates/<id>?saved=document`.
fn template_in(location: &str, base: &str) -> i64 {
    let rest = location
        .strip_prefix(&format!("{base}/templates/"))
        .unwrap_or_else(|| panic!("not a template's page: {location}"));
    let (id, query) = rest.split_once('?').unwrap();
    assert_eq!(query, "saved=document");
    id.parse().unwrap()
}

/// A lease of `api`: two recipients in order, every meta value set, the 3-page PDF, a
/// signature and a labelled, required text field for Ann, a signature for Cid; sent, and Ann's
/// text filled in. Its id.
async fn filled_lease(app: &TestApp, api: &Api) -> i64 {
    let made = api
        .create_document(json!({
            "title": "Lease: Flat 2",
            "externalId": "lease-2",
            "recipients": [
                {"name": "Ann Tenant", "email": "ann@example.com", "role": "SIGNER", "signingOrder": 1},
                {"name": "Cid Agent", "email": "cid@example.com", "role": "SIGNER", "signingOrder": 2}
            ],
            "meta": {"subject": "Your lease", "message": "Please sign, {signer.name}.",
                     "timezone": "Europe/Paris", "dateFormat": "dd/MM/yyyy",
                     "redirectUrl": "https://example.com/thanks", "signingOrder": "SEQUENTIAL",
                     "language": "de"}
        }))
        .await;
    let id = made.document_id();
    api.upload_ok(made.upload_url(), fixture("mixed-sizes-3p.pdf"))
        .await;
    let (ann, cid) = (made.recipient_id(0), made.recipient_id(1));
    api.add_fields(
        id,
        json!([
            {"recipientId": ann, "type": "SIGNATURE", "pageNumber": 1, "pageX": 10, "pageY": 70, "pageWidth": 30, "pageHeight": 6},
            {"recipientId": ann, "type": "TEXT", "pageNumber": 2, "pageX": 12.5, "pageY": 20.25, "pageWidth": 40, "pageHeight": 4,
             "fieldMeta": {"type": "text", "label": "Flat", "required": true, "characterLimit": 20}},
            {"recipientId": cid, "type": "SIGNATURE", "pageNumber": 3, "pageX": 60, "pageY": 80, "pageWidth": 30, "pageHeight": 6}
        ]),
    )
    .await;
    let (s, v) = api.send(id).await;
    assert_eq!(s, 200, "{v}");
    let doc = api.document(id).await;
    let token = doc["recipients"][0]["token"].as_str().unwrap().to_string();
    let text = doc["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["type"] == "TEXT")
        .unwrap()["id"]
        .as_i64()
        .unwrap();
    let (s, v) = app
        .signer(&token)
        .fill(text, json!({"value": "Flat 2, 1st floor"}))
        .await;
    assert_eq!(s, 200, "{v}");
    id
}

/// What of a field a template keeps: its recipient's place in the list, type, page, box and
/// settings (a document's and a template's fields name these alike).
fn shape(fields: &Value, recipients: &Value) -> Vec<Value> {
    let place = |rid: &Value| {
        recipients
            .as_array()
            .unwrap()
            .iter()
            .position(|r| r["id"] == *rid)
            .unwrap()
    };
    let mut out: Vec<Value> = fields
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            json!([
                place(&f["recipientId"]),
                f["type"],
                f["page"],
                f["positionX"],
                f["positionY"],
                f["width"],
                f["height"],
                f["fieldMeta"]
            ])
        })
        .collect();
    out.sort_by_key(|v| v.to_string());
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_document_saved_as_a_template_keeps_its_parts_and_shares_its_file() {
    let app = TestApp::spawn().await;
    let d = app.data_dir();
    add_account(&d, "ada@example.com", "Ada");
    add_account(&d, "bob@example.com", "Bob");
    let api = app.api(
        create_api_key(&d, "ada@example.com")["key"]
            .as_str()
            .unwrap(),
    );
    let ada = browser(&app, "ada@example.com").await;
    let bob = browser(&app, "bob@example.com").await;
    let id = filled_lease(&app, &api).await;
    let doc = api.document(id).await;
    assert_eq!(stored_blob_ids(&d).len(), 1);

    // The button is on the document's page, beside the downloads, with the page's token.
    let (s, _, html) =
        crate::support::login::page(&app, &format!("/documents/{id}"), Some(&ada.cookie)).await;
    assert_eq!(s, 200);
    assert!(
        html.contains(&format!(
            r#"<form method="post" action="/documents/{id}/template""#
        )) && html.contains(&format!(r#"name="csrf_token" value="{}""#, ada.csrf))
            && html.contains(">Save as template</button>"),
        "{html}"
    );

    // Another user: 404, on the page and by the API, and nothing is made.
    let (s, _, html) = save_form(&app, &bob, &format!("/documents/{id}/template")).await;
    assert_eq!(s, 404, "{html}");
    let bob_api = app.api(
        create_api_key(&d, "bob@example.com")["key"]
            .as_str()
            .unwrap(),
    );
    let (s, v) = bob_api
        .post(&format!("/api/v1/documents/{id}/template"), json!({}))
        .await;
    assert_eq!((s, v["code"].as_str()), (404, Some("not_found")), "{v}");
    // A form without the page's token changes nothing either.
    let resp = app
        .client
        .post(app.url(&format!("/documents/{id}/template")))
        .header("cookie", &ada.cookie)
        .form(&[("csrf_token", "forged")])
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 403);
    let (_, list) = api.get("/api/v1/templates").await;
    assert_eq!(list["templates"], json!([]), "nothing made: {list}");

    // Ada's form: 303 to the new template's page, which says where it came from.
    let (s, location, _) = save_form(&app, &ada, &format!("/documents/{id}/template")).await;
    assert_eq!(s, 303);
    let tid = template_in(&location, "");
    let (s, _, html) = crate::support::login::page(&app, &location, Some(&ada.cookie)).await;
    assert_eq!(s, 200);
    assert!(
        html.contains("Saved as a template from the document"),
        "{html}"
    );
    let (_, _, plain) =
        crate::support::login::page(&app, &format!("/templates/{tid}"), Some(&ada.cookie)).await;
    assert!(!plain.contains("Saved as a template from the document"));

    let (s, t) = api.get(&format!("/api/v1/templates/{tid}")).await;
    assert_eq!(s, 200, "{t}");
    assert_eq!(t["title"], "Lease: Flat 2");
    assert_eq!(t["externalId"], Value::Null);
    assert_eq!(t["type"], "PRIVATE");
    assert_eq!(t["directLink"]["enabled"], false);
    let meta = &t["templateMeta"];
    for (key, want) in [
        ("subject", "Your lease"),
        ("message", "Please sign, {signer.name}."),
        ("timezone", "Europe/Paris"),
        ("dateFormat", "dd/MM/yyyy"),
        ("redirectUrl", "https://example.com/thanks"),
        ("signingOrder", "SEQUENTIAL"),
        ("language", "de"),
    ] {
        assert_eq!(meta[key], want, "{key}: {meta}");
        assert_eq!(doc["meta"][key], want, "the document's {key}");
    }
    let people: Vec<Value> = t["Recipient"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| json!([r["name"], r["email"], r["role"], r["signingOrder"]]))
        .collect();
    assert_eq!(
        people,
        [
            json!(["Ann Tenant", "ann@example.com", "SIGNER", 1]),
            json!(["Cid Agent", "cid@example.com", "SIGNER", 2])
        ]
    );
    let old: Vec<i64> = doc["recipients"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect();
    assert!(
        t["Recipient"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| !old.contains(&r["id"].as_i64().unwrap())),
        "the template's own recipients"
    );
    assert_eq!(
        shape(&t["Field"], &t["Recipient"]),
        shape(&doc["fields"], &doc["recipients"]),
        "every field, on the same recipient, page, place and settings"
    );
    // The same file: no new one stored, the same digest.
    assert_eq!(stored_blob_ids(&d).len(), 1, "the document's file, shared");
    let digest: String = app
        .db()
        .query_row(
            "SELECT b.sha256 FROM documents d JOIN blobs b ON b.id = d.blob_id WHERE d.id = ?1",
            [id],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(t["templateDocumentData"]["data"], digest);

    // A document made from it has the fields without the value Ann typed.
    let rids: Vec<i64> = t["Recipient"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect();
    let (s, made) = api
        .post(
            &format!("/api/v1/templates/{tid}/generate-document"),
            json!({"recipients": [{"id": rids[0], "name": "Ben", "email": "ben@example.com"}]}),
        )
        .await;
    assert_eq!(s, 200, "{made}");
    let copy = api.document(made["documentId"].as_i64().unwrap()).await;
    assert_eq!(copy["fields"].as_array().unwrap().len(), 3);
    assert!(
        copy["fields"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["inserted"] == false && f["customText"].as_str().unwrap_or("").is_empty()),
        "no value carried: {copy}"
    );
    assert!(!copy.to_string().contains("1st floor"));

    // By the API too: the same answer's shape, another template.
    let (s, by_api) = api
        .post(&format!("/api/v1/documents/{id}/template"), json!({}))
        .await;
    assert_eq!(s, 200, "{by_api}");
    assert_ne!(by_api["id"].as_i64().unwrap(), tid);
    assert_eq!(by_api["Field"].as_array().unwrap().len(), 3);
    assert_eq!(stored_blob_ids(&d).len(), 1);

    // A draft saved as a template, then deleted: its file stays for the template, which still
    // shows its pages and makes documents; the template deleted too, the file goes.
    let draft = api
        .create_document(json!({"title": "Draft NDA", "recipients": [
            {"name": "Dee", "email": "dee@example.com", "role": "SIGNER"}]}))
        .await;
    let did = draft.document_id();
    api.upload_ok(draft.upload_url(), fixture("a4-1p.pdf"))
        .await;
    assert_eq!(stored_blob_ids(&d).len(), 2);
    let (s, location, _) = save_form(&app, &ada, &format!("/documents/{did}/template")).await;
    assert_eq!(s, 303);
    let from_draft = template_in(&location, "");
    assert_eq!(api.delete(&format!("/api/v1/documents/{did}")).await.0, 200);
    assert_eq!(api.get(&format!("/api/v1/documents/{did}")).await.0, 404);
    assert_eq!(stored_blob_ids(&d).len(), 2, "the template keeps the file");
    let png = app
        .client
        .get(app.url(&format!("/templates/{from_draft}/pages/1.png?w=800")))
        .header("cookie", &ada.cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(png.status(), 200);
    let dee = api.get(&format!("/api/v1/templates/{from_draft}")).await.1["Recipient"][0]["id"]
        .as_i64()
        .unwrap();
    let (s, made) = api
        .post(
            &format!("/api/v1/templates/{from_draft}/generate-document"),
            json!({"recipients": [{"id": dee, "name": "Eve", "email": "eve@example.com"}]}),
        )
        .await;
    assert_eq!(s, 200, "{made}");
    let made = made["documentId"].as_i64().unwrap();
    assert_eq!(api.original(made).await, fixture("a4-1p.pdf"));
    assert_eq!(
        api.delete(&format!("/api/v1/documents/{made}")).await.0,
        200
    );
    assert_eq!(
        api.delete(&format!("/api/v1/templates/{from_draft}"))
            .await
            .0,
        200
    );
    assert_eq!(
        stored_blob_ids(&d).len(),
        1,
        "nothing refers to the draft's file any more"
    );

    // The other way: the templates deleted, the lease keeps its file.
    for t in [tid, by_api["id"].as_i64().unwrap()] {
        assert_eq!(api.delete(&format!("/api/v1/templates/{t}")).await.0, 200);
    }
    assert_eq!(stored_blob_ids(&d).len(), 1);
    assert_eq!(api.original(id).await, fixture("mixed-sizes-3p.pdf"));
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_a_team_the_template_is_the_teams_and_each_role_gets_what_it_may() {
    let app = TestApp::spawn().await;
    let d = app.data_dir();
    docket_json(
        &d,
        &[
            "user",
            "add",
            "ada@example.com",
            "--name",
            "Ada",
            "--tier",
            "enterprise",
            "--password-stdin",
        ],
        Some(&format!("{PASSWORD}\n")),
    );
    add_account(&d, "bob@example.com", "Bob");
    add_account(&d, "dan@example.com", "Dan");
    let team = docket_json(
        &d,
        &[
            "team",
            "create",
            "Sales",
            "--slug",
            "sales",
            "--admin",
            "ada@example.com",
        ],
        None,
    );
    docket_json(&d, &["team", "add", "sales", "bob@example.com"], None);
    let (ada, bob, dan) = (
        browser(&app, "ada@example.com").await,
        browser(&app, "bob@example.com").await,
        browser(&app, "dan@example.com").await,
    );
    // Documents of the team, made on its pages by Ada: one for everyone, one for its admins,
    // one asking every signer for a passkey (an enterprise account's option).
    let make = |body: Value| {
        let (app, ada) = (&app, &ada);
        async move {
            let resp = app
                .client
                .post(app.url("/api/v1/documents"))
                .header("cookie", &ada.cookie)
                .header("x-csrf-token", &ada.csrf)
                .header("x-docket-workspace", "sales")
                .json(&body)
                .send()
                .await
                .unwrap();
            assert_eq!(resp.status(), 200);
            resp.json::<Value>().await.unwrap()["documentId"]
                .as_i64()
                .unwrap()
        }
    };
    let signer = json!([{"name": "Ann", "email": "ann@example.com", "role": "SIGNER"}]);
    let open = make(json!({"title": "Team NDA", "recipients": signer})).await;
    let secret =
        make(json!({"title": "Board pack", "recipients": signer, "visibility": "ADMIN"})).await;
    let guarded = make(json!({"title": "Guarded", "recipients": signer,
        "authOptions": {"globalActionAuth": ["PASSKEY"]}}))
    .await;

    // Bob, a member: the open one is his to save, in the team, seen by everyone.
    let (s, location, html) =
        save_form(&app, &bob, &format!("/t/sales/documents/{open}/template")).await;
    assert_eq!(s, 303, "{html}");
    let tid = template_in(&location, "/t/sales");
    let (s, v) = call(
        &app,
        Method::GET,
        &format!("/api/v1/templates/{tid}"),
        Some(&ada.cookie),
        Some(&ada.csrf),
        None,
    )
    .await;
    assert_eq!(s, 404, "a team's template is not Ada's personal one: {v}");
    let team_api = app.api(
        docket_json(
            &d,
            &[
                "apikey",
                "create",
                "--user",
                "ada@example.com",
                "--team",
                "sales",
            ],
            None,
        )["key"]
            .as_str()
            .unwrap(),
    );
    let (s, t) = team_api.get(&format!("/api/v1/templates/{tid}")).await;
    assert_eq!(s, 200, "{t}");
    assert_eq!(t["teamId"], team["id"]);
    assert_eq!(t["userId"].as_i64(), Some(2), "made by Bob: {t}");
    let (s, html) = {
        let (s, _, html) = crate::support::login::page(&app, &location, Some(&bob.cookie)).await;
        (s, html)
    };
    assert_eq!(s, 200);
    assert!(html.contains("Team NDA"), "{html}");
    // Under his personal address the team's document is not there.
    let (s, _, _) = save_form(&app, &bob, &format!("/documents/{open}/template")).await;
    assert_eq!(s, 404);

    // The admins' document: 404 for Bob; Ada's template of it is seen by admins only.
    let (s, _, _) = save_form(&app, &bob, &format!("/t/sales/documents/{secret}/template")).await;
    assert_eq!(s, 404);
    let (s, location, _) =
        save_form(&app, &ada, &format!("/t/sales/documents/{secret}/template")).await;
    assert_eq!(s, 303);
    let admins = template_in(&location, "/t/sales");
    let visibility: String = app
        .db()
        .query_row(
            "SELECT visibility FROM templates WHERE id = ?1",
            [admins],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(visibility, "ADMIN");
    let (s, _, _) = crate::support::login::page(
        &app,
        &format!("/t/sales/templates/{admins}"),
        Some(&bob.cookie),
    )
    .await;
    assert_eq!(s, 404);

    // A passkey asked of every signer: Bob's standard account may not put that in a template
    // (403, saying why); Ada's enterprise one may.
    let (s, _, html) = save_form(
        &app,
        &bob,
        &format!("/t/sales/documents/{guarded}/template"),
    )
    .await;
    assert_eq!(s, 403, "{html}");
    assert!(
        html.contains("this document cannot be saved as a template by this account")
            && html.contains("enterprise-tier accounts"),
        "{html}"
    );
    let (s, location, _) = save_form(
        &app,
        &ada,
        &format!("/t/sales/documents/{guarded}/template"),
    )
    .await;
    assert_eq!(s, 303);
    let (_, t) = team_api
        .get(&format!(
            "/api/v1/templates/{}",
            template_in(&location, "/t/sales")
        ))
        .await;
    assert_eq!(t["title"], "Guarded");

    // Dan, outside the team: 404 under the team's address and his own.
    for path in [
        format!("/t/sales/documents/{open}/template"),
        format!("/documents/{open}/template"),
    ] {
        let (s, _, _) = save_form(&app, &dan, &path).await;
        assert_eq!(s, 404, "{path}");
    }
    let count: i64 = app
        .db()
        .query_row("SELECT count(*) FROM templates", [], |r| r.get(0))
        .unwrap();
    assert_eq!(count, 3, "Bob's, and Ada's two");
    app.stop().await;
}
