//! A team's workspace in headless Chromium (`tests/browser/teams.mjs`): the switcher, a
//! document uploaded on the team's pages (checked here to be the team's), the members page,
//! the teams page, an invitation followed by someone new; desktop and phone sizes, keyboard,
//! axe-core, screenshots.

use crate::support::login::{PASSWORD, add_account};
use crate::support::{TestApp, docket_json, tools};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs chromium and node")]
async fn a_teams_workspace_works_in_chromium_at_both_sizes() {
    let app = TestApp::spawn().await;
    let d = app.data_dir();
    add_account(&d, "ada@example.com", "Ada");
    add_account(&d, "bob@example.com", "Bob");
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
    let invited = docket_json(
        &d,
        &[
            "team",
            "invite",
            "sales",
            "carol@example.com",
            "--public-url",
            &app.base,
        ],
        None,
    );
    let link = invited["link"].as_str().unwrap().to_string();
    let personal = docket_json(&d, &["apikey", "create", "--user", "ada@example.com"], None);
    let personal = app.api(personal["key"].as_str().unwrap());
    let own = personal
        .create_document(serde_json::json!({"title": "Own lease", "recipients": []}))
        .await
        .document_id();
    let own_arg = own.to_string();
    let base = app.base.clone();
    let fixtures = format!("{}/tests/fixtures/pdf", env!("CARGO_MANIFEST_DIR"));
    let out = tokio::task::spawn_blocking(move || {
        tools::summary(tools::browser_script(
            "teams.mjs",
            &[
                &base,
                "ada@example.com",
                PASSWORD,
                &fixtures,
                &link,
                &own_arg,
            ],
        ))
    })
    .await
    .unwrap();
    // What the page's upload made is the team's.
    let id = out["document"].as_i64().unwrap();
    let key = docket_json(
        &d,
        &[
            "apikey",
            "create",
            "--user",
            "bob@example.com",
            "--team",
            "sales",
        ],
        None,
    );
    let doc = app.api(key["key"].as_str().unwrap()).document(id).await;
    assert_eq!(doc["teamId"], team["id"], "{doc}");
    // Moved into the team and back to Ada's own when it ended, with both moves audited.
    assert_eq!(
        personal.document(own).await["teamId"],
        serde_json::Value::Null
    );
    let moves = personal.audit(own).await;
    let moved: Vec<_> = moves.iter().filter(|e| e["type"] == "MOVED").collect();
    assert_eq!(moved.len(), 2, "{moves:?}");
    for shot in [
        "switcher-desktop",
        "dashboard-desktop",
        "members-desktop",
        "last-admin-desktop",
        "invited-desktop",
        "general-desktop",
        "general-phone",
        "list-desktop",
        "create-refused-desktop",
        "created-desktop",
        "move-desktop",
        "delete-desktop",
        "delete-refused-desktop",
        "delete-phone",
        "dashboard-phone",
        "switcher-phone",
        "members-phone",
        "tokens-phone",
        "list-phone",
        "invitation-phone",
        "joined-phone",
    ] {
        let path = tools::screenshots().join(format!("teams-{shot}.png"));
        assert!(path.exists(), "{} kept", path.display());
    }
    app.stop().await;
}
