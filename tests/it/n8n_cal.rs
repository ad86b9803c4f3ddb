//! n8n's Cal.com node pointed at docket by its Host setting alone, with the requests it makes
//! (n8n's `packages/nodes-base`: `CalApi.credentials.ts` tests a key with
//! `GET {host}/v1/memberships?apiKey=`; `CalTriggerV1.node.ts` lists, creates and deletes its
//! hook at `{host}/hooks`, or at `{host}/webhooks` for "v2.0 onwards", the key in `?apiKey=`
//! and a random 64-hex-digit `secret` in the body; `CalTriggerHelpers.ts` checks
//! `X-Cal-Signature-256`), and the other service's API v1 `me` and `bookings`.

use hmac::{Hmac, Mac};
use reqwest::Method;
use serde_json::{Value, json};
use sha2::Sha256;

use crate::support::TestApp;
use crate::support::api::Api;
use crate::support::webhook::Receiver;

/// A request as n8n's `calApiRequest` makes it: `{host}{resource}` with the key in the query,
/// and a JSON body (n8n sends `{}` when there is none).
async fn cal(
    app: &TestApp,
    key: &str,
    method: Method,
    resource: &str,
    body: Value,
) -> (u16, Value) {
    let resp = app
        .client
        .request(method, app.url(resource))
        .query(&[("apiKey", key)])
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    let ct = resp.headers()["content-type"].to_str().unwrap().to_string();
    assert!(ct.starts_with("application/json"), "{resource}: {ct}");
    (status, resp.json().await.unwrap())
}

fn booking(title: &str) -> Value {
    json!({
        "title": title,
        "startTime": "2026-07-15T12:00:00Z",
        "endTime": "2026-07-15T12:45:00Z",
        "attendees": [{"name": "Grace \"Amazing\" Hopper", "email": "grace@example.com", "timeZone": "America/New_York"}],
        "eventType": {"title": "Design review", "length": 45},
        "responses": {"notes": "Bring the drafts"}
    })
}

