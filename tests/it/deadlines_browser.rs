//! Deadlines and reminders in headless Chromium (`tests/browser/deadlines.mjs`, issue 56 parts
//! 1 and 2), in two steps around a passed deadline. `editor`: the editor's Settings step sets a
//! period (a refused one said beside its fieldset first, a date tried) and reminders, in German
//! for the recipients; the template editor saves its own period; the document is sent from the
//! review step. Then Ann signs and Bob's time passes here (the stored times written, the scan
//! every second). `after`: the dashboard's "time ran out" mark and note (in forced colours too),
//! Bob's link answering 410 in German, the document page's badges, "Send again with a fresh
//! period" (a new time shown) and "Stop reminders" (the badges gone), and the account's and the
//! team's default period forms. axe-core on each page and state, desktop and phone sizes,
//! keyboard reach of the new controls; screenshots `deadlines-*`.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::api::{create_api_key, fixture};
use crate::support::login::{PASSWORD, add_account};
use crate::support::wait::wait_for;
use crate::support::{TestApp, docket_json, tools};

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs chromium and node")]
async fn deadlines_and_reminders_work_in_chromium() {
    let app = TestApp::spawn_with(&["--tls", "off", "--deadline-scan-secs", "1"]).await;
    let d = app.data_dir();
    add_account(&d, "ada@example.com", "Ada Lovelace");
    docket_json(
        &d,
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
    let key = create_api_key(&d, "ada@example.com")["key"]
        .as_str()
        .unwrap()
        .to_string();
    let api = app.api(&key);

    // A draft for Ann, Bob and Cy with a signature field each, and a template, both without a
    // deadline: the editor gives them theirs.
    let created = api
        .create_document(json!({"title": "Lease", "recipients": [
            {"name": "Ann Archer", "email": "ann@example.com", "role": "SIGNER"},
            {"name": "Bob Baker", "email": "bob@example.com", "role": "SIGNER"},
            {"name": "Cy Crane", "email": "cy@example.com", "role": "SIGNER"}
        ]}))
        .await;
    let id = created.document_id();
    let (s, v) = api.upload(created.upload_url(), fixture("a4-1p.pdf")).await;
    assert_eq!(s, 200, "{v}");
    let (ann, bob, cy) = (
        created.recipient_id(0),
        created.recipient_id(1),
        created.recipient_id(2),
    );
    let at = |r: i64, y: i64| {
        json!({"recipientId": r, "type": "SIGNATURE", "pageNumber": 1,
               "pageX": 10, "pageY": y, "pageWidth": 30, "pageHeight": 6})
    };
    let fields = api
        .add_fields(id, json!([at(ann, 58), at(bob, 70), at(cy, 82)]))
        .await;
    let template = api
        .create_template(json!({"title": "Lease template",
            "recipients": [{"name": "Ann", "email": "ann@example.com", "role": "SIGNER"}]}))
        .await;
    let tid = template.template_id();
    let (s, v) = api
        .upload(template.upload_url(), fixture("a4-1p.pdf"))
        .await;
    assert_eq!(s, 200, "{v}");

    let base = app.base.clone();
    let (doc, tpl) = (id.to_string(), tid.to_string());
    let step = |name: &'static str, extra: Vec<String>| {
        let base = base.clone();
        let (doc, tpl) = (doc.clone(), tpl.clone());
        async move {
            tokio::task::spawn_blocking(move || {
                let mut args = vec![name, &base, "ada@example.com", PASSWORD, &doc, &tpl];
                args.extend(extra.iter().map(String::as_str));
                tools::summary(tools::browser_script("deadlines.mjs", &args))
            })
            .await
            .unwrap()
        }
    };
    let summary = step("editor", vec![]).await;

    // What the editor saved, and sent.
    let sent = api.document(id).await;
    assert_eq!(sent["status"], "PENDING", "{sent}");
    assert_eq!(
        sent["meta"]["envelopeExpirationPeriod"],
        json!({"unit": "day", "amount": 10}),
        "{summary}"
    );
    assert_eq!(sent["meta"]["reminders"], json!({"everyDays": 2, "max": 3}));
    assert_eq!(sent["meta"]["language"], "de");
    let (s, t) = api.get(&format!("/api/v1/templates/{tid}")).await;
    assert_eq!(s, 200, "{t}");
    assert_eq!(
        t["templateMeta"]["envelopeExpirationPeriod"],
        json!({"unit": "week", "amount": 2}),
        "{t}"
    );

    // Ann signs; Bob's time passes, and the scan tells the owner; Cy's goes on.
    let ann_link = app.signer(&created.token(0));
    assert_eq!(ann_link.sign_typed(fields[0], "Ann Archer").await.0, 200);
    assert_eq!(ann_link.complete(json!({})).await.0, 200);
    crate::deadlines::pass_deadline(&app, bob, now() - 3600);
    let db = app.db_rw();
    let told = |db: &crate::support::TestDb| -> Option<i64> {
        db.query_row(
            "SELECT expiration_notified_at FROM recipients WHERE id = ?1",
            docket::params![bob],
            |r| r.get(0),
        )
        .unwrap()
    };
    wait_for(Duration::from_secs(20), || {
        told(&db).ok_or("the scan has not noticed Bob's deadline".to_string())
    })
    .await;

    let summary = step("after", vec![bob.to_string(), created.token(1)]).await;
    // The fresh period is some ten days on, as the page showed it.
    let after = api.document(id).await;
    let bob_now: &Value = after["recipients"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == bob)
        .unwrap();
    assert_eq!(bob_now["expired"], false, "{bob_now}");
    let stamp = |v: &Value| v.as_str().unwrap().parse::<jiff::Timestamp>().unwrap();
    assert_eq!(
        stamp(&summary["freshUntil"]),
        stamp(&bob_now["expiresAt"]),
        "{summary}"
    );
    // The account's and the team's defaults, as the forms saved them.
    let period = |sql: &str| -> Value {
        let text: String = app.db().query_row(sql, [], |r| r.get(0)).unwrap();
        serde_json::from_str(&text).unwrap()
    };
    assert_eq!(
        period("SELECT expiration_period FROM users WHERE email = 'ada@example.com'"),
        json!({"unit": "week", "amount": 3})
    );
    assert_eq!(
        period("SELECT expiration_period FROM teams WHERE slug = 'sales'"),
        json!({"unit": "month", "amount": 1})
    );
    let timers: i64 = app
        .db()
        .query_row(
            "SELECT count(*) FROM recipient_timers WHERE recipient_id IN (?1, ?2) AND kind = 'REMIND'",
            docket::params![bob, cy],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(timers, 0, "reminders stopped");
    for shot in [
        "editor-settings-desktop",
        "editor-settings-phone",
        "editor-refused-desktop",
        "editor-refused-phone",
        "template-settings-desktop",
        "dashboard-desktop",
        "dashboard-phone",
        "dashboard-forced-desktop",
        "link-desktop",
        "link-phone",
        "document-expired-desktop",
        "document-expired-phone",
        "document-fresh-desktop",
        "document-fresh-phone",
        "document-stopped-desktop",
        "account-desktop",
        "account-phone",
        "team-desktop",
        "team-phone",
    ] {
        let path = tools::screenshots().join(format!("deadlines-{shot}.png"));
        assert!(path.exists(), "{} kept", path.display());
    }
    app.stop().await;
}
