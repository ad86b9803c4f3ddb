//! Requests written for the other signing service's public API v1, sent unchanged but for the
//! base URL and the key: what they ask must work here with the same success status.

use serde_json::json;

use crate::api::fixture;
use crate::harness::TestApp;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn its_date_formats_and_its_name_for_the_original_download_work() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("ada@example.com", "standard");
    // A format docket did not know before, as such a script sends it.
    let doc = api
        .create_document(json!({
            "title": "NDA", "recipients": [],
            "meta": {"dateFormat": "EEEE, MMMM dd, yyyy HH:mm", "timezone": "Europe/Paris"}
        }))
        .await;
    let id = doc.document_id();
    assert_eq!(
        api.document(id).await["meta"]["dateFormat"],
        "EEEE, MMMM dd, yyyy HH:mm"
    );
    let pdf = fixture("a4-1p.pdf");
    api.upload_ok(doc.upload_url(), pdf.clone()).await;
    for flag in ["true", "1"] {
        let (s, v) = api
            .get(&format!(
                "/api/v1/documents/{id}/download?downloadOriginalDocument={flag}"
            ))
            .await;
        assert_eq!(s, 200, "{flag}: {v}");
        let file = api
            .client()
            .get(v["downloadUrl"].as_str().unwrap())
            .send()
            .await
            .unwrap();
        assert_eq!(file.bytes().await.unwrap().to_vec(), pdf);
    }
    // Not asking for the original: the signed copy, which a draft does not have yet.
    let (s, _) = api
        .get(&format!(
            "/api/v1/documents/{id}/download?downloadOriginalDocument=false"
        ))
        .await;
    assert_ne!(s, 200);
    app.stop().await;
}
