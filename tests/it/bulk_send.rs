//! Bulk send from a template through the API (issue 56, part 3): the CSV header for a
//! template, the preview that names every bad row's problem by its column, a run that sends one
//! document per good row (prefilled, sent, mailed) and reports the rest, the bounds (rows per
//! file, documents per hour, the file's size), other accounts kept out, and a run that the
//! binary's crash interrupts going on after a restart without sending any row twice.

use std::collections::HashMap;
use std::time::Duration;

use reqwest::Method as M;
use serde_json::{Value, json};

use crate::support::api::{Api, add_user, create_api_key, fixture};
use crate::support::server::BinServer;
use crate::support::{TestApp, docket_json};

/// A template "Lease" from the 3-page PDF: the tenant (no address yet, signs first) with a
/// signature, a text field labelled "Flat" and a number labelled "Rent"; the landlord
/// (landlord@example.com, signs second) with a signature. Answers its id.
pub(crate) async fn lease(api: &Api) -> i64 {
    let (s, up) =
        crate::template_editing::upload(api, "Lease", fixture("mixed-sizes-3p.pdf")).await;
    assert_eq!(s, 200, "{up}");
    let id = up["templateId"].as_i64().unwrap();
    let mut rids = Vec::new();
    for body in [
        json!({"name": "Tenant", "role": "SIGNER", "signingOrder": 1}),
        json!({"name": "Landlord", "email": "landlord@example.com", "role": "SIGNER", "signingOrder": 2}),
    ] {
        let (s, r) = api
            .post(&format!("/api/v1/templates/{id}/recipients"), body)
            .await;
        assert_eq!(s, 200, "{r}");
        rids.push(r["id"].as_i64().unwrap());
    }
    let field = |rid: i64, kind: &str, y: i64, label: Option<&str>| {
        let mut meta = json!({"type": kind.to_lowercase()});
        if let Some(l) = label {
            meta["label"] = json!(l);
        }
        json!({"recipientId": rid, "type": kind, "pageNumber": 1, "pageX": 10, "pageY": y,
               "pageWidth": 30, "pageHeight": 6, "fieldMeta": meta})
    };
    api.add_template_fields(
        id,
        json!([
            field(rids[0], "SIGNATURE", 70, None),
            field(rids[0], "TEXT", 20, Some("Flat")),
            field(rids[0], "NUMBER", 30, Some("Rent")),
            field(rids[1], "SIGNATURE", 80, None)
        ]),
    )
    .await;
    id
}

/// Posts `csv` as `text/csv` to `path`: status and body (JSON, or the text).
pub(crate) async fn post_csv(api: &Api, path: &str, csv: &str) -> (u16, Value) {
    let resp = api
        .request(M::POST, path)
        .header("content-type", "text/csv")
        .body(csv.to_string())
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

/// `GET path` as text: status, content type and body.
async fn get_text(api: &Api, path: &str) -> (u16, String, String) {
    let resp = api.request(M::GET, path).send().await.unwrap();
    let status = resp.status().as_u16();
    let ct = resp
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    (status, ct, resp.text().await.unwrap())
}

/// Polls run `id` until `done` holds for it (30 s at most).
pub(crate) async fn wait_run(
    api: &Api,
    id: i64,
    what: &str,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let (s, v) = api.get(&format!("/api/v1/bulk-sends/{id}")).await;
        assert_eq!(s, 200, "{v}");
        if done(&v) {
            return v;
        }
        assert!(std::time::Instant::now() < deadline, "{what}: {v}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Each row's (status, problems as "column: message") of a preview.
fn problems(preview: &Value) -> Vec<(u64, bool, Vec<String>)> {
    preview["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let p = r["problems"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| {
                    format!(
                        "{}: {}",
                        p["column"].as_str().unwrap(),
                        p["message"].as_str().unwrap()
                    )
                })
                .collect();
            (r["line"].as_u64().unwrap(), r["ok"].as_bool().unwrap(), p)
        })
        .collect()
}

