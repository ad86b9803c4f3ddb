//! Deadlines and automatic reminders (issue 56, parts 1 and 2), through the real server: a
//! document's period becomes each recipient's `expiresAt` when it is sent; once it passes,
//! every action of that recipient's link is refused (410 `recipient_expired`) while the others
//! go on, the owner is told once (mail, webhook, audit); a resend gives a fresh period.
//! Reminders go to whose turn it is, not to the finished or the expired, and missed ones
//! collapse into one. Time moves by writing the stored times, never by sleeping; the scan runs
//! every second here (`--deadline-scan-secs 1`).

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::api::{Api, fixture};
use crate::support::wait::wait_for;
use crate::support::webhook::Receiver;
use crate::support::{TestApp, docket_json};

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// A sent document for Ann and Bob (both signers, in parallel) with `meta`: its id, and per
/// recipient their token, id and signature field.
pub struct Sent {
    pub id: i64,
    pub tokens: [String; 2],
    pub recipients: [i64; 2],
    pub fields: [i64; 2],
}

pub async fn sent(owner: &Api, meta: Value) -> Sent {
    let created = owner
        .create_document(json!({"title": "Lease", "meta": meta, "recipients": [
            {"name": "Ann", "email": "ann@example.com", "role": "SIGNER"},
            {"name": "Bob", "email": "bob@example.com", "role": "SIGNER"}
        ]}))
        .await;
    let id = created.document_id();
    let (up, v) = owner
        .upload(created.upload_url(), fixture("a4-1p.pdf"))
        .await;
    assert_eq!(up, 200, "{v}");
    let recipients = [created.recipient_id(0), created.recipient_id(1)];
    let fields = owner
        .add_fields(
            id,
            json!([
                {"recipientId": recipients[0], "type": "SIGNATURE", "pageNumber": 1,
                 "pageX": 10, "pageY": 70, "pageWidth": 30, "pageHeight": 5},
                {"recipientId": recipients[1], "type": "SIGNATURE", "pageNumber": 1,
                 "pageX": 10, "pageY": 80, "pageWidth": 30, "pageHeight": 5}
            ]),
        )
        .await;
    let (s, v) = owner.send_with(id, json!({})).await;
    assert_eq!(s, 200, "{v}");
    Sent {
        id,
        tokens: [created.token(0), created.token(1)],
        recipients,
        fields: [fields[0], fields[1]],
    }
}

/// The recipient `rid` as the API answers it.
async fn recipient(owner: &Api, doc: i64, rid: i64) -> Value {
    let d = owner.document(doc).await;
    d["recipients"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == rid)
        .cloned()
        .unwrap()
}

fn unix(iso: &Value) -> i64 {
    iso.as_str()
        .unwrap()
        .parse::<jiff::Timestamp>()
        .unwrap()
        .as_second()
}

/// Makes recipient `rid`'s deadline pass: it ended at `at` (the stored time, and the scan's
/// timer).
pub fn pass_deadline(app: &TestApp, rid: i64, at: i64) {
    let db = app.db_rw();
    db.execute(
        "UPDATE recipients SET expires_at = ?1 WHERE id = ?2",
        docket::params![at, rid],
    )
    .unwrap();
    db.execute(
        "UPDATE recipient_timers SET due_at = ?1 WHERE recipient_id = ?2 AND kind = 'EXPIRE'",
        docket::params![at, rid],
    )
    .unwrap();
}

/// The messages of `kind` to `to`, from `docket mail list`.
fn mails(app: &TestApp, kind: &str, to: &str) -> Vec<Value> {
    docket_json(&app.data_dir(), &["mail", "list"], None)
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["kind"] == kind && m["to"] == to)
        .cloned()
        .collect()
}

