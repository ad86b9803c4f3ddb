//! Folders through the real server (`signing::folders`, decision 0128): the pages' forms make,
//! rename, pin, move and delete them and put a document into one; the dashboard shows a
//! folder's documents and the top level those in no folder; the API v1 shows `folderId`;
//! another account's folder is a 404 on every form; a team folder only its admins see is a
//! 404 for its members, who do not delete the team's folders; cycles and bad names are 400;
//! deleting a folder deletes those under it and sends what they held back to the top level.

use reqwest::Method;
use serde_json::{Value, json};

use crate::support::TestApp;
use crate::support::docket_json;
use crate::support::login::{Browser, add_account, browser};

/// A call of the pages' scripts in `workspace` (`None`: personal).
async fn call(
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

/// A draft titled `title` made in `workspace`: its id.
async fn draft(app: &TestApp, who: &Browser, workspace: Option<&str>, title: &str) -> i64 {
    let body = json!({ "title": title, "recipients": [] });
    let (s, made) = call(
        app,
        who,
        workspace,
        Method::POST,
        "/api/v1/documents",
        Some(body),
    )
    .await;
    assert_eq!(s, 200, "{made}");
    made["documentId"].as_i64().unwrap()
}

/// The document's `folderId` as the API v1 answers it.
async fn folder_of(app: &TestApp, who: &Browser, workspace: Option<&str>, id: i64) -> Value {
    let path = format!("/api/v1/documents/{id}");
    let (s, doc) = call(app, who, workspace, Method::GET, &path, None).await;
    assert_eq!(s, 200, "{doc}");
    doc["folderId"].clone()
}

/// Posts a page's form with `who`'s token: the status and where it leads (or the body).
async fn post(app: &TestApp, who: &Browser, path: &str, fields: &[(&str, &str)]) -> (u16, String) {
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
    let status = resp.status().as_u16();
    let location = resp
        .headers()
        .get("location")
        .map(|l| l.to_str().unwrap().to_string());
    match location {
        Some(l) => (status, l),
        None => (status, resp.text().await.unwrap()),
    }
}

async fn get(app: &TestApp, who: &Browser, path: &str) -> (u16, String) {
    let resp = app
        .client
        .get(app.url(path))
        .header("cookie", &who.cookie)
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    (status, resp.text().await.unwrap())
}

/// The id of the folder named `name` among the sub-folders `html` lists.
fn folder_named(html: &str, name: &str) -> String {
    let marker = format!("<span class=\"folder-name\">{name}</span>");
    let at = html
        .find(&marker)
        .unwrap_or_else(|| panic!("no folder {name} in {html}"));
    let before = &html[..at];
    let start = before.rfind("folder=").unwrap() + "folder=".len();
    before[start..start + 24].to_string()
}

#[tokio::test]
async fn folders_through_the_pages_and_the_api() {
    let app = TestApp::spawn().await;
    let d = app.data_dir();
    add_account(&d, "ada@example.com", "Ada");
    add_account(&d, "bob@example.com", "Bob");
    let ada = browser(&app, "ada@example.com").await;
    let bob = browser(&app, "bob@example.com").await;

    let lease = draft(&app, &ada, None, "Lease of the mill").await;
    assert_eq!(folder_of(&app, &ada, None, lease).await, Value::Null);

    // A folder at the top level, one inside it.
    assert_eq!(
        post(
            &app,
            &ada,
            "/folders",
            &[("name", " Leases "), ("kind", "DOCUMENT")]
        )
        .await,
        (303, "/".to_string())
    );
    let (s, top) = get(&app, &ada, "/").await;
    assert_eq!(s, 200);
    let leases = folder_named(&top, "Leases");
    assert!(
        leases.chars().all(|c| c.is_ascii_alphanumeric()),
        "{leases}"
    );
    let (s, to) = post(
        &app,
        &ada,
        "/folders",
        &[("name", "2026"), ("parent", &leases)],
    )
    .await;
    assert_eq!(
        (s, to.as_str()),
        (303, format!("/?folder={leases}").as_str())
    );
    let (_, inside) = get(&app, &ada, &format!("/?folder={leases}")).await;
    let year = folder_named(&inside, "2026");
    assert!(
        inside.contains("aria-current=\"page\">Leases</a>"),
        "the path ends at the folder"
    );

    // The document into the folder: the API says so, the top level no longer lists it.
    let (s, to) = post(
        &app,
        &ada,
        &format!("/documents/{lease}/folder"),
        &[("folder", &year)],
    )
    .await;
    assert_eq!((s, to), (303, format!("/documents/{lease}")));
    assert_eq!(folder_of(&app, &ada, None, lease).await, json!(year));
    let (_, list) = call(&app, &ada, None, Method::GET, "/api/v1/documents", None).await;
    assert_eq!(
        list["documents"][0]["folderId"],
        json!(year),
        "the v1 list holds it too"
    );
    let (_, top) = get(&app, &ada, "/?tab=all").await;
    assert!(!top.contains("Lease of the mill"), "not at the top level");
    let (_, there) = get(&app, &ada, &format!("/?tab=all&folder={year}")).await;
    assert!(there.contains("Lease of the mill"));
    let (_, page) = get(&app, &ada, &format!("/documents/{lease}")).await;
    assert!(
        page.contains("In “Leases / 2026”."),
        "the document's page names its folder"
    );

    // Another account's folder is a 404 everywhere; so is its document for the other's folder.
    let bobs = draft(&app, &bob, None, "Bob's own").await;
    for (path, fields) in [
        (
            format!("/folders/{leases}"),
            vec![("what", "rename"), ("name", "Mine")],
        ),
        (format!("/folders/{leases}/delete"), vec![]),
        (
            format!("/documents/{bobs}/folder"),
            vec![("folder", leases.as_str())],
        ),
        (
            "/folders".to_string(),
            vec![("name", "In hers"), ("parent", leases.as_str())],
        ),
        (format!("/documents/{lease}/folder"), vec![("folder", "")]),
    ] {
        let (s, _) = post(&app, &bob, &path, &fields).await;
        assert_eq!(s, 404, "Bob POST {path}");
    }
    assert_eq!(get(&app, &bob, &format!("/?folder={leases}")).await.0, 404);
    assert_eq!(folder_of(&app, &bob, None, bobs).await, Value::Null);
    assert_eq!(folder_of(&app, &ada, None, lease).await, json!(year));

    // No cycles; names of 1 to 255 characters; a document only into a document folder.
    let (s, body) = post(
        &app,
        &ada,
        &format!("/folders/{leases}"),
        &[("what", "move"), ("parent", &year)],
    )
    .await;
    assert_eq!(s, 400, "{body}");
    assert!(body.contains("itself or a folder inside it"), "{body}");
    let long = "x".repeat(256);
    for name in ["   ", long.as_str()] {
        let (s, _) = post(&app, &ada, "/folders", &[("name", name)]).await;
        assert_eq!(s, 400, "{name:?}");
    }
    post(
        &app,
        &ada,
        "/folders",
        &[("name", "Forms"), ("kind", "TEMPLATE")],
    )
    .await;
    let (_, templates) = get(&app, &ada, "/templates").await;
    let forms = folder_named(&templates, "Forms");
    let (s, _) = post(
        &app,
        &ada,
        &format!("/documents/{lease}/folder"),
        &[("folder", &forms)],
    )
    .await;
    assert_eq!(s, 400, "a document into a template folder");
    let (_, top) = get(&app, &ada, "/").await;
    assert!(
        !top.contains("Forms"),
        "the dashboard lists document folders only"
    );

    // Rename, pin (pinned first), move to the top level and back.
    post(&app, &ada, "/folders", &[("name", "Archive")]).await;
    let (s, to) = post(
        &app,
        &ada,
        &format!("/folders/{year}"),
        &[("what", "rename"), ("name", "Year 2026")],
    )
    .await;
    assert_eq!((s, to), (303, format!("/?folder={year}")));
    post(
        &app,
        &ada,
        &format!("/folders/{leases}"),
        &[("what", "pin")],
    )
    .await;
    let (_, top) = get(&app, &ada, "/").await;
    let (l, a) = (
        top.find(">Leases<").unwrap(),
        top.find(">Archive<").unwrap(),
    );
    assert!(l < a, "the pinned folder comes first");
    assert!(top.contains("Pinned"));
    post(
        &app,
        &ada,
        &format!("/folders/{year}"),
        &[("what", "move"), ("parent", "")],
    )
    .await;
    let (_, top) = get(&app, &ada, "/").await;
    assert!(top.contains(">Year 2026<"), "moved to the top level");
    post(
        &app,
        &ada,
        &format!("/folders/{year}"),
        &[("what", "move"), ("parent", &leases)],
    )
    .await;

    // Deleting a folder deletes those under it; the document goes back to the top level.
    let (s, to) = post(&app, &ada, &format!("/folders/{leases}/delete"), &[]).await;
    assert_eq!((s, to.as_str()), (303, "/"));
    assert_eq!(folder_of(&app, &ada, None, lease).await, Value::Null);
    assert_eq!(get(&app, &ada, &format!("/?folder={year}")).await.0, 404);
    let (_, top) = get(&app, &ada, "/?tab=all").await;
    assert!(top.contains("Lease of the mill"), "back at the top level");
}

#[tokio::test]
async fn a_teams_folders_follow_its_visibility_and_roles() {
    let app = TestApp::spawn().await;
    let d = app.data_dir();
    add_account(&d, "ada@example.com", "Ada");
    add_account(&d, "bob@example.com", "Bob");
    docket_json(
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
            "bob@example.com",
            "--role",
            "MEMBER",
        ],
        None,
    );
    let ada = browser(&app, "ada@example.com").await;
    let bob = browser(&app, "bob@example.com").await;

    post(&app, &ada, "/t/sales/folders", &[("name", "Board")]).await;
    post(&app, &ada, "/t/sales/folders", &[("name", "Open")]).await;
    let (_, team) = get(&app, &ada, "/t/sales").await;
    let (board, open) = (folder_named(&team, "Board"), folder_named(&team, "Open"));
    assert!(team.contains("Who sees it") || !team.contains("folder-manage"));
    let (s, to) = post(
        &app,
        &ada,
        &format!("/t/sales/folders/{board}"),
        &[("what", "visibility"), ("visibility", "ADMIN")],
    )
    .await;
    assert_eq!((s, to), (303, format!("/t/sales?folder={board}")));
    let (_, shown) = get(&app, &ada, &format!("/t/sales?folder={board}")).await;
    assert!(
        shown.contains("Who sees it"),
        "an admin chooses who sees it"
    );

    // The member: the admins' folder is not listed and is a 404; the open one is theirs too.
    let (_, team) = get(&app, &bob, "/t/sales").await;
    assert!(
        !team.contains(">Board<") && team.contains(">Open<"),
        "{team}"
    );
    assert_eq!(
        get(&app, &bob, &format!("/t/sales?folder={board}")).await.0,
        404
    );
    let (s, _) = post(
        &app,
        &bob,
        &format!("/t/sales/folders/{board}"),
        &[("what", "rename"), ("name", "Mine")],
    )
    .await;
    assert_eq!(s, 404);
    let (s, _) = post(
        &app,
        &bob,
        &format!("/t/sales/folders/{open}"),
        &[("what", "visibility"), ("visibility", "ADMIN")],
    )
    .await;
    assert_eq!(s, 403, "a member gives no visibility it does not see");
    let (s, _) = post(&app, &bob, &format!("/t/sales/folders/{open}/delete"), &[]).await;
    assert_eq!(s, 403, "a member does not delete the team's folders");

    // A team document in the admins' folder: at the member's top level, in the admin's folder.
    let doc = draft(&app, &ada, Some("sales"), "Board minutes").await;
    let (s, _) = post(
        &app,
        &ada,
        &format!("/t/sales/documents/{doc}/folder"),
        &[("folder", &board)],
    )
    .await;
    assert_eq!(s, 303);
    assert_eq!(
        folder_of(&app, &ada, Some("sales"), doc).await,
        json!(board)
    );
    let (_, top) = get(&app, &bob, "/t/sales?tab=all").await;
    assert!(
        top.contains("Board minutes"),
        "reachable at the member's top level"
    );
    let (_, top) = get(&app, &ada, "/t/sales?tab=all").await;
    assert!(
        !top.contains("Board minutes"),
        "in its folder for the admin"
    );

    // A personal folder is not the team's, nor the team's the personal workspace's.
    assert_eq!(get(&app, &ada, &format!("/?folder={board}")).await.0, 404);
    post(&app, &ada, "/folders", &[("name", "Private")]).await;
    let (_, mine) = get(&app, &ada, "/").await;
    let private = folder_named(&mine, "Private");
    let (s, _) = post(
        &app,
        &ada,
        &format!("/t/sales/documents/{doc}/folder"),
        &[("folder", &private)],
    )
    .await;
    assert_eq!(s, 404);
}
