//! The "not found" page (issue 55, item 11): a signed-in person keeps the web application's
//! navigation (an address that leads nowhere, or an object that is not there); signed out, and
//! on a recipient's pages, the plain layout; the APIs answer JSON as ever.

use crate::settings_tokens::page;
use crate::support::TestApp;
use crate::support::login::{add_account, browser};

const NAV: &str = "<nav class=\"app-nav\" aria-label=\"Main\">";

#[tokio::test]
async fn a_signed_in_404_keeps_the_navigation_and_a_signed_out_one_the_plain_layout() {
    let app = TestApp::spawn().await;
    add_account(&app.data_dir(), "ada@example.com", "Ada");
    let ada = browser(&app, "ada@example.com").await;
    for path in [
        "/no/such/page",
        "/settings/webhooks/999",
        "/t/nobody/templates",
    ] {
        let (s, html) = page(&app, &ada, path).await;
        assert_eq!(s, 404, "{path}");
        assert!(html.contains(NAV), "{path}: {html}");
        assert!(
            html.contains("<p class=\"error-code\">404</p>"),
            "{path}: {html}"
        );
        assert!(html.contains("Sign out"), "{path}");
        // No section is the current one.
        assert!(!html.contains("aria-current=\"page\""), "{path}: {html}");
    }
    let nobody = crate::support::login::Browser {
        cookie: "x=1".into(),
        csrf: String::new(),
    };
    let (s, html) = page(&app, &nobody, "/no/such/page").await;
    assert_eq!(s, 404);
    assert!(!html.contains(NAV) && html.contains("error-code"), "{html}");
    // A recipient's page stays plain, even for someone signed in.
    let (s, html) = page(&app, &ada, "/sign/nosuchtoken").await;
    assert!(s == 404 || s == 410, "{s}");
    assert!(!html.contains(NAV), "{html}");
    // The API: JSON.
    let (s, body) = page(&app, &ada, "/api/v1/nothing-here").await;
    assert_eq!(s, 404);
    assert!(body.starts_with('{'), "{body}");
    app.stop().await;
}
