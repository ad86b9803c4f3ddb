//! Bulk send from a template in headless Chromium (`tests/browser/bulk_send.mjs`, issue 56 part
//! 3): a template with two recipients (the Tenant without an address, Landlord Lee with one)
//! and a text field labelled "Flat", made through the API; then in the browser its page's "Bulk
//! send", the columns and limits, the CSV to fill in, a refused file said on the upload page, a
//! file of 3 good rows, 1 bad and an unknown column previewed and sent, the run's page followed
//! by its script to "2 of 3 sent" and the hourly limit's wait (2 an hour here), then, once this
//! test has moved the hour on (the sent rows' stored times), to "3 of 3 sent"; the report, and
//! the list of runs. Here: the three documents exist, sent,
//! with the rows' recipients, titles and values, and the three tenants were e-mailed (`docket
//! mail list`); the bad row's tenant was not.

use std::time::Duration;

use serde_json::{Value, json};

use crate::support::api::{create_api_key, fixture};
use crate::support::login::{PASSWORD, add_account};
use crate::support::wait::eventually;
use crate::support::{TestApp, docket_json, tools};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs chromium and node")]
async fn bulk_send_works_in_chromium() {
    let app = TestApp::spawn_with(&[
        "--tls",
        "off",
        "--bulk-send-max-rows",
        "50",
        "--bulk-send-per-hour",
        "2",
    ])
    .await;
    let d = app.data_dir();
    add_account(&d, "ada@example.com", "Ada Lovelace");
    let key = create_api_key(&d, "ada@example.com")["key"]
        .as_str()
        .unwrap()
        .to_string();
    let api = app.api(&key);

    let template = api.create_template(json!({"title": "Lease"})).await;
    let tid = template.template_id();
    let (s, v) = api
        .upload(template.upload_url(), fixture("a4-1p.pdf"))
        .await;
    assert_eq!(s, 200, "{v}");
    let mut rids = Vec::new();
    for (name, email) in [("Tenant", None), ("Landlord Lee", Some("lee@example.com"))] {
        let mut body = json!({"name": name, "role": "SIGNER"});
        if let Some(e) = email {
            body["email"] = json!(e);
        }
        let (s, r) = api
            .post(&format!("/api/v1/templates/{tid}/recipients"), body)
            .await;
        assert_eq!(s, 200, "{r}");
        rids.push(r["id"].as_i64().unwrap());
    }
    let field = |rid: i64, kind: &str, y: i64, meta: Value| {
        json!({"recipientId": rid, "type": kind, "pageNumber": 1, "pageX": 10, "pageY": y,
               "pageWidth": 30, "pageHeight": 6, "fieldMeta": meta})
    };
    api.add_template_fields(
        tid,
        json!([
            field(rids[0], "SIGNATURE", 70, json!({"type": "signature"})),
            field(rids[1], "SIGNATURE", 80, json!({"type": "signature"})),
            field(
                rids[0],
                "TEXT",
                20,
                json!({"type": "text", "label": "Flat"})
            ),
        ]),
    )
    .await;

    let (base, tpl) = (app.base.clone(), tid.to_string());
    let flag = tools::screenshots().join("bulk-waiting.flag");
    let _ = std::fs::remove_file(&flag);
    let browser = tokio::task::spawn_blocking(move || {
        let args = [base.as_str(), "ada@example.com", PASSWORD, tpl.as_str()];
        tools::summary(tools::browser_script("bulk_send.mjs", &args))
    });
    // Once the page has shown the hourly limit's wait (2 of 3 sent), the hour passes: the sent
    // rows' times move an hour back, and the worker's next round sends the third.
    let deadline = std::time::Instant::now() + Duration::from_secs(120);
    let moved = loop {
        if flag.exists() {
            break true;
        }
        if browser.is_finished() || std::time::Instant::now() > deadline {
            break false;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    if moved {
        let n = app
            .db_rw()
            .execute(
                "UPDATE bulk_send_rows SET done_at = done_at - 3600 WHERE status = 'SENT'",
                docket::params![],
            )
            .unwrap();
        assert_eq!(n, 2, "two rows went out before the hour's limit");
    }
    let summary = browser.await.unwrap();
    assert!(moved, "the page showed the wait");
    assert_eq!(
        summary["header"],
        "recipient_1_email,recipient_1_name,recipient_2_email,recipient_2_name,Flat"
    );

    // The run's three documents, sent to the rows' tenants and the template's landlord.
    let run = summary["run"].as_i64().unwrap();
    let (s, got) = api.get(&format!("/api/v1/bulk-sends/{run}")).await;
    assert_eq!(s, 200, "{got}");
    assert_eq!(got["status"], "DONE", "{got}");
    let sent: Vec<&Value> = got["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == "SENT")
        .collect();
    assert_eq!(sent.len(), 3, "{got}");
    for (row, (tenant, flat)) in sent.iter().zip([
        ("ann@example.com", "Flat 1"),
        ("bob@example.com", "Flat 2"),
        ("dee@example.com", "Flat 4"),
    ]) {
        let doc = api.document(row["documentId"].as_i64().unwrap()).await;
        assert_eq!(doc["status"], "PENDING", "{doc}");
        let emails: Vec<&str> = doc["recipients"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["email"].as_str().unwrap())
            .collect();
        assert_eq!(emails, [tenant, "lee@example.com"], "{doc}");
        let text = doc["fields"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["type"] == "TEXT")
            .unwrap();
        assert!(text.to_string().contains(flat), "{text}");
    }

    // Each tenant of a good row was e-mailed, the bad row's was not.
    let mailed = |to: &str| -> usize {
        docket_json(&d, &["mail", "list"], None)
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["to"] == to)
            .count()
    };
    eventually(Duration::from_secs(30), || async {
        let counts: Vec<usize> = ["ann@example.com", "bob@example.com", "dee@example.com"]
            .iter()
            .map(|t| mailed(t))
            .collect();
        (counts == [1, 1, 1])
            .then_some(())
            .ok_or(format!("mails to the tenants: {counts:?}"))
    })
    .await;
    assert_eq!(mailed("not-an-email"), 0);
    assert!(mailed("lee@example.com") >= 3);
    for shot in [
        "upload-desktop",
        "upload-phone",
        "refused-desktop",
        "refused-phone",
        "preview-desktop",
        "preview-phone",
        "run-desktop",
        "run-phone",
        "run-waiting-desktop",
        "run-waiting-phone",
        "list-desktop",
        "list-phone",
    ] {
        let path = tools::screenshots().join(format!("bulk-{shot}.png"));
        assert!(path.exists(), "{} kept", path.display());
    }
    app.stop().await;
}
