//! The web application's template pages over HTTP: the list (empty, then with its rows), the
//! new-template upload page, the editor over a template, the details page with the ids, the
//! page images, and the Use form, which makes a document through the same use case as
//! `generate-document` (sent, or a draft; a refusal shown next to what it names). Another
//! user's template is a 404 on every page.

use reqwest::Method;
use serde_json::{Value, json};

use crate::support::TestApp;
use crate::support::api::fixture;
use crate::support::login::{Browser, add_account, answer_of, browser, call, page};

/// A GET of a page with `cookie`: status and body.
async fn get(app: &TestApp, path: &str, cookie: &str) -> (u16, String) {
    let (status, _, body) = page(app, path, Some(cookie)).await;
    (status, body)
}

/// The Use form posted as `b`: status, `Location` and body.
async fn use_form(
    app: &TestApp,
    b: &Browser,
    id: i64,
    fields: &[(String, String)],
) -> (u16, String, String) {
    let mut form = fields.to_vec();
    form.push(("csrf_token".into(), b.csrf.clone()));
    let resp = app
        .client
        .post(app.url(&format!("/templates/{id}/use")))
        .header("cookie", &b.cookie)
        .form(&form)
        .send()
        .await
        .unwrap();
    answer_of(resp).await
}

/// A template of `b` from the 3-page PDF: a placeholder "Tenant" and "Agency" with an address,
/// a signature field each and a text field labelled "Flat" for the tenant.
async fn lease(app: &TestApp, b: &Browser) -> (i64, Vec<i64>, i64) {
    let (c, t) = (Some(b.cookie.as_str()), Some(b.csrf.as_str()));
    let resp = app
        .client
        .post(app.url("/api/v1/templates/upload"))
        .query(&[("title", "Lease")])
        .header("cookie", &b.cookie)
        .header("x-csrf-token", &b.csrf)
        .header("content-type", "application/pdf")
        .body(fixture("mixed-sizes-3p.pdf"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let id = resp.json::<Value>().await.unwrap()["templateId"]
        .as_i64()
        .unwrap();
    let mut rids = Vec::new();
    for body in [
        json!({"name": "Tenant", "role": "SIGNER"}),
        json!({"name": "Agency", "email": "agency@example.com", "role": "SIGNER"}),
    ] {
        let path = format!("/api/v1/templates/{id}/recipients");
        let (s, r) = call(app, Method::POST, &path, c, t, Some(body)).await;
        assert_eq!(s, 200, "{r}");
        rids.push(r["id"].as_i64().unwrap());
    }
    let place = |rid: i64, kind: &str, y: i64, meta: Value| json!({"recipientId": rid, "type": kind, "pageNumber": 1, "pageX": 10, "pageY": y, "pageWidth": 30, "pageHeight": 6, "fieldMeta": meta});
    let body = json!([
        place(rids[0], "SIGNATURE", 70, json!({"type": "signature"})),
        place(rids[1], "SIGNATURE", 80, json!({"type": "signature"})),
        place(
            rids[0],
            "TEXT",
            20,
            json!({"type": "text", "label": "Flat"})
        ),
    ]);
    let path = format!("/api/v1/templates/{id}/fields");
    let (s, added) = call(app, Method::POST, &path, c, t, Some(body)).await;
    assert_eq!(s, 200, "{added}");
    let text = added["fields"][2]["id"].as_i64().unwrap();
    (id, rids, text)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pages_list_show_and_use_a_template_and_hide_it_from_others() {
    let app = TestApp::spawn().await;
    let d = app.data_dir();
    add_account(&d, "ada@example.com", "Ada");
    add_account(&d, "bob@example.com", "Bob");
    let ada = browser(&app, "ada@example.com").await;
    let bob = browser(&app, "bob@example.com").await;

    let (s, html) = get(&app, "/templates", &ada.cookie).await;
    assert_eq!(s, 200);
    assert!(html.contains("Make your first template"), "{html}");
    assert!(html.contains(r#"href="/templates" aria-current="page""#));
    let (s, html) = get(&app, "/templates/new", &ada.cookie).await;
    assert_eq!(s, 200);
    assert!(html.contains(r#"data-endpoint="/api/v1/templates/upload""#));

    let (id, rids, text) = lease(&app, &ada).await;
    let (s, html) = get(&app, "/templates", &ada.cookie).await;
    assert_eq!(s, 200);
    for expected in [
        "Lease",
        "Tenant",
        "agency@example.com",
        &format!(r#"href="/templates/{id}/use""#),
        &format!(r#"href="/templates/{id}/edit""#),
    ] {
        assert!(html.contains(expected), "{expected} missing:\n{html}");
    }
    let (s, html) = get(&app, &format!("/templates/{id}"), &ada.cookie).await;
    assert_eq!(s, 200);
    for expected in [
        format!(r#"id="template-id" value="{id}""#),
        format!(r#"id="rid-{}" value="{}""#, rids[0], rids[0]),
        format!(r#"id="rid-{}" value="{}""#, rids[1], rids[1]),
        "E-mail given when the template is used".into(),
        "Page 3 of 3".into(),
        "Delete this template?".into(),
    ] {
        assert!(html.contains(&expected), "{expected} missing:\n{html}");
    }
    let (s, html) = get(
        &app,
        &format!("/templates/{id}/edit?step=review"),
        &ada.cookie,
    )
    .await;
    assert_eq!(s, 200);
    assert!(html.contains("Save template") && html.contains(r#"data-kind="template""#));
    let png = app
        .client
        .get(app.url(&format!("/templates/{id}/pages/2.png?w=800")))
        .header("cookie", &ada.cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(png.status(), 200);
    let (s, html) = get(&app, &format!("/templates/{id}/use"), &ada.cookie).await;
    assert_eq!(s, 200);
    assert!(
        html.contains(r#"value="agency@example.com""#),
        "pre-filled: {html}"
    );
    assert!(html.contains("Text “Flat” for Tenant, page 1"), "{html}");

    // Another user: every page and image a 404, and the form refused the same.
    for path in ["", "/edit", "/use", "/pages/1.png"] {
        let (s, _) = get(&app, &format!("/templates/{id}{path}"), &bob.cookie).await;
        assert_eq!(s, 404, "/templates/{id}{path}");
    }
    let (s, _, _) = use_form(&app, &bob, id, &[("action".into(), "send".into())]).await;
    assert_eq!(s, 404);

    // A refusal is shown next to what it names; nothing is made.
    let name = |r: i64, what: &str, v: &str| (format!("r{r}_{what}"), v.to_string());
    let bad = [
        ("title".into(), "Lease: Flat 3".into()),
        name(rids[0], "name", "Tom"),
        name(rids[0], "email", "not an address"),
        ("action".into(), "send".into()),
    ];
    let (s, _, html) = use_form(&app, &ada, id, &bad).await;
    assert_eq!(s, 400, "{html}");
    assert!(
        html.contains(&format!(r#"id="r{}_email-error""#, rids[0])),
        "{html}"
    );
    assert!(html.contains(r#"value="Lease: Flat 3""#), "kept: {html}");
    let docs: i64 = app
        .db()
        .query_row("SELECT count(*) FROM documents", [], |r| r.get(0))
        .unwrap();
    assert_eq!(docs, 0);

    // Sent: the document page; its fields and the prefilled value came from the template.
    let good = [
        ("title".into(), "Lease: Flat 3".into()),
        name(rids[0], "name", "Tom"),
        name(rids[0], "email", "tom@example.com"),
        name(rids[1], "name", "Agency"),
        name(rids[1], "email", "agency@example.com"),
        (format!("f{text}"), "Flat 3".into()),
        ("action".into(), "send".into()),
    ];
    let (s, location, _) = use_form(&app, &ada, id, &good).await;
    assert_eq!(s, 303);
    let doc: i64 = location
        .strip_prefix("/documents/")
        .and_then(|d| d.parse().ok())
        .unwrap_or_else(|| panic!("{location}"));
    let (c, t) = (Some(ada.cookie.as_str()), Some(ada.csrf.as_str()));
    let path = format!("/api/v1/documents/{doc}");
    let (_, v) = call(&app, Method::GET, &path, c, t, None).await;
    assert_eq!(
        (v["status"].as_str(), v["title"].as_str()),
        (Some("PENDING"), Some("Lease: Flat 3"))
    );
    assert_eq!(v["fields"].as_array().unwrap().len(), 3);
    assert!(
        v["fields"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["customText"] == "Flat 3"),
        "{v}"
    );

    // A draft: its editor.
    let draft = [
        name(rids[0], "email", "sam@example.com"),
        ("action".into(), "draft".into()),
    ];
    let (s, location, _) = use_form(&app, &ada, id, &draft).await;
    assert_eq!(s, 303);
    assert!(
        location.starts_with("/documents/") && location.ends_with("/edit"),
        "{location}"
    );
}

/// The Use page's title says whose document it is: "<template> – <first recipient's name>",
/// filled in when the page opens with a name, and made by the server when the title is posted
/// as the page offered it (the template's title, or with the name it offered); a title typed
/// stays. The API's `generate-document` keeps the template's title unless given one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_use_pages_title_names_the_first_recipient() {
    let app = TestApp::spawn().await;
    let d = app.data_dir();
    add_account(&d, "ada@example.com", "Ada");
    let ada = browser(&app, "ada@example.com").await;
    let api = app.api(
        crate::support::api::create_api_key(&d, "ada@example.com")["key"]
            .as_str()
            .unwrap(),
    );
    let lease = api
        .create_template(json!({"title": "Lease", "recipients": [
            {"name": "Ann Agent", "email": "ann@example.com", "role": "SIGNER"},
            {"name": "Tenant", "role": "SIGNER"}]}))
        .await;
    let id = lease.template_id();
    api.upload_ok(lease.upload_url(), fixture("a4-1p.pdf"))
        .await;
    let (first, second) = (lease.recipient_id(0), lease.recipient_id(1));

    // Opened: the known name is in the title; the box follows the first name box; the hint
    // says what a title left as offered becomes.
    let (s, html) = get(&app, &format!("/templates/{id}/use"), &ada.cookie).await;
    assert_eq!(s, 200);
    for expected in [
        r#"id="title" name="title" value="Lease – Ann Agent""#.to_string(),
        r#"data-base="Lease""#.into(),
        format!(r#"data-follows="r{first}_name""#),
        "Left as offered, it follows the name given for Ann Agent: “Lease – &lt;name&gt;”.".into(),
        "/js/template-use.js".into(),
    ] {
        assert!(html.contains(&expected), "{expected} missing:\n{html}");
    }

    // Posted as offered, or as the template's title: the name typed is in the title; a title
    // typed stays as it is.
    let mut titles = Vec::new();
    for (title, name) in [
        ("Lease – Ann Agent", "Bea Buyer"),
        ("Lease", "Cy Client"),
        ("  Lease  ", "Dee Doe"),
        ("Our lease", "Eve Evans"),
        ("Lease – Someone", "Fay Fox"),
    ] {
        let form = [
            ("title".to_string(), title.to_string()),
            (format!("r{first}_name"), name.to_string()),
            (format!("r{first}_email"), "buyer@example.com".to_string()),
            (format!("r{second}_name"), "Tom".to_string()),
            (format!("r{second}_email"), "tom@example.com".to_string()),
            ("action".to_string(), "draft".to_string()),
        ];
        let (s, location, html) = use_form(&app, &ada, id, &form).await;
        assert_eq!(s, 303, "{html}");
        let doc = location
            .strip_prefix("/documents/")
            .and_then(|r| r.strip_suffix("/edit"))
            .unwrap_or_else(|| panic!("{location}"));
        titles.push(api.document(doc.parse().unwrap()).await["title"].clone());
    }
    assert_eq!(
        titles,
        [
            "Lease – Bea Buyer",
            "Lease – Cy Client",
            "Lease – Dee Doe",
            "Our lease",
            "Lease – Someone"
        ]
    );

    // A refused form keeps the title as it will be made.
    let refused = [
        ("title".to_string(), "Lease".to_string()),
        (format!("r{first}_name"), "Gil".to_string()),
        (format!("r{first}_email"), "not an address".to_string()),
    ];
    let (s, _, html) = use_form(&app, &ada, id, &refused).await;
    assert_eq!(s, 400, "{html}");
    assert!(html.contains(r#"value="Lease – Gil""#), "{html}");

    // The first recipient a role without a name yet: the template's title until one is given.
    let role = api
        .create_template(
            json!({"title": "NDA", "recipients": [{"name": "Party", "role": "SIGNER"}]}),
        )
        .await;
    let (s, html) = get(
        &app,
        &format!("/templates/{}/use", role.template_id()),
        &ada.cookie,
    )
    .await;
    assert_eq!(s, 200);
    assert!(
        html.contains(r#"id="title" name="title" value="NDA""#),
        "{html}"
    );

    // The API: the template's title unless the request gives one.
    let (s, made) = api
        .post(
            &format!("/api/v1/templates/{id}/generate-document"),
            json!({"recipients": [{"id": second, "name": "Hal", "email": "hal@example.com"}]}),
        )
        .await;
    assert_eq!(s, 200, "{made}");
    let doc = api.document(made["documentId"].as_i64().unwrap()).await;
    assert_eq!(doc["title"], "Lease");
}
