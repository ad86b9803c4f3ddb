//! The editing of a draft's settings, recipients and fields through the real server, for a
//! document and for a template: which answer a request gets when it is both malformed and aimed
//! at something missing (a document checks a recipient alone before it looks, a template after),
//! the JSON paths of a bad change, and what a change keeps. Pinned before these use cases took
//! commands and were shared by the two kinds, so the answers stay what they were.

use serde_json::{Value, json};

use crate::support::TestApp;
use crate::support::api::{Api, detail_paths, fixture, two_recipients};

/// Each call as (what, status, the error's JSON paths or the answer's `email`).
async fn answers(api: &Api, calls: &[(&str, &str, Value)]) -> Vec<(String, u16, String)> {
    let mut out = Vec::new();
    for (method, path, body) in calls {
        let (s, v) = match *method {
            "POST" => api.post(path, body.clone()).await,
            _ => api.patch(path, body.clone()).await,
        };
        let what = if s == 200 {
            v["email"].as_str().unwrap_or("").to_string()
        } else if detail_paths(&v).is_empty() {
            v["message"].as_str().unwrap_or("").to_string()
        } else {
            detail_paths(&v).join(",")
        };
        out.push((format!("{method} {path} {body}"), s, what));
    }
    out
}

/// `want` (status, paths or e-mail), call by call, labelled as `got` is.
fn expected(got: &[(String, u16, String)], want: &[(u16, &str)]) -> Vec<(String, u16, String)> {
    assert_eq!(got.len(), want.len());
    got.iter()
        .zip(want)
        .map(|((call, _, _), (s, what))| (call.clone(), *s, what.to_string()))
        .collect()
}

/// The same bad field edits on the draft at `base` (its field at `f`), in both kinds.
async fn field_edits(api: &Api, base: &str, f: &str) -> Vec<(String, u16, String)> {
    let (kind, _) = base.rsplit_once('/').unwrap();
    let missing = format!("{kind}/999999/fields");
    let (fields, none) = (format!("{base}/fields"), format!("{base}/fields/999999"));
    let calls = [
        ("POST", missing.as_str(), json!([])),
        ("POST", fields.as_str(), json!([])),
        (
            "POST",
            fields.as_str(),
            json!({"recipientId": 999999, "pageX": "x"}),
        ),
        ("PATCH", none.as_str(), json!({"pageX": "x"})),
        ("PATCH", f, json!({"pageX": "x", "pageNumber": 9})),
        ("PATCH", f, json!({"recipientId": 999999})),
    ];
    answers(api, &calls).await
}

/// What `field_edits` answered before, the draft's 404 reading `missing`.
fn field_answers(missing: &str) -> Vec<(u16, &str)> {
    vec![
        (404, missing),
        (400, "give at least one field"),
        (
            400,
            "recipientId,type,pageNumber,pageX,pageY,pageWidth,pageHeight",
        ),
        (404, "field not found"),
        (400, "pageNumber,pageX"),
        (400, "recipientId"),
    ]
}

