//! The OpenAPI document against the real server: the main operations are called for real and
//! each answer is validated against the schema the served `/api/v1/openapi.json` gives for its
//! path, method and status (`support::documented`). A documented shape that drifts from what
//! the server sends fails here.

use reqwest::Method as M;
use serde_json::{Value, json};

use crate::support::TestApp;
use crate::support::api::{fixture, two_recipients};
use crate::support::documented::Documented;
use crate::support::login::{PASSWORD, sign_in};
use crate::support::oauth::{REDIRECT, setup};
use crate::support::webhook::Receiver;

fn field(recipient: &Value, kind: &str, page: i64) -> Value {
    json!({"recipientId": recipient, "type": kind, "pageNumber": page, "pageX": 10, "pageY": 80,
        "pageWidth": 30.5, "pageHeight": 8})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn documents_recipients_and_fields_answer_as_documented() {
    let app = TestApp::spawn_with(&["--tls", "off", "--allow-private-webhooks"]).await;
    let api = app.user_with_key("owner@example.com", "standard");
    let mut d = Documented::served(&app).await;
    let rx = Receiver::start(&[]).await;
    let hooked = json!({"url": rx.url(), "events": ["DOCUMENT_CREATED"]});
    let hook = d
        .call(&api, M::POST, "/api/v1/webhooks", Some(hooked), 200)
        .await;

    let created = d
        .call(
            &api,
            M::POST,
            "/api/v1/documents",
            Some(two_recipients()),
            200,
        )
        .await;
    let id = &created["documentId"];
    let ann = &created["recipients"][0]["recipientId"];
    let url = created["uploadUrl"].as_str().unwrap();
    let uploaded = api.upload_ok(url, fixture("mixed-sizes-3p.pdf")).await;
    d.check("put", url, 200, &uploaded);

    let one = format!("/api/v1/documents/{id}");
    let fields = format!("{one}/fields");
    let mut text = field(ann, "TEXT", 2);
    text["fieldMeta"] = json!({"type": "text", "label": "Company", "characterLimit": 40});
    let both = json!([field(ann, "SIGNATURE", 1), text]);
    d.call(&api, M::POST, &fields, Some(both), 200).await;
    let single = field(ann, "SIGNATURE", 3);
    let added = d.call(&api, M::POST, &fields, Some(single), 200).await;
    let a_field = format!("{fields}/{}", added["id"]);
    let moved = json!({"pageX": 12.5});
    d.call(&api, M::PATCH, &a_field, Some(moved), 200).await;
    d.call(&api, M::DELETE, &a_field, None, 200).await;

    let recipients = format!("{one}/recipients");
    let bob =
        json!({"name": "Bob", "email": "bob@example.com", "role": "APPROVER", "signingOrder": 2});
    let bob = d.call(&api, M::POST, &recipients, Some(bob), 200).await;
    let bob = format!("{recipients}/{}", bob["id"]);
    d.call(&api, M::PATCH, &bob, Some(json!({"name": "Bobby"})), 200)
        .await;
    d.call(&api, M::DELETE, &bob, None, 200).await;

    let doc = d.call(&api, M::GET, &one, None, 200).await;
    assert!(doc["fields"][0]["recipient"].is_object(), "{doc}");
    let page = "/api/v1/documents?page=1&perPage=5&status=DRAFT";
    d.call(&api, M::GET, page, None, 200).await;
    let send = json!({"sendEmail": false});
    d.call(&api, M::POST, &format!("{one}/send"), Some(send), 200)
        .await;
    let resend = json!({"recipients": [ann]});
    d.call(&api, M::POST, &format!("{one}/resend"), Some(resend), 200)
        .await;
    d.call(&api, M::GET, &format!("{one}/audit-log"), None, 200)
        .await;
    let download = format!("{one}/download?original=true");
    d.call(&api, M::GET, &download, None, 200).await;
    d.call(&api, M::DELETE, &one, None, 200).await;

    // Errors: a bad body, an unknown document, no credential.
    let bad = json!({"title": 5, "recipients": "no"});
    d.call(&api, M::POST, "/api/v1/documents", Some(bad), 400)
        .await;
    d.call(&api, M::GET, "/api/v1/documents/999999", None, 404)
        .await;
    d.call(&app.api(""), M::GET, "/api/v1/documents", None, 401)
        .await;

    rx.wait_for(1).await;
    let hook_id = hook["id"].as_i64().unwrap();
    api.wait_delivery(hook_id, |x| x["status"] == "DELIVERED")
        .await;
    let hook = format!("/api/v1/webhooks/{hook_id}");
    d.call(&api, M::GET, &format!("{hook}/deliveries"), None, 200)
        .await;
    d.call(&api, M::GET, "/api/v1/webhooks", None, 200).await;
    d.call(&api, M::DELETE, &hook, None, 200).await;
    d.call(&api, M::GET, "/api/v1/me", None, 200).await;
    assert_eq!(d.checked.len(), 24, "{:?}", d.checked);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn templates_and_generated_documents_answer_as_documented() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let mut d = Documented::served(&app).await;

    let lease = json!({"title": "Lease", "externalId": "tpl-1",
        "recipients": [{"role": "SIGNER", "signingOrder": 0},
            {"name": "Agency", "email": "agency@example.com", "role": "CC", "signingOrder": 1}],
        "meta": {"subject": "Your lease", "timezone": "Europe/Paris", "dateFormat": "yyyy-MM-dd"}});
    let created = d
        .call(&api, M::POST, "/api/v1/templates", Some(lease), 200)
        .await;
    let signer = &created["recipients"][0]["recipientId"];
    let url = created["uploadUrl"].as_str().unwrap();
    let uploaded = api.upload_ok(url, fixture("mixed-sizes-3p.pdf")).await;
    d.check("put", url, 200, &uploaded);

    let one = format!("/api/v1/templates/{}", created["templateId"]);
    let mut text = field(signer, "TEXT", 1);
    text["fieldMeta"] = json!({"type": "text", "label": "Name"});
    let fields = json!([field(signer, "SIGNATURE", 1), text]);
    d.call(&api, M::POST, &format!("{one}/fields"), Some(fields), 200)
        .await;
    let witness = json!({"name": "Witness", "email": "w@example.com", "role": "VIEWER"});
    let recipients = format!("{one}/recipients");
    d.call(&api, M::POST, &recipients, Some(witness), 200).await;
    d.call(&api, M::GET, &one, None, 200).await;
    d.call(&api, M::GET, "/api/v1/templates?perPage=5", None, 200)
        .await;

    let named = json!({"title": "Lease: Ann",
        "recipients": [{"id": signer, "name": "Ann", "email": "ann@example.com"}]});
    let generate = format!("{one}/generate-document");
    let generated = d.call(&api, M::POST, &generate, Some(named), 200).await;
    let by_position = json!({"title": "Lease: Bo", "recipients": [
        {"name": "Bo", "email": "bo@example.com"}, {"name": "Agency", "email": "agency@example.com"}]});
    let older = format!("{one}/create-document");
    d.call(&api, M::POST, &older, Some(by_position), 200).await;
    let doc = format!("/api/v1/documents/{}", generated["documentId"]);
    d.call(&api, M::GET, &doc, None, 200).await;

    d.call(&api, M::GET, "/api/v1/templates/999999", None, 404)
        .await;
    d.call(&api, M::DELETE, &one, None, 200).await;
    assert_eq!(d.checked.len(), 11, "{:?}", d.checked);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bookings_answer_as_documented() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let mut d = Documented::served(&app).await;

    let booking = json!({"title": "Intro", "description": "Agenda", "location": "Room 1",
        "startTime": "2026-11-21T09:30:00Z", "endTime": "2026-11-21T10:00:00Z",
        "attendees": [{"name": "Grace", "email": "grace@example.com", "timeZone": "Europe/Paris"},
            {"name": "Ada", "email": "ada@example.com"}],
        "responses": {"company": "Acme"}});
    let created = d
        .call(&api, M::POST, "/api/v1/bookings", Some(booking), 201)
        .await;
    let one = format!("/api/v1/bookings/{}", created["id"]);
    d.call(&api, M::GET, &one, None, 200).await;
    let page = "/api/v1/bookings?perPage=5&status=ACCEPTED";
    d.call(&api, M::GET, page, None, 200).await;
    d.call(&api, M::GET, "/listBookings?limit=5", None, 200)
        .await;
    let reason = json!({"reason": "Moved"});
    d.call(&api, M::POST, &format!("{one}/cancel"), Some(reason), 200)
        .await;
    let bad = json!({"title": ""});
    d.call(&api, M::POST, "/api/v1/bookings", Some(bad), 400)
        .await;
    assert_eq!(d.checked.len(), 6, "{:?}", d.checked);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zapier_routes_answer_as_documented() {
    let app = TestApp::spawn_with(&["--tls", "off", "--allow-private-webhooks"]).await;
    let api = app.user_with_key("owner@example.com", "standard");
    let mut d = Documented::served(&app).await;
    let rx = Receiver::start(&[]).await;
    let booking = json!({"title": "Intro", "startTime": "2026-11-21T09:30:00Z",
        "endTime": "2026-11-21T10:00:00Z", "attendees": [{"name": "Grace", "email": "grace@example.com"}]});
    api.create_booking(&booking).await;
    api.create_document(two_recipients()).await;

    let cal = "/api/integrations/zapier";
    d.call(&api, M::GET, &format!("{cal}/listBookings"), None, 201)
        .await;
    d.call(&api, M::GET, &format!("{cal}/me"), None, 201).await;
    let hook = json!({"subscriberUrl": rx.url(), "triggerEvent": "BOOKING_CREATED"});
    let add = format!("{cal}/addSubscription");
    let sub = d.call(&api, M::POST, &add, Some(hook), 200).await;
    let delete = format!("{cal}/deleteSubscription");
    let (s, _) = api
        .delete(&format!("{delete}?id={}", sub["id"].as_str().unwrap()))
        .await;
    assert_eq!(s, 204);
    assert!(d.doc["paths"][&delete]["delete"]["responses"]["204"].is_object());

    let sign = "/api/v1/zapier";
    let hook = json!({"webhookUrl": rx.url(), "eventTrigger": "DOCUMENT_SIGNED"});
    let hook = d
        .call(&api, M::POST, &format!("{sign}/subscribe"), Some(hook), 200)
        .await;
    let sample = format!("{sign}/list-documents");
    let got = d.call(&api, M::GET, &sample, None, 200).await;
    assert_eq!(got.as_array().map(Vec::len), Some(1), "{got}");
    let gone = json!({"webhookId": hook["id"]});
    d.call(
        &api,
        M::POST,
        &format!("{sign}/unsubscribe"),
        Some(gone),
        200,
    )
    .await;
    assert_eq!(d.checked.len(), 6, "{:?}", d.checked);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oauth_endpoints_answer_as_documented() {
    let app = TestApp::spawn().await;
    let mut d = Documented::served(&app).await;
    let (id, secret) = setup(&app, &[]);
    let cookie = sign_in(&app, "ada@example.com", PASSWORD).await.unwrap();
    let scope = "openid profile email READ_PROFILE";
    let code = crate::oauth_rules::code(&app, &cookie, &id, scope, &[]).await;
    let client = json!({"client_id": id, "client_secret": secret});
    // A token endpoint's answer to `body` (JSON) with the client's credentials, checked.
    let post = async |d: &mut Documented, path: &str, body: Value| {
        let mut body = body;
        body.as_object_mut()
            .unwrap()
            .extend(client.as_object().unwrap().clone());
        let resp = app
            .client
            .post(app.url(path))
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = resp.status().as_u16();
        let v: Value = resp.json().await.unwrap();
        d.check("post", path, status, &v);
        v
    };
    let redeem =
        json!({"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT});
    let tokens = post(&mut d, "/api/auth/oauth/token", redeem).await;
    let refresh = json!({"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]});
    let refreshed = post(&mut d, "/api/auth/oauth/refreshToken", refresh).await;
    let access = refreshed["access_token"].clone();
    let active = post(
        &mut d,
        "/api/auth/oauth/introspect",
        json!({"token": access}),
    )
    .await;
    assert_eq!(active["active"], true, "{active}");

    let bearer = app.bearer(access.as_str().unwrap());
    d.call(&bearer, M::GET, "/api/auth/oauth/me", None, 200)
        .await;
    d.call(&bearer, M::POST, "/api/auth/oauth/userinfo", None, 200)
        .await;
    d.call(&app.api(""), M::GET, "/api/auth/oauth/me", None, 401)
        .await;

    post(&mut d, "/api/auth/oauth/revoke", json!({"token": access})).await;
    let gone = post(
        &mut d,
        "/api/auth/oauth/introspect",
        json!({"token": access}),
    )
    .await;
    assert_eq!(gone, json!({"active": false}));
    let reused =
        json!({"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT});
    let refused = post(&mut d, "/api/auth/oauth/token", reused).await;
    assert_eq!(refused["error"], "invalid_grant", "{refused}");
    assert_eq!(d.checked.len(), 9, "{:?}", d.checked);
}
