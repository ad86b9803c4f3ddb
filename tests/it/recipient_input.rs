//! What the document API refuses in recipients' e-mail addresses and in `meta.redirectUrl`:
//! a clear 400 with the JSON path, never a value that fails later; redirect URLs are stored
//! normalised.

use serde_json::{Value, json};

use crate::support::TestApp;

fn paths(v: &Value) -> Vec<String> {
    v["details"]
        .as_array()
        .unwrap_or_else(|| panic!("no details: {v}"))
        .iter()
        .map(|d| d["path"].as_str().unwrap().to_string())
        .collect()
}

fn document(email: &str, redirect: Value) -> Value {
    json!({
        "title": "NDA",
        "recipients": [{"name": "Ann", "email": email, "role": "SIGNER"}],
        "meta": {"redirectUrl": redirect}
    })
}

const BAD_EMAILS: &[&str] = &[
    "a@example.com;evil",
    "x\"y@example.com",
    "\"x y\"@example.com",
    "a@[127.0.0.1]",
    "a@127.0.0.1",
    "a@localhost",
    "a..b@example.com",
    "a@example.com\r\nBcc: victim@example.com",
];

const BAD_REDIRECTS: &[&str] = &[
    "https:evil.example",
    "https:/evil.example",
    "//evil.example/x",
    "https://ok.example/\u{7}",
    "https://ok.example/\nSet-Cookie:x=1",
    "https://ok.example/a b",
    "https://user@evil.example/",
    "javascript:alert(1)",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn documents_refuse_bad_addresses_and_redirects_with_their_paths() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    for email in BAD_EMAILS {
        let (s, v) = api
            .post("/api/v1/documents", document(email, Value::Null))
            .await;
        assert_eq!(s, 400, "{email:?}: {v}");
        assert_eq!(paths(&v), ["recipients[0].email"], "{email:?}");
        assert!(
            v["details"][0]["message"]
                .as_str()
                .unwrap()
                .contains("not a valid e-mail address")
        );
    }
    for url in BAD_REDIRECTS {
        let (s, v) = api
            .post("/api/v1/documents", document("ann@example.com", json!(url)))
            .await;
        assert_eq!(s, 400, "{url:?}: {v}");
        assert_eq!(paths(&v), ["meta.redirectUrl"], "{url:?}");
    }
    // Both at once: every problem is listed.
    let (s, v) = api
        .post(
            "/api/v1/documents",
            document("a@[127.0.0.1]", json!("https:evil.example")),
        )
        .await;
    assert_eq!(s, 400);
    assert_eq!(paths(&v), ["recipients[0].email", "meta.redirectUrl"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redirect_urls_are_stored_normalised() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let made = api
        .create_document(document(
            "Ann@Example.COM",
            json!("HTTPS://Done.Example:443/thanks"),
        ))
        .await;
    let id = made["documentId"].as_i64().unwrap();
    let db = app.db();
    let meta: String = db
        .query_row("SELECT meta FROM documents WHERE id = ?1", [id], |r| {
            r.get(0)
        })
        .unwrap();
    let meta: Value = serde_json::from_str(&meta).unwrap();
    assert_eq!(meta["redirectUrl"], "https://done.example/thanks");
    assert_eq!(made["recipients"][0]["email"], "ann@example.com");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn templates_refuse_bad_addresses_and_redirects_with_their_paths() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    for email in BAD_EMAILS {
        let body = json!({"title": "T", "recipients": [{"email": email}]});
        let (s, v) = api.post("/api/v1/templates", body).await;
        assert_eq!(s, 400, "{email:?}: {v}");
        assert_eq!(paths(&v), ["recipients[0].email"], "{email:?}");
    }
    for url in BAD_REDIRECTS {
        let body = json!({"title": "T", "recipients": [], "meta": {"redirectUrl": url}});
        let (s, v) = api.post("/api/v1/templates", body).await;
        assert_eq!(s, 400, "{url:?}: {v}");
        assert_eq!(paths(&v), ["meta.redirectUrl"], "{url:?}");
    }
}
