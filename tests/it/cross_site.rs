//! The owner's downloads with the session cookie (`GET /documents/{id}/download/...`), which add
//! DOWNLOADED to the audit trail, act only for Docket's own pages, bookmarks and typed
//! addresses (issue 52, finding 7): a request another site made the browser send
//! (`Sec-Fetch-Site: cross-site` or `same-site`, or an `Origin` that is not ours) is refused
//! with 403 and records nothing; API keys on the API's download are not concerned.

use reqwest::Method;

use crate::support::TestApp;
use crate::support::api::{create_api_key, fixture};
use crate::support::login::{add_account, browser};

fn downloads(app: &TestApp, id: i64) -> i64 {
    app.db()
        .query_row(
            "SELECT count(*) FROM audit_events WHERE document_id = ?1 AND type = 'DOWNLOADED'",
            [id],
            |r| r.get(0),
        )
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn downloads_with_the_cookie_come_only_from_our_own_pages() {
    let app = TestApp::spawn().await;
    let d = app.data_dir();
    add_account(&d, "ada@example.com", "Ada");
    let ada = browser(&app, "ada@example.com").await;
    let api = app.api(
        create_api_key(&d, "ada@example.com")["key"]
            .as_str()
            .unwrap(),
    );
    let (s, up) = {
        let resp = api
            .request(Method::POST, "/api/v1/documents/upload")
            .query(&[("title", "Lease")])
            .header("content-type", "application/pdf")
            .body(fixture("a4-1p.pdf"))
            .send()
            .await
            .unwrap();
        (
            resp.status(),
            resp.json::<serde_json::Value>().await.unwrap(),
        )
    };
    assert_eq!(s, 200, "{up}");
    let id = up["documentId"].as_i64().unwrap();
    let get = |file: &str, headers: &[(&str, &str)], cookie: bool| {
        let mut req = app
            .client
            .get(app.url(&format!("/documents/{id}/download/{file}")));
        if cookie {
            req = req.header("cookie", &ada.cookie);
        }
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        req.send()
    };

    // Another site's link or redirect, or a sibling host's: refused, nothing recorded.
    for headers in [
        &[("sec-fetch-site", "cross-site")][..],
        &[("sec-fetch-site", "same-site")],
        &[("origin", "https://evil.example")],
        &[("sec-fetch-site", "same-origin"), ("origin", "null")],
    ] {
        for file in ["original.pdf", "audit-log.csv"] {
            let resp = get(file, headers, true).await.unwrap();
            assert_eq!(resp.status(), 403, "{headers:?}");
            let html = resp.text().await.unwrap();
            assert!(html.contains("came from another site"), "{html}");
        }
    }
    assert_eq!(downloads(&app, id), 0);

    // Our own page's link, a bookmark or typed address, a client that says nothing, our own
    // origin: the file, and a DOWNLOADED each.
    let ours = app.base.clone();
    for headers in [
        &[("sec-fetch-site", "same-origin")][..],
        &[("sec-fetch-site", "none")],
        &[],
        &[("sec-fetch-site", "same-origin"), ("origin", ours.as_str())],
    ] {
        let resp = get("original.pdf", headers, true).await.unwrap();
        assert_eq!(resp.status(), 200, "{headers:?}");
        assert_eq!(resp.bytes().await.unwrap().as_ref(), fixture("a4-1p.pdf"));
    }
    assert_eq!(downloads(&app, id), 4);

    // Without the cookie another site's request acts as nobody: the sign-in form, as before.
    let resp = get("original.pdf", &[("sec-fetch-site", "cross-site")], false)
        .await
        .unwrap();
    assert_eq!(resp.status(), 303);
    // The API's download with a key is not a cookie's: a browser's header changes nothing.
    let resp = api
        .request(Method::GET, &format!("/api/v1/documents/{id}/download"))
        .query(&[("original", "true")])
        .header("sec-fetch-site", "cross-site")
        .header("origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(downloads(&app, id), 5);
    app.stop().await;
}
