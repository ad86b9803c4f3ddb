//! Authentication comes before the body: an anonymous request with a malformed body is a 401,
//! not a 400, and a token without the scope is a 403 before its body is looked at.

use serde_json::Value;

use crate::support::TestApp;

async fn send(
    app: &TestApp,
    method: reqwest::Method,
    path: &str,
    auth: Option<&str>,
) -> (u16, Value) {
    let mut req = app
        .client
        .request(method, app.url(path))
        .header("content-type", "application/json")
        .body("{not json");
    if let Some(a) = auth {
        req = req.header("authorization", a);
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    (status, resp.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn anonymous_malformed_requests_are_401_on_every_api_route_with_a_body() {
    let app = TestApp::spawn().await;
    use reqwest::Method;
    let routes = [
        (Method::POST, "/api/v1/documents"),
        (Method::POST, "/api/v1/documents/1/recipients"),
        (Method::PATCH, "/api/v1/documents/1/recipients/1"),
        (Method::POST, "/api/v1/documents/1/fields"),
        (Method::PATCH, "/api/v1/documents/1/fields/1"),
        (Method::POST, "/api/v1/documents/1/send"),
        (Method::POST, "/api/v1/templates"),
        (Method::POST, "/api/v1/templates/1/recipients"),
        (Method::POST, "/api/v1/templates/1/fields"),
        (Method::POST, "/api/v1/templates/1/generate-document"),
        (Method::POST, "/api/v1/webhooks"),
        (Method::POST, "/api/v1/bookings"),
        (Method::POST, "/api/v1/bookings/1/cancel"),
    ];
    for (method, path) in routes {
        let (status, body) = send(&app, method.clone(), path, None).await;
        assert_eq!(status, 401, "{method} {path}: {body}");
        let (status, body) = send(&app, method.clone(), path, Some("Bearer nope")).await;
        assert_eq!(status, 401, "{method} {path} with a wrong token: {body}");
    }
    // With a valid key the same body is a 400: the body is read once the caller is known.
    let api = app.user_with_key("ada@example.com", "standard");
    let (status, body) = send(&app, Method::POST, "/api/v1/documents", Some(api.key())).await;
    assert_eq!(status, 400, "{body}");
}