fn signed(secret: &str, body: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(body.as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_credential_test_me_and_bookings_answer_as_the_scheduling_service_does() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("ada@example.com", "standard");
    let key = api.key().to_string();
    // The credential test: no team yet, an empty list.
    let (status, body) = cal(&app, &key, Method::GET, "/v1/memberships", json!({})).await;
    assert_eq!((status, body), (200, json!({"memberships": []})));
    // Without a key, or with a wrong one: 401 with a message, as JSON on these paths too.
    for key in ["", "api_not-a-key"] {
        let (status, body) = cal(&app, key, Method::GET, "/v1/memberships", json!({})).await;
        assert_eq!(status, 401, "{body}");
        assert!(body["message"].is_string(), "{body}");
    }
    // In a team: its admin, as the other service calls an admin.
    let made = crate::support::docket_json(
        &app.data_dir(),
        &[
            "team",
            "create",
            "Sales",
            "--slug",
            "sales",
            "--admin",
            "ada@example.com",
        ],
        None,
    );
    let (_, body) = cal(&app, &key, Method::GET, "/v1/memberships", json!({})).await;
    let me_id = {
        let (status, me) = cal(&app, &key, Method::GET, "/v1/me", json!({})).await;
        assert_eq!(status, 200, "{me}");
        assert_eq!(me["user"]["email"], "ada@example.com");
        assert_eq!(me["user"]["locale"], "en");
        me["user"]["id"].clone()
    };
    assert_eq!(
        body,
        json!({"memberships": [{
            "teamId": made["id"], "userId": me_id, "accepted": true,
            "role": "ADMIN", "disableImpersonation": false
        }]})
    );
    // The same under the bare names the other service also answers.
    assert_eq!(
        cal(&app, &key, Method::GET, "/memberships", json!({}))
            .await
            .1,
        body
    );
    assert_eq!(
        cal(&app, &key, Method::GET, "/me", json!({})).await.1["user"]["id"],
        me_id
    );

    // Bookings, oldest first, `take` to a page.
    for title in ["One", "Two", "Three"] {
        assert_eq!(api.post("/api/v1/bookings", booking(title)).await.0, 201);
    }
    let (status, page) = cal(&app, &key, Method::GET, "/v1/bookings", json!({})).await;
    assert_eq!(status, 200, "{page}");
    let titles = |v: &Value| -> Vec<String> {
        v["bookings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["title"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(titles(&page), ["One", "Two", "Three"]);
    let first = &page["bookings"][0];
    assert_eq!(first["userId"], me_id);
    assert_eq!(first["status"], "ACCEPTED");
    assert_eq!(first["attendees"][0]["email"], "grace@example.com");
    assert_eq!(first["user"]["email"], "ada@example.com");
    assert_eq!(first["payment"], json!([]));
    let resp = app
        .client
        .get(app.url("/v1/bookings"))
        .query(&[("apiKey", key.as_str()), ("take", "2"), ("page", "2")])
        .send()
        .await
        .unwrap();
    assert_eq!(titles(&resp.json().await.unwrap()), ["Three"]);
    let resp = app
        .client
        .get(app.url("/bookings"))
        .query(&[("apiKey", key.as_str()), ("take", "1000")])
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 400);
    let body: Value = resp.json().await.unwrap();
    assert!(body["message"].as_str().unwrap().contains("take"), "{body}");
    app.stop().await;
}

/// The trigger's life, once with each API version setting: checkExists (list), create, the
/// signed deliveries of a booking made and cancelled, checkExists again, delete.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_trigger_subscribes_gets_signed_bookings_and_unsubscribes() {
    let app = TestApp::spawn_with(&["--tls", "off", "--allow-private-webhooks"]).await;
    let api = app.user_with_key("ada@example.com", "standard");
    let other = app.user_with_key("bob@example.com", "standard");
    let key = api.key().to_string();
    for (resource, n) in [("/hooks", 1), ("/webhooks", 2)] {
        let rx = Receiver::start(&[]).await;
        let url = rx.url();
        let secret = "ab12".repeat(16);
        let events = json!(["BOOKING_CANCELLED", "BOOKING_CREATED"]);
        let (status, list) = cal(&app, &key, Method::GET, resource, json!({})).await;
        assert_eq!((status, &list), (200, &json!({"webhooks": []})));
        let body = json!({"subscriberUrl": url, "eventTriggers": events, "active": true, "secret": secret});
        let (status, made) = cal(&app, &key, Method::POST, resource, body).await;
        assert_eq!(status, 201, "{made}");
        assert_eq!(made["message"], "Webhook created successfully");
        let hook = &made["webhook"];
        let id = hook["id"].as_str().expect("the id as text").to_string();
        assert_eq!(hook["subscriberUrl"], url);
        assert_eq!(hook["eventTriggers"], events);
        assert!(hook.get("secret").is_none(), "{hook}");
        // checkExists: the hook at this URL with every event asked for.
        let (_, list) = cal(&app, &key, Method::GET, resource, json!({})).await;
        assert_eq!(list["webhooks"], json!([hook.clone()]));

        // A booking made, then cancelled: each delivered once, signed with n8n's secret.
        let (_, b) = api
            .post("/api/v1/bookings", booking(&format!("Review {n}")))
            .await;
        let bid = b["id"].as_i64().unwrap();
        let got = rx.wait_for(1).await;
        assert_eq!(
            got[0].headers["x-cal-signature-256"],
            signed(&secret, &got[0].body)
        );
        let created: Value = serde_json::from_str(&got[0].body).unwrap();
        let mut keys: Vec<&String> = created.as_object().unwrap().keys().collect();
        keys.sort();
        assert_eq!(keys, ["createdAt", "payload", "triggerEvent"]);
        assert_eq!(created["triggerEvent"], "BOOKING_CREATED");
        let p = &created["payload"];
        assert_eq!(p["title"], format!("Review {n}"));
        assert_eq!(p["bookingId"], bid);
        assert_eq!(p["uid"], b["uid"]);
        assert_eq!(p["startTime"], "2026-07-15T12:00:00Z");
        assert_eq!(p["organizer"]["email"], "ada@example.com");
        assert_eq!(p["attendees"][0]["name"], "Grace \"Amazing\" Hopper");
        assert_eq!(p["attendees"][0]["utcOffset"], -240);
        assert_eq!(p["length"], 45);
        assert_eq!(p["status"], "ACCEPTED");
        let (status, _) = api
            .post(
                &format!("/api/v1/bookings/{bid}/cancel"),
                json!({"reason": "Clash"}),
            )
            .await;
        assert_eq!(status, 200);
        let got = rx.wait_for(2).await;
        assert_eq!(
            got[1].headers["x-cal-signature-256"],
            signed(&secret, &got[1].body)
        );
        let cancelled: Value = serde_json::from_str(&got[1].body).unwrap();
        assert_eq!(cancelled["triggerEvent"], "BOOKING_CANCELLED");
        assert_eq!(cancelled["payload"]["status"], "CANCELLED");
        assert_eq!(cancelled["payload"]["cancellationReason"], "Clash");

        // Another account's key sees no such hook.
        let path = format!("{resource}/{id}");
        let theirs = other.key().to_string();
        for method in [Method::GET, Method::DELETE] {
            let (status, body) = cal(&app, &theirs, method, &path, json!({})).await;
            assert_eq!(status, 404, "{body}");
        }
        assert_eq!(
            cal(&app, &theirs, Method::GET, resource, json!({})).await.1,
            json!({"webhooks": []})
        );
        // The owner reads it, then the trigger's delete.
        let (status, one) = cal(&app, &key, Method::GET, &format!("/v1{path}"), json!({})).await;
        assert_eq!((status, &one["webhook"]), (200, hook));
        let (status, gone) = cal(&app, &key, Method::DELETE, &path, json!({})).await;
        assert_eq!(status, 200, "{gone}");
        assert_eq!(
            gone["message"],
            format!("Webhook with id: {id} deleted successfully")
        );
        assert_eq!(
            cal(&app, &key, Method::DELETE, &path, json!({})).await.0,
            404
        );
        assert_eq!(
            cal(&app, &key, Method::GET, resource, json!({})).await.1,
            json!({"webhooks": []})
        );
        // Nothing more reaches the receiver after the delete.
        api.post("/api/v1/bookings", booking("After")).await;
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        assert_eq!(rx.received().len(), 2);
    }
    app.stop().await;
}

/// Hooks docket cannot honour are refused with the member and the reason, nothing made; a
/// payload template shapes the body, each value escaped to keep it JSON.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_hooks_are_refused_and_a_payload_template_shapes_the_body() {
    let app = TestApp::spawn_with(&["--tls", "off", "--allow-private-webhooks"]).await;
    let api: Api = app.user_with_key("ada@example.com", "standard");
    let key = api.key().to_string();
    let rx = Receiver::start(&[]).await;
    let url = rx.url();
    let good = json!({"subscriberUrl": url, "eventTriggers": ["BOOKING_CREATED"], "active": true});
    let with = |k: &str, v: Value| {
        let mut b = good.clone();
        b[k] = v;
        b
    };
    let refusals = [
        (
            with("eventTriggers", json!(["BOOKING_RESCHEDULED"])),
            400,
            "BOOKING_RESCHEDULED",
        ),
        (
            with("eventTriggers", json!(["DOCUMENT_SIGNED"])),
            400,
            "eventTriggers",
        ),
        (with("eventTriggers", json!([])), 400, "eventTriggers"),
        (
            with("subscriberUrl", json!("not a url")),
            400,
            "subscriberUrl",
        ),
        (with("subscriberUrl", Value::Null), 400, "subscriberUrl"),
        (with("eventTypeId", json!(3)), 400, "eventTypeId"),
        (with("appId", json!("zapier")), 400, "appId"),
        (
            with("payloadTemplate", json!("{{#each attendees}}")),
            400,
            "payloadTemplate",
        ),
        (with("secret", json!(" padded ")), 400, "secret"),
        (with("colour", json!("red")), 400, "colour"),
        (with("userId", json!(2)), 403, "ADMIN"),
    ];
    for (body, want, says) in refusals {
        let (status, answer) = cal(&app, &key, Method::POST, "/v1/hooks", body.clone()).await;
        assert_eq!(status, want, "{body} -> {answer}");
        assert!(answer.to_string().contains(says), "{body} -> {answer}");
    }
    assert_eq!(
        cal(&app, &key, Method::GET, "/v1/hooks", json!({})).await.1,
        json!({"webhooks": []})
    );
    let too_long = with("payloadTemplate", json!("x".repeat(16 * 1024 + 1)));
    assert_eq!(
        cal(&app, &key, Method::POST, "/v1/hooks", too_long).await.0,
        400
    );

    // A template: the body is the template rendered, a quote in a name kept as JSON.
    let template = r#"{"what":"{{triggerEvent}}","title":"{{title}}","guests":"{{#each attendees}}{{name}};{{/each}}"}"#;
    let (status, made) = cal(
        &app,
        &key,
        Method::POST,
        "/v1/hooks",
        with("payloadTemplate", json!(template)),
    )
    .await;
    assert_eq!(status, 201, "{made}");
    assert_eq!(made["webhook"]["payloadTemplate"], template);
    api.post("/api/v1/bookings", booking("Kick-off")).await;
    let got = rx.wait_for(1).await;
    let body: Value = serde_json::from_str(&got[0].body).unwrap();
    assert_eq!(
        body,
        json!({"what": "BOOKING_CREATED", "title": "Kick-off", "guests": "Grace \"Amazing\" Hopper;"})
    );
    // Made switched off: listed as inactive, and nothing is delivered to it.
    let rx2 = Receiver::start(&[]).await;
    let off =
        json!({"subscriberUrl": rx2.url(), "eventTriggers": ["BOOKING_CREATED"], "active": false});
    let (status, made) = cal(&app, &key, Method::POST, "/hooks", off).await;
    assert_eq!((status, &made["webhook"]["active"]), (201, &json!(false)));
    api.post("/api/v1/bookings", booking("Quiet")).await;
    rx.wait_for(2).await;
    assert!(rx2.received().is_empty());
    app.stop().await;
}
