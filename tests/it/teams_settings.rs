//! A team's settings through the real binary: `docket team settings` sets the team's defaults
//! and sender name by the document meta's rules (bad values refused, naming each field), a
//! document or template made with a team token takes the defaults for what its request leaves
//! out while an explicit value wins and a personal document keeps the product's defaults, and
//! the signing request of a team document (queued by the server, filed in the outbox as no
//! SMTP server is set) and its signing page name the member on behalf of the team.

use std::path::Path;
use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};

use crate::support::api::{Api, add_user, detail_paths, fixture};
use crate::support::wait::wait_for;
use crate::support::{TestApp, docket, docket_json};

fn key(app: &TestApp, email: &str, team: Option<&str>) -> Api {
    let mut args = vec!["apikey", "create", "--user", email];
    args.extend(team.map(|t| ["--team", t]).into_iter().flatten());
    let made = docket_json(&app.data_dir(), &args, None);
    app.api(made["key"].as_str().unwrap())
}

/// `docket team settings sales ARGS --json`.
fn settings(d: &Path, args: &[&str]) -> Value {
    let mut all = vec!["team", "settings", "sales"];
    all.extend_from_slice(args);
    docket_json(d, &all, None)
}

/// Fails unless `docket team settings sales ARGS` exits 2 with one line naming `says`.
fn refused(d: &Path, args: &[&str], says: &[&str]) {
    let mut all = vec!["team", "settings", "sales"];
    all.extend_from_slice(args);
    let out = docket(d, &all, None);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    for s in says {
        assert!(err.contains(s), "{args:?}: {err}");
    }
}

/// The four meta values a team gives defaults for, as a document shows them (a template: in
/// `templateMeta`).
fn defaults_of(v: &Value) -> [Value; 4] {
    let m = v.get("templateMeta").unwrap_or(&v["meta"]);
    ["timezone", "dateFormat", "signingOrder", "redirectUrl"].map(|k| m[k].clone())
}

fn product_defaults() -> [Value; 4] {
    [
        json!("Etc/UTC"),
        json!("yyyy-MM-dd hh:mm a"),
        json!("PARALLEL"),
        Value::Null,
    ]
}

