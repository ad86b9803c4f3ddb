//! The routes Zapier's apps for the two peers call, sent as those apps send them but for the
//! base URL and the credential, with deliveries to a real receiver on 127.0.0.1:0: the
//! scheduling service's booking subscriptions (flat bookings, BOOKING_CREATED and
//! BOOKING_CANCELLED), sample bookings and account check; the signing service's document
//! subscriptions and sample documents.

use hmac::{Hmac, Mac};
use reqwest::{Method, Response};
use serde_json::{Value, json};
use sha2::Sha256;

use crate::oauth_rules::{code, pair, redeem};
use crate::support::TestApp;
use crate::support::api::{Api, create_api_key, two_recipients};
use crate::support::login::{PASSWORD, sign_in};
use crate::support::oauth::setup;
use crate::support::webhook::Receiver;

const ZAP: &str = "/api/integrations/zapier";

/// Ada's access tokens for the scheduling app (registered once), one per scope string.
async fn tokens<const N: usize>(app: &TestApp, scopes: [&str; N]) -> [String; N] {
    let (id, secret) = setup(app, &[]);
    let cookie = sign_in(app, "ada@example.com", PASSWORD).await.unwrap();
    let mut out = Vec::new();
    for scope in scopes {
        let c = code(app, &cookie, &id, scope, &[]).await;
        out.push(pair(redeem(app, &id, &secret, &c, &[]).await).await.0);
    }
    out.try_into().unwrap()
}

async fn json_of(resp: Response, status: u16) -> Value {
    let got = resp.status().as_u16();
    let text = resp.text().await.unwrap();
    assert_eq!(got, status, "{text}");
    serde_json::from_str(&text).unwrap_or(Value::Null)
}

fn booking(title: &str) -> Value {
    json!({
        "title": title,
        "startTime": "2026-07-15T12:00:00Z",
        "endTime": "2026-07-15T12:45:00Z",
        "location": "Room 1",
        "attendees": [
            {"name": "Grace Hopper", "email": "grace@example.com", "timeZone": "America/New_York"},
            {"name": "Alan Kay", "email": "alan@example.com", "timeZone": "Europe/Berlin"}
        ],
        "eventType": {"title": "Design review", "price": 2500, "currency": "EUR"},
        "responses": {"company": "Acme", "notes": "Bring the drafts"}
    })
}

