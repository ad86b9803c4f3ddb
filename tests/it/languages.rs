//! Recipients read in the document's language (issue 55, item 12), through the real server: the
//! API takes and answers `meta.language`; the signing request, the signing page, the DATE
//! field's value, the finished link's page and the completion mail follow it; the signed copy
//! downloads from the link; a document takes its team's language, else its maker's account
//! default; a template keeps its own.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::api::{detail_paths, fixture};
use crate::support::wait::wait_for;
use crate::support::{TestApp, docket, docket_json};

fn one_signer(meta: Value) -> Value {
    json!({"title": "Mietvertrag", "meta": meta,
           "recipients": [{"name": "Ann", "email": "ann@example.com", "role": "SIGNER"}]})
}

/// The mail of `kind` filed for `to`, as `docket mail show` shows it.
async fn mail_to(d: &Path, to: &str, kind: &str) -> Value {
    let id = wait_for(Duration::from_secs(30), || {
        let list = docket_json(d, &["mail", "list"], None);
        list.as_array()
            .unwrap()
            .iter()
            .find(|m| m["to"] == to && m["kind"] == kind)
            .map(|m| m["id"].to_string())
            .ok_or_else(|| format!("no {kind} to {to}: {list}"))
    })
    .await;
    docket_json(d, &["mail", "show", &id], None)
}