const FILE: &str = "recipient_1_email,recipient_1_name,title,FLAT,Rent,Notes\n\
    ann@example.com,Ann Archer,Lease: Ann,Flat 1,950,first\n\
    bo@example.com,Bo Brown,,Flat 2,1000.50,\n\
    not-an-address,Cy,,Flat 3,900,\n\
    \n\
    di@example.com,Di,,Flat 4,a lot,\n\
    ann@example.com,Ann Archer,Lease: Ann,Flat 1,950,again\n\
    landlord@example.com,Self,,Flat 5,1,\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_is_previewed_then_sent_one_document_per_good_row_and_reported() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let id = lease(&api).await;
    let base = format!("/api/v1/templates/{id}/bulk-send");

    // The header of a file for this template.
    let (s, ct, text) = get_text(&api, &format!("{base}/csv")).await;
    assert_eq!((s, ct.as_str()), (200, "text/csv; charset=utf-8"));
    assert_eq!(
        text,
        "recipient_1_email,recipient_1_name,recipient_2_email,recipient_2_name,Flat,Rent\n"
    );

    // The preview: every bad row with its problem by column; nothing sent.
    let (s, p) = post_csv(&api, &format!("{base}/preview"), FILE).await;
    assert_eq!(s, 200, "{p}");
    assert_eq!(
        (p["valid"].as_u64(), p["invalid"].as_u64()),
        (Some(2), Some(4)),
        "{p}"
    );
    let kinds: Vec<&str> = p["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "recipient email",
            "recipient name",
            "title",
            "field",
            "field",
            "ignored"
        ]
    );
    let rows = problems(&p);
    assert_eq!(rows[0], (2, true, vec![]));
    assert_eq!(rows[1], (3, true, vec![]));
    assert_eq!(rows[2].0, 4);
    assert!(
        rows[2].2[0]
            .starts_with("recipient_1_email: \"not-an-address\" is not a valid e-mail address"),
        "{rows:?}"
    );
    // Line 5 is blank: passed over; the lines keep the file's numbers.
    assert_eq!(rows[3].0, 6);
    assert_eq!(rows[3].2.len(), 1, "{rows:?}");
    assert!(rows[3].2[0].starts_with("Rent: "), "{rows:?}");
    assert_eq!(
        rows[4],
        (
            7,
            false,
            vec!["row: repeats line 2: the same document twice".into()]
        )
    );
    assert_eq!(
        rows[5],
        (
            8,
            false,
            vec!["recipient_2_email: landlord@example.com is also recipient 1's address".into()]
        )
    );
    assert_eq!(
        p["rows"][1]["recipients"][1]["email"],
        "landlord@example.com"
    );
    assert_eq!(p["rows"][1]["title"], "Lease");
    assert_eq!(api.get("/api/v1/documents").await.1["documents"], json!([]));

    // Started: every row stored, the good ones sent by the worker.
    let (s, run) = post_csv(
        &api,
        &format!("{base}?fileName=C:%5Cdata%5Cleases.csv"),
        FILE,
    )
    .await;
    assert_eq!(s, 201, "{run}");
    assert_eq!(run["fileName"], "leases.csv");
    assert_eq!(run["counts"]["total"], 6);
    assert_eq!(run["counts"]["skipped"], 4);
    let rid = run["id"].as_i64().unwrap();
    let done = wait_run(&api, rid, "the run ends", |v| v["status"] == "DONE").await;
    assert_eq!(
        (
            done["counts"]["sent"].as_u64(),
            done["counts"]["pending"].as_u64()
        ),
        (Some(2), Some(0)),
        "{done}"
    );
    assert!(done["finishedAt"].is_i64());
    let docs: HashMap<u64, i64> = done["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["status"] == "SENT")
        .map(|r| {
            (
                r["line"].as_u64().unwrap(),
                r["documentId"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(docs.len(), 2);

    // Each document: the row's title and recipients, the values filled, sent.
    let ann = api.document(docs[&2]).await;
    assert_eq!(
        (ann["title"].as_str(), ann["status"].as_str()),
        (Some("Lease: Ann"), Some("PENDING"))
    );
    let who: Vec<(&str, &str)> = ann["recipients"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["name"].as_str().unwrap(), r["email"].as_str().unwrap()))
        .collect();
    assert_eq!(
        who,
        [
            ("Ann Archer", "ann@example.com"),
            ("Landlord", "landlord@example.com")
        ]
    );
    let texts: Vec<&str> = ann["fields"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["customText"].as_str().filter(|t| !t.is_empty()))
        .collect();
    assert_eq!(texts, ["Flat 1", "950"], "{ann}");
    let bo = api.document(docs[&3]).await;
    assert_eq!(bo["title"], "Lease");
    // The signing requests: to each signer, once.
    let mails = crate::direct_links::mails(&app);
    let requests: Vec<&str> = mails
        .iter()
        .filter(|(k, _)| k == "SIGNING_REQUEST")
        .map(|(_, to)| to.as_str())
        .collect();
    // (The template's signing order is parallel: both signers of each document at once.)
    assert_eq!(
        requests,
        [
            "ann@example.com",
            "landlord@example.com",
            "bo@example.com",
            "landlord@example.com"
        ]
    );

    // The report: every line of the file, with what became of it.
    let (s, ct, report) = get_text(&api, &format!("/api/v1/bulk-sends/{rid}/report")).await;
    assert_eq!((s, ct.as_str()), (200, "text/csv; charset=utf-8"));
    let lines: Vec<&str> = report.lines().collect();
    assert_eq!(
        lines[0],
        "line,status,document_id,document_url,recipient_1_email,recipient_2_email,reason"
    );
    assert_eq!(lines.len(), 7, "{report}");
    assert!(
        lines[1].starts_with(&format!("2,SENT,{},", docs[&2])),
        "{report}"
    );
    assert!(
        lines[3].starts_with("4,SKIPPED,,,not-an-address,landlord@example.com,"),
        "{report}"
    );
    assert!(lines[5].contains("repeats line 2"), "{report}");

    // Listed; a finished run cannot be cancelled.
    let (s, list) = api.get("/api/v1/bulk-sends").await;
    assert_eq!(s, 200, "{list}");
    assert_eq!(list["bulkSends"][0]["id"], rid);
    assert_eq!(list["totalPages"], 1);
    let (s, v) = api
        .post(&format!("/api/v1/bulk-sends/{rid}/cancel"), json!({}))
        .await;
    assert_eq!((s, v["code"].as_str()), (400, Some("invalid_state")), "{v}");

    // Another account reaches neither the template nor the run.
    let other = app.user_with_key("other@example.com", "standard");
    assert_eq!(
        post_csv(&other, &format!("{base}/preview"), FILE).await.0,
        404
    );
    assert_eq!(post_csv(&other, &base, FILE).await.0, 404);
    assert_eq!(get_text(&other, &format!("{base}/csv")).await.0, 404);
    for path in [
        format!("/api/v1/bulk-sends/{rid}"),
        format!("/api/v1/bulk-sends/{rid}/report"),
    ] {
        assert_eq!(get_text(&other, &path).await.0, 404, "{path}");
    }
    let (s, _) = other
        .post(&format!("/api/v1/bulk-sends/{rid}/cancel"), json!({}))
        .await;
    assert_eq!(s, 404);
    assert_eq!(
        other.get("/api/v1/bulk-sends").await.1["bulkSends"],
        json!([])
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn files_that_cannot_be_used_are_refused_whole_and_nothing_is_stored() {
    let app = TestApp::spawn_with(&["--tls", "off", "--bulk-send-max-rows", "3"]).await;
    let api = app.user_with_key("owner@example.com", "standard");
    let id = lease(&api).await;
    let preview = format!("/api/v1/templates/{id}/bulk-send/preview");
    let start = format!("/api/v1/templates/{id}/bulk-send");
    let refused = |v: &Value| -> String {
        assert_eq!(v["code"], "invalid_csv", "{v}");
        v["message"].as_str().unwrap().to_string()
    };
    for (csv, says) in [
        ("", "the file is empty"),
        ("recipient_1_email\n", "no rows"),
        ("recipient_1_name\nAnn\n", "no recipient_1_email column"),
        (
            "recipient_1_email,recipient_3_email\na@x.org,b@x.org\n",
            "recipient_3_email: the template has 2 recipients",
        ),
        (
            "recipient_1_email,Recipient_1_Email\na@x.org,b@x.org\n",
            "appears twice",
        ),
        (
            "recipient_1_email\na@x.org\nb@x.org\nc@x.org\nd@x.org\n",
            "the file has 4 rows; a bulk send takes at most 3",
        ),
    ] {
        let (s, v) = post_csv(&api, &preview, csv).await;
        assert_eq!(s, 400, "{csv:?}: {v}");
        let m = refused(&v);
        assert!(m.contains(says), "{csv:?}: {m}");
    }
    // Not one good row: nothing starts.
    let (s, v) = post_csv(&api, &start, "recipient_1_email\nnope\n").await;
    assert_eq!(s, 400, "{v}");
    assert!(
        refused(&v).contains("no row of the file can be sent"),
        "{v}"
    );
    assert_eq!(v["details"][0]["path"], "line 2.recipient_1_email", "{v}");
    // The file's type.
    let resp = api
        .request(M::POST, &preview)
        .header("content-type", "application/json")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 415);
    let (s, v) = api
        .post(&format!("{start}?sendEmail=maybe"), json!({}))
        .await;
    assert_eq!(s, 400, "{v}");

    // A template that no row can be sent from: the signer has no signature field.
    let (s, up) =
        crate::template_editing::upload(&api, "Bare", fixture("mixed-sizes-3p.pdf")).await;
    assert_eq!(s, 200, "{up}");
    let bare = up["templateId"].as_i64().unwrap();
    let (s, r) = api
        .post(
            &format!("/api/v1/templates/{bare}/recipients"),
            json!({"name": "X", "role": "SIGNER"}),
        )
        .await;
    assert_eq!(s, 200, "{r}");
    let (s, v) = post_csv(
        &api,
        &format!("/api/v1/templates/{bare}/bulk-send/preview"),
        "recipient_1_email\na@example.org\n",
    )
    .await;
    assert_eq!(
        (s, v["code"].as_str()),
        (400, Some("invalid_template")),
        "{v}"
    );
    assert!(v["message"].as_str().unwrap().contains("SIGNATURE"), "{v}");
    let count: i64 = app
        .db()
        .query_row("SELECT count(*) FROM bulk_sends", [], |r| r.get(0))
        .unwrap();
    let docs: i64 = app
        .db()
        .query_row("SELECT count(*) FROM documents", [], |r| r.get(0))
        .unwrap();
    assert_eq!((count, docs), (0, 0));
    // Past the file's size (last: the server closes the connection it answers this on).
    let big = format!("recipient_1_email\n{}", "a@example.org\n".repeat(90_000));
    let (s, v) = post_csv(&api, &preview, &big).await;
    assert_eq!(
        (s, v["code"].as_str()),
        (413, Some("payload_too_large")),
        "{v}"
    );
    app.stop().await;
}

/// `n` rows for distinct tenants `t{i}@example.com`.
fn tenants(n: usize) -> String {
    let mut csv = String::from("recipient_1_email,recipient_1_name,Flat\n");
    for i in 0..n {
        csv.push_str(&format!("t{i}@example.com,Tenant {i},Flat {i}\n"));
    }
    csv
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_workspace_sends_at_most_its_hourly_bound_and_goes_on_the_next_hour() {
    let app = TestApp::spawn_with(&["--tls", "off", "--bulk-send-per-hour", "3"]).await;
    let api = app.user_with_key("owner@example.com", "standard");
    let id = lease(&api).await;
    let (s, run) = post_csv(
        &api,
        &format!("/api/v1/templates/{id}/bulk-send"),
        &tenants(5),
    )
    .await;
    assert_eq!(s, 201, "{run}");
    let rid = run["id"].as_i64().unwrap();
    let held = wait_run(&api, rid, "three sent, then held", |v| {
        v["counts"]["sent"] == 3 && v["waitingUntil"].is_i64()
    })
    .await;
    assert_eq!(
        (held["status"].as_str(), held["counts"]["pending"].as_u64()),
        (Some("RUNNING"), Some(2))
    );
    // A second run of the same workspace waits too.
    let (s, second) = post_csv(
        &api,
        &format!("/api/v1/templates/{id}/bulk-send"),
        &tenants(1),
    )
    .await;
    assert_eq!(s, 201, "{second}");
    let sid = second["id"].as_i64().unwrap();
    let v = wait_run(&api, sid, "the second run is held", |v| {
        v["waitingUntil"].is_i64()
    })
    .await;
    assert_eq!(v["counts"]["sent"], 0);
    // An hour later (the sends' times moved back), the rest goes.
    app.db_rw()
        .execute(
            "UPDATE bulk_send_rows SET done_at = done_at - 3600 WHERE status = 'SENT'",
            docket::params![],
        )
        .unwrap();
    let v = wait_run(&api, rid, "the rest sent", |v| v["status"] == "DONE").await;
    assert_eq!(v["counts"]["sent"], 5);
    let v = wait_run(&api, sid, "the second run sent too", |v| {
        v["status"] == "DONE"
    })
    .await;
    assert_eq!(v["counts"]["sent"], 1);
    // Cancelling a run that waits stops its rows.
    let (s, _) = post_csv(
        &api,
        &format!("/api/v1/templates/{id}/bulk-send"),
        &tenants(2),
    )
    .await;
    assert_eq!(s, 201);
    let (_, list) = api.get("/api/v1/bulk-sends").await;
    let third = list["bulkSends"][0]["id"].as_i64().unwrap();
    let (s, v) = api
        .post(&format!("/api/v1/bulk-sends/{third}/cancel"), json!({}))
        .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(
        (v["status"].as_str(), v["counts"]["sent"].as_u64()),
        (Some("CANCELLED"), Some(0)),
        "{v}"
    );
    assert_eq!(v["counts"]["cancelled"], 2);
    app.stop().await;
}

/// Starts a bulk send of `csv` from template `id`: the run's id.
async fn start(api: &Api, id: i64, csv: &str) -> i64 {
    let (s, run) = post_csv(api, &format!("/api/v1/templates/{id}/bulk-send"), csv).await;
    assert_eq!(s, 201, "{run}");
    run["id"].as_i64().unwrap()
}

/// Every one of the `rows` of a finished run was sent, each with a document of its own.
fn each_row_once(done: &Value, rows: usize) {
    assert_eq!(done["counts"]["sent"].as_u64(), Some(rows as u64), "{done}");
    let docs: std::collections::HashSet<i64> = done["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["documentId"].as_i64().unwrap())
        .collect();
    assert_eq!(docs.len(), rows);
}

/// The real binary, killed (SIGKILL) while a run is sending: the next process sends the rest,
/// and every row has exactly one document and its tenant exactly one signing request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_goes_on_after_a_crash_without_sending_a_row_twice() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    add_user(&data, "o@example.com", &["--name", "O"]);
    let key = create_api_key(&data, "o@example.com")["key"]
        .as_str()
        .unwrap()
        .to_string();
    let args = ["--tls", "off"];
    let server = BinServer::start_in(&data, &args);
    let http = reqwest::Client::new();
    let api = Api::new(http.clone(), &format!("http://{}", server.addr), &key);
    let id = lease(&api).await;
    const ROWS: usize = 120;
    let rid = start(&api, id, &tenants(ROWS)).await;
    let v = wait_run(&api, rid, "some rows sent", |v| {
        v["counts"]["sent"].as_u64().unwrap() >= 3
    })
    .await;
    server.stop_with(nix::sys::signal::Signal::SIGKILL);
    let sent_before = v["counts"]["sent"].as_u64().unwrap();

    let server = BinServer::start_in(&data, &args);
    let api = Api::new(http, &format!("http://{}", server.addr), &key);
    let done = wait_run(&api, rid, "the run ends after the restart", |v| {
        v["status"] == "DONE"
    })
    .await;
    each_row_once(&done, ROWS);
    let (s, list) = api.get("/api/v1/documents?perPage=100&page=1").await;
    assert_eq!(s, 200);
    assert_eq!(list["totalPages"], 2, "{ROWS} documents, no more");
    let (_, page2) = api.get("/api/v1/documents?perPage=100&page=2").await;
    assert_eq!(page2["documents"].as_array().unwrap().len(), ROWS - 100);
    server.stop_with(nix::sys::signal::Signal::SIGTERM);
    let queued = docket_json(&data, &["mail", "list", "--limit", "1000"], None);
    let mut per_address: HashMap<String, usize> = HashMap::new();
    for m in queued.as_array().unwrap() {
        if m["kind"] == "SIGNING_REQUEST" && m["to"] != "landlord@example.com" {
            *per_address
                .entry(m["to"].as_str().unwrap().to_string())
                .or_default() += 1;
        }
    }
    assert_eq!(
        per_address.len(),
        ROWS,
        "one request to each tenant ({sent_before} before the crash)"
    );
    assert!(per_address.values().all(|n| *n == 1), "{per_address:?}");
}

/// Three nodes on one PostgreSQL database, each looking for runs every second, send one run
/// together: each row once, each tenant asked once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_several_nodes_each_row_is_sent_once() {
    if !crate::support::on_postgres() {
        eprintln!("skipped: several nodes need PostgreSQL (DOCKET_TEST_POSTGRES)");
        return;
    }
    let first = tempfile::tempdir().unwrap();
    let url = crate::support::postgres_for(&first.path().join("data")).expect("on PostgreSQL");
    let args = [
        "--tls",
        "off",
        "--database-url",
        url.as_str(),
        "--bulk-send-scan-secs",
        "1",
    ];
    let mut nodes = vec![TestApp::spawn_in(first, &args).await];
    for _ in 0..2 {
        nodes.push(TestApp::spawn_with(&args).await);
    }
    let api = nodes[0].user_with_key("owner@example.com", "standard");
    let id = lease(&api).await;
    const ROWS: usize = 90;
    let rid = start(&api, id, &tenants(ROWS)).await;
    let done = wait_run(&api, rid, "the run ends", |v| v["status"] == "DONE").await;
    each_row_once(&done, ROWS);
    let mails = crate::direct_links::mails(&nodes[0]);
    let mut per_address: HashMap<&str, usize> = HashMap::new();
    for (kind, to) in &mails {
        if kind == "SIGNING_REQUEST" && to != "landlord@example.com" {
            *per_address.entry(to.as_str()).or_default() += 1;
        }
    }
    assert_eq!(per_address.len(), ROWS);
    assert!(per_address.values().all(|n| *n == 1), "{per_address:?}");
    let count: i64 = nodes[0]
        .db()
        .query_row("SELECT count(*) FROM documents", [], |r| r.get(0))
        .unwrap();
    assert_eq!(count, ROWS as i64);
    for n in nodes {
        n.stop().await;
    }
}

/// Rows that can no longer be sent when their turn comes fail with the reason, and nothing of
/// their documents stays: a signer's signature field removed from the template meanwhile (the
/// send's own check refuses), then the template deleted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rows_the_template_no_longer_allows_fail_with_the_reason_and_leave_nothing() {
    let app = TestApp::spawn_with(&["--tls", "off", "--bulk-send-per-hour", "1"]).await;
    let api = app.user_with_key("owner@example.com", "standard");
    let id = lease(&api).await;
    let rid = start(&api, id, &tenants(3)).await;
    wait_run(&api, rid, "one sent, then held", |v| {
        v["counts"]["sent"] == 1 && v["waitingUntil"].is_i64()
    })
    .await;
    // The landlord's signature field goes; an hour passes.
    let (s, t) = api.get(&format!("/api/v1/templates/{id}")).await;
    assert_eq!(s, 200, "{t}");
    let landlord_signature = t["Field"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["type"] == "SIGNATURE")
        .map(|f| f["id"].as_i64().unwrap())
        .max()
        .unwrap();
    let (s, v) = api
        .delete(&format!(
            "/api/v1/templates/{id}/fields/{landlord_signature}"
        ))
        .await;
    assert_eq!(s, 200, "{v}");
    let an_hour_ago = "UPDATE bulk_send_rows SET done_at = done_at - 3600 WHERE status = 'SENT'";
    app.db_rw().execute(an_hour_ago, docket::params![]).unwrap();
    let done = wait_run(&api, rid, "the rest failed", |v| v["status"] == "DONE").await;
    assert_eq!(
        (
            done["counts"]["sent"].as_u64(),
            done["counts"]["failed"].as_u64()
        ),
        (Some(1), Some(2)),
        "{done}"
    );
    for row in &done["rows"].as_array().unwrap()[1..] {
        assert_eq!(row["status"], "FAILED");
        assert!(row["documentId"].is_null());
        assert!(
            row["reason"].as_str().unwrap().contains("SIGNATURE"),
            "{row}"
        );
    }
    let docs = |app: &TestApp| -> i64 {
        app.db()
            .query_row("SELECT count(*) FROM documents", [], |r| r.get(0))
            .unwrap()
    };
    assert_eq!(docs(&app), 1, "the refused rows left no document");

    // A run whose template is deleted while it waits: its rows fail, saying so.
    let other = lease(&api).await;
    let second = start(&api, other, &tenants(2)).await;
    wait_run(&api, second, "one sent, then held", |v| {
        v["counts"]["sent"] == 1 && v["waitingUntil"].is_i64()
    })
    .await;
    let (s, v) = api.delete(&format!("/api/v1/templates/{other}")).await;
    assert_eq!(s, 200, "{v}");
    app.db_rw().execute(an_hour_ago, docket::params![]).unwrap();
    let done = wait_run(&api, second, "failed", |v| v["status"] == "DONE").await;
    assert_eq!(done["rows"][1]["status"], "FAILED", "{done}");
    assert_eq!(done["rows"][1]["reason"], "the template was deleted");
    assert_eq!(done["templateId"], Value::Null);
    assert_eq!(docs(&app), 2);
    app.stop().await;
}