fn sorted_keys(v: &Value) -> Vec<String> {
    let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
    k.sort();
    k
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn booking_subscriptions_get_flat_bookings_as_the_zapier_app_maps_them() {
    let app = TestApp::spawn_with(&["--tls", "off", "--allow-private-webhooks"]).await;
    let [bearer] = tokens(&app, ["READ_BOOKING READ_PROFILE"]).await;
    let key = create_api_key(&app.data_dir(), "ada@example.com")["key"]
        .as_str()
        .unwrap()
        .to_string();
    let (created_rx, cancelled_rx) = (Receiver::start(&[]).await, Receiver::start(&[]).await);

    // Subscribing with the app's token, and with the key in the query, as the app does.
    let sub = app
        .client
        .post(app.url(&format!("{ZAP}/addSubscription")))
        .bearer_auth(&bearer)
        .json(&json!({"subscriberUrl": created_rx.url(), "triggerEvent": "BOOKING_CREATED"}))
        .send()
        .await
        .unwrap();
    let sub = json_of(sub, 200).await;
    assert!(sub["id"].is_string(), "{sub}");
    assert_eq!(sub["appId"], "zapier");
    assert_eq!(sub["active"], true);
    assert_eq!(sub["subscriberUrl"], created_rx.url());
    assert_eq!(sub["eventTriggers"], json!(["BOOKING_CREATED"]));
    assert!(sub["secret"].is_null());
    let by_key = app
        .client
        .post(app.url(&format!("{ZAP}/addSubscription?apiKey={key}")))
        .json(&json!({"subscriberUrl": cancelled_rx.url(), "triggerEvent": "BOOKING_CANCELLED"}))
        .send()
        .await
        .unwrap();
    let by_key = json_of(by_key, 200).await;

    // A booking made and cancelled through the API reaches each subscriber once.
    let api = app.api(&key);
    let (status, made) = api.post("/api/v1/bookings", booking("Review")).await;
    assert_eq!(status, 201, "{made}");
    let got = created_rx.wait_for(1).await;
    let delivered: Value = serde_json::from_str(&got[0].body).unwrap();
    let signature = &got[0].headers["x-cal-signature-256"];
    assert_eq!(signature.len(), 64, "a hex HMAC-SHA256: {signature}");
    assert_eq!(delivered["title"], "Review");
    assert_eq!(delivered["status"], "ACCEPTED");
    assert_eq!(delivered["startTime"], "2026-07-15T12:00:00Z");
    assert_eq!(delivered["location"], "Room 1");
    assert_eq!(delivered["user"]["username"], made["user"]["username"]);
    assert_eq!(delivered["user"]["locale"], "en");
    assert_eq!(delivered["eventType"]["title"], "Design review");
    assert_eq!(delivered["eventType"]["length"], 45);
    assert_eq!(delivered["eventType"]["price"], 2500);
    assert_eq!(delivered["eventType"]["currency"], "eur");
    assert_eq!(delivered["responses"]["name"]["value"], "Grace Hopper");
    assert_eq!(delivered["responses"]["email"]["label"], "email_address");
    assert_eq!(delivered["responses"]["notes"]["value"], "Bring the drafts");
    assert_eq!(
        delivered["responses"]["guests"]["value"],
        json!(["alan@example.com"])
    );
    assert_eq!(
        delivered["userFieldsResponses"],
        json!({"company": {"label": "company", "value": "Acme"}})
    );
    // Summer time at the start: New York is 4 hours behind, Berlin 2 ahead.
    assert_eq!(delivered["attendees"][0]["utcOffset"], -240);
    assert_eq!(delivered["attendees"][1]["utcOffset"], 120);
    assert!(
        cancelled_rx.received().is_empty(),
        "not subscribed to creation"
    );

    let id = made["id"].as_i64().unwrap();
    let (status, _) = api
        .post(
            &format!("/api/v1/bookings/{id}/cancel"),
            json!({"reason": "Clash"}),
        )
        .await;
    assert_eq!(status, 200);
    let got = cancelled_rx.wait_for(1).await;
    let cancelled: Value = serde_json::from_str(&got[0].body).unwrap();
    assert_eq!(cancelled["status"], "CANCELLED");
    assert_eq!(cancelled["cancellationReason"], "Clash");

    // The sample the app shows while a Zap is set up has the shape of a delivery: 201, at
    // most three, newest first.
    for t in ["Two", "Three", "Four"] {
        api.post("/api/v1/bookings", booking(t)).await;
    }
    let sample = app
        .client
        .get(app.url(&format!("{ZAP}/listBookings")))
        .bearer_auth(&bearer)
        .send()
        .await
        .unwrap();
    let sample = json_of(sample, 201).await;
    let titles: Vec<&str> = sample
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["Four", "Three", "Two"]);
    assert_eq!(sorted_keys(&sample[0]), sorted_keys(&delivered));

    // Every creation so far was delivered; after unsubscribing, no more are.
    assert_eq!(created_rx.wait_for(4).await.len(), 4);
    // Unsubscribing: 204, then the subscription is gone.
    for (id, delete_status) in [(&sub["id"], 204), (&sub["id"], 404), (&by_key["id"], 204)] {
        let resp = app
            .client
            .delete(app.url(&format!(
                "{ZAP}/deleteSubscription?id={}&apiKey={key}",
                id.as_str().unwrap()
            )))
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status().as_u16(), delete_status);
        if delete_status == 204 {
            assert!(resp.bytes().await.unwrap().is_empty());
        }
    }
    api.post("/api/v1/bookings", booking("After")).await;
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert_eq!(
        created_rx.received().len(),
        4,
        "no delivery after unsubscribing"
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn booking_routes_check_credentials_scopes_and_input() {
    let app = TestApp::spawn_with(&["--tls", "off", "--allow-private-webhooks"]).await;
    let [narrow, full] = tokens(&app, ["READ_BOOKING", "READ_PROFILE READ_BOOKING"]).await;
    let rx = Receiver::start(&[]).await;
    let post = |token: &str, body: Value| {
        app.client
            .post(app.url(&format!("{ZAP}/addSubscription")))
            .bearer_auth(token)
            .json(&body)
            .send()
    };
    let good = json!({"subscriberUrl": rx.url(), "triggerEvent": "BOOKING_CREATED"});
    // No credential, a wrong one, a token without READ_PROFILE.
    let anon = app
        .client
        .post(app.url(&format!("{ZAP}/addSubscription")))
        .json(&good)
        .send()
        .await
        .unwrap();
    assert_eq!(anon.status(), 401);
    let wrong = app
        .client
        .get(app.url(&format!("{ZAP}/listBookings?apiKey=cal_nope")))
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), 401);
    assert_eq!(post(&narrow, good.clone()).await.unwrap().status(), 403);
    // listBookings needs READ_BOOKING only; me needs READ_PROFILE.
    let list = app
        .client
        .get(app.url(&format!("{ZAP}/listBookings")))
        .bearer_auth(&narrow)
        .send()
        .await
        .unwrap();
    assert_eq!(json_of(list, 201).await, json!([]));
    let me = |t: &str| {
        app.client
            .get(app.url(&format!("{ZAP}/me")))
            .bearer_auth(t)
            .send()
    };
    assert_eq!(me(&narrow).await.unwrap().status(), 403);
    let who = json_of(me(&full).await.unwrap(), 201).await;
    assert_eq!(who["email"], "ada@example.com");
    assert!(who["username"].is_string());
    // Unknown triggers, document triggers, bad URLs: 400 naming the field.
    for (body, path) in [
        (
            json!({"subscriberUrl": rx.url(), "triggerEvent": "MEETING_ENDED"}),
            "triggerEvent",
        ),
        (
            json!({"subscriberUrl": rx.url(), "triggerEvent": "DOCUMENT_SIGNED"}),
            "triggerEvent",
        ),
        (
            json!({"subscriberUrl": "ftp://x/", "triggerEvent": "BOOKING_CREATED"}),
            "subscriberUrl",
        ),
        (json!({"triggerEvent": "BOOKING_CREATED"}), "subscriberUrl"),
    ] {
        let err = json_of(post(&full, body).await.unwrap(), 400).await;
        assert_eq!(err["details"][0]["path"], path, "{err}");
    }
    // Only Zapier's subscriptions are deleted through its route: another is a 404.
    let own = app.bearer(&full);
    let (status, plain) = own
        .post(
            "/api/v1/webhooks",
            json!({"url": rx.url(), "events": ["BOOKING_CREATED"]}),
        )
        .await;
    assert_eq!(
        status, 403,
        "docket's webhook API needs READ_DOCUMENT too: {plain}"
    );
    let resp = app
        .client
        .delete(app.url(&format!("{ZAP}/deleteSubscription?id=abc")))
        .bearer_auth(&full)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 400);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn docket_webhooks_may_subscribe_to_booking_events_with_the_cal_signature() {
    let app = TestApp::spawn_with(&["--tls", "off", "--allow-private-webhooks"]).await;
    let api = app.user_with_key("owner@example.com", "standard");
    let rx = Receiver::start(&[]).await;
    let hook = api
        .add_webhook(json!({"url": rx.url(), "events": ["BOOKING_CREATED"], "secret": "s3"}))
        .await;
    assert_eq!(hook["events"], json!(["BOOKING_CREATED"]));
    let (_, made) = api.post("/api/v1/bookings", booking("Sync")).await;
    let got = rx.wait_for(1).await;
    let body: Value = serde_json::from_str(&got[0].body).unwrap();
    assert_eq!(
        sorted_keys(&body),
        ["createdAt", "event", "payload", "webhookEndpoint"]
    );
    assert_eq!(body["event"], "BOOKING_CREATED");
    let (_, shown) = api.get(&format!("/api/v1/bookings/{}", made["id"])).await;
    assert_eq!(body["payload"], shown, "the booking as GET shows it");
    let mut mac = Hmac::<Sha256>::new_from_slice(b"s3").unwrap();
    mac.update(got[0].body.as_bytes());
    assert_eq!(
        got[0].headers["x-cal-signature-256"],
        hex::encode(mac.finalize().into_bytes())
    );
    app.stop().await;
}