#[tokio::test]
async fn a_german_document_asks_signs_dates_and_hands_out_its_copy_in_german() {
    let app = TestApp::spawn().await;
    let d = app.data_dir();
    let api = app.user_with_key("ada@example.com", "standard");

    // The API refuses a language Docket does not speak, and reads a region as its language.
    let (s, err) = api
        .post("/api/v1/documents", one_signer(json!({"language": "xx"})))
        .await;
    assert_eq!(s, 400, "{err}");
    assert_eq!(detail_paths(&err), ["meta.language"]);
    let pt = api
        .create_document(one_signer(json!({"language": "pt-BR"})))
        .await;
    let pt = api.document(pt.document_id()).await;
    assert_eq!(pt["meta"]["language"], "pt", "{pt}");
    let plain = api.create_document(one_signer(json!({}))).await;
    let plain = api.document(plain.document_id()).await;
    assert_eq!(plain["meta"]["language"], "en", "English unless chosen");

    let made = api
        .create_document(one_signer(
            json!({"language": "de", "dateFormat": "EEEE, MMMM dd, yyyy", "timezone": "Europe/Berlin"}),
        ))
        .await;
    let doc = made.document_id();
    api.upload_ok(made.upload_url(), fixture("a4-1p.pdf")).await;
    let rid = made.recipient_id(0);
    let fields = api
        .add_fields(
            doc,
            json!([{"recipientId": rid, "type": "SIGNATURE", "pageNumber": 1, "pageX": 10,
                    "pageY": 70, "pageWidth": 30, "pageHeight": 8},
                   {"recipientId": rid, "type": "DATE", "pageNumber": 1, "pageX": 10,
                    "pageY": 85, "pageWidth": 40, "pageHeight": 5}]),
        )
        .await;
    let (s, sent) = api.send_with(doc, json!({"sendEmail": true})).await;
    assert_eq!(s, 200, "{sent}");

    let request = mail_to(&d, "ann@example.com", "SIGNING_REQUEST").await;
    assert_eq!(
        request["subject"], "Owner bittet Sie, „Mietvertrag“ zu unterschreiben",
        "{request}"
    );
    let text = request["text"].as_str().unwrap();
    assert!(text.starts_with("Hallo Ann,"), "{text}");
    assert!(text.contains("Dokument unterschreiben: http"), "{text}");

    // The signing page: its language, its words, and the script's words in it.
    let signer = app.signer(&made.token(0));
    let page = signer.page().await;
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(html.contains("<html lang=\"de\">"), "{html}");
    assert!(html.contains("Das Dokument wird geladen"), "{html}");
    assert!(html.contains("Zum Hauptinhalt springen"));
    assert!(
        html.contains("Nächstes Feld"),
        "the script's words are German too"
    );

    // Signed: the DATE field holds the day in German, in the document's zone and format.
    assert_eq!(signer.sign_typed(fields[0], "Ann").await.0, 200);
    let (s, done) = signer.complete(json!({})).await;
    assert_eq!(s, 200, "{done}");
    assert_eq!(done["documentCompleting"], true, "{done}");
    let finished = api.wait_status(doc, "COMPLETED").await;
    let date = finished["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["type"] == "DATE")
        .unwrap()["customText"]
        .as_str()
        .unwrap()
        .to_string();
    let weekdays = [
        "Montag,",
        "Dienstag,",
        "Mittwoch,",
        "Donnerstag,",
        "Freitag,",
        "Samstag,",
        "Sonntag,",
    ];
    assert!(
        weekdays.iter().any(|w| date.starts_with(w)),
        "a German weekday: {date}"
    );

    // The finished link says so in German and hands out the sealed copy.
    let page = signer.page().await;
    assert_eq!(page.status(), 409);
    let html = page.text().await.unwrap();
    assert!(html.contains("Dieses Dokument ist abgeschlossen"), "{html}");
    assert!(
        html.contains(&format!("/sign/{}/download", made.token(0))),
        "{html}"
    );
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let resp = client
        .get(api.url(&signer.path("/download")))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 303);
    let to = resp.headers()["location"].to_str().unwrap().to_string();
    assert!(to.contains("/api/v1/downloads/"), "{to}");
    let pdf = reqwest::get(&to).await.unwrap().bytes().await.unwrap();
    assert!(pdf.starts_with(b"%PDF"), "the signed copy");
    let (_, owners) = api.get(&format!("/api/v1/documents/{doc}/download")).await;
    let owners = reqwest::get(owners["downloadUrl"].as_str().unwrap())
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert_eq!(pdf, owners, "the same sealed copy the owner downloads");
    let audit = api.audit(doc).await;
    assert!(
        audit
            .iter()
            .any(|e| e["type"] == "DOWNLOADED" && e.to_string().contains("ann@example.com")),
        "the recipient's download is audited: {audit:?}"
    );
    let completed = mail_to(&d, "ann@example.com", "COMPLETED").await;
    assert_eq!(completed["subject"], "Abgeschlossen: „Mietvertrag“");

    // An unfinished document's link has no copy to hand out yet.
    let other = api.create_document(one_signer(json!({}))).await;
    let other_doc = other.document_id();
    api.upload_ok(other.upload_url(), fixture("a4-1p.pdf"))
        .await;
    api.add_fields(
        other_doc,
        json!([{"recipientId": other.recipient_id(0), "type": "SIGNATURE", "pageNumber": 1,
                "pageX": 10, "pageY": 70, "pageWidth": 30, "pageHeight": 8}]),
    )
    .await;
    assert_eq!(api.send_with(other_doc, json!({})).await.0, 200);
    let early = client
        .get(api.url(&app.signer(&other.token(0)).path("/download")))
        .send()
        .await
        .unwrap();
    assert_eq!(
        early.status(),
        400,
        "refused as any action in the wrong state"
    );
    assert_eq!(
        client
            .get(api.url(&app.signer("no-such-link").path("/download")))
            .send()
            .await
            .unwrap()
            .status(),
        404
    );
}

