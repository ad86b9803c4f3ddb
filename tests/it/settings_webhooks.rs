//! Webhooks as the browser manages them, and the API routes added for it: a change (PATCH:
//! URL, events, on or off), a test event that reaches a loopback receiver, a redelivery, the
//! delivery log's status, attempts and answer; another user's webhook is a 404 on both; a form
//! without the session's CSRF token is refused.

use serde_json::{Value, json};

use crate::settings_tokens::{input_value, page, post_form, post_made, shown_once};
use crate::support::TestApp;
use crate::support::api::{create_api_key, two_recipients};
use crate::support::login::{add_account, browser};
use crate::support::webhook::Receiver;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_changes_tests_and_redelivers_a_webhook_of_its_owner_only() {
    let app = TestApp::spawn_with(&["--tls", "off", "--allow-private-webhooks"]).await;
    let d = app.data_dir();
    add_account(&d, "ada@example.com", "Ada");
    add_account(&d, "bob@example.com", "Bob");
    let ada = app.api(
        create_api_key(&d, "ada@example.com")["key"]
            .as_str()
            .unwrap(),
    );
    let bob = app.api(
        create_api_key(&d, "bob@example.com")["key"]
            .as_str()
            .unwrap(),
    );
    let rx = Receiver::start(&[]).await;
    let hook = ada
        .add_webhook(json!({"url": rx.url(), "events": ["DOCUMENT_CREATED", "DOCUMENT_SIGNED"]}))
        .await;
    let id = hook["id"].as_i64().unwrap();
    assert_eq!(hook["enabled"], true);
    let at = |tail: &str| format!("/api/v1/webhooks/{id}{tail}");

    let (s, got) = ada.get(&at("")).await;
    assert_eq!((s, &got["url"]), (200, &json!(rx.url())), "{got}");
    // Switched off: no events are queued for it, and a test is refused with the reason.
    let (s, off) = ada.patch(&at(""), json!({"enabled": false})).await;
    assert_eq!((s, &off["enabled"]), (200, &json!(false)), "{off}");
    assert_eq!(
        off["events"],
        json!(["DOCUMENT_CREATED", "DOCUMENT_SIGNED"])
    );
    ada.create_document(two_recipients()).await;
    let (s, test) = ada.post(&at("/test"), json!({})).await;
    assert_eq!(s, 400, "{test}");
    assert!(
        test["message"].as_str().unwrap().contains("switched off"),
        "{test}"
    );
    let (_, log) = ada.get(&at("/deliveries")).await;
    assert_eq!(log["deliveries"], json!([]), "nothing queued while off");
    for bad in [
        json!({"url": "ftp://x/"}),
        json!({"events": []}),
        json!({"events": ["NOPE"]}),
        json!({"enabled": "yes"}),
    ] {
        let (s, v) = ada.patch(&at(""), bad.clone()).await;
        assert_eq!(s, 400, "{bad}: {v}");
    }
    let (s, on) = ada
        .patch(
            &at(""),
            json!({"enabled": true, "events": ["DOCUMENT_SIGNED"]}),
        )
        .await;
    assert_eq!(
        (s, &on["events"]),
        (200, &json!(["DOCUMENT_SIGNED"])),
        "{on}"
    );

    // A test event of one of its events: queued, posted, logged with the receiver's answer.
    let (s, v) = ada
        .post(&at("/test"), json!({"event": "DOCUMENT_CREATED"}))
        .await;
    assert_eq!(s, 400, "an event it does not subscribe to: {v}");
    let (s, queued) = ada.post(&at("/test"), json!({})).await;
    assert_eq!((s, &queued["status"]), (200, &json!("PENDING")), "{queued}");
    assert_eq!(queued["event"], "DOCUMENT_SIGNED");
    let got = rx.wait_for(1).await;
    let body = got[0].json();
    assert_eq!(
        (&body["event"], &body["payload"]["test"]),
        (&json!("DOCUMENT_SIGNED"), &json!(true))
    );
    let done = ada.wait_delivery(id, |d| d["status"] == "DELIVERED").await;
    assert_eq!(
        (&done["lastStatus"], &done["attempts"]),
        (&json!(200), &json!(1))
    );
    assert_eq!(done["responseExcerpt"], "received: 200");

    // Redelivered: the same body again, as a new delivery.
    let first = done["id"].as_i64().unwrap();
    let (s, again) = ada
        .post(&at(&format!("/deliveries/{first}/redeliver")), json!({}))
        .await;
    assert_eq!(s, 200, "{again}");
    assert_ne!(again["id"], done["id"]);
    let got = rx.wait_for(2).await;
    assert_eq!(got[1].body, got[0].body);

    // Bob sees none of it.
    for (method, tail) in [
        (reqwest::Method::GET, String::new()),
        (reqwest::Method::PATCH, String::new()),
        (reqwest::Method::POST, "/test".to_string()),
        (
            reqwest::Method::POST,
            format!("/deliveries/{first}/redeliver"),
        ),
    ] {
        let (s, v) = bob.call(method, &at(&tail), Some(json!({}))).await;
        assert_eq!(s, 404, "{tail}: {v}");
    }
    let (s, _) = ada
        .post(&at("/deliveries/999999/redeliver"), json!({}))
        .await;
    assert_eq!(s, 404);
    app.stop().await;
}

