//! OAuth scope containment and signing links, through the real server: a third-party app's
//! access token never sees a recipient's signing token; an app's webhooks need READ_DOCUMENT,
//! carry no signing links and end with its grant (revoked, or its client removed); a new
//! e-mail address gets a new link and kills the old one; webhook endpoints per user are capped.

use std::time::Duration;

use serde_json::{Value, json};

use crate::oauth_rules::{code, pair, redeem};
use crate::support::api::{Api, Signer, create_api_key, fixture, two_recipients, webhook};
use crate::support::login::{PASSWORD, hidden_inputs, sign_in};
use crate::support::oauth::setup;
use crate::support::webhook::Receiver;
use crate::support::{TestApp, docket_json};

pub const ADA: &str = "ada@example.com";

/// Ada with an API key, a confidential client "Cal", and her browser session.
pub struct Ada {
    pub api: Api,
    client_id: String,
    secret: String,
    cookie: String,
}

pub async fn ada(app: &TestApp) -> Ada {
    let (client_id, secret) = setup(app, &[]);
    let api = app.api(
        create_api_key(&app.data_dir(), ADA)["key"]
            .as_str()
            .unwrap(),
    );
    let cookie = sign_in(app, ADA, PASSWORD).await.unwrap();
    Ada {
        api,
        client_id,
        secret,
        cookie,
    }
}

impl Ada {
    /// A client with an access token of Cal's with exactly `scope`.
    pub async fn app_token(&self, app: &TestApp, scope: &str) -> Api {
        let c = code(app, &self.cookie, &self.client_id, scope, &[]).await;
        let (access, _) = pair(redeem(app, &self.client_id, &self.secret, &c, &[]).await).await;
        app.api(&format!("Bearer {access}"))
    }
}

/// Every recipient's `token` in a JSON value holding recipients, as strings.
fn tokens(recipients: &Value) -> Vec<String> {
    recipients
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["token"].as_str().expect("a token").to_string())
        .collect()
}

/// Asserts that every recipient shows `token` and `signingUrl` as null.
fn assert_no_links(recipients: &Value) {
    let list = recipients.as_array().unwrap();
    assert!(!list.is_empty());
    for r in list {
        assert!(r["token"].is_null(), "{r}");
        assert!(r["signingUrl"].is_null(), "{r}");
    }
}

