//! A template's direct link through the real server: the owner's API (`GET`/`PUT
//! /api/v1/templates/{id}/direct-link`) shows the link as it is and turns it on only for a
//! template a visitor's document can come from; `/d/{token}` is a 404 while it is off, unknown
//! or replaced; a stranger who gives a name and an address gets a document of the template's
//! owner, signs it first and alone, then it goes to the others in order, the owner is told by
//! e-mail and the webhooks fire; the page's bounds per client address.

use reqwest::Method as M;
use serde_json::{Value, json};

use crate::support::TestApp;
use crate::support::api::{Api, Signer, detail_paths, fixture};
use crate::support::login::{LoginForm, answer_of};
use crate::support::webhook::Receiver;

/// A template from the 3-page PDF: a placeholder signer (who visitors become) with a
/// signature field, and a second signer (`second`: an address, or none for a placeholder),
/// and a CC. Answers the template id and the recipients' ids in that order.
pub(crate) async fn template(api: &Api, second: Option<&str>) -> (i64, Vec<i64>) {
    let (s, up) =
        crate::template_editing::upload(api, "Volunteer agreement", fixture("mixed-sizes-3p.pdf"))
            .await;
    assert_eq!(s, 200, "{up}");
    let id = up["templateId"].as_i64().unwrap();
    let mut rids = Vec::new();
    let second = match second {
        Some(e) => json!({"name": "Bob Board", "email": e, "role": "SIGNER", "signingOrder": 2}),
        None => json!({"name": "", "role": "SIGNER", "signingOrder": 2}),
    };
    for body in [
        json!({"name": "", "role": "SIGNER", "signingOrder": 1}),
        second,
        json!({"name": "Records", "email": "records@example.com", "role": "CC"}),
    ] {
        let (s, r) = api
            .post(&format!("/api/v1/templates/{id}/recipients"), body)
            .await;
        assert_eq!(s, 200, "{r}");
        rids.push(r["id"].as_i64().unwrap());
    }
    let field = |rid: i64, kind: &str, y: i64| json!({"recipientId": rid, "type": kind, "pageNumber": 1, "pageX": 10, "pageY": y, "pageWidth": 30, "pageHeight": 6, "fieldMeta": {"type": kind.to_lowercase()}});
    api.add_template_fields(
        id,
        json!([
            field(rids[0], "SIGNATURE", 70),
            field(rids[0], "TEXT", 20),
            field(rids[1], "SIGNATURE", 80)
        ]),
    )
    .await;
    (id, rids)
}

/// `PUT /api/v1/templates/{id}/direct-link` with `body`.
pub(crate) async fn set(api: &Api, id: i64, body: Value) -> (u16, Value) {
    api.call(
        M::PUT,
        &format!("/api/v1/templates/{id}/direct-link"),
        Some(body),
    )
    .await
}

/// The visitor's form at `path`, posted with `name` and `email` (and the page's own token):
/// status, `Location` and the page.
pub(crate) async fn visit(
    app: &TestApp,
    path: &str,
    name: &str,
    email: &str,
) -> (u16, String, String) {
    let form = LoginForm::open(app, path).await;
    let mut fields = form.fields.clone();
    fields.push(("name".into(), name.into()));
    fields.push(("email".into(), email.into()));
    post(app, path, &form.cookie, &fields).await
}

pub(crate) async fn post(
    app: &TestApp,
    path: &str,
    cookie: &str,
    fields: &[(String, String)],
) -> (u16, String, String) {
    let resp = app
        .client
        .post(app.url(path))
        .header("cookie", cookie)
        .form(fields)
        .send()
        .await
        .unwrap();
    answer_of(resp).await
}

pub(crate) fn count(app: &TestApp, sql: &str) -> i64 {
    app.db().query_row(sql, [], |r| r.get(0)).unwrap()
}

