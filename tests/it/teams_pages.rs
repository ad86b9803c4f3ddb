//! A team's workspace in the web application, through the real server: `/t/{slug}/...` pages
//! act in the team for its members and are 404 for everyone else; the pages' API calls act in
//! the page's team (`X-Docket-Workspace`, honoured with the session only, never with an API
//! key); the switcher lists the user's workspaces; members see the members page and leave,
//! admins change roles and remove (the last admin refused); `/teams` creates a team; a team's
//! API tokens and webhooks are its admins', and a token made on the team's page acts for it.

use reqwest::Method;
use serde_json::{Value, json};

use crate::settings_tokens::{make_token_at, page, post_form};
use crate::support::login::{Browser, add_account, browser};
use crate::support::{TestApp, docket_json};

/// A call of the pages' scripts: the session, its token and the page's workspace (`None`: a
/// personal page, no header).
async fn page_call(
    app: &TestApp,
    who: &Browser,
    workspace: Option<&str>,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let mut req = app
        .client
        .request(method, app.url(path))
        .header("cookie", &who.cookie)
        .header("x-csrf-token", &who.csrf);
    if let Some(w) = workspace {
        req = req.header("x-docket-workspace", w);
    }
    if let Some(b) = body {
        req = req.json(&b);
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    (status, resp.json().await.unwrap_or(Value::Null))
}

/// A draft made by the page's script in `workspace`: its id and `teamId`.
async fn draft(app: &TestApp, who: &Browser, workspace: Option<&str>, title: &str) -> (i64, Value) {
    let body = json!({ "title": title, "recipients": [] });
    let (s, made) = page_call(
        app,
        who,
        workspace,
        Method::POST,
        "/api/v1/documents",
        Some(body),
    )
    .await;
    assert_eq!(s, 200, "{made}");
    let id = made["documentId"].as_i64().unwrap();
    let (s, doc) = page_call(
        app,
        who,
        workspace,
        Method::GET,
        &format!("/api/v1/documents/{id}"),
        None,
    )
    .await;
    assert_eq!(s, 200, "{doc}");
    (id, doc["teamId"].clone())
}

/// Posts the form `fields` of `who`'s page (with its token) to `path`: it must be answered with
/// a redirect, to the address answered here.
async fn redirected(app: &TestApp, who: &Browser, path: &str, fields: &[(&str, &str)]) -> String {
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
    assert_eq!(resp.status().as_u16(), 303, "{path}");
    resp.headers()["location"].to_str().unwrap().to_string()
}

struct Setup {
    app: TestApp,
    team_id: i64,
    ada: Browser,
    bob: Browser,
    dan: Browser,
}

/// Sales: Ada (admin) and Bob (member); Dan is in no team of theirs (he runs Other).
async fn setup() -> Setup {
    let app = TestApp::spawn().await;
    let d = app.data_dir();
    for (email, name) in [
        ("ada@example.com", "Ada"),
        ("bob@example.com", "Bob"),
        ("dan@example.com", "Dan"),
    ] {
        add_account(&d, email, name);
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
    let (ada, bob, dan) = (
        browser(&app, "ada@example.com").await,
        browser(&app, "bob@example.com").await,
        browser(&app, "dan@example.com").await,
    );
    Setup {
        team_id: made["id"].as_i64().unwrap(),
        app,
        ada,
        bob,
        dan,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_teams_pages_act_in_the_team_for_its_members_only() {
    let Setup {
        app,
        team_id,
        ada,
        bob,
        dan,
    } = setup().await;

    // The team's dashboard: its name in the switcher, the page's workspace for its scripts.
    let (s, html) = page(&app, &bob, "/t/sales").await;
    assert_eq!(s, 200, "{html}");
    assert!(
        html.contains("<meta name=\"workspace\" content=\"sales\">"),
        "{html}"
    );
    assert!(
        html.contains("<a href=\"/t/sales\" aria-current=\"true\">Sales</a>"),
        "{html}"
    );
    assert!(html.contains("href=\"/t/sales/templates\""), "{html}");
    assert!(html.contains("href=\"/t/sales/documents/new\""), "{html}");
    // The personal dashboard offers the team too, and says nothing of a workspace.
    let (_, html) = page(&app, &bob, "/").await;
    assert!(
        html.contains("<meta name=\"workspace\" content=\"\">"),
        "{html}"
    );
    assert!(html.contains("<a href=\"/t/sales\">Sales</a>"), "{html}");
    assert!(!html.contains("Other"), "only the user's own teams: {html}");

    // What the page's script makes in the team is the team's; on a personal page, personal.
    let (team_doc, team) = draft(&app, &bob, Some("sales"), "Team lease").await;
    assert_eq!(team, json!(team_id));
    let (own_doc, team) = draft(&app, &bob, None, "Bob's own").await;
    assert_eq!(team, Value::Null);

    // The team's document is on every member's team dashboard and page, and nowhere else.
    let (_, html) = page(&app, &ada, "/t/sales?tab=all").await;
    assert!(
        html.contains("Team lease") && !html.contains("Bob&#x27;s own"),
        "{html}"
    );
    assert!(
        html.contains(&format!("href=\"/t/sales/documents/{team_doc}/edit\"")),
        "{html}"
    );
    let (_, html) = page(&app, &bob, "/?tab=all").await;
    assert!(!html.contains("Team lease"), "{html}");
    for (who, path) in [
        (&ada, format!("/t/sales/documents/{team_doc}")),
        (&ada, format!("/t/sales/documents/{team_doc}/edit")),
        (&bob, format!("/t/sales/documents/{team_doc}/edit")),
    ] {
        let (s, html) = page(&app, who, &path).await;
        assert_eq!(s, 200, "{path}: {html}");
    }
    for (who, path) in [
        // In the wrong workspace, or in a team one is not in: as if it did not exist.
        (&ada, format!("/documents/{team_doc}")),
        (&ada, format!("/t/sales/documents/{own_doc}")),
        (&dan, format!("/t/sales/documents/{team_doc}")),
        (&dan, format!("/t/other/documents/{team_doc}")),
        (&dan, "/t/sales".to_string()),
        (&dan, "/t/sales/templates".to_string()),
        (&dan, "/t/sales/documents/new".to_string()),
        (&dan, "/t/sales/settings/members".to_string()),
        (&dan, "/t/sales/settings/tokens".to_string()),
        (&dan, "/t/nobody".to_string()),
        (&ada, "/settings/members".to_string()),
    ] {
        let (s, html) = page(&app, who, &path).await;
        assert_eq!(s, 404, "{path}: {html}");
    }
    // The scripts' calls: a team one is not in is a 404; a page image follows the page's team.
    let (s, body) = page_call(
        &app,
        &dan,
        Some("sales"),
        Method::GET,
        "/api/v1/documents",
        None,
    )
    .await;
    assert_eq!(
        (s, body["code"].as_str()),
        (404, Some("not_found")),
        "{body}"
    );
    let path = format!("/api/v1/documents/{team_doc}");
    let (s, _) = page_call(&app, &ada, None, Method::GET, &path, None).await;
    assert_eq!(s, 404, "a personal page does not reach the team's document");

    // An API key acts in its own workspace whatever the header says.
    let key = docket_json(
        &app.data_dir(),
        &["apikey", "create", "--user", "bob@example.com"],
        None,
    );
    let resp = app
        .client
        .get(app.url("/api/v1/documents"))
        .header("authorization", key["key"].as_str().unwrap())
        .header("x-docket-workspace", "sales")
        .send()
        .await
        .unwrap();
    let listed: Value = resp.json().await.unwrap();
    let ids: Vec<i64> = listed["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, vec![own_doc], "{listed}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn members_are_managed_by_admins_and_anyone_leaves() {
    let Setup { app, ada, bob, .. } = setup().await;
    let bob_id = docket_json(&app.data_dir(), &["team", "members", "sales"], None)
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["email"] == "bob@example.com")
        .map(|m| m["user_id"].as_i64().unwrap())
        .unwrap();
    let ada_id = docket_json(&app.data_dir(), &["team", "members", "sales"], None)
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["email"] == "ada@example.com")
        .map(|m| m["user_id"].as_i64().unwrap())
        .unwrap();

    // A member sees the members, without the admins' controls, and the settings without the
    // team's tokens and webhooks.
    let (s, html) = page(&app, &bob, "/t/sales/settings").await;
    assert_eq!(s, 303, "{html}");
    let (s, html) = page(&app, &bob, "/t/sales/settings/members").await;
    assert_eq!(s, 200, "{html}");
    assert!(
        html.contains("Ada") && html.contains("bob@example.com"),
        "{html}"
    );
    assert!(!html.contains("<select"), "{html}");
    assert!(!html.contains("/t/sales/settings/tokens"), "{html}");
    assert!(html.contains("id=\"leave-team\""), "{html}");
    let role = format!("/t/sales/settings/members/{ada_id}/role");
    let (s, _) = post_form(
        &app,
        &role,
        &bob.cookie,
        Some(&bob.csrf),
        &[("role", "MEMBER")],
    )
    .await;
    assert_eq!(s, 403);
    for path in [
        "/t/sales/settings/tokens",
        "/t/sales/settings/webhooks",
        "/t/sales/settings/webhooks/new",
    ] {
        let (s, html) = page(&app, &bob, path).await;
        assert_eq!(s, 403, "{path}: {html}");
    }

    // The admin changes a role; the last admin cannot step down or leave.
    let role = format!("/t/sales/settings/members/{bob_id}/role");
    let (s, _) = post_form(
        &app,
        &role,
        &ada.cookie,
        Some(&ada.csrf),
        &[("role", "MANAGER")],
    )
    .await;
    assert_eq!(s, 303);
    let (_, html) = page(&app, &ada, "/t/sales/settings/members?done=role").await;
    assert!(html.contains("The role was changed"), "{html}");
    assert!(
        html.contains("<option value=\"MANAGER\" selected>Manager</option>"),
        "{html}"
    );
    let (s, _) = post_form(
        &app,
        &role,
        &ada.cookie,
        Some(&ada.csrf),
        &[("role", "OWNER")],
    )
    .await;
    assert_eq!(s, 400);
    let own = format!("/t/sales/settings/members/{ada_id}/role");
    let (s, html) = post_form(
        &app,
        &own,
        &ada.cookie,
        Some(&ada.csrf),
        &[("role", "MEMBER")],
    )
    .await;
    assert_eq!(s, 409, "{html}");
    assert!(html.contains("role=\"alert\""), "{html}");
    let leave = format!("/t/sales/settings/members/{ada_id}/remove");
    let (s, _) = post_form(&app, &leave, &ada.cookie, Some(&ada.csrf), &[]).await;
    assert_eq!(s, 409);
    // Without the page's token, nothing happens.
    let (s, _) = post_form(&app, &role, &ada.cookie, None, &[("role", "MEMBER")]).await;
    assert_eq!(s, 403);

    // Bob leaves: the team's pages are closed to him at once.
    let leave = format!("/t/sales/settings/members/{bob_id}/remove");
    let to = redirected(&app, &bob, &leave, &[]).await;
    assert_eq!(to, "/teams?done=left");
    let (s, _) = page(&app, &bob, "/t/sales").await;
    assert_eq!(s, 404);
    let (_, html) = page(&app, &bob, "/teams?done=left").await;
    assert!(
        html.contains("You left the team") && html.contains("You are in no team yet"),
        "{html}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_team_is_created_on_its_page_and_its_tokens_and_webhooks_are_its_admins() {
    let Setup { app, ada, dan, .. } = setup().await;

    // Creating a team: the form says what is wrong beside the field; a taken address is said.
    let (s, html) = post_form(
        &app,
        "/teams",
        &dan.cookie,
        Some(&dan.csrf),
        &[("name", ""), ("slug", "No Way")],
    )
    .await;
    assert_eq!(s, 400, "{html}");
    assert!(
        html.contains("id=\"team-slug-error\"") && html.contains("id=\"team-name-error\""),
        "{html}"
    );
    let (s, html) = post_form(
        &app,
        "/teams",
        &dan.cookie,
        Some(&dan.csrf),
        &[("name", "Sales 2"), ("slug", "sales")],
    )
    .await;
    assert_eq!(s, 409, "{html}");
    assert!(html.contains("id=\"team-slug-error\""), "{html}");
    let to = redirected(
        &app,
        &dan,
        "/teams",
        &[("name", "Lettings"), ("slug", "lettings")],
    )
    .await;
    assert_eq!(to, "/t/lettings/settings/members?done=created");
    let (s, html) = page(&app, &dan, "/t/lettings/settings/members?done=created").await;
    assert_eq!(s, 200);
    assert!(
        html.contains("The team was created") && html.contains("<select"),
        "{html}"
    );
    let (_, html) = page(&app, &dan, "/teams").await;
    assert!(
        html.contains("Lettings") && html.contains("Other"),
        "{html}"
    );

    // A token made on the team's page acts for the team.
    let (token, _) = make_token_at(&app, &ada, "/t/sales", "Team sync", "30").await;
    let (_, html) = page(&app, &ada, "/t/sales/settings/tokens").await;
    assert!(
        html.contains("Team sync") && html.contains("Docket's API for Sales"),
        "{html}"
    );
    let (_, html) = page(&app, &ada, "/settings/tokens").await;
    assert!(
        !html.contains("Team sync"),
        "a team's token is not the admin's own: {html}"
    );
    let api = app.api(&token);
    let made = api
        .create_document(json!({ "title": "Made by the team token", "recipients": [] }))
        .await;
    let id = made.0["documentId"].as_i64().unwrap();
    assert!(api.document(id).await["teamId"].is_i64());

    // A team's webhooks take the documents' events only.
    let (s, html) = page(&app, &ada, "/t/sales/settings/webhooks/new").await;
    assert_eq!(s, 200, "{html}");
    assert!(
        html.contains("DOCUMENT_SIGNED") && !html.contains("BOOKING_CREATED"),
        "{html}"
    );
    let (_, html) = page(&app, &ada, "/settings/webhooks/new").await;
    assert!(html.contains("BOOKING_CREATED"), "{html}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn admins_invite_from_the_members_page_and_set_the_teams_defaults() {
    let Setup { app, ada, bob, .. } = setup().await;
    let invite = "/t/sales/settings/members/invite";

    // Only admins invite; a refused address is said beside its box.
    let (s, _) = post_form(
        &app,
        invite,
        &bob.cookie,
        Some(&bob.csrf),
        &[("email", "eve@example.com"), ("role", "MEMBER")],
    )
    .await;
    assert_eq!(s, 403);
    let (_, html) = page(&app, &bob, "/t/sales/settings/members").await;
    assert!(!html.contains("Invite someone"), "{html}");
    for (email, status) in [("not an address", 400), ("bob@example.com", 409)] {
        let (s, html) = post_form(
            &app,
            invite,
            &ada.cookie,
            Some(&ada.csrf),
            &[("email", email), ("role", "MEMBER")],
        )
        .await;
        assert_eq!(s, status, "{email}: {html}");
        assert!(
            html.contains("id=\"invite-email-error\""),
            "{email}: {html}"
        );
        assert!(
            html.contains(&format!("value=\"{}\"", email)),
            "the form keeps what was typed: {html}"
        );
    }
    let to = redirected(
        &app,
        &ada,
        invite,
        &[("email", "Eve@Example.com"), ("role", "MANAGER")],
    )
    .await;
    assert_eq!(to, "/t/sales/settings/members?done=invited");
    let (_, html) = page(&app, &ada, "/t/sales/settings/members?done=invited").await;
    assert!(
        html.contains("The invitation was sent") && html.contains("id=\"invitations\""),
        "{html}"
    );
    assert!(
        html.contains("eve@example.com") && html.contains("by Ada"),
        "{html}"
    );
    let pending = docket_json(&app.data_dir(), &["team", "invitations", "sales"], None);
    assert_eq!(pending[0]["email"], "eve@example.com", "{pending}");
    assert_eq!(pending[0]["role"], "MANAGER", "{pending}");
    // Withdrawn from the page: nothing pending.
    let revoke = "/t/sales/settings/members/invitations/revoke";
    let (s, _) = post_form(
        &app,
        revoke,
        &bob.cookie,
        Some(&bob.csrf),
        &[("email", "eve@example.com")],
    )
    .await;
    assert_eq!(s, 403);
    let (s, _) = post_form(
        &app,
        revoke,
        &ada.cookie,
        Some(&ada.csrf),
        &[("email", "eve@example.com")],
    )
    .await;
    assert_eq!(s, 303);
    let pending = docket_json(&app.data_dir(), &["team", "invitations", "sales"], None);
    assert_eq!(pending, json!([]));

    // The team's general settings: every member reads them, its admins change them.
    let general = "/t/sales/settings/general";
    let (s, html) = page(&app, &bob, general).await;
    assert_eq!(s, 200, "{html}");
    assert!(
        html.contains("<fieldset class=\"stack\" disabled>")
            && !html.contains("id=\"save-general\""),
        "{html}"
    );
    let values = [
        ("name", "Sales EU"),
        ("senderName", "Acme Sales"),
        ("signingOrder", "SEQUENTIAL"),
        ("dateFormat", "dd/MM/yyyy"),
        ("timeZone", "Europe/Paris"),
        ("redirectUrl", ""),
    ];
    let (s, _) = post_form(&app, general, &bob.cookie, Some(&bob.csrf), &values).await;
    assert_eq!(s, 403);
    let mut bad = values;
    bad[4] = ("timeZone", "Mars/Olympus");
    let (s, html) = post_form(&app, general, &ada.cookie, Some(&ada.csrf), &bad).await;
    assert_eq!(s, 400, "{html}");
    assert!(
        html.contains("id=\"time-zone-error\"") && html.contains("value=\"Mars/Olympus\""),
        "{html}"
    );
    let (s, _) = post_form(&app, general, &ada.cookie, Some(&ada.csrf), &values).await;
    assert_eq!(s, 303);
    let (_, html) = page(&app, &ada, "/t/sales/settings/general?done=saved").await;
    assert!(
        html.contains("Your changes were saved") && html.contains("value=\"Acme Sales\""),
        "{html}"
    );
    assert!(
        html.contains("<option value=\"dd/MM/yyyy\" selected>"),
        "{html}"
    );
    assert!(
        html.contains("<title>General · Settings · Sales EU · Docket</title>"),
        "{html}"
    );
    // A document made on the team's pages starts with the team's defaults.
    let body = json!({ "title": "Defaults", "recipients": [] });
    let (_, made) = page_call(
        &app,
        &bob,
        Some("sales"),
        Method::POST,
        "/api/v1/documents",
        Some(body),
    )
    .await;
    let path = format!("/api/v1/documents/{}", made["documentId"]);
    let (_, doc) = page_call(&app, &bob, Some("sales"), Method::GET, &path, None).await;
    assert_eq!(doc["meta"]["dateFormat"], "dd/MM/yyyy", "{doc}");
    assert_eq!(doc["meta"]["timezone"], "Europe/Paris", "{doc}");
    assert_eq!(doc["meta"]["signingOrder"], "SEQUENTIAL", "{doc}");
    // Emptied, they go back to Docket's.
    let cleared = [
        ("name", "Sales EU"),
        ("senderName", ""),
        ("signingOrder", ""),
        ("dateFormat", ""),
        ("timeZone", ""),
        ("redirectUrl", ""),
    ];
    let (s, _) = post_form(&app, general, &ada.cookie, Some(&ada.csrf), &cleared).await;
    assert_eq!(s, 303);
    let shown = docket_json(&app.data_dir(), &["team", "settings", "sales"], None);
    assert_eq!(
        (&shown["time_zone"], &shown["sender_name"]),
        (&Value::Null, &Value::Null),
        "{shown}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_editors_settings_offer_a_team_rows_visibility_within_what_the_role_sees() {
    let s = setup().await;
    let (team_doc, _) = draft(&s.app, &s.ada, Some("sales"), "Team draft").await;
    let (own_doc, _) = draft(&s.app, &s.ada, None, "Own draft").await;
    let editor = |doc: i64, team: bool| {
        let base = if team { "/t/sales" } else { "" };
        format!("{base}/documents/{doc}/edit?step=settings")
    };
    let (status, html) = page(&s.app, &s.ada, &editor(team_doc, true)).await;
    assert_eq!(status, 200);
    for value in ["EVERYONE", "MANAGER_AND_ABOVE", "ADMIN"] {
        assert!(
            html.contains(&format!("<option value=\"{value}\"")),
            "{value}: {html}"
        );
    }
    assert!(
        html.contains("<option value=\"EVERYONE\" selected>"),
        "{html}"
    );
    // A member gives only what a member sees.
    let (status, html) = page(&s.app, &s.bob, &editor(team_doc, true)).await;
    assert_eq!(status, 200);
    assert!(html.contains("id=\"visibility\""), "{html}");
    assert!(!html.contains("<option value=\"ADMIN\""), "{html}");
    // A personal row has none.
    let (status, html) = page(&s.app, &s.ada, &editor(own_doc, false)).await;
    assert_eq!(status, 200);
    assert!(!html.contains("id=\"visibility\""), "{html}");
}