/// Asserts that none of `secrets` appears anywhere in `text`.
fn assert_hides(text: &str, secrets: &[String]) {
    for s in secrets {
        assert!(!text.contains(s.as_str()), "{s} leaked in {text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_apps_token_never_sees_signing_links_and_the_owners_key_does() {
    let app = TestApp::spawn().await;
    let ada = ada(&app).await;
    let read = ada.app_token(&app, "READ_DOCUMENT").await;
    let write = ada.app_token(&app, "WRITE_DOCUMENT").await;

    // The owner's API key gets the links, as the seed says.
    let created = ada.api.create_document(two_recipients()).await;
    let id = created.document_id();
    let secrets = tokens(&created["recipients"]);
    let path = format!("/api/v1/documents/{id}");
    let (s, doc) = ada.api.get(&path).await;
    assert_eq!(s, 200);
    assert_eq!(tokens(&doc["recipients"]), secrets);
    assert_eq!(
        doc["recipients"][0]["signingUrl"],
        format!("{}/sign/{}", app.base, secrets[0])
    );

    // READ_DOCUMENT: the document and the list, without the links.
    let (s, doc) = read.get(&path).await;
    assert_eq!(s, 200, "{doc}");
    assert_no_links(&doc["recipients"]);
    assert_eq!(doc["recipients"][0]["email"], "ann@example.com");
    assert_hides(&doc.to_string(), &secrets);
    let (s, list) = read.get("/api/v1/documents").await;
    assert_eq!(s, 200);
    assert_no_links(&list["documents"][0]["recipients"]);
    assert_hides(&list.to_string(), &secrets);

    // WRITE_DOCUMENT: creating and changing recipients answers without the links either.
    let (s, mine) = write.post("/api/v1/documents", two_recipients()).await;
    assert_eq!(s, 200, "{mine}");
    assert_no_links(&mine["recipients"]);
    let mine_id = mine["documentId"].as_i64().unwrap();
    let (s, added) = write
        .post(
            &format!("/api/v1/documents/{mine_id}/recipients"),
            json!({"email": "dee@example.com", "name": "Dee"}),
        )
        .await;
    assert_eq!(s, 200, "{added}");
    assert_no_links(&json!([added]));
    let (s, changed) = write
        .patch(
            &format!(
                "/api/v1/documents/{id}/recipients/{}",
                doc["recipients"][0]["id"]
            ),
            json!({"name": "Ann B."}),
        )
        .await;
    assert_eq!(s, 200, "{changed}");
    assert_no_links(&json!([changed]));
    assert_hides(&changed.to_string(), &secrets);

    // The owner's key still sees the links of what the app created.
    let (_, doc) = ada.api.get(&format!("/api/v1/documents/{mine_id}")).await;
    assert_eq!(tokens(&doc["recipients"]).len(), 3);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_apps_webhook_needs_read_document_and_its_payloads_carry_no_signing_links() {
    let app = TestApp::spawn_with(&["--tls", "off", "--allow-private-webhooks"]).await;
    let ada = ada(&app).await;
    let rx = Receiver::failing_at(&[]).await;

    let write = ada.app_token(&app, "WRITE_DOCUMENT").await;
    let (s, v) = write
        .post(
            "/api/v1/webhooks",
            webhook(&rx.url_at("write"), &["DOCUMENT_CREATED"]),
        )
        .await;
    assert_eq!(
        (s, v["code"].as_str()),
        (403, Some("insufficient_scope")),
        "{v}"
    );

    let (s, owners) = ada
        .api
        .post(
            "/api/v1/webhooks",
            webhook(&rx.url_at("owner"), &["DOCUMENT_CREATED"]),
        )
        .await;
    assert_eq!(s, 200, "{owners}");
    let read = ada.app_token(&app, "READ_DOCUMENT").await;
    let (s, apps) = read
        .post(
            "/api/v1/webhooks",
            webhook(&rx.url_at("app"), &["DOCUMENT_CREATED"]),
        )
        .await;
    assert_eq!(s, 200, "{apps}");

    // The app sees and manages its own webhook only; the owner sees both.
    let (_, listed) = read.get("/api/v1/webhooks").await;
    assert_eq!(listed["webhooks"].as_array().unwrap().len(), 1, "{listed}");
    assert_eq!(listed["webhooks"][0]["id"], apps["id"]);
    let (_, listed) = ada.api.get("/api/v1/webhooks").await;
    assert_eq!(listed["webhooks"].as_array().unwrap().len(), 2, "{listed}");
    let owners_path = format!("/api/v1/webhooks/{}", owners["id"]);
    let (s, _) = read.get(&format!("{owners_path}/deliveries")).await;
    assert_eq!(s, 404);
    let (s, _) = read.delete(&owners_path).await;
    assert_eq!(s, 404);

    let created = ada.api.create_document(two_recipients()).await;
    let secrets = tokens(&created["recipients"]);
    let owner_body = &rx.wait_for_at("owner", 1).await[0];
    let app_body = &rx.wait_for_at("app", 1).await[0];
    let owner_payload: Value = serde_json::from_str(owner_body).unwrap();
    assert_eq!(tokens(&owner_payload["payload"]["recipients"]), secrets);
    let app_payload: Value = serde_json::from_str(app_body).unwrap();
    assert_eq!(app_payload["event"], "DOCUMENT_CREATED");
    assert_eq!(app_payload["payload"]["id"], created["documentId"]);
    assert_no_links(&app_payload["payload"]["recipients"]);
    assert_hides(app_body, &secrets);
    assert!(rx.bodies_at("write").is_empty());
    app.stop().await;
}

/// How the app loses its access in `an_apps_webhook_stops`.
enum Ending {
    /// Ada presses Revoke on the account page.
    Revoked,
    /// The admin runs `docket client remove`.
    ClientRemoved,
    /// The admin runs `docket user disable` (her API key stops too, so no new events).
    UserDisabled,
}

/// Ada revokes Cal on the account page.
pub async fn revoke_on_account_page(app: &TestApp, cookie: &str) {
    let html = app
        .client
        .get(app.url("/account"))
        .header("cookie", cookie)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let start = html
        .find(r#"action="/account/apps/"#)
        .expect("a revoke form");
    let form = &html[start..start + html[start..].find("</form>").unwrap()];
    let action = form.split('"').nth(1).unwrap();
    let resp = app
        .client
        .post(app.url(action))
        .header("cookie", cookie)
        .form(&hidden_inputs(form))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 303);
}

/// An app's webhook whose receiver keeps failing is being retried; after `ending`, neither the
/// retries nor new events reach it, while the owner's own webhook goes on.
async fn an_apps_webhook_stops(ending: Ending) {
    let app = TestApp::spawn_with(&[
        "--tls",
        "off",
        "--allow-private-webhooks",
        "--retry-base-ms",
        "100",
    ])
    .await;
    let ada = ada(&app).await;
    let rx = Receiver::failing_at(&["app"]).await;
    let (s, _) = ada
        .api
        .post(
            "/api/v1/webhooks",
            webhook(&rx.url_at("owner"), &["DOCUMENT_CREATED"]),
        )
        .await;
    assert_eq!(s, 200);
    let read = ada.app_token(&app, "READ_DOCUMENT").await;
    let (s, _) = read
        .post(
            "/api/v1/webhooks",
            webhook(&rx.url_at("app"), &["DOCUMENT_CREATED"]),
        )
        .await;
    assert_eq!(s, 200);

    ada.api.create_document(two_recipients()).await;
    rx.wait_for_at("app", 2).await;
    match ending {
        Ending::Revoked => revoke_on_account_page(&app, &ada.cookie).await,
        Ending::ClientRemoved => {
            docket_json(&app.data_dir(), &["client", "remove", &ada.client_id], None);
        }
        Ending::UserDisabled => {
            docket_json(&app.data_dir(), &["user", "disable", ADA], None);
        }
    }
    // A request already under way when access ended may still land; then nothing more.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let before = rx.bodies_at("app").len();

    let disabled = matches!(ending, Ending::UserDisabled);
    if !disabled {
        let second = ada.api.create_document(two_recipients()).await;
        let owner = rx.wait_for_at("owner", 2).await;
        assert!(owner[1].contains(&format!("\"id\":{}", second["documentId"])));
    }
    // Retries were due every poll (2 s); give them time to show up if they still went out.
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert_eq!(
        rx.bodies_at("app").len(),
        before,
        "deliveries after access ended"
    );
    if !disabled {
        let (_, listed) = ada.api.get("/api/v1/webhooks").await;
        assert_eq!(
            listed["webhooks"].as_array().unwrap().len(),
            1,
            "the app's webhook is gone: {listed}"
        );
    }
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_apps_webhook_stops_when_the_user_revokes_the_app() {
    an_apps_webhook_stops(Ending::Revoked).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_apps_webhook_stops_when_its_client_is_removed() {
    an_apps_webhook_stops(Ending::ClientRemoved).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_apps_webhook_stops_when_the_user_is_disabled() {
    an_apps_webhook_stops(Ending::UserDisabled).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhook_endpoints_per_user_are_capped() {
    let app = TestApp::spawn_with(&["--tls", "off", "--max-webhooks-per-user", "2"]).await;
    let ada = ada(&app).await;
    let read = ada.app_token(&app, "READ_DOCUMENT").await;
    let (s, first) = ada
        .api
        .post(
            "/api/v1/webhooks",
            webhook("https://hooks.example/1", &["DOCUMENT_CREATED"]),
        )
        .await;
    assert_eq!(s, 200);
    let (s, _) = read
        .post(
            "/api/v1/webhooks",
            webhook("https://hooks.example/2", &["DOCUMENT_CREATED"]),
        )
        .await;
    assert_eq!(s, 200);
    // The owner's and the app's endpoints count together.
    for cred in [&ada.api, &read] {
        let (s, v) = cred
            .post(
                "/api/v1/webhooks",
                webhook("https://hooks.example/3", &["DOCUMENT_CREATED"]),
            )
            .await;
        assert_eq!((s, v["code"].as_str()), (409, Some("conflict")), "{v}");
        assert!(v["message"].as_str().unwrap().contains("at most 2"), "{v}");
    }
    let (_, listed) = ada.api.get("/api/v1/webhooks").await;
    assert_eq!(listed["webhooks"].as_array().unwrap().len(), 2);
    let path = format!("/api/v1/webhooks/{}", first["id"]);
    assert_eq!(ada.api.delete(&path).await.0, 200);
    let (s, _) = ada
        .api
        .post(
            "/api/v1/webhooks",
            webhook("https://hooks.example/3", &["DOCUMENT_CREATED"]),
        )
        .await;
    assert_eq!(s, 200);
    app.stop().await;
}

/// Status of the signing page of `signer`, and the status and JSON of its state call.
async fn link(signer: &Signer) -> (u16, u16, Value) {
    let page = signer.page().await.status().as_u16();
    let (status, state) = signer.state().await;
    (page, status, state)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_address_gets_a_new_link_and_the_old_one_is_dead() {
    let app = TestApp::spawn().await;
    let ada = ada(&app).await;
    let (id, rid, old, field) = a_lease_sent_to_ann(&app, &ada.api).await;

    let (s, changed) = ada
        .api
        .patch(
            &format!("/api/v1/documents/{id}/recipients/{rid}"),
            json!({"email": "ann.b@example.com"}),
        )
        .await;
    assert_eq!(s, 200, "{changed}");
    let new = changed["token"].as_str().unwrap().to_string();
    assert_ne!(new, old, "a new address gets a new token");
    assert_eq!(changed["signingUrl"], format!("{}/sign/{new}", app.base));
    assert_eq!(changed["readStatus"], "NOT_OPENED");

    the_old_link_answers_like_one_that_never_existed(&app, &old, field).await;
    the_new_address_is_mailed_the_new_link(&app, &new, &old);

    // The new link signs, and the audit log names each address for what it did.
    let (status, _, state) = link(&app.signer(&new)).await;
    assert_eq!(status, 200, "{state}");
    let (s, v) = app.signer(&new).sign(field).await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = app.signer(&new).complete(json!({})).await;
    assert_eq!(s, 200, "{v}");
    the_audit_log_names_each_address(&ada.api, id).await;
    app.stop().await;
}

/// A lease for Ann with one signature field, sent, whose link works: (document id, recipient
/// id, signing token, field id).
async fn a_lease_sent_to_ann(app: &TestApp, api: &Api) -> (i64, i64, String, i64) {
    let created = api.create_document(json!({"title": "Lease", "recipients": [{"name": "Ann", "email": "ann@example.com", "role": "SIGNER"}]}))
    .await;
    let id = created.document_id();
    let rid = created.recipient_id(0);
    let old = created.token(0);
    let (s, _) = api.upload(created.upload_url(), fixture("a4-1p.pdf")).await;
    assert_eq!(s, 200);
    let (s, fields) = api.post(&format!("/api/v1/documents/{id}/fields"), json!({"recipientId": rid, "type": "SIGNATURE", "pageNumber": 1, "pageX": 10, "pageY": 80, "pageWidth": 30, "pageHeight": 5}))
    .await;
    assert_eq!(s, 200, "{fields}");
    let field = fields["fields"][0]["id"].as_i64().unwrap();
    let (s, v) = api.send_with(id, json!({})).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(link(&app.signer(&old)).await.1, 200, "the first link works");
    (id, rid, old, field)
}

/// The old link answers exactly like a link that never existed, and acts on nothing.
async fn the_old_link_answers_like_one_that_never_existed(app: &TestApp, old: &str, field: i64) {
    let unknown = "Zz".repeat(16);
    let (old_page, old_status, old_json) = link(&app.signer(old)).await;
    let (unknown_page, unknown_status, unknown_json) = link(&app.signer(&unknown)).await;
    assert_eq!((old_page, old_status), (404, 404));
    assert_eq!((unknown_page, unknown_status), (404, 404));
    assert_eq!(old_json["code"], unknown_json["code"]);
    assert_eq!(old_json["message"], unknown_json["message"]);
    let (s, _) = app.signer(old).sign(field).await;
    assert_eq!(s, 404);
    let (s, _) = app.signer(old).complete(json!({})).await;
    assert_eq!(s, 404);
}

/// The new address is e-mailed the `new` link, and the message hides the `old` one.
fn the_new_address_is_mailed_the_new_link(app: &TestApp, new: &str, old: &str) {
    let mails = docket_json(&app.data_dir(), &["mail", "list"], None);
    let to_new: Vec<&Value> = mails
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["to"] == "ann.b@example.com" && m["kind"] == "SIGNING_REQUEST")
        .collect();
    assert_eq!(to_new.len(), 1, "{mails}");
    let mail = docket_json(
        &app.data_dir(),
        &["mail", "show", &to_new[0]["id"].to_string()],
        None,
    );
    assert!(
        mail["text"]
            .as_str()
            .unwrap()
            .contains(&format!("/sign/{new}"))
    );
    assert_hides(&mail.to_string(), &[old.to_string()]);
}

/// The audit log of document `id` names each address for what it did.
async fn the_audit_log_names_each_address(api: &Api, id: i64) {
    let events = api.audit(id).await;
    let of = |kind: &'static str| events.iter().filter(move |e| e["type"] == kind);
    let change = of("RECIPIENT_CHANGED")
        .next()
        .expect("the change is recorded");
    assert_eq!(change["actor"], ADA);
    assert_eq!(change["data"]["from"], "ann@example.com");
    assert_eq!(change["data"]["to"], "ann.b@example.com");
    let opened: Vec<&Value> = of("OPENED").map(|e| &e["actor"]).collect();
    assert_eq!(opened, ["ann@example.com", "ann.b@example.com"]);
    let signed: Vec<&Value> = of("SIGNED").map(|e| &e["actor"]).collect();
    assert_eq!(signed, ["ann.b@example.com"]);
}
