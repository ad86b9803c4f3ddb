//! The web application's credential: the owner's own browser calls `/api/v1` with its session
//! cookie and the page's `X-CSRF-Token` (never one without the other), and sees its documents'
//! pages at `/documents/{id}/pages/{n}.png`; another user's document stays a 404.

use reqwest::Method;
use serde_json::json;

use crate::support::TestApp;
use crate::support::api::fixture;
use crate::support::login::{add_account, browser, call, hidden_inputs};

#[tokio::test]
async fn the_owners_browser_calls_the_api_with_its_session_and_the_pages_token() {
    let app = TestApp::spawn().await;
    let d = app.data_dir();
    add_account(&d, "ada@example.com", "Ada");
    add_account(&d, "bob@example.com", "Bob");
    let ada = browser(&app, "ada@example.com").await;
    let bob = browser(&app, "bob@example.com").await;
    let (c, t) = (Some(ada.cookie.as_str()), Some(ada.csrf.as_str()));

    let body = json!({"title": "Lease", "recipients": [{"name": "Cy", "email": "cy@example.com"}]});
    let (s, created) = call(
        &app,
        Method::POST,
        "/api/v1/documents",
        c,
        t,
        Some(body.clone()),
    )
    .await;
    assert_eq!(s, 200, "{created}");
    // The owner's browser sees the links, as the owner's API key does.
    assert!(
        created["recipients"][0]["signingUrl"]
            .as_str()
            .unwrap()
            .contains("/sign/")
    );
    let id = created["documentId"].as_i64().unwrap();
    let (s, listed) = call(&app, Method::GET, "/api/v1/documents", c, t, None).await;
    assert_eq!(
        (s, listed["documents"].as_array().unwrap().len()),
        (200, 1),
        "{listed}"
    );

    // The cookie alone is no credential (a page of another site could make the browser send
    // it), nor is the token alone; a token of another session, or a made-up one, is refused.
    let (s, _) = call(&app, Method::GET, "/api/v1/documents", c, None, None).await;
    assert_eq!(s, 401);
    let (s, _) = call(
        &app,
        Method::POST,
        "/api/v1/documents",
        c,
        None,
        Some(body.clone()),
    )
    .await;
    assert_eq!(s, 401);
    let (s, _) = call(&app, Method::GET, "/api/v1/documents", None, t, None).await;
    assert_eq!(s, 401);
    let (s, v) = call(
        &app,
        Method::GET,
        "/api/v1/documents",
        c,
        Some(&bob.csrf),
        None,
    )
    .await;
    assert_eq!(s, 403, "{v}");
    assert!(
        v["message"].as_str().unwrap().contains("sign in again"),
        "{v}"
    );
    let (s, _) = call(
        &app,
        Method::GET,
        "/api/v1/documents",
        Some(&bob.cookie),
        t,
        None,
    )
    .await;
    assert_eq!(s, 403);
    let (s, _) = call(&app, Method::GET, "/api/v1/documents", c, Some("x"), None).await;
    assert_eq!(s, 403);
    // Another user's document is a 404 to their browser, as to their key.
    let path = format!("/api/v1/documents/{id}");
    let (s, _) = call(
        &app,
        Method::GET,
        &path,
        Some(&bob.cookie),
        Some(&bob.csrf),
        None,
    )
    .await;
    assert_eq!(s, 404);

    // The pages of the owner's document, and of no one else's.
    let up = app
        .client
        .put(created["uploadUrl"].as_str().unwrap())
        .header("content-type", "application/pdf")
        .body(fixture("a4-1p.pdf"))
        .send()
        .await
        .unwrap();
    assert_eq!(up.status(), 200);
    let page = |cookie: Option<String>, n: u32| {
        let mut req = app
            .client
            .get(app.url(&format!("/documents/{id}/pages/{n}.png?w=800")));
        if let Some(c) = cookie {
            req = req.header("cookie", c);
        }
        req.send()
    };
    let png = page(Some(ada.cookie.clone()), 1).await.unwrap();
    assert_eq!(png.status(), 200);
    assert_eq!(png.headers()["content-type"], "image/png");
    assert!(png.bytes().await.unwrap().starts_with(b"\x89PNG"));
    assert_eq!(
        page(Some(ada.cookie.clone()), 2).await.unwrap().status(),
        404
    );
    assert_eq!(
        page(Some(bob.cookie.clone()), 1).await.unwrap().status(),
        404
    );
    assert_eq!(page(None, 1).await.unwrap().status(), 401);

    // Signed out, the page's token is dead with its session.
    let html = app
        .client
        .get(app.url("/account"))
        .header("cookie", &ada.cookie)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let logout: Vec<(String, String)> = hidden_inputs(&html)
        .into_iter()
        .filter(|(k, _)| k == "csrf_token")
        .take(1)
        .collect();
    let out = app
        .client
        .post(app.url("/auth/logout"))
        .header("cookie", &ada.cookie)
        .form(&logout)
        .send()
        .await
        .unwrap();
    assert_eq!(out.status(), 303);
    let (s, _) = call(&app, Method::GET, "/api/v1/documents", c, t, None).await;
    assert_eq!(s, 403);
}
