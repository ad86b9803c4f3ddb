//! Link attachments through the real server: the editor's Settings step, the document page and
//! the attachments page add, change and remove a document's or template's links with forms
//! (the page's CSRF token), refusing what is not an http(s) link, an empty label and one link
//! too many with a 400 that says why; another user's document, template or attachment is a 404.
//! The signing page shows a sent document's links (a new tab, no referrer, the host they go
//! to); once the document is finished they no longer change. A template's links are copied
//! into the documents made from it and into its duplicate, and a document's (even ones given to
//! `POST /api/v1/documents`, which its meta lists) into the template saved from it.

use serde_json::{Value, json};

use crate::settings_tokens::page;
use crate::support::TestApp;
use crate::support::api::{Api, create_api_key, fixture};
use crate::support::login::{Browser, add_account, answer_of, browser};

/// Ada (API key and browser) and Bob (browser), each with an account.
async fn two_users(app: &TestApp) -> (Api, Browser, Browser) {
    let d = app.data_dir();
    add_account(&d, "ada@example.com", "Ada");
    add_account(&d, "bob@example.com", "Bob");
    let api = app.api(
        create_api_key(&d, "ada@example.com")["key"]
            .as_str()
            .unwrap(),
    );
    let ada = browser(app, "ada@example.com").await;
    let bob = browser(app, "bob@example.com").await;
    (api, ada, bob)
}

/// A draft of `api` with the one-page PDF, one signer and their signature field, made with
/// `body`'s extra members: (id, the signer's token, the field's id).
async fn draft(api: &Api, extra: Value) -> (i64, String, i64) {
    let mut body = json!({"title": "Lease", "recipients": [
        {"name": "Ann Signer", "email": "ann@example.com", "role": "SIGNER"}]});
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    let made = api.create_document(body).await;
    let id = made.document_id();
    api.upload_ok(made.upload_url(), fixture("a4-1p.pdf")).await;
    let field = api
        .add_fields(
            id,
            json!([{"recipientId": made.recipient_id(0), "type": "SIGNATURE", "pageNumber": 1,
                     "pageX": 10, "pageY": 70, "pageWidth": 30, "pageHeight": 6}]),
        )
        .await[0];
    (id, made.token(0), field)
}

/// A form posted as `who` at `path`: status, `Location` and body.
async fn post(
    app: &TestApp,
    who: &Browser,
    path: &str,
    fields: &[(&str, &str)],
) -> (u16, String, String) {
    let mut form: Vec<(&str, &str)> = fields.to_vec();
    form.push(("csrf_token", &who.csrf));
    let resp = app
        .client
        .post(app.url(path))
        .header("cookie", &who.cookie)
        .form(&form)
        .send()
        .await
        .unwrap();
    answer_of(resp).await
}

