//! The signing service's published API v1 examples (create and send a document; add, update and
//! remove a field; add, update and remove a recipient; get a document; page through documents),
//! replayed over plain HTTP as its typed client sends them: the key as `Authorization: Bearer`,
//! ids in paths as text, the file PUT to the upload URL as `application/octet-stream`. Only the
//! base URL and the key differ. The examples use placeholder ids; here each step uses the ids
//! the steps before it got, and a signature field is added before sending, as the peer requires
//! one per signer too.

use reqwest::Method;
use serde_json::{Value, json};

use crate::support::TestApp;
use crate::support::api::{add_user, create_api_key, fixture};

/// A client as the examples build it: base URL `/api/v1`, `authorization: Bearer <token>`.
struct Client {
    http: reqwest::Client,
    base: String,
    token: String,
}

impl Client {
    async fn call(&self, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let mut req = self
            .http
            .request(method, format!("{}{path}", self.base))
            .header("authorization", format!("Bearer {}", self.token));
        if let Some(b) = body {
            req = req.json(&b);
        }
        let resp = req.send().await.unwrap();
        let status = resp.status().as_u16();
        (status, resp.json().await.unwrap_or(Value::Null))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_published_v1_examples_run_unchanged_but_for_url_and_key() {
    let app = TestApp::spawn().await;
    add_user(&app.data_dir(), "owner@example.com", &["--name", "Owner"]);
    let token = create_api_key(&app.data_dir(), "owner@example.com")["key"]
        .as_str()
        .unwrap()
        .to_string();
    let client = Client {
        http: app.client.clone(),
        base: app.url("/api/v1"),
        token,
    };

    // 01: create a document with two recipients and a message, then upload its file.
    let (status, body) = client
        .call(
            Method::POST,
            "/documents",
            Some(json!({
                "title": "My Document",
                "recipients": [
                    {"name": "John Doe", "email": "john@example.com", "role": "SIGNER"},
                    {"name": "Jane Doe", "email": "jane@example.com", "role": "APPROVER"}
                ],
                "meta": {
                    "subject": "Please sign this document",
                    "message": "Hey {signer.name}, please sign the following document: {document.name}"
                }
            })),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let document_id = body["documentId"].as_i64().unwrap().to_string();
    let upload_url = body["uploadUrl"].as_str().unwrap();
    let uploaded = app
        .client
        .put(upload_url)
        .header("Content-Type", "application/octet-stream")
        .body(fixture("a4-1p.pdf"))
        .send()
        .await
        .unwrap();
    assert!(uploaded.status().is_success(), "{}", uploaded.status());
    let john = body["recipients"][0]["recipientId"].as_i64().unwrap();

    // 02: add a field (percentages of the page).
    let field = |extra: Value| {
        let mut f = json!({"type": "SIGNATURE", "pageHeight": 2.5, "pageWidth": 5,
                           "pageX": 10, "pageY": 10, "pageNumber": 1});
        f.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        f
    };
    let fields = format!("/documents/{document_id}/fields");
    let (status, body) = client
        .call(
            Method::POST,
            &fields,
            Some(field(json!({"recipientId": john}))),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let field_id = body["id"].as_i64().unwrap().to_string();

    // 03: update it (the same body, without the recipient).
    let (status, body) = client
        .call(
            Method::PATCH,
            &format!("{fields}/{field_id}"),
            Some(field(json!({}))),
        )
        .await;
    assert_eq!(status, 200, "{body}");

    // 04: remove it; and a field for sending (the peer refuses to send without one too).
    let (status, body) = client
        .call(Method::DELETE, &format!("{fields}/{field_id}"), None)
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, _) = client
        .call(
            Method::POST,
            &fields,
            Some(field(json!({"recipientId": john}))),
        )
        .await;
    assert_eq!(status, 200);

    // 05, 06, 07: add a recipient, rename them, remove them.
    let recipients = format!("/documents/{document_id}/recipients");
    let (status, body) = client
        .call(
            Method::POST,
            &recipients,
            Some(json!({"name": "John Doe", "email": "john.doe@example.com", "role": "APPROVER"})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let recipient_id = body["id"].as_i64().unwrap().to_string();
    let (status, body) = client
        .call(
            Method::PATCH,
            &format!("{recipients}/{recipient_id}"),
            Some(json!({"name": "Johnathon Doe"})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["name"], "Johnathon Doe");
    let (status, body) = client
        .call(
            Method::DELETE,
            &format!("{recipients}/{recipient_id}"),
            None,
        )
        .await;
    assert_eq!(status, 200, "{body}");

    // 08: get the document.
    let (status, body) = client
        .call(Method::GET, &format!("/documents/{document_id}"), None)
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["title"], "My Document");
    assert_eq!(body["recipients"].as_array().unwrap().len(), 2);
    assert_eq!(body["fields"].as_array().unwrap().len(), 1);

    // 01, last step: send it (no body, as the example sends none).
    let (status, body) = client
        .call(
            Method::POST,
            &format!("/documents/{document_id}/send"),
            None,
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["status"], "PENDING");

    // 09: page through all documents.
    let (status, body) = client
        .call(Method::GET, "/documents?page=1&perPage=10", None)
        .await;
    assert_eq!(status, 200, "{body}");
    let listed = body["documents"].as_array().unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["id"].as_i64().unwrap().to_string(), document_id);
    assert_eq!(listed[0]["title"], "My Document");
    assert_eq!(body["totalPages"], 1);
    app.stop().await;
}
