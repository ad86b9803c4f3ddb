//! The HTTP surface every later feature relies on: health, request ids, security headers,
//! error formats, body limits, embedded assets.

use crate::support::TestApp;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn healthz_reports_version_and_database() {
    let app = TestApp::spawn().await;
    let resp = app.get("/healthz").await;
    assert_eq!(resp.status(), 200);
    assert!(
        resp.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json")
    );
    let body: serde_json::Value = resp.json().await.unwrap();
    assert_eq!(
        body,
        serde_json::json!({"status": "ok", "version": env!("CARGO_PKG_VERSION"), "database": "ok", "blobs": "ok", "disk": "ok"})
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_response_has_a_request_id_and_a_given_one_is_kept() {
    let app = TestApp::spawn().await;
    for path in [
        "/healthz",
        "/",
        "/nope",
        "/api/nope",
        "/assets/css/docket.css",
    ] {
        let resp = app.get(path).await;
        let id = resp
            .headers()
            .get("x-request-id")
            .expect(path)
            .to_str()
            .unwrap();
        assert!(id.len() >= 16, "{path}: {id}");
    }
    let resp = app
        .client
        .get(app.url("/healthz"))
        .header("x-request-id", "trace-abc-123")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.headers()["x-request-id"], "trace-abc-123");
    let resp = app
        .client
        .get(app.url("/healthz"))
        .header("x-request-id", "not ok; injected")
        .send()
        .await
        .unwrap();
    assert_ne!(resp.headers()["x-request-id"], "not ok; injected");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_carry_the_security_headers() {
    let app = TestApp::spawn().await;
    for (path, status) in [("/", 200), ("/no/such/page", 404)] {
        let resp = app.get(path).await;
        assert_eq!(resp.status(), status, "{path}");
        let h = resp.headers();
        assert!(
            h["content-type"].to_str().unwrap().starts_with("text/html"),
            "{path}"
        );
        let csp = h["content-security-policy"].to_str().unwrap();
        assert!(csp.contains("default-src 'none'"), "{csp}");
        assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
        assert!(!csp.contains("unsafe-inline"), "{csp}");
        assert_eq!(h["x-frame-options"], "DENY");
        assert_eq!(h["referrer-policy"], "no-referrer");
        assert_eq!(h["x-content-type-options"], "nosniff");
        let html = resp.text().await.unwrap();
        assert!(
            html.contains("/assets/css/docket.css?v="),
            "shared stylesheet linked"
        );
        assert!(!html.contains("{{"), "template fully rendered");
    }
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_api_routes_get_json_404_and_wrong_methods_json_405() {
    let app = TestApp::spawn().await;
    let resp = app.get("/api/v1/nothing-here").await;
    assert_eq!(resp.status(), 404);
    let body: serde_json::Value = resp.json().await.unwrap();
    assert_eq!(body["code"], "not_found");
    assert!(body["message"].as_str().unwrap().len() > 5);

    let resp = app.client.post(app.url("/healthz")).send().await.unwrap();
    assert_eq!(resp.status(), 405);
    let body: serde_json::Value = resp.json().await.unwrap();
    assert_eq!(body["code"], "method_not_allowed");

    let resp = app.client.delete(app.url("/api")).send().await.unwrap();
    assert_eq!(resp.status(), 404);
    assert!(
        resp.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json")
    );

    // Pages get the HTML error page instead.
    let resp = app.get("/no/such/page").await;
    assert_eq!(resp.status(), 404);
    assert!(resp.text().await.unwrap().contains("Not Found"));
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn declared_bodies_over_the_limit_are_refused_with_413() {
    let app = TestApp::spawn_with(&["--tls", "off", "--max-upload-mb", "1"]).await;
    // The answer comes right after the headers: none of the body is read.
    let head = format!(
        "POST /api/v1/documents HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
        3 * 1024 * 1024
    );
    let (status, text) = crate::support::raw_status(app.addr, head.as_bytes());
    assert_eq!(status, 413);
    assert!(text.contains(r#""code":"payload_too_large""#), "{text}");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn assets_have_types_etags_and_cache_headers() {
    let app = TestApp::spawn().await;
    let resp = app.get("/assets/css/docket.css").await;
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-type"], "text/css; charset=utf-8");
    assert_eq!(resp.headers()["cache-control"], "public, no-cache");
    let etag = resp.headers()["etag"].to_str().unwrap().to_string();
    assert!(etag.starts_with('"') && etag.ends_with('"'));
    assert!(
        resp.text().await.unwrap().contains("--"),
        "the stylesheet itself"
    );

    let again = app
        .client
        .get(app.url("/assets/css/docket.css"))
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 304);

    let version = etag.trim_matches('"');
    let versioned = app
        .get(&format!("/assets/css/docket.css?v={version}"))
        .await;
    assert_eq!(
        versioned.headers()["cache-control"],
        "public, max-age=31536000, immutable"
    );

    // A browser takes the embedded gzip bytes as they are; they inflate to the same stylesheet.
    let plain = app
        .get("/assets/css/docket.css")
        .await
        .bytes()
        .await
        .unwrap();
    // The stylesheet fetched with `headers`.
    let stylesheet = |headers: &[(&str, &str)]| {
        let mut req = app.client.get(app.url("/assets/css/docket.css"));
        for (name, value) in headers {
            req = req.header(*name, *value);
        }
        req.send()
    };
    let gz = stylesheet(&[("accept-encoding", "gzip, deflate, br")])
        .await
        .unwrap();
    assert_eq!(gz.status(), 200);
    assert_eq!(gz.headers()["content-encoding"], "gzip");
    assert_eq!(gz.headers()["vary"], "accept-encoding");
    assert_eq!(gz.headers()["content-type"], "text/css; charset=utf-8");
    let gz_etag = gz.headers()["etag"].to_str().unwrap().to_string();
    assert_eq!(gz_etag, format!("\"{version}-gz\""));
    let gz_body = gz.bytes().await.unwrap();
    assert!(
        gz_body.len() * 3 < plain.len(),
        "{} of {}",
        gz_body.len(),
        plain.len()
    );
    let mut inflated = Vec::new();
    std::io::Read::read_to_end(
        &mut flate2::read::GzDecoder::new(&gz_body[..]),
        &mut inflated,
    )
    .unwrap();
    assert_eq!(inflated, plain);
    // Either ETag revalidates either representation; one refusing gzip gets the file as it is.
    let revalidated = stylesheet(&[
        ("accept-encoding", "gzip"),
        ("if-none-match", etag.as_str()),
    ])
    .await
    .unwrap();
    assert_eq!(revalidated.status(), 304);
    assert_eq!(revalidated.headers()["etag"], gz_etag.as_str());
    let refused = stylesheet(&[("accept-encoding", "gzip;q=0, identity")])
        .await
        .unwrap();
    assert!(refused.headers().get("content-encoding").is_none());
    assert_eq!(refused.headers()["vary"], "accept-encoding");
    assert_eq!(refused.bytes().await.unwrap(), plain);

    let svg = app.get("/assets/img/docket.svg").await;
    assert_eq!(svg.headers()["content-type"], "image/svg+xml");
    assert_eq!(app.get("/assets/templates/layout.html").await.status(), 404);
    assert_eq!(app.get("/assets/nope.js").await.status(), 404);
    assert_eq!(app.get("/assets/../Cargo.toml").await.status(), 404);
    app.stop().await;
}

/// A page's script module is addressed with the modules' version in its path, so that what it
/// imports (a relative URL, which keeps the importer's path and drops its query) is versioned
/// and cached for a year too: after an upgrade that changes any module, every module has a new
/// URL and no cached import can be stale.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn script_modules_and_their_imports_are_versioned_in_the_path() {
    let app = TestApp::spawn().await;
    let html = app.get("/api/v1/openapi").await.text().await.unwrap();
    let lead = r#"<script type="module" src=""#;
    let at = html.find(lead).expect("the explorer's module") + lead.len();
    let src = &html[at..at + html[at..].find('"').unwrap()];
    let version = src
        .strip_prefix("/assets/v/")
        .and_then(|rest| rest.strip_suffix("/js/explorer.js"))
        .unwrap_or_else(|| panic!("{src}"));
    assert_eq!(version.len(), 16, "{src}");

    let immutable = "public, max-age=31536000, immutable";
    let module = app.get(src).await;
    assert_eq!(module.status(), 200);
    assert_eq!(module.headers()["cache-control"], immutable);
    assert!(
        module.headers()["content-type"]
            .to_str()
            .unwrap()
            .contains("javascript")
    );
    let text = module.text().await.unwrap();
    assert!(text.contains("from './request.js'"), "{text}");
    // `./request.js` resolved against the module's URL, and a module of the editor.
    for imported in [
        format!("/assets/v/{version}/js/request.js"),
        format!("/assets/v/{version}/js/editor/api.js"),
    ] {
        let resp = app.get(&imported).await;
        assert_eq!(resp.status(), 200, "{imported}");
        assert_eq!(resp.headers()["cache-control"], immutable, "{imported}");
    }
    // Another version (a page of another build) gets the file as it is now, to revalidate.
    let other = app.get("/assets/v/0123456789abcdef/js/request.js").await;
    assert_eq!(other.status(), 200);
    assert_eq!(other.headers()["cache-control"], "public, no-cache");
    assert_eq!(
        app.get(&format!("/assets/v/{version}/js/nope.js"))
            .await
            .status(),
        404
    );
    app.stop().await;
}

/// POSTs `body` to `path` with `api`'s key and `content_type` (none when `None`): the status
/// and the JSON answer.
async fn post_typed(
    api: &crate::support::api::Api,
    path: &str,
    content_type: Option<&str>,
    body: &str,
) -> (u16, serde_json::Value) {
    let mut req = api
        .request(reqwest::Method::POST, path)
        .body(body.to_string());
    if let Some(ct) = content_type {
        req = req.header("content-type", ct);
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    (status, resp.json().await.unwrap_or_default())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_routes_take_only_bodies_declared_as_json() {
    use crate::support::api::{two_recipients, webhook};
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let document = two_recipients().to_string();
    let hook = webhook("https://hooks.example/x", &["DOCUMENT_CREATED"]).to_string();
    // What a cross-site form or a no-preflight fetch can send: refused before the body is read.
    for ct in [
        Some("text/plain"),
        Some("text/plain; charset=utf-8"),
        Some("application/x-www-form-urlencoded"),
        Some("multipart/form-data; boundary=x"),
        None,
    ] {
        for (path, body) in [
            ("/api/v1/documents", &document),
            ("/api/v1/webhooks", &hook),
        ] {
            let (status, err) = post_typed(&api, path, ct, body).await;
            assert_eq!(status, 415, "{path} {ct:?}: {err}");
            assert_eq!(err["code"], "unsupported_media_type", "{err}");
            assert!(
                err["message"]
                    .as_str()
                    .unwrap()
                    .contains("application/json")
            );
        }
    }
    // Nothing was made.
    let (_, list) = api.get("/api/v1/documents").await;
    assert_eq!(list["documents"], serde_json::json!([]), "{list}");
    let (_, hooks) = api.get("/api/v1/webhooks").await;
    assert_eq!(hooks["webhooks"], serde_json::json!([]), "{hooks}");
    // JSON with parameters, and a +json type, are JSON.
    for ct in [
        "application/json; charset=utf-8",
        "application/vnd.api+json",
    ] {
        let (status, v) = post_typed(&api, "/api/v1/documents", Some(ct), &document).await;
        assert_eq!(status, 200, "{ct}: {v}");
    }
    // A signing link's calls, which the browser's cookies may authenticate: even an empty,
    // untyped POST is refused when it carries cookies; without them it reaches the link.
    let created = api.create_document(two_recipients()).await;
    let signer = app.signer(&created.token(0));
    let complete = |cookie: Option<&str>, ct: Option<&str>, body: &str| {
        let mut req = app
            .client
            .post(app.url(&signer.path("/complete")))
            .body(body.to_string());
        if let Some(c) = cookie {
            req = req.header("cookie", c);
        }
        if let Some(t) = ct {
            req = req.header("content-type", t);
        }
        req.send()
    };
    let resp = complete(Some("docket_session=x"), None, "").await.unwrap();
    assert_eq!(resp.status(), 415);
    let resp = complete(None, Some("text/plain"), "{}").await.unwrap();
    assert_eq!(resp.status(), 415);
    let resp = complete(None, None, "").await.unwrap();
    assert_ne!(
        resp.status(),
        415,
        "an empty body without cookies is left out"
    );
    app.stop().await;
}