/// The webhook's id in a page's `/settings/webhooks/{id}/...` form.
fn hook_id(html: &str) -> i64 {
    html.split("/settings/webhooks/")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no webhook link in:\n{html}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pages_create_test_edit_and_delete_a_webhook_of_their_owner_only() {
    let app = TestApp::spawn_with(&["--tls", "off", "--allow-private-webhooks"]).await;
    let d = app.data_dir();
    add_account(&d, "ada@example.com", "Ada");
    add_account(&d, "bob@example.com", "Bob");
    let ada = browser(&app, "ada@example.com").await;
    let bob = browser(&app, "bob@example.com").await;
    let rx = Receiver::start(&[]).await;
    let url = rx.url();
    let (c, t) = (ada.cookie.as_str(), Some(ada.csrf.as_str()));
    // Adding a webhook asks for a session that confirmed who it is (see `access_confirm`).
    let proof = ("password", crate::support::login::PASSWORD);
    assert_eq!(
        crate::recipient_auth::confirm_with(&app, c, proof).await,
        303
    );

    // Refused: no events; the form says so beside the boxes and keeps what was typed.
    let (s, html) = post_form(&app, "/settings/webhooks", c, t, &[("url", &url)]).await;
    assert_eq!(s, 400, "{html}");
    assert!(html.contains("Give at least one event."), "{html}");
    assert!(html.contains(&url));
    let fields = [("url", url.as_str()), ("event.DOCUMENT_COMPLETED", "on")];
    let (s, _) = post_form(&app, "/settings/webhooks", c, None, &fields).await;
    assert_eq!(s, 403, "no CSRF token");

    // Post, redirect, get (issue 55, item 4): the webhook's page shows the secret once, and a
    // reload neither shows it again nor makes another webhook.
    let made = post_made(&app, "/settings/webhooks", &ada, &fields).await;
    let id = hook_id(&made.to.replace('?', "/"));
    assert_eq!(made.to, format!("/settings/webhooks/{id}?done=added"));
    let html = shown_once(&app, &ada, &made, |h| input_value(h, "secret-value")).await;
    assert!(input_value(&html, "secret-value").starts_with("whsec_"));
    assert!(html.contains("The webhook was added."), "{html}");
    let (_, html) = page(&app, &ada, &format!("/settings/webhooks/{id}")).await;
    assert!(!html.contains("whsec_"), "the secret is shown once");
    assert!(html.contains("Nothing was posted yet"));
    let hooks: i64 = app
        .db()
        .query_row("SELECT count(*) FROM webhooks", [], |r| r.get(0))
        .unwrap();
    assert_eq!(hooks, 1);

    // Bob: 404 on every page and form of it.
    let (s, _) = page(&app, &bob, &format!("/settings/webhooks/{id}")).await;
    assert_eq!(s, 404);
    let (s, _) = page(&app, &bob, &format!("/settings/webhooks/{id}/edit")).await;
    assert_eq!(s, 404);
    for tail in ["", "/test", "/delete"] {
        let path = format!("/settings/webhooks/{id}{tail}");
        let (s, _) = post_form(&app, &path, &bob.cookie, Some(&bob.csrf), &fields).await;
        assert_eq!(s, 404, "{tail}");
    }

    // A test event: queued, received, logged.
    let path = format!("/settings/webhooks/{id}/test");
    let (s, _) = post_form(&app, &path, c, t, &[]).await;
    assert_eq!(s, 303);
    let got = rx.wait_for(1).await;
    assert_eq!(got[0].json()["event"], "DOCUMENT_COMPLETED");
    let html = wait_for_page(&app, &ada, id, "Delivered").await;
    assert!(
        html.contains("HTTP 200") && html.contains("received: 200"),
        "{html}"
    );
    let delivery: Value = json!(
        html.split("id=\"delivery-")
            .nth(1)
            .and_then(|r| r.split('"').next())
    );
    let redeliver = format!(
        "/settings/webhooks/{id}/deliveries/{}/redeliver",
        delivery.as_str().unwrap()
    );
    let (s, _) = post_form(&app, &redeliver, c, t, &[]).await;
    assert_eq!(s, 303);
    rx.wait_for(2).await;

    // Edit: switched off, another event; a test is then refused on the page with the reason.
    let path = format!("/settings/webhooks/{id}");
    let edit = [("url", url.as_str()), ("event.DOCUMENT_SIGNED", "on")];
    let (s, _) = post_form(&app, &path, c, t, &edit).await;
    assert_eq!(s, 303);
    let (_, html) = page(&app, &ada, &path).await;
    assert!(
        html.contains("Switched off") && html.contains("DOCUMENT_SIGNED"),
        "{html}"
    );
    let (s, html) = post_form(&app, &format!("{path}/test"), c, t, &[]).await;
    assert_eq!(s, 400);
    assert!(html.contains("This webhook is switched off"), "{html}");
    // "Every event" subscribes to all of them, whatever boxes were left checked; the form
    // then offers it picked.
    let every = [
        ("url", url.as_str()),
        ("events", "all"),
        ("event.DOCUMENT_SIGNED", "on"),
    ];
    let (s, _) = post_form(&app, &path, c, t, &every).await;
    assert_eq!(s, 303);
    let (_, html) = page(&app, &ada, &format!("{path}/edit")).await;
    assert!(
        html.contains("value=\"all\" id=\"events-all\" checked"),
        "{html}"
    );
    let (_, html) = page(&app, &ada, &path).await;
    for event in [
        "DOCUMENT_CREATED",
        "DOCUMENT_SEAL_FAILED",
        "BOOKING_CANCELLED",
    ] {
        assert!(html.contains(event), "{event}: {html}");
    }

    let (s, _) = post_form(&app, &format!("{path}/delete"), c, None, &[]).await;
    assert_eq!(s, 403);
    let (s, _) = post_form(&app, &format!("{path}/delete"), c, t, &[]).await;
    assert_eq!(s, 303);
    let (s, _) = page(&app, &ada, &path).await;
    assert_eq!(s, 404);
    app.stop().await;
}

/// The webhook's page once it shows `text` (30 s at most).
async fn wait_for_page(
    app: &TestApp,
    who: &crate::support::login::Browser,
    id: i64,
    text: &str,
) -> String {
    for _ in 0..300 {
        let (_, html) = page(app, who, &format!("/settings/webhooks/{id}")).await;
        if html.contains(text) {
            return html;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("the page never showed {text}");
}

/// Issue 55, item 11: a test event (and its redelivery) is marked as one in the delivery log,
/// `test: true` in the API's delivery object and a "Test" badge on the page; a real event's
/// delivery is `test: false` and has no badge.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_log_tells_a_test_event_from_a_real_one() {
    let app = TestApp::spawn_with(&["--tls", "off", "--allow-private-webhooks"]).await;
    let d = app.data_dir();
    add_account(&d, "ada@example.com", "Ada");
    let ada = app.api(
        create_api_key(&d, "ada@example.com")["key"]
            .as_str()
            .unwrap(),
    );
    let rx = Receiver::start(&[]).await;
    let hook = ada
        .add_webhook(json!({"url": rx.url(), "events": ["DOCUMENT_CREATED"]}))
        .await;
    let id = hook["id"].as_i64().unwrap();
    let at = |tail: &str| format!("/api/v1/webhooks/{id}{tail}");

    // A real event, then a test of the same event, then the test again.
    ada.create_document(two_recipients()).await;
    let real = ada.wait_delivery(id, |d| d["status"] == "DELIVERED").await;
    assert_eq!(real["test"], false, "{real}");
    let (s, test) = ada.post(&at("/test"), json!({})).await;
    assert_eq!((s, &test["test"]), (200, &json!(true)), "{test}");
    let test_id = test["id"].as_i64().unwrap();
    let (s, again) = ada
        .post(&at(&format!("/deliveries/{test_id}/redeliver")), json!({}))
        .await;
    assert_eq!((s, &again["test"]), (200, &json!(true)), "{again}");
    let real_id = real["id"].as_i64().unwrap();
    let (s, real_again) = ada
        .post(&at(&format!("/deliveries/{real_id}/redeliver")), json!({}))
        .await;
    assert_eq!(
        (s, &real_again["test"]),
        (200, &json!(false)),
        "{real_again}"
    );
    rx.wait_for(4).await;
    let (_, log) = ada.get(&at("/deliveries")).await;
    let marked: Vec<(i64, bool)> = log["deliveries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["id"].as_i64().unwrap(), d["test"].as_bool().unwrap()))
        .collect();
    let again_id = again["id"].as_i64().unwrap();
    let real_again_id = real_again["id"].as_i64().unwrap();
    assert_eq!(
        marked,
        [
            (real_again_id, false),
            (again_id, true),
            (test_id, true),
            (real_id, false)
        ]
    );

    // The page: the badge on the two test rows only.
    let who = browser(&app, "ada@example.com").await;
    let (s, html) = page(&app, &who, &format!("/settings/webhooks/{id}")).await;
    assert_eq!(s, 200);
    for (delivery, test) in marked {
        let row = html
            .split(&format!("<tr id=\"delivery-{delivery}\""))
            .nth(1)
            .and_then(|r| r.split("</tr>").next())
            .unwrap_or_else(|| panic!("no row {delivery} in:\n{html}"));
        assert_eq!(
            row.contains("<span class=\"badge set-test-mark\">Test</span>"),
            test,
            "{delivery}: {row}"
        );
    }
    app.stop().await;
}