/// The messages queued so far about documents, (kind, to) in order: the security notices of
/// the owner's own account (a new API token or webhook) left out.
pub(crate) fn mails(app: &TestApp) -> Vec<(String, String)> {
    let db = app.db();
    let rows: Vec<(String, String)> = db
        .query_map(
            "SELECT kind, to_addr FROM mail_queue WHERE kind <> 'SECURITY_NOTICE' ORDER BY id",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    rows
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stranger_signs_through_the_direct_link_and_the_document_goes_on_to_the_others() {
    let app = TestApp::spawn_with(&["--tls", "off", "--allow-private-webhooks"]).await;
    let api = app.user_with_key("olive@example.com", "standard");
    let other = app.user_with_key("mallory@example.com", "standard");
    let (id, rids) = template(&api, None).await;
    let at = format!("/api/v1/templates/{id}/direct-link");

    // Off until turned on: the API says so, and the page is a 404.
    let (s, link) = api.get(&at).await;
    assert_eq!(s, 200, "{link}");
    assert_eq!(
        (link["enabled"].clone(), link["recipientId"].clone()),
        (json!(false), Value::Null)
    );
    let token = link["token"].as_str().unwrap().to_string();
    assert_eq!(link["url"], app.url(&format!("/d/{token}")));
    let page = format!("/d/{token}");
    assert_eq!(app.get(&page).await.status(), 404);
    assert_eq!(other.get(&at).await.0, 404, "another user's template");
    assert_eq!(
        set(&other, id, json!({"enabled": true, "recipientId": rids[0]}))
            .await
            .0,
        404
    );

    // Turned on only when a visitor's document can come from the template.
    let (s, e) = set(&api, id, json!({"enabled": true})).await;
    assert_eq!((s, detail_paths(&e)), (400, vec!["recipientId"]), "{e}");
    let (s, e) = set(&api, id, json!({"enabled": true, "recipientId": rids[2]})).await;
    assert_eq!(
        (s, detail_paths(&e)),
        (400, vec!["recipientId"]),
        "a CC: {e}"
    );
    let (s, e) = set(&api, id, json!({"enabled": true, "recipientId": 999_999})).await;
    assert_eq!((s, detail_paths(&e)), (400, vec!["recipientId"]), "{e}");
    let (s, e) = set(&api, id, json!({"enabled": true, "recipientId": rids[0]})).await;
    assert_eq!(s, 409, "the second signer has no address yet: {e}");
    assert!(
        e["message"].as_str().unwrap().contains("Recipient 2"),
        "{e}"
    );
    let (s, _) = api
        .patch(
            &format!("/api/v1/templates/{id}/recipients/{}", rids[1]),
            json!({"email": "bob@example.com", "name": "Bob Board"}),
        )
        .await;
    assert_eq!(s, 200);
    let (s, link) = set(&api, id, json!({"enabled": true, "recipientId": rids[0]})).await;
    assert_eq!(s, 200, "{link}");
    assert_eq!(
        (link["enabled"].clone(), link["recipientId"].clone()),
        (json!(true), json!(rids[0]))
    );
    let (_, t) = api.get(&format!("/api/v1/templates/{id}")).await;
    assert_eq!(t["directLink"], json!({"token": token, "enabled": true}));

    let rx = Receiver::start(&[]).await;
    api.add_webhook(json!({"url": rx.url(), "events": ["DOCUMENT_CREATED", "DOCUMENT_SENT", "DOCUMENT_SIGNED", "DOCUMENT_COMPLETED"]}))
        .await;

    // The public page says what it is, from whom, and what happens next.
    let resp = app.get(&page).await;
    assert_eq!(resp.status(), 200);
    let html = resp.text().await.unwrap();
    for said in [
        "Volunteer agreement",
        "olive@example.com",
        "Bob Board",
        "Continue to the document",
    ] {
        assert!(html.contains(said), "{said}: {html}");
    }

    // The visitor's own mistakes come back on the form, and nothing is made.
    let (s, _, html) = visit(&app, &page, " ", "not-an-address").await;
    assert_eq!(s, 422);
    assert!(
        html.contains("Enter your name") && html.contains("Enter your e-mail address"),
        "{html}"
    );
    let (s, _, html) = visit(&app, &page, "Ann Visitor", "BOB@example.com").await;
    assert_eq!(s, 422);
    assert!(html.contains("already one of this document"), "{html}");
    let form = LoginForm::open(&app, &page).await;
    let forged = vec![
        ("csrf_token".to_string(), "forged".to_string()),
        ("name".into(), "Ann".into()),
        ("email".into(), "ann@example.com".into()),
    ];
    let (s, _, html) = post(&app, &page, &form.cookie, &forged).await;
    assert_eq!(s, 422);
    assert!(html.contains("The form expired"), "{html}");
    assert_eq!(count(&app, "SELECT count(*) FROM documents"), 0);

    // A stranger starts it: a document of the template's owner, sent, waiting for them alone.
    let (s, location, _) = visit(&app, &page, "Ann Visitor", "Ann@Example.com").await;
    assert_eq!(s, 303);
    let signing = location
        .strip_prefix("/sign/")
        .expect(&location)
        .to_string();
    let (s, list) = api.get("/api/v1/documents").await;
    assert_eq!(s, 200);
    let docs = list["documents"].as_array().unwrap();
    assert_eq!(docs.len(), 1, "{list}");
    let doc = docs[0]["id"].as_i64().unwrap();
    let (_, d) = api.get(&format!("/api/v1/documents/{doc}")).await;
    assert_eq!(d["status"], "PENDING");
    let from: i64 = app
        .db()
        .query_row("SELECT template_id FROM documents", [], |r| r.get(0))
        .unwrap();
    assert_eq!(from, id);
    let people: Vec<(String, String)> = d["recipients"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().into(),
                r["email"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert!(
        people.contains(&("Ann Visitor".into(), "ann@example.com".into())),
        "{people:?}"
    );
    assert_eq!(other.get(&format!("/api/v1/documents/{doc}")).await.0, 404);
    assert!(
        mails(&app).is_empty(),
        "nobody is asked before the visitor signs: {:?}",
        mails(&app)
    );
    let bob_token = d["recipients"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["email"] == "bob@example.com")
        .unwrap()["token"]
        .as_str()
        .unwrap()
        .to_string();
    let bob = Signer::at(&app.url(""), &bob_token);
    let (s, e) = bob.complete(json!({})).await;
    assert_eq!(s, 409, "not Bob's turn yet: {e}");

    // The visitor fills in and signs.
    let ann = Signer::at(&app.url(""), &signing);
    let (s, state) = ann.state().await;
    assert_eq!(s, 200, "{state}");
    let fields = state["fields"].as_array().unwrap().clone();
    assert_eq!(fields.len(), 2, "{state}");
    for f in &fields {
        let (s, v) = if f["type"] == "SIGNATURE" {
            ann.sign(&f["id"]).await
        } else {
            ann.fill(&f["id"], json!({"value": "Saturdays"})).await
        };
        assert_eq!(s, 200, "{v}");
    }
    let (s, v) = ann.complete(json!({})).await;
    assert_eq!(s, 200, "{v}");

    // Then Bob is asked (the CC is not yet), and the owner is told.
    let sent = crate::support::wait::wait_for(std::time::Duration::from_secs(10), || {
        let m = mails(&app);
        if m.len() >= 2 {
            Ok(m)
        } else {
            Err(format!("{m:?}"))
        }
    })
    .await;
    assert!(
        sent.contains(&("SIGNING_REQUEST".into(), "bob@example.com".into())),
        "{sent:?}"
    );
    assert!(
        sent.contains(&("DIRECT_LINK_SIGNED".into(), "olive@example.com".into())),
        "{sent:?}"
    );
    assert_eq!(sent.len(), 2, "{sent:?}");
    let notice: String = app
        .db()
        .query_row(
            "SELECT body_text FROM mail_queue WHERE kind = 'DIRECT_LINK_SIGNED'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(
        notice.contains("Ann Visitor <ann@example.com>")
            && notice.contains("Bob Board <bob@example.com>"),
        "{notice}"
    );
    assert!(notice.contains(&format!("/documents/{doc}")), "{notice}");

    // Bob signs: the document completes, and every event reached the owner's webhook.
    let (_, bstate) = bob.state().await;
    let sig = bstate["fields"][0]["id"].clone();
    assert_eq!(bob.sign(&sig).await.0, 200);
    assert_eq!(bob.complete(json!({})).await.0, 200);
    let got = rx.wait_for(5).await;
    let events: Vec<String> = got
        .iter()
        .map(|r| r.json()["event"].as_str().unwrap().to_string())
        .collect();
    for e in [
        "DOCUMENT_CREATED",
        "DOCUMENT_SENT",
        "DOCUMENT_SIGNED",
        "DOCUMENT_COMPLETED",
    ] {
        assert!(events.iter().any(|x| x == e), "{e}: {events:?}");
    }

    // A new token: the old address is a 404, the new one works; off: a 404 again.
    let (s, fresh) = set(&api, id, json!({"newToken": true})).await;
    assert_eq!(s, 200, "{fresh}");
    assert_ne!(fresh["token"], json!(token));
    assert_eq!(fresh["enabled"], true);
    assert_eq!(app.get(&page).await.status(), 404);
    let fresh_page = format!("/d/{}", fresh["token"].as_str().unwrap());
    assert_eq!(app.get(&fresh_page).await.status(), 200);
    let (s, link) = set(&api, id, json!({"enabled": false})).await;
    assert_eq!((s, link["enabled"].clone()), (200, json!(false)));
    assert_eq!(app.get(&fresh_page).await.status(), 404);
    let (s, _, _) = visit_without_page(&app, &fresh_page).await;
    assert_eq!(s, 404);

    // Removing the visitors' recipient turns the link off for good.
    assert_eq!(set(&api, id, json!({"enabled": true})).await.0, 200);
    let (s, _) = api
        .delete(&format!("/api/v1/templates/{id}/recipients/{}", rids[0]))
        .await;
    assert_eq!(s, 200);
    let (_, link) = api.get(&at).await;
    assert_eq!(
        (link["enabled"].clone(), link["recipientId"].clone()),
        (json!(false), Value::Null)
    );
    assert_eq!(app.get(&fresh_page).await.status(), 404);
}

/// A post to a page that answers 404 (no form to read): status, location, body.
pub(crate) async fn visit_without_page(app: &TestApp, path: &str) -> (u16, String, String) {
    let fields = vec![
        ("name".to_string(), "X".to_string()),
        ("email".into(), "x@example.com".into()),
    ];
    post(app, path, "", &fields).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_starts_at_most_ten_documents_an_hour_and_reads_the_page_within_its_budget() {
    let app = TestApp::spawn_with(&["--tls", "off", "--rate-limit", "30"]).await;
    let api = app.user_with_key("olive@example.com", "standard");
    let (id, rids) = template(&api, Some("bob@example.com")).await;
    let (s, link) = set(&api, id, json!({"enabled": true, "recipientId": rids[0]})).await;
    assert_eq!(s, 200, "{link}");
    let page = format!("/d/{}", link["token"].as_str().unwrap());

    for n in 0..10 {
        let (s, location, html) = visit(&app, &page, "Visitor", &format!("v{n}@example.com")).await;
        assert_eq!(
            (s, location.starts_with("/sign/")),
            (303, true),
            "{n}: {html}"
        );
    }
    let (s, _, html) = visit(&app, &page, "Visitor", "v10@example.com").await;
    assert_eq!(s, 429, "{html}");
    assert_eq!(count(&app, "SELECT count(*) FROM documents"), 10);

    // The page itself: 30 requests a minute from one address, in windows of a minute (22
    // were spent above; the loop may straddle two windows, never three).
    let mut refused = None;
    for n in 0..61 {
        let resp = app.get(&page).await;
        if resp.status() == 429 {
            refused = Some((n, resp.headers().contains_key("retry-after")));
            break;
        }
        assert_eq!(resp.status(), 200);
    }
    let (n, retry_after) = refused.expect("the page's budget is bounded");
    assert!(n <= 60 && retry_after, "refused after {n}");
}
