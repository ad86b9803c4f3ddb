//! A team through `/api/v1` with team API tokens, through the real server: what a token made
//! for a team creates is the team's (`teamId`), every member's token sees it, nobody outside
//! the team does, a personal token keeps to personal rows, members do not delete, the team's
//! webhooks are its admins' and hear the team's events only, and a removed member's token
//! stops at once.

use reqwest::Method;
use serde_json::{Value, json};

use crate::support::api::{Api, add_user, fixture, two_recipients, webhook};
use crate::support::webhook::Receiver;
use crate::support::{TestApp, docket_json};

/// `docket apikey create --user EMAIL --team SLUG`: the key's client.
fn team_key(app: &TestApp, email: &str, slug: &str) -> Api {
    let made = docket_json(
        &app.data_dir(),
        &["apikey", "create", "--user", email, "--team", slug],
        None,
    );
    assert_eq!(made["team"], slug);
    app.api(made["key"].as_str().unwrap())
}

fn personal_key(app: &TestApp, email: &str) -> Api {
    let made = docket_json(
        &app.data_dir(),
        &["apikey", "create", "--user", email],
        None,
    );
    assert!(made.get("team").is_none(), "{made}");
    app.api(made["key"].as_str().unwrap())
}

async fn ids(api: &Api, list: &str) -> Vec<i64> {
    let (status, body) = api.get(list).await;
    assert_eq!(status, 200, "{body}");
    let key = if list.contains("templates") {
        "templates"
    } else {
        "documents"
    };
    let mut ids: Vec<i64> = body[key]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_i64().unwrap())
        .collect();
    ids.sort();
    ids
}

struct Team {
    app: TestApp,
    id: i64,
    /// The team's tokens: its admin's, a manager's, a member's.
    admin: Api,
    manager: Api,
    member: Api,
    /// The admin's own, personal token.
    admin_personal: Api,
    /// An outsider's token, and a token of the outsider's own team.
    outsider: Api,
    other_team: Api,
}

