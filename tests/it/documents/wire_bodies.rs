//! The answers to malformed document and template bodies, member by member: the path and the
//! message of every problem, in order. Pinned before these bodies moved to the HTTP layer
//! (`http::api::wire::documents`, `wire::templates`), so that the move changes none of them.

use serde_json::{Value, json};

use crate::support::TestApp;
use crate::support::api::two_recipients;

const ACCESS: &str = "must be one of ACCOUNT, TWO_FACTOR_AUTH, a list of them, or null";
const ACTION: &str =
    "must be one of ACCOUNT, PASSKEY, TWO_FACTOR_AUTH, PASSWORD, a list of them, or null";
const ABSOLUTE: &str =
    "must be an absolute http or https URL (http://host/... or https://host/...)";

/// A 400's problems as `path: message`.
fn problems(status: u16, v: &Value) -> Vec<String> {
    assert_eq!(status, 400, "{v}");
    v["details"]
        .as_array()
        .expect("details")
        .iter()
        .map(|d| {
            format!(
                "{}: {}",
                d["path"].as_str().unwrap(),
                d["message"].as_str().unwrap()
            )
        })
        .collect()
}

/// `got` equals `want`, where a wanted line ending in `...` need only begin `got`'s.
fn same(got: &[String], want: &[&str]) {
    assert_eq!(got.len(), want.len(), "{got:#?}");
    for (g, w) in got.iter().zip(want) {
        match w.strip_suffix("...") {
            Some(start) => assert!(g.starts_with(start), "{g} / {w}"),
            None => assert_eq!(g, w),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_problem_of_a_new_document_is_named_with_its_message() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let body = json!({
        "title": "", "externalId": 5,
        "recipients": [
            {"email": "nope", "name": 3, "role": "BOSS", "signingOrder": 10001,
             "authOptions": {"accessAuth": "PASSKEY", "actionAuth": ["EXPLICIT_NONE", "ACCOUNT"]}},
            {"email": "A@x.org"}, {"email": "a@x.org"}, 7],
        "meta": {"subject": 1, "timezone": "Mars/Base", "dateFormat": "x",
                 "redirectUrl": "https:evil.example", "signingOrder": "R",
                 "distributionMethod": "FAX", "emailSettings": {"documentPending": "no"}},
        "attachments": [{"label": " ", "data": "ftp://x.example/", "type": "file"}, 1],
        "authOptions": {"globalAccessAuth": "SMS", "globalActionAuth": ["PASSKEY", "EXPLICIT_NONE"]},
        "formValues": {"a": [1]}
    });
    let (s, v) = api.post("/api/v1/documents", body).await;
    let access = format!("recipients[0].authOptions.accessAuth: {ACCESS}");
    let redirect = format!("meta.redirectUrl: {ABSOLUTE}");
    let data = format!("attachments[0].data: {ABSOLUTE}");
    let global_access = format!("authOptions.globalAccessAuth: {ACCESS}");
    let global_action = format!("authOptions.globalActionAuth: {ACTION}");
    same(
        &problems(s, &v),
        &[
            "title: 1 to 255 characters",
            "externalId: must be a string",
            "recipients[0].email: \"nope\" is not a valid e-mail address (no @)",
            "recipients[0].name: must be a string",
            "recipients[0].role: must be SIGNER, APPROVER, VIEWER, CC or ASSISTANT",
            "recipients[0].signingOrder: must be a whole number from 0 to 10000",
            &access,
            "recipients[0].authOptions.actionAuth: EXPLICIT_NONE cannot be combined with other methods",
            "recipients[2].email: the same e-mail appears twice",
            "recipients[3]: must be an object",
            "meta.subject: must be a string",
            "meta.timezone: \"Mars/Base\" is not an IANA time zone name such as Europe/Paris",
            "meta.dateFormat: unsupported; use one of: yyyy-MM-dd hh:mm a | yyyy-MM-dd | ...",
            &redirect,
            "meta.signingOrder: must be PARALLEL or SEQUENTIAL",
            "meta.distributionMethod: must be EMAIL or NONE",
            "meta.emailSettings.documentPending: must be true or false",
            "attachments[0].label: required: 1 to 255 characters",
            &data,
            "attachments[0].type: only \"link\" attachments exist",
            "attachments[1]: must be an object {label, data}",
            &global_access,
            &global_action,
            "formValues.a: must be text, a number or a boolean",
        ],
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_settings_and_recipients_of_a_draft_are_named_with_their_messages() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let created = api.create_document(two_recipients()).await;
    let doc = format!("/api/v1/documents/{}", created.document_id());
    let (_, d) = api.get(&doc).await;
    let rid = d["recipients"][0]["id"].as_i64().unwrap();

    let settings = json!({"title": 5, "externalId": [1],
        "meta": {"message": "m".repeat(5001), "redirectUrl": "https://u:p@x.example/"},
        "authOptions": {"globalActionAuth": "SMS"}});
    let (s, v) = api.patch(&doc, settings).await;
    let action = format!("authOptions.globalActionAuth: {ACTION}");
    same(
        &problems(s, &v),
        &[
            "title: required: a string",
            "externalId: must be a string",
            "meta.message: at most 5000 characters",
            "meta.redirectUrl: no credentials (user@) allowed",
            &action,
        ],
    );

    let add = json!({"name": "n".repeat(201), "signingOrder": "1"});
    let (s, v) = api.post(&format!("{doc}/recipients"), add).await;
    same(
        &problems(s, &v),
        &[
            "email: required: an e-mail address",
            "name: at most 200 characters",
            "signingOrder: must be a whole number from 0 to 10000",
        ],
    );

    let patch = json!({"email": null, "role": 1});
    let (s, v) = api.patch(&format!("{doc}/recipients/{rid}"), patch).await;
    same(
        &problems(s, &v),
        &[
            "email: required: an e-mail address",
            "role: must be SIGNER, APPROVER, VIEWER, CC or ASSISTANT",
        ],
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_problem_of_a_new_template_is_named_with_its_message() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let body = json!({"title": "T", "type": "SHARED",
        "recipients": [{"role": "CC"}, {"email": 5}],
        "authOptions": 3, "globalAccessAuth": "NOPE"});
    let (s, v) = api.post("/api/v1/templates", body).await;
    let access = format!("globalAccessAuth: {ACCESS}");
    same(
        &problems(s, &v),
        &[
            "type: must be PUBLIC or PRIVATE",
            "recipients[1].email: required: an e-mail address",
            "authOptions: must be an object",
            &access,
        ],
    );
}