/// The attachment ids a page lists, in its order.
fn ids(html: &str) -> Vec<String> {
    html.match_indices(r#"<li class="attachment" id="attachment-"#)
        .map(|(i, m)| {
            let rest = &html[i + m.len()..];
            rest[..rest.find('"').unwrap()].to_string()
        })
        .collect()
}

/// The `meta.attachments` of the API's document `id`: `[label, data]` each.
async fn listed(api: &Api, id: i64) -> Vec<(String, String)> {
    let doc = api.document(id).await;
    doc["meta"]["attachments"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|x| {
                    assert_eq!(x["type"], "link", "{x}");
                    (
                        x["label"].as_str().unwrap().to_string(),
                        x["data"].as_str().unwrap().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn pair(label: &str, url: &str) -> (String, String) {
    (label.to_string(), url.to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_documents_links_are_edited_in_its_pages_and_shown_to_its_recipient() {
    let app = TestApp::spawn().await;
    let (api, ada, bob) = two_users(&app).await;
    let (id, token, field) = draft(&api, json!({})).await;
    let base = format!("/documents/{id}/attachments");

    // The editor's Settings step has the section, its add form with the page's token.
    let (s, editor) = page(&app, &ada, &format!("/documents/{id}/edit?step=settings")).await;
    assert_eq!(s, 200);
    assert!(
        editor.contains(r#"id="attachments""#)
            && editor.contains(&format!(
                r#"<form method="post" action="{base}" class="stack tight attachment-add""#
            ))
            && editor.contains(&format!(r#"name="csrf_token" value="{}""#, ada.csrf))
            && editor.contains("No attachments."),
        "{editor}"
    );
    // Other steps do not load it.
    let (_, fields_step) = page(&app, &ada, &format!("/documents/{id}/edit?step=fields")).await;
    assert!(!fields_step.contains(r#"id="attachments""#));

    // Added from the editor: back to it.
    let (s, to, html) = post(
        &app,
        &ada,
        &base,
        &[
            ("label", " Terms "),
            ("url", "HTTPS://Example.COM/terms"),
            ("back", "editor"),
        ],
    )
    .await;
    assert_eq!(
        (s, to.as_str()),
        (
            303,
            format!("/documents/{id}/edit?step=settings#attachments").as_str()
        ),
        "{html}"
    );
    assert_eq!(
        listed(&api, id).await,
        [pair("Terms", "https://example.com/terms")]
    );

    // What is not an http(s) link, or no label: 400 on the attachments page, saying why, the
    // values as typed; nothing is added.
    for (label, url, field_id, why) in [
        (
            "Evil",
            "javascript:alert(1)",
            "attachment-url",
            "http or https",
        ),
        (
            "Data",
            "data:text/html,<b>x</b>",
            "attachment-url",
            "http or https",
        ),
        (
            "Ftp",
            "ftp://example.com/f",
            "attachment-url",
            "http or https",
        ),
        (
            "Creds",
            "https://user:pw@example.com/",
            "attachment-url",
            "credentials",
        ),
        (
            "",
            "https://example.com/x",
            "attachment-label",
            "1 to 255 characters",
        ),
        (
            &"L".repeat(256),
            "https://example.com/x",
            "attachment-label",
            "1 to 255 characters",
        ),
    ] {
        let (s, _, html) = post(
            &app,
            &ada,
            &base,
            &[("label", label), ("url", url), ("back", "editor")],
        )
        .await;
        assert_eq!(s, 400, "{url}: {html}");
        assert!(
            html.contains(&format!(r#"<p class="error-text" id="{field_id}-error">"#)),
            "{url}: {html}"
        );
        assert!(html.contains(why), "{url}: {why} in {html}");
        assert!(html.contains(r#"aria-invalid="true""#));
        assert!(html.contains("Attachments of “Lease”"));
    }
    assert_eq!(listed(&api, id).await.len(), 1, "nothing added");
    let (_, html) = page(&app, &ada, &base).await;
    let first = ids(&html);
    assert_eq!(first.len(), 1);
    assert!(
        first[0].starts_with("att_") && first[0].len() == 28,
        "{first:?}"
    );

    // Changed (back to the attachments page), then a refused change names the field.
    let one = format!("{base}/{}", first[0]);
    let (s, to, _) = post(
        &app,
        &ada,
        &one,
        &[
            ("label", "Terms v2"),
            ("url", "https://docs.example.org/t?v=2"),
        ],
    )
    .await;
    assert_eq!((s, to.as_str()), (303, base.as_str()));
    assert_eq!(
        listed(&api, id).await,
        [pair("Terms v2", "https://docs.example.org/t?v=2")]
    );
    let (s, _, html) = post(
        &app,
        &ada,
        &one,
        &[
            ("label", "Terms v3"),
            ("url", "vbscript:x"),
            ("back", "editor"),
        ],
    )
    .await;
    assert_eq!(s, 400);
    assert!(
        html.contains(&format!(r#"id="url-{}-error""#, first[0]))
            && html.contains(r#"value="Terms v3""#),
        "{html}"
    );
    assert_eq!(listed(&api, id).await[0].0, "Terms v2");

    // At most ten: the eleventh is a 400 that says so, and the form gives way to the sentence.
    for n in 2..=10 {
        let url = format!("https://example.com/{n}");
        let label = format!("Link {n}");
        let (s, _, _) = post(&app, &ada, &base, &[("label", &label), ("url", &url)]).await;
        assert_eq!(s, 303);
    }
    let (s, _, html) = post(
        &app,
        &ada,
        &base,
        &[("label", "Eleven"), ("url", "https://example.com/11")],
    )
    .await;
    assert_eq!(s, 400, "{html}");
    assert!(html.contains("at most 10 attachments"), "{html}");
    assert!(html.contains(r#"id="attachments-full""#));
    assert_eq!(listed(&api, id).await.len(), 10);

    // Removed, in order kept.
    let (_, html) = page(&app, &ada, &base).await;
    let all = ids(&html);
    for gone in &all[1..8] {
        let (s, _, _) = post(
            &app,
            &ada,
            &format!("{base}/{gone}/delete"),
            &[("back", "page")],
        )
        .await;
        assert_eq!(s, 303);
    }
    let left = listed(&api, id).await;
    assert_eq!(
        left.iter().map(|(l, _)| l.as_str()).collect::<Vec<_>>(),
        ["Terms v2", "Link 9", "Link 10"]
    );

    // Bob reaches none of it: the page, the forms, Ada's attachment under his own document.
    let (s, _) = page(&app, &bob, &base).await;
    assert_eq!(s, 404);
    let (s, _, _) = post(
        &app,
        &bob,
        &base,
        &[("label", "Mine"), ("url", "https://bob.example/")],
    )
    .await;
    assert_eq!(s, 404);
    for path in [one.clone(), format!("{one}/delete")] {
        let (s, _, _) = post(
            &app,
            &bob,
            &path,
            &[("label", "Mine"), ("url", "https://bob.example/")],
        )
        .await;
        assert_eq!(s, 404, "{path}");
    }
    let bob_api = app.api(
        create_api_key(&app.data_dir(), "bob@example.com")["key"]
            .as_str()
            .unwrap(),
    );
    let (bobs, _, _) = draft(&bob_api, json!({})).await;
    let (s, _, _) = post(
        &app,
        &bob,
        &format!("/documents/{bobs}/attachments/{}/delete", first[0]),
        &[],
    )
    .await;
    assert_eq!(s, 404);
    // Nor does Ada through Bob's document path, nor an id of the wrong shape.
    let (s, _, _) = post(
        &app,
        &ada,
        &format!("/documents/{bobs}/attachments/{}/delete", first[0]),
        &[],
    )
    .await;
    assert_eq!(s, 404);
    let (s, _, _) = post(&app, &ada, &format!("{base}/1/delete"), &[]).await;
    assert_eq!(s, 404);
    // A form without the page's token changes nothing.
    let resp = app
        .client
        .post(app.url(&format!("{one}/delete")))
        .header("cookie", &ada.cookie)
        .form(&[("csrf_token", "forged")])
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 403);
    assert_eq!(listed(&api, id).await.len(), 3);

    // Sent: the signing page shows the links, opening apart, each with its host.
    let (s, v) = api.send(id).await;
    assert_eq!(s, 200, "{v}");
    let signer = app.signer(&token);
    let html = signer.page().await.text().await.unwrap();
    assert!(
        html.contains(r#"<a href="https://docs.example.org/t?v=2" target="_blank" rel="noopener noreferrer">Terms v2</a>"#)
            && html.contains(r#"<span class="attachment-host">docs.example.org</span>"#)
            && html.contains("Each link opens in a new tab"),
        "{html}"
    );

    // Pending: the document page still changes them, and goes back to itself.
    let (s, doc_page) = page(&app, &ada, &format!("/documents/{id}")).await;
    assert_eq!(s, 200);
    assert!(doc_page.contains(r#"id="attachment-add""#), "{doc_page}");
    let (s, to, _) = post(
        &app,
        &ada,
        &base,
        &[
            ("label", "Map"),
            ("url", "https://maps.example.net/x"),
            ("back", "page"),
        ],
    )
    .await;
    assert_eq!(
        (s, to.as_str()),
        (303, format!("/documents/{id}#attachments").as_str())
    );
    let html = signer.page().await.text().await.unwrap();
    assert!(
        html.contains("maps.example.net"),
        "the recipient sees the new link"
    );

    // Completed: listed, no longer changed (409), the forms gone.
    assert_eq!(signer.sign(field).await.0, 200);
    assert_eq!(signer.complete(json!({})).await.0, 200);
    api.wait_status(id, "COMPLETED").await;
    let (s, _, html) = post(
        &app,
        &ada,
        &base,
        &[("label", "Late"), ("url", "https://example.com/late")],
    )
    .await;
    assert_eq!(s, 409, "{html}");
    assert!(html.contains("the document is COMPLETED"), "{html}");
    let (_, html) = page(&app, &ada, &base).await;
    let now = ids(&html);
    assert_eq!(now.len(), 4);
    let (s, _, _) = post(&app, &ada, &format!("{base}/{}/delete", now[0]), &[]).await;
    assert_eq!(s, 409);
    let (s, _, _) = post(
        &app,
        &ada,
        &format!("{base}/{}", now[0]),
        &[("label", "X"), ("url", "https://x.example/")],
    )
    .await;
    assert_eq!(s, 409);
    let (_, doc_page) = page(&app, &ada, &format!("/documents/{id}")).await;
    assert!(!doc_page.contains(r#"id="attachment-add""#) && !doc_page.contains("/delete\""));
    assert!(doc_page.contains("its attachments stay as its recipients saw them"));
    assert!(doc_page.contains("maps.example.net"));
    assert_eq!(listed(&api, id).await.len(), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_templates_links_go_to_its_documents_and_copies() {
    let app = TestApp::spawn().await;
    let (api, ada, bob) = two_users(&app).await;
    // A document given links at creation (its meta lists them), saved as a template.
    let (doc, _, _) = draft(
        &api,
        json!({"attachments": [{"label": "Terms", "data": "https://example.com/terms"}]}),
    )
    .await;
    assert_eq!(
        listed(&api, doc).await,
        [pair("Terms", "https://example.com/terms")]
    );
    let (s, to, html) = post(&app, &ada, &format!("/documents/{doc}/template"), &[]).await;
    assert_eq!(s, 303, "{html}");
    let tid: i64 = to
        .strip_prefix("/templates/")
        .and_then(|r| r.split('?').next())
        .unwrap()
        .parse()
        .unwrap();
    let tbase = format!("/templates/{tid}/attachments");
    let (s, html) = page(&app, &ada, &tbase).await;
    assert_eq!(s, 200);
    assert_eq!(ids(&html).len(), 1, "{html}");
    assert!(
        html.contains(">Terms<") && html.contains("Documents made from this template get a copy")
    );
    // The template's meta does not carry them: they are its rows.
    let (_, t) = api.get(&format!("/api/v1/templates/{tid}")).await;
    assert!(t["templateMeta"].get("attachments").is_none(), "{t}");

    // One more on the template, from its editor.
    let (s, to, _) = post(
        &app,
        &ada,
        &tbase,
        &[
            ("label", "Price list"),
            ("url", "https://prices.example.com/2026"),
            ("back", "editor"),
        ],
    )
    .await;
    assert_eq!(
        (s, to.as_str()),
        (
            303,
            format!("/templates/{tid}/edit?step=settings#attachments").as_str()
        )
    );
    let (s, editor) = page(&app, &ada, &format!("/templates/{tid}/edit?step=settings")).await;
    assert_eq!(s, 200);
    assert!(
        editor.contains("prices.example.com") && editor.contains(">Terms<"),
        "{editor}"
    );
    let template_ids = ids(&editor);
    assert_eq!(template_ids.len(), 2);

    // A document made from it has copies, in order; changing them leaves the template's.
    let rid = t["Recipient"][0]["id"].as_i64().unwrap();
    let (s, made) = api
        .post(
            &format!("/api/v1/templates/{tid}/generate-document"),
            json!({"recipients": [{"id": rid, "name": "Cid", "email": "cid@example.com"}]}),
        )
        .await;
    assert_eq!(s, 200, "{made}");
    let new_doc = made["documentId"].as_i64().unwrap();
    assert_eq!(
        listed(&api, new_doc).await,
        [
            pair("Terms", "https://example.com/terms"),
            pair("Price list", "https://prices.example.com/2026")
        ]
    );
    let (_, doc_page) = page(&app, &ada, &format!("/documents/{new_doc}")).await;
    let copies = ids(&doc_page);
    assert_eq!(copies.len(), 2);
    assert!(
        copies.iter().all(|c| !template_ids.contains(c)),
        "copies have ids of their own"
    );
    let (s, _, _) = post(
        &app,
        &ada,
        &format!("/documents/{new_doc}/attachments/{}/delete", copies[0]),
        &[],
    )
    .await;
    assert_eq!(s, 303);
    assert_eq!(listed(&api, new_doc).await.len(), 1);
    let (_, html) = page(&app, &ada, &tbase).await;
    assert_eq!(ids(&html), template_ids, "the template keeps its own");
    // The template's attachment is not the document's: named under it, a 404.
    let (s, _, _) = post(
        &app,
        &ada,
        &format!(
            "/documents/{new_doc}/attachments/{}/delete",
            template_ids[0]
        ),
        &[],
    )
    .await;
    assert_eq!(s, 404);

    // Its duplicate has copies too.
    let (s, copy) = api
        .post(&format!("/api/v1/templates/{tid}/duplicate"), json!({}))
        .await;
    assert_eq!(s, 200, "{copy}");
    let cid = copy["id"].as_i64().unwrap();
    let (_, html) = page(&app, &ada, &format!("/templates/{cid}/attachments")).await;
    let dup = ids(&html);
    assert_eq!(dup.len(), 2);
    assert!(html.contains("prices.example.com"));
    assert!(dup.iter().all(|c| !template_ids.contains(c)));

    // Bob reaches none of the template's.
    let (s, _) = page(&app, &bob, &tbase).await;
    assert_eq!(s, 404);
    let (s, _, _) = post(
        &app,
        &bob,
        &tbase,
        &[("label", "Mine"), ("url", "https://bob.example/")],
    )
    .await;
    assert_eq!(s, 404);
    let (s, _, _) = post(
        &app,
        &bob,
        &format!("{tbase}/{}/delete", template_ids[0]),
        &[],
    )
    .await;
    assert_eq!(s, 404);
    let (_, html) = page(&app, &ada, &tbase).await;
    assert_eq!(ids(&html).len(), 2);
}
