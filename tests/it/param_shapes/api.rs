//! Signed URLs, the `apiKey` query and the API's list queries.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_queries_read_the_last_value_and_ignore_unknown_names() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let created = api.create_document(two_recipients()).await;
    let doc = created.document_id();

    // (path, status, code): lists, the audit log, download and send.
    let cases: Vec<(String, u16, &str)> = vec![
        ("/api/v1/documents?page=x".into(), 400, "validation_error"),
        ("/api/v1/documents?page=x&page=1&foo=bar".into(), 200, ""),
        (
            "/api/v1/documents?page=1&page=x".into(),
            400,
            "validation_error",
        ),
        (
            "/api/v1/documents?status=BOGUS".into(),
            400,
            "invalid_request",
        ),
        (
            "/api/v1/documents?status=BOGUS&status=DRAFT&query=".into(),
            200,
            "",
        ),
        (
            "/api/v1/documents?perPage=0".into(),
            400,
            "validation_error",
        ),
        ("/api/v1/templates?perPage=x&perPage=5&x=1".into(), 200, ""),
        (
            "/api/v1/templates?page=1&page=0".into(),
            400,
            "validation_error",
        ),
        (
            format!("/api/v1/documents/{doc}/audit-log?page=0"),
            400,
            "invalid_request",
        ),
        (
            format!("/api/v1/documents/{doc}/audit-log?page=0&page=1&y=2"),
            200,
            "",
        ),
        (
            format!("/api/v1/documents/{doc}/audit-log?perPage=a"),
            400,
            "invalid_request",
        ),
        (
            format!("/api/v1/documents/{doc}/download?original=maybe"),
            400,
            "invalid_request",
        ),
        (
            format!("/api/v1/documents/{doc}/download?original=true&original=maybe"),
            400,
            "invalid_request",
        ),
    ];
    for (path, status, code) in cases {
        let resp = api.get_response(&path).await;
        let got = resp.status().as_u16();
        let body: Value = resp.json().await.unwrap_or(Value::Null);
        assert_eq!(got, status, "{path}: {body}");
        assert_eq!(
            body["code"].as_str().unwrap_or_default(),
            code,
            "{path}: {body}"
        );
    }
    for q in [
        "strictFormValues=maybe",
        "strictFormValues=true&strictFormValues=1",
    ] {
        let path = format!("/api/v1/documents/{doc}/send?{q}");
        let (status, body) = api.post(&path, json!({})).await;
        assert_eq!(
            (status, body["code"].as_str()),
            (400, Some("invalid_request")),
            "{q}: {body}"
        );
    }

    // Signed upload URLs: a missing or repeated-and-altered signature is refused, an unknown
    // parameter changes nothing.
    let upload = created.0["uploadUrl"].as_str().unwrap().to_string();
    let unsigned = upload.split('?').next().unwrap().to_string();
    let pdf = fixture("a4-1p.pdf");
    let (status, body) = api.upload(&unsigned, pdf.clone()).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (403, Some("forbidden")),
        "{body}"
    );
    let (status, body) = api.upload(&format!("{upload}&sig=AAAA"), pdf.clone()).await;
    assert_eq!(
        (status, body["code"].as_str()),
        (403, Some("forbidden")),
        "{body}"
    );
    let sig = param(&upload, "sig").unwrap();
    let (status, body) = api
        .upload(&format!("{upload}&sig=AAAA&sig={sig}&x=1"), pdf.clone())
        .await;
    assert_eq!(status, 200, "{body}");
    let path = format!("/api/v1/documents/{doc}/download?original=maybe&original=true&x=1");
    let (status, body) = api.get(&path).await;
    assert_eq!(status, 200, "{body}");
    let download = body["downloadUrl"].as_str().unwrap().to_string();
    let fetched = app
        .client
        .get(format!("{download}&x=1"))
        .send()
        .await
        .unwrap();
    assert_eq!(fetched.status(), 200);
    let fetched = app
        .client
        .get(format!("{download}&exp=1"))
        .send()
        .await
        .unwrap();
    assert_eq!(fetched.status(), 403);

    // A one-step upload: `title` left out is the empty title, refused as the JSON create's.
    let made = api
        .request(reqwest::Method::POST, "/api/v1/documents/upload?x=1")
        .header("content-type", "application/pdf")
        .body(pdf.clone())
        .send()
        .await
        .unwrap();
    let (status, body) = (made.status().as_u16(), made.json::<Value>().await.unwrap());
    assert_eq!(
        (status, body["code"].as_str()),
        (400, Some("validation_error")),
        "{body}"
    );
    let made = api
        .request(
            reqwest::Method::POST,
            "/api/v1/documents/upload?title=&title=Lease",
        )
        .header("content-type", "application/pdf")
        .body(pdf)
        .send()
        .await
        .unwrap();
    assert_eq!(made.status(), 200);

    // `?apiKey=`: the last one counts.
    let key = api.key().to_string();
    let me = |q: String| {
        let app = &app;
        async move {
            let url = app.url(&format!("/api/integrations/zapier/me?{q}"));
            app.client.get(url).send().await.unwrap().status().as_u16()
        }
    };
    assert_eq!(me(format!("apiKey=nope&apiKey={key}&x=1")).await, 201);
    assert_eq!(me(format!("apiKey={key}&apiKey=nope")).await, 401);
    assert_eq!(me("x=1".into()).await, 401);
    app.stop().await;
}
