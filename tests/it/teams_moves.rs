//! Rows changing workspace, through the real server: a personal document or template moves
//! into one of its creator's teams (API and page form), a team's template into another team
//! whose admin the caller is too, never a team's document out of its team; and a team ends
//! from its settings page only once nothing waits for signatures, its documents and templates
//! going where its admin says (another team they run, their own, or deleted with their files),
//! its tokens and webhooks with it.

use serde_json::{Value, json};

use crate::settings_tokens::{page, post_form};
use crate::support::api::{Api, Created, detail_paths, fixture, two_recipients, webhook};
use crate::support::login::{Browser, add_account, browser};
use crate::support::{TestApp, docket_json};

fn key(app: &TestApp, email: &str, team: Option<&str>) -> Api {
    let mut args = vec!["apikey", "create", "--user", email];
    if let Some(slug) = team {
        args.extend(["--team", slug]);
    }
    let made = docket_json(&app.data_dir(), &args, None);
    app.api(made["key"].as_str().unwrap())
}

fn team(app: &TestApp, name: &str, slug: &str, admin: &str) -> i64 {
    let made = docket_json(
        &app.data_dir(),
        &["team", "create", name, "--slug", slug, "--admin", admin],
        None,
    );
    made["id"].as_i64().unwrap()
}

fn join(app: &TestApp, slug: &str, email: &str, role: &str) {
    docket_json(
        &app.data_dir(),
        &["team", "add", slug, email, "--role", role],
        None,
    );
}

/// A document of `owner`'s workspace with its PDF; sent (PENDING) when `send`.
async fn document(owner: &Api, title: &str, send: bool) -> i64 {
    let mut body = two_recipients();
    body["title"] = json!(title);
    let made: Created = owner.create_document(body).await;
    owner
        .upload_ok(made.upload_url(), fixture("mixed-sizes-3p.pdf"))
        .await;
    let id = made.document_id();
    if send {
        owner
            .add_fields(
                id,
                json!([{"recipientId": made.recipient_id(0), "type": "SIGNATURE",
                    "pageNumber": 1, "pageX": 10, "pageY": 80, "pageWidth": 30, "pageHeight": 8}]),
            )
            .await;
        let (s, sent) = owner.send(id).await;
        assert_eq!(s, 200, "{sent}");
    }
    id
}

/// A template of `owner`'s workspace with its PDF.
async fn template(owner: &Api, title: &str) -> i64 {
    let made = owner
        .create_template(json!({"title": title, "recipients": [
            {"name": "Ann", "email": "ann@example.com", "role": "SIGNER"}]}))
        .await;
    owner
        .upload_ok(made.upload_url(), fixture("mixed-sizes-3p.pdf"))
        .await;
    made.template_id()
}

async fn ids(api: &Api, list: &str) -> Vec<i64> {
    let (s, body) = api.get(&format!("/api/v1/{list}")).await;
    assert_eq!(s, 200, "{body}");
    let mut ids: Vec<i64> = body[list]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_i64().unwrap())
        .collect();
    ids.sort();
    ids
}