async fn team() -> Team {
    let app = TestApp::spawn_with(&["--tls", "off", "--allow-private-webhooks"]).await;
    let d = app.data_dir();
    for (email, name) in [
        ("ada@example.com", "Ada"),
        ("cy@example.com", "Cy"),
        ("bob@example.com", "Bob"),
        ("dan@example.com", "Dan"),
    ] {
        add_user(&d, email, &["--name", name]);
    }
    let made = docket_json(
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
    docket_json(
        &d,
        &[
            "team",
            "add",
            "sales",
            "cy@example.com",
            "--role",
            "manager",
        ],
        None,
    );
    docket_json(&d, &["team", "add", "sales", "bob@example.com"], None);
    docket_json(
        &d,
        &[
            "team",
            "create",
            "Other",
            "--slug",
            "other",
            "--admin",
            "dan@example.com",
        ],
        None,
    );
    Team {
        id: made["id"].as_i64().unwrap(),
        admin: team_key(&app, "ada@example.com", "sales"),
        manager: team_key(&app, "cy@example.com", "sales"),
        member: team_key(&app, "bob@example.com", "sales"),
        admin_personal: personal_key(&app, "ada@example.com"),
        outsider: personal_key(&app, "dan@example.com"),
        other_team: team_key(&app, "dan@example.com", "other"),
        app,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_teams_documents_and_templates_are_its_members_and_nobody_elses() {
    let t = team().await;
    let shared = t
        .member
        .create_document(two_recipients())
        .await
        .document_id();
    let mine = t
        .admin_personal
        .create_document(two_recipients())
        .await
        .document_id();

    let doc = t.admin.document(shared).await;
    assert_eq!(doc["teamId"], t.id, "made with a team token: the team's");
    assert_eq!(
        doc["userId"],
        t.member.document(shared).await["userId"],
        "the member who made it stays its creator"
    );
    assert_eq!(t.admin_personal.document(mine).await["teamId"], Value::Null);

    for member in [&t.admin, &t.manager, &t.member] {
        assert_eq!(ids(member, "/api/v1/documents").await, [shared]);
        let (status, _) = member.get(&format!("/api/v1/documents/{mine}")).await;
        assert_eq!(
            status, 404,
            "a member's personal document is not the team's"
        );
    }
    assert_eq!(ids(&t.admin_personal, "/api/v1/documents").await, [mine]);
    for stranger in [&t.outsider, &t.other_team, &t.admin_personal] {
        for (method, path) in [
            (Method::GET, format!("/api/v1/documents/{shared}")),
            (Method::GET, format!("/api/v1/documents/{shared}/download")),
            (Method::POST, format!("/api/v1/documents/{shared}/send")),
            (Method::DELETE, format!("/api/v1/documents/{shared}")),
        ] {
            let (status, body) = stranger.call(method.clone(), &path, Some(json!({}))).await;
            assert_eq!(status, 404, "{method} {path}: {body}");
        }
    }

    // Members create and edit; managers and admins delete.
    let (status, body) = t
        .member
        .delete(&format!("/api/v1/documents/{shared}"))
        .await;
    assert_eq!(
        (status, body["code"].as_str()),
        (403, Some("forbidden")),
        "{body}"
    );
    let (status, body) = t
        .manager
        .delete(&format!("/api/v1/documents/{shared}"))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(ids(&t.admin, "/api/v1/documents").await, Vec::<i64>::new());

    // Templates follow the same rule.
    let made = t
        .admin
        .create_template(json!({"title": "Team NDA", "recipients": []}))
        .await
        .template_id();
    let (_, got) = t.member.get(&format!("/api/v1/templates/{made}")).await;
    assert_eq!(got["teamId"], t.id, "{got}");
    assert_eq!(ids(&t.member, "/api/v1/templates").await, [made]);
    assert_eq!(
        ids(&t.admin_personal, "/api/v1/templates").await,
        Vec::<i64>::new()
    );
    for stranger in [&t.outsider, &t.other_team, &t.admin_personal] {
        let (status, _) = stranger.get(&format!("/api/v1/templates/{made}")).await;
        assert_eq!(status, 404);
    }
    let (status, _) = t.member.delete(&format!("/api/v1/templates/{made}")).await;
    assert_eq!(status, 403);

    // Removing a member stops their team token at once; what they made stays the team's.
    let kept = t
        .member
        .create_document(two_recipients())
        .await
        .document_id();
    docket_json(
        &t.app.data_dir(),
        &["team", "remove", "sales", "bob@example.com"],
        None,
    );
    let (status, _) = t.member.get("/api/v1/documents").await;
    assert_eq!(status, 401, "the removed member's team token is revoked");
    assert_eq!(ids(&t.admin, "/api/v1/documents").await, [kept]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_teams_webhooks_are_its_admins_and_hear_only_the_teams_events() {
    let t = team().await;
    let team_rx = Receiver::start(&[]).await;
    let own_rx = Receiver::start(&[]).await;
    let events = ["DOCUMENT_CREATED"];
    let (status, body) = t
        .member
        .post("/api/v1/webhooks", webhook(&team_rx.url(), &events))
        .await;
    assert_eq!(
        status, 403,
        "only the team's admins manage its webhooks: {body}"
    );
    let hook = t.admin.add_webhook(webhook(&team_rx.url(), &events)).await;
    t.admin_personal
        .add_webhook(webhook(&own_rx.url(), &events))
        .await;
    let (status, _) = t
        .admin
        .post(
            "/api/v1/webhooks",
            webhook(&team_rx.url(), &["BOOKING_CREATED"]),
        )
        .await;
    assert_eq!(status, 400, "bookings are personal");

    let hook_path = format!("/api/v1/webhooks/{}", hook["id"]);
    for stranger in [&t.admin_personal, &t.outsider, &t.other_team] {
        let (status, _) = stranger.get(&hook_path).await;
        assert_eq!(status, 404);
    }

    let shared = t
        .member
        .create_document(two_recipients())
        .await
        .document_id();
    let personal = t
        .admin_personal
        .create_document(two_recipients())
        .await
        .document_id();
    let at_team = team_rx.wait_for(1).await;
    let at_own = own_rx.wait_for(1).await;
    let doc_of = |r: &crate::support::webhook::Received| {
        let body: Value = serde_json::from_str(&r.body).unwrap();
        (
            body["payload"]["id"].as_i64().unwrap(),
            body["payload"]["teamId"].clone(),
        )
    };
    assert_eq!(doc_of(&at_team[0]), (shared, json!(t.id)));
    assert_eq!(doc_of(&at_own[0]), (personal, Value::Null));
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(
        team_rx.received().len(),
        1,
        "no personal event reaches the team"
    );
    assert_eq!(own_rx.received().len(), 1, "no team event reaches a person");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bookings_stay_personal_and_a_team_token_reads_none() {
    let t = team().await;
    for path in ["/api/v1/bookings", "/listBookings"] {
        let (status, body) = t.admin.get(path).await;
        assert_eq!(status, 403, "{path}: {body}");
        let (status, body) = t.admin_personal.get(path).await;
        assert_eq!(status, 200, "{path}: {body}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_team_documents_visibility_decides_which_roles_see_it() {
    let t = team().await;
    let rx = Receiver::start(&[]).await;
    t.admin
        .add_webhook(webhook(&rx.url(), &["DOCUMENT_CREATED", "DOCUMENT_SENT"]))
        .await;
    let created = t.member.create_document(two_recipients()).await;
    let doc = created.document_id();
    t.member
        .upload_ok(created.upload_url(), fixture("a4-1p.pdf"))
        .await;
    for i in 0..2 {
        t.member
            .add_fields(
                doc,
                json!([{"recipientId": created.recipient_id(i), "type": "SIGNATURE",
                       "pageNumber": 1, "pageX": 10, "pageY": 20 + 20 * i, "pageWidth": 30, "pageHeight": 5}]),
            )
            .await;
    }
    let path = format!("/api/v1/documents/{doc}");
    let set = |api: &Api, v: &str| {
        let (api, path, v) = (api.clone(), path.clone(), v.to_string());
        async move { api.patch(&path, json!({"visibility": v})).await }
    };

    // A role gives only a visibility it sees; a value out of the list is a 400.
    let (status, body) = set(&t.member, "MANAGER_AND_ABOVE").await;
    assert_eq!(status, 403, "{body}");
    let (status, body) = set(&t.manager, "ADMIN").await;
    assert_eq!(status, 403, "{body}");
    let (status, body) = set(&t.admin, "OWNER").await;
    assert_eq!(
        (status, body["details"][0]["path"].as_str()),
        (400, Some("visibility")),
        "{body}"
    );
    let mine = t
        .admin_personal
        .create_document(two_recipients())
        .await
        .document_id();
    let (status, body) = t
        .admin_personal
        .patch(
            &format!("/api/v1/documents/{mine}"),
            json!({"visibility": "ADMIN"}),
        )
        .await;
    assert_eq!(status, 400, "a personal document has no visibility: {body}");

    let (status, body) = set(&t.manager, "MANAGER_AND_ABOVE").await;
    assert_eq!(status, 200, "{body}");
    let (status, _) = t.member.get(&path).await;
    assert_eq!(status, 404, "a member no longer sees it");
    assert_eq!(ids(&t.member, "/api/v1/documents").await, Vec::<i64>::new());
    assert_eq!(ids(&t.manager, "/api/v1/documents").await, [doc]);
    let (status, body) = set(&t.admin, "ADMIN").await;
    assert_eq!(status, 200, "{body}");
    let (status, _) = t.manager.get(&path).await;
    assert_eq!(status, 404, "nor a manager, once only admins see it");
    assert_eq!(ids(&t.admin, "/api/v1/documents").await, [doc]);
    let (_, page) = t.admin.get("/api/v1/documents").await;
    assert_eq!(page["totalPages"], 1);
    let (_, page) = t.manager.get("/api/v1/documents").await;
    assert_eq!(page["totalPages"], 0, "the totals follow the visibility");

    // The payload carries it.
    let (status, body) = t.admin.send(doc).await;
    assert_eq!(status, 200, "{body}");
    let got = rx.wait_for(2).await;
    let sent: Value = serde_json::from_str(&got[1].body).unwrap();
    assert_eq!(sent["event"], "DOCUMENT_SENT");
    assert_eq!(sent["payload"]["visibility"], "ADMIN");
    assert_eq!(sent["payload"]["teamId"], t.id);

    // Templates too.
    let made = t
        .admin
        .create_template(json!({"title": "Board pack", "recipients": []}))
        .await
        .template_id();
    let tpath = format!("/api/v1/templates/{made}");
    let (status, body) = t.admin.patch(&tpath, json!({"visibility": "ADMIN"})).await;
    assert_eq!(status, 200, "{body}");
    let (status, _) = t.member.get(&tpath).await;
    assert_eq!(status, 404);
    assert_eq!(ids(&t.member, "/api/v1/templates").await, Vec::<i64>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_visibility_given_at_creation_is_the_documents_within_what_the_role_sees() {
    let t = team().await;
    let body = |v: &str| json!({ "title": "Payroll", "recipients": [], "visibility": v });
    // A role gives only what it sees; a personal document has none; a value must be one.
    let (s, e) = t
        .member
        .post("/api/v1/documents", body("MANAGER_AND_ABOVE"))
        .await;
    assert_eq!((s, e["code"].as_str()), (403, Some("forbidden")), "{e}");
    let (s, e) = t
        .admin_personal
        .post("/api/v1/documents", body("ADMIN"))
        .await;
    assert_eq!(s, 400, "{e}");
    assert_eq!(e["details"][0]["path"], "visibility", "{e}");
    let (s, e) = t.admin.post("/api/v1/documents", body("SECRET")).await;
    assert_eq!(s, 400, "{e}");
    // The admin's ADMIN document: the admin sees it, a manager and a member do not.
    let made = t.admin.create_document(body("admin")).await;
    let id = made.document_id();
    assert_eq!(t.admin.document(id).await["teamId"], json!(t.id));
    for who in [&t.manager, &t.member] {
        let (s, _) = who.get(&format!("/api/v1/documents/{id}")).await;
        assert_eq!(s, 404);
        assert!(!ids(who, "/api/v1/documents").await.contains(&id));
    }
    // A manager's MANAGER_AND_ABOVE one is the manager's and the admin's; left out, everyone's.
    let made = t.manager.create_document(body("MANAGER_AND_ABOVE")).await;
    let id = made.document_id();
    assert!(ids(&t.admin, "/api/v1/documents").await.contains(&id));
    assert!(!ids(&t.member, "/api/v1/documents").await.contains(&id));
    let made = t
        .member
        .create_document(json!({ "title": "Open", "recipients": [] }))
        .await;
    assert!(
        ids(&t.manager, "/api/v1/documents")
            .await
            .contains(&made.document_id())
    );
}

/// `POST path` with the PDF `pdf` as the body, as `who`: the status and the answer.
async fn upload_as(who: &Api, path: &str, pdf: Vec<u8>) -> (u16, Value) {
    let resp = who
        .request(Method::POST, path)
        .header("content-type", "application/pdf")
        .body(pdf)
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    (status, resp.json().await.unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn templates_and_one_step_uploads_take_a_visibility_at_creation_as_documents_do() {
    let t = team().await;
    let body = |v: &str| json!({ "title": "Payroll form", "recipients": [], "visibility": v });
    let (s, e) = t.member.post("/api/v1/templates", body("ADMIN")).await;
    assert_eq!((s, e["code"].as_str()), (403, Some("forbidden")), "{e}");
    let (s, e) = t
        .admin_personal
        .post("/api/v1/templates", body("ADMIN"))
        .await;
    assert_eq!(
        (s, e["details"][0]["path"].as_str()),
        (400, Some("visibility")),
        "{e}"
    );
    let made = t.admin.create_template(body("ADMIN")).await.template_id();
    assert_eq!(
        t.admin.get(&format!("/api/v1/templates/{made}")).await.0,
        200
    );
    for who in [&t.manager, &t.member] {
        assert_eq!(who.get(&format!("/api/v1/templates/{made}")).await.0, 404);
        assert!(!ids(who, "/api/v1/templates").await.contains(&made));
    }
    // Uploads in one step: the same rule, and a refused one makes nothing.
    let pdf = || fixture("mixed-sizes-3p.pdf");
    let before = ids(&t.admin, "/api/v1/documents").await.len();
    let path = "/api/v1/documents/upload?title=Salaries&visibility=MANAGER_AND_ABOVE";
    let (s, e) = upload_as(&t.member, path, pdf()).await;
    assert_eq!((s, e["code"].as_str()), (403, Some("forbidden")), "{e}");
    assert_eq!(ids(&t.admin, "/api/v1/documents").await.len(), before);
    let (s, e) = upload_as(&t.admin_personal, path, pdf()).await;
    assert_eq!(
        (s, e["details"][0]["path"].as_str()),
        (400, Some("visibility")),
        "{e}"
    );
    let (s, made) = upload_as(&t.manager, path, pdf()).await;
    assert_eq!(s, 200, "{made}");
    let id = made["documentId"].as_i64().or(made["id"].as_i64()).unwrap();
    assert!(ids(&t.admin, "/api/v1/documents").await.contains(&id));
    assert!(!ids(&t.member, "/api/v1/documents").await.contains(&id));
    let tpl = "/api/v1/templates/upload?title=Form&visibility=ADMIN";
    let (s, made) = upload_as(&t.admin, tpl, pdf()).await;
    assert_eq!(s, 200, "{made}");
    let id = made["templateId"].as_i64().or(made["id"].as_i64()).unwrap();
    assert_eq!(
        t.member.get(&format!("/api/v1/templates/{id}")).await.0,
        404
    );
    assert_eq!(t.admin.get(&format!("/api/v1/templates/{id}")).await.0, 200);
}