fn one_signer(meta: Option<Value>) -> Value {
    let mut body = json!({
        "title": "Team NDA",
        "recipients": [{"name": "Ann", "email": "ann@example.com", "role": "SIGNER"}],
    });
    if let Some(meta) = meta {
        body["meta"] = meta;
    }
    body
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_teams_defaults_fill_its_new_documents_and_its_name_is_the_sender() {
    let app = TestApp::spawn_with(&["--tls", "off"]).await;
    let d = app.data_dir();
    add_user(&d, "ada@example.com", &["--name", "Ada"]);
    add_user(&d, "bob@example.com", &["--name", "Bob"]);
    for args in [
        &[
            "team",
            "create",
            "Sales",
            "--slug",
            "sales",
            "--admin",
            "ada@example.com",
        ][..],
        &["team", "add", "sales", "bob@example.com"],
    ] {
        docket_json(&d, args, None);
    }

    // Nothing set: the product's defaults, the team's name as the sender.
    let fresh = settings(&d, &[]);
    assert_eq!(fresh["name"], "Sales");
    for k in [
        "sender_name",
        "signing_order",
        "date_format",
        "time_zone",
        "redirect_url",
    ] {
        assert_eq!(fresh[k], Value::Null, "{k}: {fresh}");
    }

    // Bad values change nothing, and the refusal names each one.
    refused(
        &d,
        &[
            "--time-zone",
            "Mars/Base",
            "--signing-order",
            "RANDOM",
            "--date-format",
            "whatever",
        ],
        &["timeZone:", "signingOrder:", "dateFormat:"],
    );
    refused(
        &d,
        &["--redirect-url", "javascript:alert(1)"],
        &["redirectUrl:"],
    );
    refused(&d, &["--name", " "], &["name:"]);
    refused(
        &d,
        &["--sender-name", "X", "--clear", "sender-name"],
        &["--sender-name and --clear sender-name"],
    );
    assert_eq!(settings(&d, &[]), fresh);

    let set = settings(
        &d,
        &[
            "--sender-name",
            "Acme Sales",
            "--signing-order",
            "sequential",
            "--date-format",
            "dd/MM/yyyy",
            "--time-zone",
            "Europe/Paris",
            "--redirect-url",
            "HTTPS://Done.Example/thanks",
        ],
    );
    assert_eq!(set["sender_name"], "Acme Sales");
    assert_eq!(set["signing_order"], "SEQUENTIAL");
    assert_eq!(set["redirect_url"], "https://done.example/thanks");
    assert_eq!(settings(&d, &[]), set, "read back as set");
    let team_defaults = [
        json!("Europe/Paris"),
        json!("dd/MM/yyyy"),
        json!("SEQUENTIAL"),
        json!("https://done.example/thanks"),
    ];

    let member = key(&app, "bob@example.com", Some("sales"));
    let personal = key(&app, "ada@example.com", None);

    // A team document without meta takes every default, through the create and the upload.
    let made = member.create_document(one_signer(None)).await;
    let doc = made.document_id();
    assert_eq!(defaults_of(&member.document(doc).await), team_defaults);
    let resp = member
        .request(Method::POST, "/api/v1/documents/upload?title=Uploaded")
        .header("content-type", "application/pdf")
        .body(fixture("a4-1p.pdf"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let (_, list) = member.get("/api/v1/documents").await;
    let up = list["documents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["title"] == "Uploaded")
        .unwrap_or_else(|| panic!("{list}"))["id"]
        .as_i64()
        .unwrap();
    assert_eq!(defaults_of(&member.document(up).await), team_defaults);

    // What the request chose wins; what it left out (or sent as null) is the team's.
    let chosen = json!({"timezone": "America/New_York", "signingOrder": "PARALLEL",
                        "dateFormat": null});
    let own = member
        .create_document(one_signer(Some(chosen)))
        .await
        .document_id();
    assert_eq!(
        defaults_of(&member.document(own).await),
        [
            json!("America/New_York"),
            json!("dd/MM/yyyy"),
            json!("PARALLEL"),
            json!("https://done.example/thanks"),
        ]
    );

    // A personal document keeps the product's defaults.
    let mine = personal
        .create_document(one_signer(None))
        .await
        .document_id();
    assert_eq!(
        defaults_of(&personal.document(mine).await),
        product_defaults()
    );

    // A team template too; and a bad value is still refused field by field.
    let t = member
        .create_template(json!({"title": "Team form", "recipients": []}))
        .await
        .template_id();
    let (_, tv) = member.get(&format!("/api/v1/templates/{t}")).await;
    assert_eq!(defaults_of(&tv), team_defaults, "{tv}");
    let bad = one_signer(Some(
        json!({"timezone": "Mars/Base", "redirectUrl": "ftp://x"}),
    ));
    let (s, err) = member.post("/api/v1/documents", bad).await;
    assert_eq!(s, 400, "{err}");
    assert_eq!(detail_paths(&err), ["meta.timezone", "meta.redirectUrl"]);

    // The signing request names the member on behalf of the team's sender name.
    member
        .upload_ok(made.upload_url(), fixture("a4-1p.pdf"))
        .await;
    let rid = made.recipient_id(0);
    member
        .add_fields(
            doc,
            json!([{"recipientId": rid, "type": "SIGNATURE", "pageNumber": 1, "pageX": 10,
                    "pageY": 80, "pageWidth": 30, "pageHeight": 8}]),
        )
        .await;
    let (s, sent) = member.send_with(doc, json!({"sendEmail": true})).await;
    assert_eq!(s, 200, "{sent}");
    let request = signing_request_to(&d, "ann@example.com").await;
    assert_eq!(
        request["subject"], "Bob on behalf of Acme Sales invited you to sign \"Team NDA\"",
        "{request}"
    );
    assert!(
        request["text"]
            .as_str()
            .unwrap()
            .contains("Bob on behalf of Acme Sales has invited you to sign the document"),
        "{request}"
    );
    let (s, state) = app.signer(&made.token(0)).state().await;
    assert_eq!(s, 200, "{state}");
    assert_eq!(
        state["document"]["senderName"],
        "Bob on behalf of Acme Sales"
    );
    assert_eq!(state["document"]["senderEmail"], "bob@example.com");

    // Cleared, the sender name is the team's name again; renamed, the new name.
    let cleared = settings(&d, &["--clear", "sender-name", "--name", "Sales EU"]);
    assert_eq!(cleared["sender_name"], Value::Null);
    assert_eq!(cleared["time_zone"], "Europe/Paris", "the rest stays");
    let (_, state) = app.signer(&made.token(0)).state().await;
    assert_eq!(state["document"]["senderName"], "Bob on behalf of Sales EU");
}

/// The signing request filed for `to`, as `docket mail show` shows it (the worker files
/// it in the outbox shortly after the send).
async fn signing_request_to(d: &Path, to: &str) -> Value {
    let id = wait_for(Duration::from_secs(30), || {
        let list = docket_json(d, &["mail", "list"], None);
        list.as_array()
            .unwrap()
            .iter()
            .find(|m| m["to"] == to && m["kind"] == "SIGNING_REQUEST")
            .map(|m| m["id"].to_string())
            .ok_or_else(|| format!("no signing request to {to}: {list}"))
    })
    .await;
    docket_json(d, &["mail", "show", &id], None)
}
