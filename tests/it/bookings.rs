//! Bookings through the real server with API keys: `GET /listBookings` and `/api/v1/bookings`
//! (create, validation, listing and paging, owner scoping, cancellation, credentials).

use reqwest::{Method, Response};
use serde_json::{Value, json};

use crate::support::api::{Api, add_user, create_api_key, detail_paths, keys};
use crate::support::{TestApp, docket, docket_json};

/// Adds a user named "Test User"; a client sending a fresh API key of theirs as a Bearer token.
fn user_with_bearer_key(app: &TestApp, email: &str) -> Api {
    add_user(&app.data_dir(), email, &["--name", "Test User"]);
    app.bearer(
        create_api_key(&app.data_dir(), email)["key"]
            .as_str()
            .unwrap(),
    )
}

fn booking(title: &str) -> Value {
    json!({
        "title": title,
        "startTime": "2026-11-21T09:30:00Z",
        "endTime": "2026-11-21T10:00:00Z",
        "attendees": [{"name": "Grace Hopper", "email": "Grace@Example.com"}]
    })
}

async fn json_of(resp: Response, status: u16) -> Value {
    assert_eq!(resp.status(), status);
    resp.json().await.unwrap()
}

fn titles(list: &Value) -> Vec<&str> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|b| b["title"].as_str().unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_answers_201_with_the_spec_shape() {
    let app = TestApp::spawn().await;
    let ada = user_with_bearer_key(&app, "ada@example.com");
    let mut body = booking("Intro call");
    body["description"] = json!("Agenda:\n- hello");
    body["status"] = json!("PENDING");
    body["location"] = json!("Room 1");
    body["attendees"][0]["timeZone"] = json!("Europe/Berlin");
    body["somethingElse"] = json!({"ignored": true});
    let b = ada.create_booking(&body).await;

    assert_eq!(
        keys(&b),
        [
            "attendees",
            "cancellationReason",
            "createdAt",
            "customInputs",
            "description",
            "endTime",
            "eventType",
            "id",
            "location",
            "responses",
            "startTime",
            "status",
            "title",
            "uid",
            "user",
            "userFieldsResponses"
        ]
    );
    // What integrations map beside the spec's keys: the event type derived from the booking
    // (none was given), and the answers derived from its attendees, location and description.
    assert_eq!(
        b["eventType"],
        json!({"title": "Intro call", "description": "Agenda:\n- hello", "length": 30,
               "requiresConfirmation": true, "price": 0, "currency": "usd"})
    );
    assert_eq!(b["responses"]["name"]["value"], "Grace Hopper");
    assert_eq!(b["responses"]["location"]["value"]["value"], "Room 1");
    assert_eq!(b["userFieldsResponses"], json!({}));
    assert!(b["id"].as_i64().unwrap() > 0);
    assert_eq!(b["uid"].as_str().unwrap().len(), 22);
    assert_eq!(b["title"], "Intro call");
    assert_eq!(b["description"], "Agenda:\n- hello");
    assert_eq!(b["startTime"], "2026-11-21T09:30:00Z");
    assert_eq!(b["endTime"], "2026-11-21T10:00:00Z");
    assert_eq!(b["status"], "PENDING");
    assert_eq!(b["location"], "Room 1");
    assert_eq!(
        b["attendees"],
        json!([{"name": "Grace Hopper", "email": "grace@example.com", "timeZone": "Europe/Berlin"}])
    );
    assert_eq!(
        keys(&b["user"]),
        ["email", "locale", "name", "timeZone", "username"]
    );
    assert_eq!(b["user"]["username"], "ada");
    assert_eq!(b["user"]["email"], "ada@example.com");
    assert_eq!(b["user"]["name"], "Test User");
    let created = b["createdAt"].as_str().unwrap();
    assert!(created.ends_with('Z') && created.len() == 20, "{created}");
    assert!(b["cancellationReason"].is_null());

    // Defaults: ACCEPTED, no description or location, attendee zone UTC; offsets become UTC.
    let mut body = booking("Minimal");
    body["startTime"] = json!("2026-11-21T10:30:00+01:00");
    let b = ada.create_booking(&body).await;
    assert_eq!(b["status"], "ACCEPTED");
    assert_eq!(b["startTime"], "2026-11-21T09:30:00Z");
    assert!(b["description"].is_null() && b["location"].is_null());
    assert_eq!(b["attendees"][0]["timeZone"], "UTC");

    let fetched = json_of(
        ada.get_response(&format!("/api/v1/bookings/{}", b["id"]))
            .await,
        200,
    )
    .await;
    assert_eq!(fetched, b);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_bookings_are_400_naming_every_field() {
    let app = TestApp::spawn().await;
    let ada = user_with_bearer_key(&app, "ada@example.com");

    let mut body = booking("Backwards");
    body["endTime"] = json!("2026-11-21T09:00:00Z");
    let err = json_of(ada.post_response("/api/v1/bookings", &body).await, 400).await;
    assert_eq!(err["code"], "validation_error");
    assert_eq!(detail_paths(&err), ["endTime"]);

    let mut body = booking("Bad e-mail");
    body["attendees"][0]["email"] = json!("not-an-address");
    let err = json_of(ada.post_response("/api/v1/bookings", &body).await, 400).await;
    assert_eq!(detail_paths(&err), ["attendees[0].email"]);

    let mut body = booking("x");
    body.as_object_mut().unwrap().remove("title");
    let err = json_of(ada.post_response("/api/v1/bookings", &body).await, 400).await;
    assert_eq!(detail_paths(&err), ["title"]);

    // Everything wrong at once is reported at once.
    let body = json!({
        "title": "",
        "startTime": "next tuesday",
        "status": "CANCELLED",
        "attendees": [{"name": "Ok", "email": "ok@example.com"}, {"email": "x@", "timeZone": "Mars Base"}]
    });
    let err = json_of(ada.post_response("/api/v1/bookings", &body).await, 400).await;
    assert_eq!(
        detail_paths(&err),
        [
            "title",
            "startTime",
            "endTime",
            "status",
            "attendees[1].name",
            "attendees[1].email",
            "attendees[1].timeZone"
        ]
    );

    // Wrong JSON types and broken JSON are 400 too.
    let mut body = booking("Typed");
    body["title"] = json!(42);
    let err = json_of(ada.post_response("/api/v1/bookings", &body).await, 400).await;
    assert_eq!(err["code"], "invalid_request");
    let resp = ada
        .request(Method::POST, "/api/v1/bookings")
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 400);

    let list = json_of(ada.get_response("/listBookings").await, 200).await;
    assert_eq!(list, json!([]), "nothing was stored");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_bookings_is_newest_first_and_takes_every_api_key_form() {
    let app = TestApp::spawn().await;
    let ada = user_with_bearer_key(&app, "ada@example.com");
    for t in ["first", "second", "third"] {
        ada.create_booking(&booking(t)).await;
    }

    let list = json_of(ada.get_response("/listBookings").await, 200).await;
    assert_eq!(titles(&list), ["third", "second", "first"]);
    assert_eq!(list[0]["user"]["username"], "ada");

    let list = json_of(ada.get_response("/listBookings?limit=2").await, 200).await;
    assert_eq!(titles(&list), ["third", "second"]);
    let list = json_of(ada.get_response("/listBookings?limit=100").await, 200).await;
    assert_eq!(list.as_array().unwrap().len(), 3);
    for bad in ["0", "101", "-1", "lots"] {
        let err = json_of(
            ada.get_response(&format!("/listBookings?limit={bad}"))
                .await,
            400,
        )
        .await;
        assert_eq!(detail_paths(&err), ["limit"], "limit={bad}");
    }

    // A bare key in the header, and the key as a query parameter.
    let resp = app.api(ada.key()).get_response("/listBookings").await;
    assert_eq!(titles(&json_of(resp, 200).await).len(), 3);
    let resp = app
        .get(&format!("/listBookings?apiKey={}&limit=1", ada.key()))
        .await;
    assert_eq!(titles(&json_of(resp, 200).await), ["third"]);
    app.stop().await;
}

/// `resp` is a 401 with a Bearer challenge and the `unauthorized` code.
async fn assert_401(resp: Response, what: &str) {
    assert_eq!(resp.status(), 401, "{what}");
    assert!(
        resp.headers()
            .get("www-authenticate")
            .is_some_and(|h| h.to_str().unwrap().starts_with("Bearer")),
        "{what}: WWW-Authenticate"
    );
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["code"], "unauthorized", "{what}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn missing_bad_revoked_and_disabled_credentials_are_401() {
    let app = TestApp::spawn().await;
    let ada = user_with_bearer_key(&app, "ada@example.com");
    let d = app.data_dir();

    assert_401(app.get("/listBookings").await, "no credentials").await;
    assert_401(
        app.get("/api/v1/bookings").await,
        "no credentials on the API",
    )
    .await;
    assert_401(
        app.bearer("api_notarealkey")
            .get_response("/listBookings")
            .await,
        "unknown key",
    )
    .await;
    assert_401(
        app.get("/listBookings?apiKey=api_notarealkey").await,
        "unknown query key",
    )
    .await;
    assert_401(
        app.bearer("api_notarealkey")
            .post_response("/api/v1/bookings", &booking("x"))
            .await,
        "unknown key on create",
    )
    .await;
    // The API under /api/v1 takes the Authorization header only.
    assert_401(
        app.get(&format!("/api/v1/bookings?apiKey={}", ada.key()))
            .await,
        "query key on /api/v1",
    )
    .await;

    // A revoked key stops working; the user's other keys do not.
    let doomed = create_api_key(&app.data_dir(), "ada@example.com");
    let doomed_key = doomed["key"].as_str().unwrap();
    assert_eq!(
        app.bearer(doomed_key)
            .get_response("/listBookings")
            .await
            .status(),
        200
    );
    docket_json(&d, &["apikey", "revoke", &doomed["id"].to_string()], None);
    assert_401(
        app.bearer(doomed_key).get_response("/listBookings").await,
        "revoked key",
    )
    .await;
    assert_eq!(ada.get_response("/listBookings").await.status(), 200);

    // A disabled user's keys stop at once.
    let out = docket(&d, &["user", "disable", "ada@example.com"], None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_401(ada.get_response("/listBookings").await, "disabled user").await;
    assert_401(ada.get_response("/api/v1/bookings").await, "disabled user").await;
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_users_booking_is_not_found() {
    let app = TestApp::spawn().await;
    let ada = user_with_bearer_key(&app, "ada@example.com");
    let bob = user_with_bearer_key(&app, "bob@example.com");
    let b = ada.create_booking(&booking("Ada's")).await;
    let path = format!("/api/v1/bookings/{}", b["id"]);

    let err = json_of(bob.get_response(&path).await, 404).await;
    assert_eq!(err["code"], "not_found");
    let resp = bob
        .post_response(&format!("{path}/cancel"), &json!({}))
        .await;
    assert_eq!(resp.status(), 404);
    assert_eq!(
        bob.get_response("/api/v1/bookings/999999").await.status(),
        404
    );
    let bobs = json_of(bob.get_response("/listBookings").await, 200).await;
    assert_eq!(bobs, json!([]));

    // Untouched by Bob's attempt.
    let still = json_of(ada.get_response(&path).await, 200).await;
    assert_eq!(still["status"], "ACCEPTED");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_once_then_409() {
    let app = TestApp::spawn().await;
    let ada = user_with_bearer_key(&app, "ada@example.com");
    let b = ada.create_booking(&booking("Doomed")).await;
    let path = format!("/api/v1/bookings/{}/cancel", b["id"]);

    let long = json!({"reason": "r".repeat(501)});
    let err = json_of(ada.post_response(&path, &long).await, 400).await;
    assert_eq!(detail_paths(&err), ["reason"]);

    let done = json_of(
        ada.post_response(&path, &json!({"reason": "Double-booked"}))
            .await,
        200,
    )
    .await;
    assert_eq!(done["id"], b["id"]);
    assert_eq!(done["status"], "CANCELLED");
    assert_eq!(done["cancellationReason"], "Double-booked");

    let err = json_of(ada.post_response(&path, &json!({})).await, 409).await;
    assert_eq!(err["code"], "conflict");
    let got = json_of(
        ada.get_response(&format!("/api/v1/bookings/{}", b["id"]))
            .await,
        200,
    )
    .await;
    assert_eq!(got["cancellationReason"], "Double-booked");

    // The body may be left out entirely.
    let other = ada.create_booking(&booking("Also doomed")).await;
    let resp = ada
        .request(
            Method::POST,
            &format!("/api/v1/bookings/{}/cancel", other["id"]),
        )
        .send()
        .await
        .unwrap();
    let done = json_of(resp, 200).await;
    assert_eq!(done["status"], "CANCELLED");
    assert!(done["cancellationReason"].is_null());
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_and_status_filter() {
    let app = TestApp::spawn().await;
    let ada = user_with_bearer_key(&app, "ada@example.com");
    for i in 1..=5 {
        let mut body = booking(&format!("b{i}"));
        if i == 2 {
            body["status"] = json!("PENDING");
        }
        ada.create_booking(&body).await;
    }
    five_bookings_page_newest_first(&ada).await;
    bad_paging_and_status_queries_are_400(&ada).await;
    the_status_filter_pages_too(&ada).await;
    app.stop().await;
}

/// The five bookings b1..b5 list newest first, in pages of `perPage`.
async fn five_bookings_page_newest_first(ada: &Api) {
    let page = json_of(ada.get_response("/api/v1/bookings").await, 200).await;
    assert_eq!(keys(&page), ["bookings", "totalPages"]);
    assert_eq!(page["totalPages"], 1);
    assert_eq!(titles(&page["bookings"]), ["b5", "b4", "b3", "b2", "b1"]);

    let page = json_of(ada.get_response("/api/v1/bookings?perPage=2").await, 200).await;
    assert_eq!(page["totalPages"], 3);
    assert_eq!(titles(&page["bookings"]), ["b5", "b4"]);
    let page = json_of(
        ada.get_response("/api/v1/bookings?perPage=2&page=3").await,
        200,
    )
    .await;
    assert_eq!(titles(&page["bookings"]), ["b1"]);
    let page = json_of(
        ada.get_response("/api/v1/bookings?perPage=2&page=4").await,
        200,
    )
    .await;
    assert_eq!(page["bookings"], json!([]));
    assert_eq!(page["totalPages"], 3);
    let page = json_of(ada.get_response("/api/v1/bookings?perPage=100").await, 200).await;
    assert_eq!(page["bookings"].as_array().unwrap().len(), 5);
}

/// Out-of-range pages, sizes and unknown statuses are 400, naming the parameter.
async fn bad_paging_and_status_queries_are_400(ada: &Api) {
    for (query, field) in [
        ("perPage=0", "perPage"),
        ("perPage=101", "perPage"),
        ("page=0", "page"),
        ("page=x", "page"),
        ("status=DONE", "status"),
    ] {
        let err = json_of(
            ada.get_response(&format!("/api/v1/bookings?{query}")).await,
            400,
        )
        .await;
        assert_eq!(detail_paths(&err), [field], "{query}");
    }
}

/// `status` filters (in any case) and pages; cancelling b4 moves it to CANCELLED.
async fn the_status_filter_pages_too(ada: &Api) {
    let page = json_of(
        ada.get_response("/api/v1/bookings?status=PENDING").await,
        200,
    )
    .await;
    assert_eq!(titles(&page["bookings"]), ["b2"]);
    assert_eq!(page["totalPages"], 1);
    let page = json_of(
        ada.get_response("/api/v1/bookings?status=CANCELLED").await,
        200,
    )
    .await;
    assert_eq!(page, json!({"bookings": [], "totalPages": 0}));

    let first = json_of(ada.get_response("/api/v1/bookings?perPage=2").await, 200).await;
    let b4 = &first["bookings"][1];
    let cancel = format!("/api/v1/bookings/{}/cancel", b4["id"]);
    assert_eq!(ada.post_response(&cancel, &json!({})).await.status(), 200);
    let page = json_of(
        ada.get_response("/api/v1/bookings?status=cancelled").await,
        200,
    )
    .await;
    assert_eq!(titles(&page["bookings"]), ["b4"]);
    let page = json_of(
        ada.get_response("/api/v1/bookings?status=ACCEPTED&perPage=1")
            .await,
        200,
    )
    .await;
    assert_eq!(page["totalPages"], 3);
    assert_eq!(titles(&page["bookings"]), ["b5"]);
}
