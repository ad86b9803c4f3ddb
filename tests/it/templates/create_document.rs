//! `create-document` (recipients by position, `title` required): every refusal's body, and
//! which comes first: another user's template is a 404 whatever the body, a bad body a 400
//! before a template without a file is a 409.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_document_answers_each_refusal() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let (id, _, _) = ready_template(&api).await;
    let path = format!("/api/v1/templates/{id}/create-document");
    let refused = |body: Value| {
        let (api, path) = (&api, &path);
        async move {
            let (s, v) = api.post(path, body).await;
            assert_eq!(s, 400, "{v}");
            v["details"].clone()
        }
    };

    assert_eq!(
        refused(json!({})).await,
        json!([{"path": "title", "message": "required: 1 to 255 characters"},
               {"path": "recipients", "message": "required: an array of {name, email, role, signingOrder}, in the template's order"}])
    );
    assert_eq!(
        refused(json!({"title": " ", "recipients": "x"})).await,
        json!([{"path": "title", "message": "required: 1 to 255 characters"},
               {"path": "recipients", "message": "required: an array of {name, email, role, signingOrder}, in the template's order"}])
    );
    assert_eq!(
        refused(json!({"title": "T", "recipients": [7, {}, {}]})).await,
        json!([{"path": "recipients[0]", "message": "must be an object"},
               {"path": "recipients[2]", "message": "the template has 2 recipients; this one has none to stand for"}])
    );
    // Named by position, each item is then checked as generate-document checks it.
    assert_eq!(
        refused(json!({"title": "T", "recipients": [{"email": "nope", "role": "BOSS"}, {"signingOrder": -1}], "meta": {"redirectUrl": "ftp://x"}})).await,
        json!([{"path": "recipients[0].email", "message": "\"nope\" is not a valid e-mail address (no @)"},
               {"path": "recipients[0].role", "message": "must be SIGNER, APPROVER, VIEWER, CC or ASSISTANT"},
               {"path": "recipients[1].signingOrder", "message": "must be a whole number from 0 to 10000"},
               {"path": "meta.redirectUrl", "message": "must be an absolute http or https URL (http://host/... or https://host/...)"}])
    );
    assert_eq!(
        refused(json!({"title": "T", "recipients": [{"email": "agency@example.com"}]})).await,
        json!([{"path": "recipients[0].email", "message": "agency@example.com is already another recipient's address"}])
    );
    // An `id` sent is replaced by the position's.
    let (s, v) = api
        .post(&path, json!({"title": "T", "recipients": [{"id": 999999, "name": "Bo", "email": "bo@example.com"}]}))
        .await;
    assert_eq!(s, 200, "{v}");

    // Another user's template: 404 before anything in the body is read.
    let other = app.user_with_key("other@example.com", "standard");
    let (s, v) = other.post(&path, json!({})).await;
    assert_eq!(s, 404, "{v}");
    // A bad body before a missing file, a good one then refused for the file.
    let bare = api.create_template(lease()).await.template_id();
    let bare_path = format!("/api/v1/templates/{bare}/create-document");
    let (s, v) = api.post(&bare_path, json!({"recipients": []})).await;
    assert_eq!(s, 400, "{v}");
    assert_eq!(
        v["details"],
        json!([{"path": "title", "message": "required: 1 to 255 characters"}])
    );
    let (s, v) = api
        .post(&bare_path, json!({"title": "T", "recipients": []}))
        .await;
    assert_eq!((s, v["code"].as_str()), (409, Some("conflict")), "{v}");
    app.stop().await;
}
