//! Embedded signing in headless Chromium (`tests/browser/embed.mjs`), through Documenso's own
//! React components from npm on a page of a second loopback origin: the owner lists that origin
//! in Settings -> Embedding; a recipient signs in the frame (the NAME field locked to the
//! component's name, a field emptied and filled again), another rejects where the component
//! allows it, a visitor signs through a template's direct link, each event reaching the framing
//! page with its data; a third origin, not listed, is refused by the browser. Checked here
//! afterwards: what the frames did is what the documents and their audit logs say.

use serde_json::json;

use crate::support::api::{Api, fixture};
use crate::support::login::{PASSWORD, add_account};
use crate::support::{TestApp, tools};

/// A sent one-page document of `api` to Ann with NAME, TEXT and SIGNATURE fields: its id, her
/// recipient id and token.
async fn to_ann(api: &Api, title: &str) -> (i64, i64, String) {
    let created = api
        .create_document(json!({"title": title, "recipients": [
            {"name": "Ann Signer", "email": "ann@example.com", "role": "SIGNER"}]}))
        .await;
    let id = created.document_id();
    assert_eq!(
        api.upload(created.upload_url(), fixture("a4-1p.pdf"))
            .await
            .0,
        200
    );
    let ann = created["recipients"][0]["recipientId"].as_i64().unwrap();
    let field = |kind: &str, y: i64| json!({"recipientId": ann, "type": kind, "pageNumber": 1, "pageX": 10, "pageY": y, "pageWidth": 30, "pageHeight": 6, "fieldMeta": {"type": kind.to_lowercase()}});
    api.add_fields(
        id,
        json!([field("NAME", 10), field("TEXT", 30), field("SIGNATURE", 70)]),
    )
    .await;
    let (s, v) = api.send(id).await;
    assert_eq!(s, 200, "{v}");
    let token = created["recipients"][0]["token"]
        .as_str()
        .unwrap()
        .to_string();
    (id, ann, token)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs chromium and node")]
async fn documensos_react_components_sign_in_a_frame_of_an_allowed_origin_only() {
    let app = TestApp::spawn_with(&["--tls", "off"]).await;
    add_account(&app.data_dir(), "olive@example.com", "Olive Owner");
    let api = app.key_for("olive@example.com", None);
    let (signed, ann, sign_token) = to_ann(&api, "Embedded lease").await;
    let (rejected, _, reject_token) = to_ann(&api, "Embedded lease, rejected").await;
    let (_, _, refused_token) = to_ann(&api, "Embedded lease, refused").await;
    let (template, rids) = crate::direct_links::template(&api, Some("bob@example.com")).await;
    let (s, link) = crate::direct_links::set(
        &api,
        template,
        json!({"enabled": true, "recipientId": rids[0]}),
    )
    .await;
    assert_eq!(s, 200, "{link}");
    let direct_token = link["token"].as_str().unwrap().to_string();

    let base = app.base.clone();
    let (ids, tokens) = (
        [signed.to_string(), ann.to_string()],
        [
            sign_token.clone(),
            reject_token,
            direct_token,
            refused_token,
        ],
    );
    let summary = tokio::task::spawn_blocking(move || {
        let (ok, stdout, stderr) = tools::browser_script(
            "embed.mjs",
            &[
                &base,
                "olive@example.com",
                PASSWORD,
                &tokens[0],
                &tokens[1],
                &tokens[2],
                &tokens[3],
                &ids[0],
                &ids[1],
            ],
        );
        assert!(
            ok && stdout.contains("\"ok\":true"),
            "embed.mjs failed:\n{stdout}\n{stderr}"
        );
        stdout
    })
    .await
    .unwrap();
    let summary: serde_json::Value = serde_json::from_str(summary.lines().last().unwrap()).unwrap();

    // What the frames reported is what happened.
    let doc = api.wait_status(signed, "COMPLETED").await;
    let fields = doc["fields"].as_array().unwrap();
    let text = fields.iter().find(|f| f["type"] == "TEXT").unwrap();
    let name = fields.iter().find(|f| f["type"] == "NAME").unwrap();
    assert_eq!(
        (text["customText"].as_str(), name["customText"].as_str()),
        (Some("Flat 3"), Some("Ann Embedded")),
        "{doc}"
    );
    let kinds: Vec<String> = api
        .audit(signed)
        .await
        .iter()
        .map(|e| e["type"].as_str().unwrap().to_string())
        .collect();
    assert!(kinds.contains(&"FIELD_CLEARED".to_string()), "{kinds:?}");
    let (_, doc) = api.get(&format!("/api/v1/documents/{rejected}")).await;
    assert_eq!(doc["status"], "REJECTED", "{doc}");
    assert_eq!(summary["rejected"]["documentId"], rejected);
    let visitor = summary["direct"]["documentId"].as_i64().unwrap();
    let (_, doc) = api.get(&format!("/api/v1/documents/{visitor}")).await;
    assert_eq!(doc["recipients"][0]["email"], "vic@example.com", "{doc}");
    assert_eq!(doc["recipients"][0]["signingStatus"], "SIGNED", "{doc}");
    for shot in [
        "settings-error-desktop",
        "settings-desktop",
        "settings-phone",
        "sign-desktop",
        "sign-phone",
        "signed-desktop",
        "rejected-desktop",
        "direct-desktop",
        "direct-phone",
        "direct-signed-desktop",
        "refused-desktop",
    ] {
        let path = tools::screenshots().join(format!("embed-{shot}.png"));
        assert!(path.exists(), "{} kept", path.display());
    }
    app.stop().await;
}