#[tokio::test]
async fn the_team_default_comes_first_then_the_makers_account_and_the_direct_link_speaks_it() {
    let app = TestApp::spawn().await;
    let d = app.data_dir();
    let ada = app.user_with_key("ada@example.com", "standard");
    crate::support::login::add_account(&d, "bob@example.com", "Bob");
    docket(
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
    let bob_team = app.key_for("bob@example.com", Some("sales"));
    let bob = app.key_for("bob@example.com", None);

    // Bob's account default, chosen on his account page, for his personal documents; a code
    // the page does not offer is refused beside the box, and changes nothing.
    let bob_web = crate::support::login::browser(&app, "bob@example.com").await;
    let post = |language: &'static str| {
        app.client
            .post(app.url("/account/language"))
            .header("cookie", &bob_web.cookie)
            .form(&[
                ("csrf_token", bob_web.csrf.as_str()),
                ("language", language),
            ])
            .send()
    };
    let bad = post("xx").await.unwrap();
    assert_eq!(
        bad.status(),
        422,
        "a refused form, as the account page's others"
    );
    let html = bad.text().await.unwrap();
    assert!(
        html.contains("id=\"language-error\""),
        "the refusal beside the box"
    );
    let saved = post("it").await.unwrap();
    assert_eq!(saved.status(), 303);
    assert_eq!(
        saved.headers()["location"],
        "/account?done=language#recipients-language"
    );
    let page = app
        .client
        .get(app.url("/account?done=language"))
        .header("cookie", &bob_web.cookie)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        page.contains("<option value=\"it\" lang=\"it\" selected"),
        "the page shows the choice"
    );
    let mine = bob.create_document(one_signer(json!({}))).await;
    assert_eq!(
        bob.document(mine.document_id()).await["meta"]["language"],
        "it"
    );
    // ... and for the team's, while the team leaves the language open.
    let team_doc = bob_team.create_document(one_signer(json!({}))).await;
    assert_eq!(
        bob_team.document(team_doc.document_id()).await["meta"]["language"],
        "it"
    );
    // The team's own choice comes first; a request's choice wins over both.
    let set = docket_json(&d, &["team", "settings", "sales", "--language", "fr"], None);
    assert_eq!(set["language"], "fr", "{set}");
    let team_doc = bob_team.create_document(one_signer(json!({}))).await;
    assert_eq!(
        bob_team.document(team_doc.document_id()).await["meta"]["language"],
        "fr"
    );
    let chosen = bob_team
        .create_document(one_signer(json!({"language": "nl"})))
        .await;
    assert_eq!(
        bob_team.document(chosen.document_id()).await["meta"]["language"],
        "nl"
    );
    let bad = docket(&d, &["team", "settings", "sales", "--language", "xx"], None);
    assert_eq!(bad.status.code(), Some(2));
    // Ada chose nothing: English.
    let hers = ada.create_document(one_signer(json!({}))).await;
    assert_eq!(
        ada.document(hers.document_id()).await["meta"]["language"],
        "en"
    );

    // A template keeps its language and answers it.
    let t = ada
        .create_template(json!({"title": "Alta", "meta": {"language": "es"}, "recipients": []}))
        .await;
    let tid = t.template_id();
    let (_, tv) = ada.get(&format!("/api/v1/templates/{tid}")).await;
    assert_eq!(tv["templateMeta"]["language"], "es", "{tv}");
}

/// The German signing page in Chromium (desktop and phone, axe): its words, the dialog's, and
/// the last signer's signed copy offered once sealing is done, without a reload.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs chromium and node")]
async fn a_german_signer_reads_german_and_the_last_one_downloads_the_copy_in_chromium() {
    let app = TestApp::spawn_with(&["--tls", "off"]).await;
    let api = app.user_with_key("ada@example.com", "standard");
    let made = api
        .create_document(one_signer(json!({"language": "de"})))
        .await;
    let doc = made.document_id();
    api.upload_ok(made.upload_url(), fixture("a4-1p.pdf")).await;
    api.add_fields(
        doc,
        json!([{"recipientId": made.recipient_id(0), "type": "SIGNATURE", "pageNumber": 1,
                "pageX": 10, "pageY": 70, "pageWidth": 30, "pageHeight": 8}]),
    )
    .await;
    assert_eq!(api.send_with(doc, json!({})).await.0, 200);
    let link = api.url(&app.signer(&made.token(0)).path(""));
    let out = crate::support::tools::screenshots();
    crate::support::tools::browser_step("languages.mjs", &[&link, out.to_str().unwrap()]);
    api.wait_status(doc, "COMPLETED").await;
    app.stop().await;
}