/// The signing service's Zapier routes, with the key as its app sends it.
async fn zap(api: &Api, method: Method, name: &str, body: Option<Value>) -> (u16, Value) {
    api.call(method, &format!("/api/v1/zapier/{name}"), body)
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn document_subscriptions_sample_and_unsubscribe_as_the_signing_zapier_app_does() {
    let app = TestApp::spawn_with(&["--tls", "off", "--allow-private-webhooks"]).await;
    let api = app.user_with_key("owner@example.com", "standard");
    let rx = Receiver::start(&[]).await;

    // No subscription yet: the sample is empty.
    assert_eq!(
        zap(&api, Method::GET, "list-documents", None).await,
        (200, json!([]))
    );
    let (status, sub) = zap(
        &api,
        Method::POST,
        "subscribe",
        Some(json!({"webhookUrl": rx.url(), "eventTrigger": "DOCUMENT_CREATED"})),
    )
    .await;
    assert_eq!(status, 200, "{sub}");
    assert!(sub["id"].is_string());
    assert_eq!(sub["webhookUrl"], rx.url());
    assert_eq!(sub["eventTriggers"], json!(["DOCUMENT_CREATED"]));
    assert_eq!(sub["enabled"], true);
    assert!(sub["secret"].is_null());
    // A subscription but no document: still empty.
    assert_eq!(
        zap(&api, Method::POST, "list-documents", None).await.1,
        json!([])
    );

    let doc = api.create_document(two_recipients()).await.document_id();
    let got = rx.wait_for(1).await;
    assert_eq!(got[0].headers["x-documenso-secret"], "");
    let body: Value = serde_json::from_str(&got[0].body).unwrap();
    assert_eq!(body["event"], "DOCUMENT_CREATED");
    let payload = &body["payload"];
    assert_eq!(payload["id"], doc);
    assert_eq!(payload["Recipient"], payload["recipients"]);
    assert_eq!(payload["Recipient"][0]["email"], "ann@example.com");
    assert_eq!(payload["Recipient"][0]["expired"], false);
    assert!(payload["Recipient"][0]["rejectionReason"].is_null());
    assert_eq!(payload["documentMeta"]["subject"], "Please sign");
    assert_eq!(payload["documentMeta"]["id"], doc.to_string());
    assert_eq!(payload["visibility"], "EVERYONE");
    assert_eq!(
        payload["authOptions"],
        json!({"globalAccessAuth": [], "globalActionAuth": []})
    );
    assert_eq!(
        payload["Recipient"][0]["authOptions"],
        json!({"accessAuth": [], "actionAuth": []})
    );
    assert!(payload["deletedAt"].is_null());

    let (status, sample) = zap(&api, Method::GET, "list-documents", None).await;
    assert_eq!(status, 200);
    let sample = sample.as_array().unwrap();
    assert_eq!(sample.len(), 1);
    assert_eq!(sample[0]["event"], "DOCUMENT_CREATED");
    assert_eq!(sample[0]["webhookEndpoint"], rx.url());
    assert_eq!(sample[0]["payload"]["id"], doc);
    assert_eq!(sorted_keys(&sample[0]["payload"]), sorted_keys(payload));

    // Unsubscribing answers the subscription as it was; a second time it is gone.
    let by_id = json!({"webhookId": sub["id"]});
    let (status, gone) = zap(&api, Method::POST, "unsubscribe", Some(by_id.clone())).await;
    assert_eq!(status, 200, "{gone}");
    assert_eq!(gone["id"], sub["id"]);
    assert_eq!(gone["webhookUrl"], rx.url());
    assert_eq!(
        zap(&api, Method::POST, "unsubscribe", Some(by_id)).await.0,
        404
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn document_routes_check_credentials_and_input() {
    let app = TestApp::spawn_with(&["--tls", "off", "--allow-private-webhooks"]).await;
    let api = app.user_with_key("owner@example.com", "standard");
    let other = app.user_with_key("other@example.com", "standard");
    let rx = Receiver::start(&[]).await;
    let anon = app
        .client
        .post(app.url("/api/v1/zapier/list-documents"))
        .send()
        .await
        .unwrap();
    assert_eq!(anon.status(), 401);
    for body in [
        json!({"webhookUrl": rx.url(), "eventTrigger": "BOOKING_CREATED"}),
        json!({"webhookUrl": rx.url(), "eventTrigger": "NOPE"}),
        json!({"webhookUrl": "not a url", "eventTrigger": "DOCUMENT_SIGNED"}),
        json!({"eventTrigger": "DOCUMENT_SIGNED"}),
    ] {
        let (status, err) = zap(&api, Method::POST, "subscribe", Some(body)).await;
        assert_eq!(status, 400, "{err}");
    }
    let (_, sub) = zap(
        &api,
        Method::POST,
        "subscribe",
        Some(json!({"webhookUrl": rx.url(), "eventTrigger": "DOCUMENT_SIGNED"})),
    )
    .await;
    // Another user's subscription is not found; a missing id is a 400; a numeric id works.
    let id: i64 = sub["id"].as_str().unwrap().parse().unwrap();
    let (status, _) = zap(
        &other,
        Method::POST,
        "unsubscribe",
        Some(json!({"webhookId": id})),
    )
    .await;
    assert_eq!(status, 404);
    let (status, _) = zap(&api, Method::POST, "unsubscribe", Some(json!({}))).await;
    assert_eq!(status, 400);
    let (status, _) = zap(
        &api,
        Method::POST,
        "unsubscribe",
        Some(json!({"webhookId": id})),
    )
    .await;
    assert_eq!(status, 200);
    app.stop().await;
}