fn code(v: &Value) -> &str {
    v["code"].as_str().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn personal_rows_move_into_a_team_and_a_teams_template_only_between_teams_its_admin_runs() {
    let app = TestApp::spawn().await;
    let d = app.data_dir();
    for (email, name) in [
        ("ada@example.com", "Ada"),
        ("bob@example.com", "Bob"),
        ("dan@example.com", "Dan"),
    ] {
        add_account(&d, email, name);
    }
    let sales = team(&app, "Sales", "sales", "ada@example.com");
    let legal = team(&app, "Legal", "legal", "ada@example.com");
    team(&app, "Other", "other", "dan@example.com");
    join(&app, "sales", "bob@example.com", "MEMBER");
    join(&app, "other", "ada@example.com", "MEMBER");
    let ada = key(&app, "ada@example.com", None);
    let ada_sales = key(&app, "ada@example.com", Some("sales"));
    let ada_legal = key(&app, "ada@example.com", Some("legal"));
    let bob_sales = key(&app, "bob@example.com", Some("sales"));
    let dan = key(&app, "dan@example.com", None);

    let doc = document(&ada, "Personal NDA", false).await;
    let tpl = template(&ada, "Personal template").await;
    let doc_move = format!("/api/v1/documents/{doc}/move");
    let tpl_move = format!("/api/v1/templates/{tpl}/move");

    // What the body must say, and who may ask.
    let (s, e) = ada.post(&doc_move, json!({})).await;
    assert_eq!((s, detail_paths(&e)), (400, vec!["teamId"]), "{e}");
    let (s, e) = ada
        .post(&doc_move, json!({"teamId": sales, "teamUrl": "sales"}))
        .await;
    assert_eq!((s, detail_paths(&e)), (400, vec!["teamUrl"]), "{e}");
    let (s, e) = ada
        .post(&doc_move, json!({"teamId": sales, "visibility": "SECRET"}))
        .await;
    assert_eq!((s, detail_paths(&e)), (400, vec!["visibility"]), "{e}");
    let (s, e) = dan.post(&doc_move, json!({"teamId": sales})).await;
    assert_eq!(
        (s, code(&e)),
        (404, "not_found"),
        "another user's document: {e}"
    );
    let (s, e) = ada.post(&doc_move, json!({"teamUrl": "nowhere"})).await;
    assert_eq!((s, code(&e)), (404, "not_found"), "{e}");

    // Into Sales, seen by its admins only: gone from the personal list, in the team's.
    let (s, moved) = ada
        .post(
            &doc_move,
            json!({"teamUrl": "sales", "visibility": "ADMIN"}),
        )
        .await;
    assert_eq!(s, 200, "{moved}");
    assert_eq!(moved["teamId"], sales);
    assert!(!ids(&ada, "documents").await.contains(&doc));
    assert!(ids(&ada_sales, "documents").await.contains(&doc));
    assert_eq!(
        bob_sales.get(&format!("/api/v1/documents/{doc}")).await.0,
        404
    );
    let event = ada_sales.audit_event(doc, "MOVED").await;
    assert_eq!(event["data"]["teamId"], sales, "{event}");
    assert_eq!(event["data"]["team"], "Sales", "{event}");
    // It is no longer personal, and a team's document stays in its team.
    let (s, _) = ada.post(&doc_move, json!({"teamId": legal})).await;
    assert_eq!(s, 404);
    let (s, e) = ada_sales.post(&doc_move, json!({"teamId": legal})).await;
    assert_eq!((s, code(&e)), (409, "conflict"), "{e}");

    // A personal template into Sales; Bob (a member there) cannot give it away.
    let (s, moved) = ada.post(&tpl_move, json!({"teamId": sales})).await;
    assert_eq!((s, &moved["teamId"]), (200, &json!(sales)), "{moved}");
    assert!(ids(&bob_sales, "templates").await.contains(&tpl));
    let (s, e) = bob_sales.post(&tpl_move, json!({"teamId": legal})).await;
    assert_eq!((s, code(&e)), (403, "forbidden"), "{e}");
    // Not into a team Ada is only a member of, nor one she is not in, nor where it is.
    let (s, e) = ada_sales.post(&tpl_move, json!({"teamUrl": "other"})).await;
    assert_eq!((s, code(&e)), (403, "forbidden"), "{e}");
    let (s, e) = ada_sales.post(&tpl_move, json!({"teamId": 999_999})).await;
    assert_eq!((s, code(&e)), (404, "not_found"), "{e}");
    let (s, e) = ada_sales.post(&tpl_move, json!({"teamId": sales})).await;
    assert_eq!((s, code(&e)), (409, "conflict"), "{e}");
    // From Sales into Legal, both Ada's.
    let (s, moved) = ada_sales.post(&tpl_move, json!({"teamUrl": "legal"})).await;
    assert_eq!((s, &moved["teamId"]), (200, &json!(legal)), "{moved}");
    assert!(!ids(&ada_sales, "templates").await.contains(&tpl));
    assert!(ids(&ada_legal, "templates").await.contains(&tpl));
    let used = ada_legal
        .post(
            &format!("/api/v1/templates/{tpl}/create-document"),
            json!({"title": "From Legal's template", "recipients": [
                {"name": "Ann", "email": "ann@example.com"}]}),
        )
        .await;
    assert_eq!(
        used.0, 200,
        "the moved template is used in its new team: {}",
        used.1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_personal_documents_page_moves_it_into_a_team_by_its_form() {
    let app = TestApp::spawn().await;
    let d = app.data_dir();
    for (email, name) in [("ada@example.com", "Ada"), ("dan@example.com", "Dan")] {
        add_account(&d, email, name);
    }
    let sales = team(&app, "Sales", "sales", "ada@example.com");
    team(&app, "Other", "other", "dan@example.com");
    let ada = key(&app, "ada@example.com", None);
    let doc = document(&ada, "Page NDA", false).await;
    let tpl = template(&ada, "Page template").await;
    let who = browser(&app, "ada@example.com").await;

    let (s, html) = page(&app, &who, &format!("/documents/{doc}")).await;
    assert_eq!(s, 200);
    assert!(html.contains("Move to a team"), "{html}");
    assert!(
        html.contains("<option value=\"sales\">Sales</option>"),
        "{html}"
    );
    assert!(
        !html.contains("value=\"other\""),
        "only the user's teams are offered"
    );

    // Another team's slug is refused as a team one is not in; the document stays.
    let (s, _) = form(&app, &who, &format!("/documents/{doc}/move"), "other").await;
    assert_eq!(s, 404);
    assert_eq!(ada.document(doc).await["teamId"], Value::Null);
    // Without the form's token, nothing moves.
    let (s, _) = post_form(
        &app,
        &format!("/documents/{doc}/move"),
        &who.cookie,
        None,
        &[("team", "sales")],
    )
    .await;
    assert_eq!(s, 403);
    assert_eq!(ada.document(doc).await["teamId"], Value::Null);

    let (s, to) = form(&app, &who, &format!("/documents/{doc}/move"), "sales").await;
    assert_eq!(
        (s, to.as_str()),
        (303, format!("/t/sales/documents/{doc}").as_str())
    );
    let (s, html) = page(&app, &who, &to).await;
    assert_eq!(s, 200);
    assert!(
        html.contains("moved the document into the team Sales"),
        "timeline: {html}"
    );
    assert!(
        !html.contains("Move to a team"),
        "a team's document stays in its team"
    );
    assert_eq!(page(&app, &who, &format!("/documents/{doc}")).await.0, 404);

    let (s, to) = form(&app, &who, &format!("/templates/{tpl}/move"), "sales").await;
    assert_eq!(
        (s, to.as_str()),
        (303, format!("/t/sales/templates/{tpl}").as_str())
    );
    let sales_key = key(&app, "ada@example.com", Some("sales"));
    assert!(ids(&sales_key, "templates").await.contains(&tpl));
    assert_eq!(sales_key.document(doc).await["teamId"], sales);
}

/// Posts the "Move to a team" form at `path` choosing `team`: the status and where it leads.
async fn form(app: &TestApp, who: &Browser, path: &str, team: &str) -> (u16, String) {
    let (status, to, _) = posted(app, who, path, &[("team", team)]).await;
    (status, to)
}

/// Posts the team's deletion form: the status, where it leads, and the page's text.
async fn end(
    app: &TestApp,
    who: &Browser,
    slug: &str,
    fields: &[(&str, &str)],
) -> (u16, String, String) {
    posted(app, who, &format!("/t/{slug}/settings/delete"), fields).await
}

/// Posts the form `fields` of `who`'s page (with its token) to `path`: the status, where it
/// leads (if it redirects) and the page's text.
async fn posted(
    app: &TestApp,
    who: &Browser,
    path: &str,
    fields: &[(&str, &str)],
) -> (u16, String, String) {
    let mut form = vec![("csrf_token", who.csrf.as_str())];
    form.extend_from_slice(fields);
    let resp = app
        .client
        .post(app.url(path))
        .header("cookie", &who.cookie)
        .form(&form)
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    let to = resp
        .headers()
        .get("location")
        .map(|l| l.to_str().unwrap().to_string())
        .unwrap_or_default();
    (status, to, resp.text().await.unwrap())
}

/// How many files the blob store holds (a directory or a bucket).
fn blob_files(app: &TestApp) -> usize {
    crate::support::stores::stored_blob_ids(&app.data_dir()).len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_team_ends_once_nothing_waits_for_signatures_and_its_rows_go_where_its_admin_says() {
    let app = TestApp::spawn_with(&["--tls", "off", "--allow-private-webhooks"]).await;
    let d = app.data_dir();
    for (email, name) in [
        ("ada@example.com", "Ada"),
        ("bob@example.com", "Bob"),
        ("dan@example.com", "Dan"),
    ] {
        add_account(&d, email, name);
    }
    team(&app, "Sales", "sales", "ada@example.com");
    let legal = team(&app, "Legal", "legal", "ada@example.com");
    team(&app, "Scratch", "scratch", "ada@example.com");
    team(&app, "Mine", "mine", "ada@example.com");
    join(&app, "sales", "bob@example.com", "MEMBER");
    let sales_key = key(&app, "ada@example.com", Some("sales"));
    let legal_key = key(&app, "ada@example.com", Some("legal"));
    let (ada, bob, dan) = (
        browser(&app, "ada@example.com").await,
        browser(&app, "bob@example.com").await,
        browser(&app, "dan@example.com").await,
    );
    let draft = document(&sales_key, "Sales draft", false).await;
    let sent = document(&sales_key, "Sales pending", true).await;
    let tpl = template(&sales_key, "Sales template").await;
    sales_key
        .add_webhook(webhook("http://127.0.0.1:9/hook", &["DOCUMENT_COMPLETED"]))
        .await;

    // Its admins only: a member is refused, an outsider finds nothing.
    assert_eq!(page(&app, &bob, "/t/sales/settings/delete").await.0, 403);
    assert_eq!(page(&app, &dan, "/t/sales/settings/delete").await.0, 404);
    let (s, html) = page(&app, &ada, "/t/sales/settings/general").await;
    assert_eq!(s, 200);
    assert!(html.contains("/t/sales/settings/delete"), "{html}");
    // While a document waits for signatures, the page says why and the form is refused.
    let (s, html) = page(&app, &ada, "/t/sales/settings/delete").await;
    assert_eq!(s, 200);
    assert!(
        html.contains("1 document is waiting for signatures"),
        "{html}"
    );
    assert!(!html.contains("id=\"delete-team\""), "{html}");
    let (s, _, html) = end(
        &app,
        &ada,
        "sales",
        &[("fate", "team"), ("heir", "legal"), ("confirm", "sales")],
    )
    .await;
    assert_eq!(s, 409, "{html}");
    assert!(html.contains("waiting for signatures"), "{html}");
    assert_eq!(
        sales_key.get(&format!("/api/v1/documents/{draft}")).await.0,
        200
    );

    let (s, cancelled) = sales_key.delete(&format!("/api/v1/documents/{sent}")).await;
    assert_eq!(s, 200, "{cancelled}");
    let (s, html) = page(&app, &ada, "/t/sales/settings/delete").await;
    assert_eq!(s, 200);
    assert!(
        html.contains("The team has 2 documents and 1 template"),
        "{html}"
    );
    assert!(
        html.contains("<option value=\"legal\""),
        "another team Ada runs: {html}"
    );
    // The confirmation and the choice are asked for, beside their boxes.
    let (s, _, html) = end(
        &app,
        &ada,
        "sales",
        &[("fate", "team"), ("heir", "legal"), ("confirm", "sale")],
    )
    .await;
    assert_eq!(s, 400);
    assert!(html.contains("Type sales to confirm."), "{html}");
    let (s, _, html) = end(&app, &ada, "sales", &[("confirm", "sales")]).await;
    assert_eq!(s, 400);
    assert!(html.contains("id=\"fate-error\""), "{html}");
    let (s, _, _) = end(
        &app,
        &bob,
        "sales",
        &[("fate", "delete"), ("confirm", "sales")],
    )
    .await;
    assert_eq!(s, 403);

    // To Legal: the documents and the template, as they were, with the move in the audit log.
    let (s, to, html) = end(
        &app,
        &ada,
        "sales",
        &[("fate", "team"), ("heir", "legal"), ("confirm", "Sales")],
    )
    .await;
    assert_eq!(
        (s, to.as_str()),
        (303, "/teams?done=deleted-moved"),
        "{html}"
    );
    let mut docs = ids(&legal_key, "documents").await;
    docs.sort();
    assert_eq!(docs, vec![draft, sent]);
    assert_eq!(ids(&legal_key, "templates").await, vec![tpl]);
    let event = legal_key.audit_event(draft, "MOVED").await;
    assert_eq!(event["data"]["teamId"], legal, "{event}");
    // The team is gone, its pages, tokens and webhooks with it.
    assert_eq!(page(&app, &ada, "/t/sales/").await.0, 404);
    assert_eq!(sales_key.get("/api/v1/documents").await.0, 401);
    let hooks: i64 = app
        .db()
        .query_row("SELECT COUNT(*) FROM webhooks", [], |r| r.get(0))
        .unwrap();
    assert_eq!(hooks, 0);
    let (_, html) = page(&app, &ada, "/teams?done=deleted-moved").await;
    assert!(!html.contains("/t/sales/"), "{html}");

    // Deleted: the rows and the files nothing else uses.
    let scratch_key = key(&app, "ada@example.com", Some("scratch"));
    let files_before = blob_files(&app);
    let gone_doc = document(&scratch_key, "Scratch draft", false).await;
    let gone_tpl = template(&scratch_key, "Scratch template").await;
    assert_eq!(blob_files(&app), files_before + 2);
    let (s, to, html) = end(
        &app,
        &ada,
        "scratch",
        &[("fate", "delete"), ("confirm", "scratch")],
    )
    .await;
    assert_eq!((s, to.as_str()), (303, "/teams?done=deleted"), "{html}");
    let left: i64 = app
        .db()
        .query_row(
            "SELECT (SELECT COUNT(*) FROM documents WHERE id = ?1)
                  + (SELECT COUNT(*) FROM templates WHERE id = ?2)",
            [gone_doc, gone_tpl],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(left, 0);
    assert_eq!(blob_files(&app), files_before, "their files are removed");

    // Mine: they become the admin's personal rows.
    let mine_key = key(&app, "ada@example.com", Some("mine"));
    let kept = document(&mine_key, "Kept", false).await;
    let (s, to, _) = end(&app, &ada, "mine", &[("fate", "mine"), ("confirm", "mine")]).await;
    assert_eq!((s, to.as_str()), (303, "/teams?done=deleted-mine"));
    let personal = key(&app, "ada@example.com", None);
    assert_eq!(personal.document(kept).await["teamId"], Value::Null);
    let event = personal.audit_event(kept, "MOVED").await;
    assert_eq!(event["data"]["user"], "ada@example.com", "{event}");
}