fn timers(app: &TestApp, rid: i64, kind: &str) -> Vec<i64> {
    app.db()
        .query_map(
            "SELECT due_at FROM recipient_timers WHERE recipient_id = ?1 AND kind = ?2",
            docket::params![rid, kind],
            |r| r.get(0),
        )
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_passed_deadline_stops_that_link_tells_the_owner_once_and_a_resend_gives_a_fresh_period()
{
    let app = TestApp::spawn_with(&[
        "--tls",
        "off",
        "--allow-private-webhooks",
        "--deadline-scan-secs",
        "1",
    ])
    .await;
    let owner = app.user_with_key("owner@example.com", "enterprise");
    let hooks = Receiver::start(&[200]).await;
    owner
        .add_webhook(json!({"url": hooks.url(), "events": ["RECIPIENT_EXPIRED"]}))
        .await;
    let before = now();
    let doc = sent(
        &owner,
        json!({"envelopeExpirationPeriod": {"unit": "week", "amount": 2}}),
    )
    .await;
    let [ann_id, bob_id] = doc.recipients;

    // Fixed at sending, two weeks on, for each recipient; nobody has expired.
    let d = owner.document(doc.id).await;
    assert_eq!(
        d["meta"]["envelopeExpirationPeriod"],
        json!({"unit": "week", "amount": 2})
    );
    for r in d["recipients"].as_array().unwrap() {
        let at = unix(&r["expiresAt"]);
        assert!(
            (before + 14 * 86_400..=now() + 14 * 86_400).contains(&at),
            "{r}"
        );
        assert_eq!(r["expired"], false);
        assert_eq!(r["expirationNotifiedAt"], Value::Null);
    }

    // The signing request says by when, in the document's zone.
    let request = wait_for(Duration::from_secs(30), || {
        mails(&app, "SIGNING_REQUEST", "bob@example.com")
            .first()
            .cloned()
            .ok_or("no signing request yet".to_string())
    })
    .await;
    let shown = docket_json(
        &app.data_dir(),
        &["mail", "show", &request["id"].to_string()],
        None,
    );
    let text = shown["text"].as_str().unwrap();
    assert!(text.contains("Please finish by "), "{text}");
    assert!(
        text.contains("(Etc/UTC)") || text.contains("(UTC)"),
        "{text}"
    );

    // Bob's time passes; Ann's does not.
    pass_deadline(&app, bob_id, now() - 5);
    let bob = app.signer(&doc.tokens[1]);
    let refused = |(s, v): (u16, Value)| {
        assert_eq!(s, 410, "{v}");
        assert_eq!(v["code"], "recipient_expired", "{v}");
    };
    refused(bob.sign_typed(doc.fields[1], "Bob").await);
    refused(bob.complete(json!({})).await);
    refused(bob.reject("too late anyway").await);
    let page = bob.page().await;
    assert_eq!(page.status(), 410);
    let html = page.text().await.unwrap();
    assert!(
        html.contains("Your time to act on this document ended on"),
        "{html}"
    );
    assert!(
        !html.contains("sign.js"),
        "no fields on an expired link's page"
    );
    assert_eq!(
        recipient(&owner, doc.id, bob_id).await["readStatus"],
        "NOT_OPENED",
        "a link that only says its time ran out opened nothing"
    );

    // The owner hears of it once: one webhook, one mail, one audit event; the mark is set.
    let got = hooks.wait_for(1).await;
    let payload = got[0].json();
    assert_eq!(payload["event"], "RECIPIENT_EXPIRED", "{payload}");
    assert_eq!(payload["payload"]["status"], "PENDING");
    let shown = payload["payload"]["recipients"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == bob_id)
        .cloned()
        .unwrap();
    assert_eq!(shown["expired"], true, "{shown}");
    assert!(shown["expirationNotifiedAt"].is_string(), "{shown}");
    let told = wait_for(Duration::from_secs(30), || {
        let m = mails(&app, "RECIPIENT_EXPIRED", "owner@example.com");
        if m.is_empty() {
            Err("no mail to the owner yet".to_string())
        } else {
            Ok(m)
        }
    })
    .await;
    assert_eq!(told.len(), 1);
    let shown_mail = docket_json(
        &app.data_dir(),
        &["mail", "show", &told[0]["id"].to_string()],
        None,
    );
    let text = shown_mail["text"].as_str().unwrap();
    assert!(
        text.contains("Bob <bob@example.com> did not finish \"Lease\""),
        "{text}"
    );
    assert!(text.contains(&format!("/documents/{}", doc.id)), "{text}");
    assert!(
        timers(&app, bob_id, "EXPIRE").is_empty(),
        "handled once, taken off"
    );
    let audit = owner.audit_event(doc.id, "RECIPIENT_EXPIRED").await;
    assert_eq!(audit["data"]["email"], "bob@example.com", "{audit}");
    let b = recipient(&owner, doc.id, bob_id).await;
    assert_eq!(b["expired"], true);
    assert!(b["expirationNotifiedAt"].is_string());
    assert_eq!(recipient(&owner, doc.id, ann_id).await["expired"], false);

    // The others go on: Ann signs; the document stays PENDING for Bob.
    let ann = app.signer(&doc.tokens[0]);
    let (s, v) = ann.sign_typed(doc.fields[0], "Ann").await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = ann.complete(json!({})).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(owner.document(doc.id).await["status"], "PENDING");

    // A resend gives Bob a fresh two weeks, and his link acts again.
    let resent_at = now();
    let (s, v) = owner
        .post(
            &format!("/api/v1/documents/{}/resend", doc.id),
            json!({"recipients": [bob_id]}),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    let b = recipient(&owner, doc.id, bob_id).await;
    assert_eq!(b["expired"], false, "{b}");
    assert_eq!(b["expirationNotifiedAt"], Value::Null);
    assert!(unix(&b["expiresAt"]) >= resent_at + 14 * 86_400, "{b}");
    assert_eq!(
        timers(&app, bob_id, "EXPIRE").len(),
        1,
        "reported again if it passes"
    );
    let (s, v) = bob.sign_typed(doc.fields[1], "Bob").await;
    assert_eq!(s, 200, "{v}");
    let (s, v) = bob.complete(json!({})).await;
    assert_eq!(s, 200, "{v}");
    owner.wait_status(doc.id, "COMPLETED").await;
    assert_eq!(
        mails(&app, "RECIPIENT_EXPIRED", "owner@example.com").len(),
        1,
        "told once"
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn periods_are_checked_fixed_dates_capped_and_templates_pass_theirs_on() {
    let app = TestApp::spawn().await;
    let owner = app.user_with_key("owner@example.com", "enterprise");
    for (period, says) in [
        (json!({"unit": "day", "amount": 0}), "1 or more"),
        (json!({"unit": "week", "amount": 60}), "from 1 to 52 weeks"),
        (json!({"unit": "year", "amount": 2}), "a year at most"),
        (json!({"unit": "fortnight", "amount": 1}), "must be null"),
        (json!({"until": "2001-01-01T00:00:00Z"}), "in the future"),
        (json!({"disabled": false}), "must be true"),
        (json!("P14D"), "must be null"),
    ] {
        let (s, v) = owner
            .post(
                "/api/v1/documents",
                json!({"title": "T", "recipients": [], "meta": {"envelopeExpirationPeriod": period}}),
            )
            .await;
        assert_eq!(s, 400, "{period}: {v}");
        let detail = &v["details"][0];
        assert_eq!(detail["path"], "meta.envelopeExpirationPeriod", "{v}");
        assert!(
            detail["message"].as_str().unwrap().contains(says),
            "{period}: {v}"
        );
    }
    let (s, v) = owner
        .post(
            "/api/v1/documents",
            json!({"title": "T", "recipients": [], "meta": {"reminders": {"everyDays": 0, "max": 3}}}),
        )
        .await;
    assert_eq!(s, 400, "{v}");
    assert_eq!(v["details"][0]["path"], "meta.reminders", "{v}");

    // A fixed end: the recipients' deadline is that moment.
    let until = now() + 3 * 86_400;
    let until_text = jiff::Timestamp::from_second(until).unwrap().to_string();
    let doc = sent(
        &owner,
        json!({"envelopeExpirationPeriod": {"until": until_text}}),
    )
    .await;
    let r = recipient(&owner, doc.id, doc.recipients[0]).await;
    assert_eq!(unix(&r["expiresAt"]), until, "{r}");

    // Without a period: no deadline.
    let doc = sent(&owner, json!({})).await;
    let r = recipient(&owner, doc.id, doc.recipients[0]).await;
    assert_eq!(r["expiresAt"], Value::Null, "{r}");
    assert!(timers(&app, doc.recipients[0], "EXPIRE").is_empty());

    // A template's period passes on to the documents made from it.
    let t = owner
        .create_template(json!({"title": "Lease template",
            "meta": {"envelopeExpirationPeriod": {"unit": "day", "amount": 3}},
            "recipients": [{"name": "Ann", "email": "ann@example.com", "role": "SIGNER"}]}))
        .await;
    let tid = t.template_id();
    let (s, v) = owner.get(&format!("/api/v1/templates/{tid}")).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(
        v["templateMeta"]["envelopeExpirationPeriod"],
        json!({"unit": "day", "amount": 3}),
        "{v}"
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reminders_go_to_whose_turn_it_is_once_per_due_time_and_missed_ones_become_one() {
    let app = TestApp::spawn_with(&["--tls", "off", "--deadline-scan-secs", "1"]).await;
    let owner = app.user_with_key("owner@example.com", "enterprise");
    let sent_at = now();
    let doc = sent(
        &owner,
        json!({"reminders": {"everyDays": 2, "max": 2},
               "envelopeExpirationPeriod": {"unit": "day", "amount": 20}}),
    )
    .await;
    let [ann_id, bob_id] = doc.recipients;
    // The first reminder is due two days after sending, for each.
    for rid in [ann_id, bob_id] {
        let due = timers(&app, rid, "REMIND");
        assert_eq!(due.len(), 1);
        assert!((sent_at + 2 * 86_400..=now() + 2 * 86_400).contains(&due[0]));
    }
    let requests = |to: &str| mails(&app, "SIGNING_REQUEST", to).len();
    let first_ann = requests("ann@example.com");

    // Ann has finished; Bob's time ran out: neither is reminded.
    let ann = app.signer(&doc.tokens[0]);
    assert_eq!(ann.sign_typed(doc.fields[0], "Ann").await.0, 200);
    assert_eq!(ann.complete(json!({})).await.0, 200);
    pass_deadline(&app, bob_id, now() - 5);
    let db = app.db_rw();
    db.execute(
        "UPDATE recipient_timers SET due_at = ?1 WHERE kind = 'REMIND'",
        [now() - 60],
    )
    .unwrap();
    wait_for(Duration::from_secs(30), || {
        let left: i64 = app
            .db()
            .query_row(
                "SELECT count(*) FROM recipient_timers WHERE kind = 'REMIND' OR recipient_id = ?1",
                [bob_id],
                |r| r.get(0),
            )
            .unwrap();
        (left == 0)
            .then_some(())
            .ok_or(format!("{left} timers left"))
    })
    .await;
    assert_eq!(
        timers(&app, ann_id, "EXPIRE").len(),
        1,
        "Ann's deadline is not due"
    );
    assert_eq!(
        requests("ann@example.com"),
        first_ann,
        "finished: no reminder"
    );
    let bob_before = requests("bob@example.com");
    let bob_now = recipient(&owner, doc.id, bob_id).await;
    assert_eq!(bob_now["expired"], true);
    assert_eq!(
        requests("bob@example.com"),
        bob_before,
        "expired: no reminder"
    );
    // Sent again, Bob's reminders start again, one interval on.
    let resent_at = now();
    let (s, v) = owner
        .post(
            &format!("/api/v1/documents/{}/resend", doc.id),
            json!({"recipients": [bob_id]}),
        )
        .await;
    assert_eq!(s, 200, "{v}");
    let due = timers(&app, bob_id, "REMIND");
    assert_eq!(due.len(), 1, "{due:?}");
    assert!((resent_at + 2 * 86_400..=now() + 2 * 86_400).contains(&due[0]));

    // A fresh document: a service down for a week sends one reminder, not three, and the next
    // is due one interval after it; the count stops them.
    let doc = sent(&owner, json!({"reminders": {"everyDays": 2, "max": 2}})).await;
    let bob_id = doc.recipients[1];
    let before = requests("bob@example.com");
    db.execute(
        "UPDATE recipient_timers SET due_at = ?1 WHERE recipient_id = ?2",
        docket::params![now() - 7 * 86_400, bob_id],
    )
    .unwrap();
    let next = wait_for(Duration::from_secs(30), || {
        let due = timers(&app, bob_id, "REMIND");
        match due.first() {
            Some(at) if *at > now() => Ok(*at),
            other => Err(format!("not yet moved on: {other:?}")),
        }
    })
    .await;
    assert!(next >= now() + 2 * 86_400 - 60, "one interval after now");
    wait_for(Duration::from_secs(30), || {
        let n = requests("bob@example.com");
        (n == before + 1)
            .then_some(())
            .ok_or(format!("{n} requests, {before} before"))
    })
    .await;
    let sent_count: i64 = app
        .db()
        .query_row(
            "SELECT reminders_sent FROM recipients WHERE id = ?1",
            [bob_id],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(sent_count, 1);
    let reminder = mails(&app, "SIGNING_REQUEST", "bob@example.com")
        .into_iter()
        .max_by_key(|m| m["id"].as_i64())
        .unwrap();
    let shown = docket_json(
        &app.data_dir(),
        &["mail", "show", &reminder["id"].to_string()],
        None,
    );
    assert!(
        shown["subject"].as_str().unwrap().contains("Reminder"),
        "{shown}"
    );
    // The second and last: then nothing is scheduled.
    db.execute(
        "UPDATE recipient_timers SET due_at = ?1 WHERE recipient_id = ?2",
        docket::params![now() - 1, bob_id],
    )
    .unwrap();
    wait_for(Duration::from_secs(30), || {
        let due = timers(&app, bob_id, "REMIND");
        due.is_empty()
            .then_some(())
            .ok_or(format!("still scheduled: {due:?}"))
    })
    .await;
    assert_eq!(requests("bob@example.com"), before + 2);

    // Stopping them: nothing scheduled, and the document's meta no longer asks.
    let doc = sent(&owner, json!({"reminders": {"everyDays": 3, "max": 5}})).await;
    assert_eq!(timers(&app, doc.recipients[0], "REMIND").len(), 1);
    let (s, v) = owner
        .delete(&format!("/api/v1/documents/{}/reminders", doc.id))
        .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["stopped"], 2, "{v}");
    assert!(timers(&app, doc.recipients[0], "REMIND").is_empty());
    assert_eq!(
        owner.document(doc.id).await["meta"]["reminders"],
        Value::Null
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_request_then_the_team_then_the_account_gives_the_period_and_disabled_says_none() {
    let app = TestApp::spawn().await;
    let d = app.data_dir();
    crate::support::login::add_account(&d, "bob@example.com", "Bob");
    crate::support::cli::docket(
        &d,
        &[
            "team",
            "create",
            "Sales",
            "--slug",
            "sales",
            "--admin",
            "bob@example.com",
        ],
        None,
    );
    let (mine, team) = (
        app.key_for("bob@example.com", None),
        app.key_for("bob@example.com", Some("sales")),
    );
    let period_of = |api: &Api, meta: Value| {
        let api = api.clone();
        async move {
            let doc = api
                .create_document(json!({"title": "T", "meta": meta, "recipients": []}))
                .await;
            api.document(doc.document_id()).await["meta"]["envelopeExpirationPeriod"].clone()
        }
    };
    assert_eq!(
        period_of(&mine, json!({})).await,
        Value::Null,
        "none by default"
    );

    // Bob's own default, from his account page; a period it cannot read is refused beside
    // the box.
    let web = crate::support::login::browser(&app, "bob@example.com").await;
    let post = |typed: &'static str| {
        app.client
            .post(app.url("/account/deadline"))
            .header("cookie", &web.cookie)
            .form(&[
                ("csrf_token", web.csrf.as_str()),
                ("expirationPeriod", typed),
            ])
            .send()
    };
    let bad = post("two weeks").await.unwrap();
    assert_eq!(bad.status(), 422);
    assert!(
        bad.text()
            .await
            .unwrap()
            .contains("id=\"expirationPeriod-error\"")
    );
    let saved = post("10 days").await.unwrap();
    assert_eq!(saved.status(), 303);
    assert_eq!(
        saved.headers()["location"],
        "/account?done=deadline#deadline"
    );
    let page = app
        .client
        .get(app.url("/account"))
        .header("cookie", &web.cookie)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains("value=\"10 days\""), "the page shows it");
    let ten_days = json!({"unit": "day", "amount": 10});
    assert_eq!(period_of(&mine, json!({})).await, ten_days);
    assert_eq!(
        period_of(&team, json!({})).await,
        ten_days,
        "a team that leaves it open"
    );

    // The team's own comes first in the team; the request's wins over both, and
    // `{"disabled": true}` says none whatever they say.
    let set = docket_json(
        &d,
        &[
            "team",
            "settings",
            "sales",
            "--expiration-period",
            "2 weeks",
        ],
        None,
    );
    assert_eq!(
        set["expiration_period"],
        json!({"unit": "week", "amount": 2}),
        "{set}"
    );
    assert_eq!(
        period_of(&team, json!({})).await,
        json!({"unit": "week", "amount": 2})
    );
    assert_eq!(
        period_of(&mine, json!({})).await,
        ten_days,
        "personal: his own"
    );
    let asked = json!({"unit": "month", "amount": 1});
    assert_eq!(
        period_of(&team, json!({"envelopeExpirationPeriod": asked})).await,
        asked
    );
    let none = json!({"disabled": true});
    assert_eq!(
        period_of(&team, json!({"envelopeExpirationPeriod": none})).await,
        none
    );
    let bad = crate::support::cli::docket(
        &d,
        &[
            "team",
            "settings",
            "sales",
            "--expiration-period",
            "3 fortnights",
        ],
        None,
    );
    assert!(!bad.status.success());
    let cleared = docket_json(
        &d,
        &["team", "settings", "sales", "--clear", "expiration-period"],
        None,
    );
    assert_eq!(cleared["expiration_period"], Value::Null, "{cleared}");
    assert_eq!(period_of(&team, json!({})).await, ten_days);
    app.stop().await;
}

/// Three nodes on the first one's PostgreSQL database, each scanning every second.
async fn three_nodes() -> Vec<TestApp> {
    let first = tempfile::tempdir().unwrap();
    let url = crate::support::postgres_for(&first.path().join("data")).expect("on PostgreSQL");
    let args = [
        "--tls",
        "off",
        "--database-url",
        url.as_str(),
        "--deadline-scan-secs",
        "1",
    ];
    let mut nodes = vec![TestApp::spawn_in(first, &args).await];
    for _ in 0..2 {
        nodes.push(TestApp::spawn_with(&args).await);
    }
    nodes
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_several_nodes_each_deadline_is_reported_once_and_each_reminder_sent_once() {
    if !crate::support::on_postgres() {
        eprintln!("skipped: several nodes need PostgreSQL (DOCKET_TEST_POSTGRES)");
        return;
    }
    let nodes = three_nodes().await;
    let a = &nodes[0];
    let owner = a.user_with_key("owner@example.com", "enterprise");
    let meta = json!({"reminders": {"everyDays": 2, "max": 3},
                      "envelopeExpirationPeriod": {"unit": "week", "amount": 1}});
    let mut docs = Vec::new();
    for _ in 0..12 {
        docs.push(sent(&owner, meta.clone()).await);
    }
    // In each document Bob's time runs out and Ann's reminder falls due, all at once, while
    // the three nodes scan.
    let db = a.db_rw();
    let past = now() - 5;
    for d in &docs {
        let [ann, bob] = d.recipients;
        db.execute(
            "UPDATE recipients SET expires_at = ?1 WHERE id = ?2",
            docket::params![past, bob],
        )
        .unwrap();
        db.execute(
            "UPDATE recipient_timers SET due_at = ?1
              WHERE (recipient_id = ?2 AND kind = 'EXPIRE') OR (recipient_id = ?3 AND kind = 'REMIND')",
            docket::params![past, bob, ann],
        )
        .unwrap();
    }
    let count = |sql: &'static str| -> i64 { a.db().query_row(sql, [], |r| r.get(0)).unwrap() };
    wait_for(Duration::from_secs(60), || {
        let due: i64 = a
            .db()
            .query_row(
                "SELECT count(*) FROM recipient_timers WHERE due_at <= ?1",
                [now()],
                |r| r.get(0),
            )
            .unwrap();
        (due == 0).then_some(()).ok_or(format!("{due} still due"))
    })
    .await;
    assert_eq!(
        count("SELECT count(*) FROM mail_queue WHERE kind = 'RECIPIENT_EXPIRED'"),
        12,
        "one mail to the owner per passed deadline"
    );
    assert_eq!(
        count("SELECT count(*) FROM audit_events WHERE type = 'RECIPIENT_EXPIRED'"),
        12
    );
    assert_eq!(
        count("SELECT count(*) FROM recipients WHERE expiration_notified_at IS NOT NULL"),
        12
    );
    assert_eq!(
        count("SELECT CAST(SUM(reminders_sent) AS BIGINT) FROM recipients"),
        12,
        "one reminder per due time"
    );
    let subjects: Vec<String> = a
        .db()
        .query_map(
            "SELECT subject FROM mail_queue WHERE kind = 'SIGNING_REQUEST' AND to_addr = 'ann@example.com'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(
        subjects
            .iter()
            .filter(|s| s.starts_with("Reminder"))
            .count(),
        12,
        "each Ann: one reminder: {subjects:?}"
    );
    assert_eq!(subjects.len(), 24, "and the request itself");
    for n in nodes {
        n.stop().await;
    }
}
