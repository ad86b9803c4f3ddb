//! The editor's pages over plain HTTP: a draft's four steps for its owner, the login for a
//! visitor, the 404 page for another user, the document page once it is sent.

use serde_json::json;

use crate::support::TestApp;
use crate::support::api::{create_api_key, fixture};
use crate::support::login::{PASSWORD, add_account, page as get, sign_in};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_draft_s_editor_is_its_owner_s_and_only_while_it_is_a_draft() {
    let app = TestApp::spawn().await;
    let d = app.data_dir();
    add_account(&d, "olive@example.com", "Olive");
    add_account(&d, "eve@example.com", "Eve");
    let api = app.api(
        create_api_key(&d, "olive@example.com")["key"]
            .as_str()
            .unwrap(),
    );
    let created = api
        .create_document(json!({"title": "Lease <b>", "recipients": [
            {"name": "Ann", "email": "ann@example.com", "role": "SIGNER"}]}))
        .await;
    let id = created.document_id();
    api.upload_ok(created.upload_url(), fixture("a4-1p.pdf"))
        .await;
    let edit = format!("/documents/{id}/edit");

    // A visitor signs in first, and comes back to the step they asked for.
    let (s, location, _) = get(&app, &format!("{edit}?step=fields"), None).await;
    assert_eq!(s, 303);
    assert_eq!(
        location,
        format!("/auth/login?next=%2Fdocuments%2F{id}%2Fedit%3Fstep%3Dfields")
    );

    let olive = sign_in(&app, "olive@example.com", PASSWORD).await.unwrap();
    for (step, label) in [
        ("settings", "Settings"),
        ("recipients", "Recipients"),
        ("fields", "Fields"),
        ("review", "Review and send"),
        ("nonsense", "Settings"),
    ] {
        let (s, _, html) = get(&app, &format!("{edit}?step={step}"), Some(&olive)).await;
        assert_eq!(s, 200, "{step}: {html}");
        assert!(
            html.contains(&format!(
                "<title>{label} · Lease &#60;b&#62; · Docket</title>"
            )) || html.contains(&format!(
                "<title>{label} · Lease &lt;b&gt; · Docket</title>"
            )),
            "{step}: the title names the step and the escaped document title"
        );
        assert!(html.contains(&format!("data-api=\"/api/v1/documents/{id}\"")));
        assert!(html.contains("data-sizes=\"595"), "page sizes in points");
        assert!(html.contains("aria-current=\"step\""));
        assert!(html.contains("js/editor/main.js"));
    }
    let (_, _, settings) = get(&app, &edit, Some(&olive)).await;
    for placeholder in ["{signer.name}", "{signer.email}", "{document.name}"] {
        assert!(settings.contains(placeholder), "{placeholder} listed");
    }
    assert!(settings.contains("<option value=\"Europe/Paris\">"));

    // Another user's document, or none, is the 404 page.
    let eve = sign_in(&app, "eve@example.com", PASSWORD).await.unwrap();
    let (s, _, html) = get(&app, &edit, Some(&eve)).await;
    assert_eq!(s, 404);
    assert!(!html.contains("Lease"));
    let (s, _, _) = get(&app, "/documents/99999/edit", Some(&olive)).await;
    assert_eq!(s, 404);

    // Once sent, the editor leads to the document's page.
    let sig = json!({"recipientId": created.recipient_id(0), "type": "SIGNATURE",
        "pageNumber": 1, "pageX": 10, "pageY": 10, "pageWidth": 20, "pageHeight": 5});
    api.add_fields(id, json!([sig])).await;
    let (s, v) = api.send(id).await;
    assert_eq!(s, 200, "{v}");
    let (s, location, _) = get(&app, &edit, Some(&olive)).await;
    assert_eq!(
        (s, location.as_str()),
        (303, format!("/documents/{id}").as_str())
    );
    app.stop().await;
}