/// A draft of `kind` (`documents` or `templates`) with a PDF, recipients and a signature field
/// for the first: its path, its first recipient's and its field's.
async fn draft(api: &Api, kind: &str) -> (String, String, String) {
    let created = if kind == "documents" {
        api.create_document(two_recipients()).await
    } else {
        let one = json!({"name": "A", "email": "a@example.com", "role": "SIGNER"});
        api.create_template(json!({"title": "T", "recipients": [one]}))
            .await
    };
    let id = created["documentId"]
        .as_i64()
        .or(created["templateId"].as_i64())
        .unwrap();
    api.upload_ok(created.upload_url(), fixture("mixed-sizes-3p.pdf"))
        .await;
    let (base, rid) = (format!("/api/v1/{kind}/{id}"), created.recipient_id(0));
    let field = json!([{"recipientId": rid, "type": "SIGNATURE", "pageNumber": 1, "pageX": 10, "pageY": 10, "pageWidth": 20, "pageHeight": 5}]);
    let (s, v) = api.post(&format!("{base}/fields"), field).await;
    assert_eq!(s, 200, "{v}");
    let fid = v["fields"][0]["id"].as_i64().unwrap();
    let (r, f) = (
        format!("{base}/recipients/{rid}"),
        format!("{base}/fields/{fid}"),
    );
    (base, r, f)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_documents_bad_edits_answer_as_before() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let (doc, r, f) = draft(&api, "documents").await;
    let calls = [
        ("PATCH", "/api/v1/documents/999999", json!({"title": 5})),
        (
            "PATCH",
            doc.as_str(),
            json!({"title": 5, "meta": {"timezone": "Mars/Base"}}),
        ),
        (
            "POST",
            "/api/v1/documents/999999/recipients",
            json!({"email": "bad"}),
        ),
        (
            "POST",
            &format!("{doc}/recipients"),
            json!({"name": "No address"}),
        ),
        (
            "PATCH",
            &format!("{doc}/recipients/999999"),
            json!({"role": "KING"}),
        ),
        (
            "PATCH",
            &format!("{doc}/recipients/999999"),
            json!({"name": "Bea"}),
        ),
        ("PATCH", r.as_str(), json!({"email": null})),
        (
            "PATCH",
            r.as_str(),
            json!({"role": "KING", "signingOrder": -1}),
        ),
        ("PATCH", r.as_str(), json!({"name": "Bea"})),
    ];
    let mut got = answers(&api, &calls).await;
    got.extend(field_edits(&api, &doc, &f).await);
    let mut want = vec![
        (404, "document not found"),
        (400, "title,meta.timezone"),
        (400, "email"),
        (400, "email"),
        (400, "role"),
        (404, "recipient not found"),
        (400, "email"),
        (400, "role,signingOrder"),
        (200, "ann@example.com"),
    ];
    want.extend(field_answers("document not found"));
    assert_eq!(got, expected(&got, &want));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_templates_bad_edits_answer_as_before() {
    let app = TestApp::spawn().await;
    let api = app.user_with_key("owner@example.com", "standard");
    let (t, r, f) = draft(&api, "templates").await;
    let calls = [
        ("PATCH", "/api/v1/templates/999999", json!({"title": 5})),
        (
            "PATCH",
            t.as_str(),
            json!({"title": 5, "meta": {"timezone": "Mars/Base"}}),
        ),
        (
            "POST",
            "/api/v1/templates/999999/recipients",
            json!({"email": "bad"}),
        ),
        ("POST", &format!("{t}/recipients"), json!({"email": "bad"})),
        (
            "POST",
            &format!("{t}/recipients"),
            json!({"name": "No address"}),
        ),
        ("POST", &format!("{t}/recipients"), json!({"email": null})),
        (
            "PATCH",
            &format!("{t}/recipients/999999"),
            json!({"role": "KING"}),
        ),
        (
            "PATCH",
            r.as_str(),
            json!({"role": "KING", "signingOrder": -1}),
        ),
        ("PATCH", r.as_str(), json!({"name": "Bea"})),
        ("PATCH", r.as_str(), json!({"email": null})),
    ];
    let mut got = answers(&api, &calls).await;
    got.extend(field_edits(&api, &t, &f).await);
    let mut want = vec![
        (404, "template not found"),
        (400, "title,meta.timezone"),
        (404, "template not found"),
        (400, "email"),
        (200, "recipient.2@placeholder.docket.invalid"),
        (200, "recipient.3@placeholder.docket.invalid"),
        (404, "recipient not found"),
        (400, "role,signingOrder"),
        (200, "a@example.com"),
        (200, "recipient.1@placeholder.docket.invalid"),
    ];
    want.extend(field_answers("template not found"));
    assert_eq!(got, expected(&got, &want));
}
