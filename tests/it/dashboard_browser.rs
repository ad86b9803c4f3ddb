//! The dashboard and the signed-out start page in headless Chromium (`tests/browser/dashboard.mjs`):
//! documents seeded through the API as in `dashboard.rs`, one of them sent to the signed-in
//! user by another; desktop and phone sizes, keyboard only, axe-core, screenshots.

use crate::dashboard::seed;
use crate::support::login::{PASSWORD, add_account};
use crate::support::{TestApp, tools};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs chromium and node")]
async fn the_dashboard_works_in_chromium_at_both_sizes_and_by_keyboard() {
    let app = TestApp::spawn().await;
    let seeded = seed(&app, 10).await;
    add_account(&app.data_dir(), "new@example.com", "New");
    let (base, token) = (app.base.clone(), seeded.inbox_token.clone());
    tokio::task::spawn_blocking(move || {
        tools::browser_step("dashboard.mjs", &[&base, PASSWORD, &token]);
    })
    .await
    .unwrap();
    for state in [
        "inbox", "all", "page2", "drafts", "search", "nothing", "new",
    ] {
        let path = tools::screenshots().join(format!("dashboard-{state}-desktop.png"));
        assert!(path.exists(), "{} kept", path.display());
    }
    for shot in [
        "dashboard-inbox-phone",
        "dashboard-all-phone",
        "dashboard-new-phone",
        "home-desktop",
        "home-phone",
    ] {
        assert!(
            tools::screenshots().join(format!("{shot}.png")).exists(),
            "{shot} kept"
        );
    }
    app.stop().await;
}
