//! ACCOUNT access and action, and recipients' accounts created from the mailed link.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[cfg_attr(not(feature = "outside-tools"), ignore = "needs poppler's pdftotext")]
async fn account_access_shows_nothing_until_the_recipients_account_signs_in() {
    let app = TestApp::spawn().await;
    let owner = app.user_with_key("owner@example.com", "standard");
    let (id, token, field) = sent(
        &owner,
        "ann@example.com",
        json!({"globalAccessAuth": "ACCOUNT"}),
        Value::Null,
    )
    .await;
    let link = app.signer(&token);

    anonymous_sees_the_title_and_sender_only(&app, &link, field).await;
    another_account_is_refused(&app, &link).await;

    // Nothing was opened yet.
    let before: Vec<String> = owner
        .audit(id)
        .await
        .iter()
        .map(|e| e["type"].as_str().unwrap().to_string())
        .collect();
    assert!(!before.contains(&"OPENED".to_string()), "{before:?}");

    the_recipients_own_account_reads_and_signs(&app, &owner, &link, id, field).await;
    the_certificate_says_how_the_recipient_proved_who_they_were(&app, &owner, id).await;
    app.stop().await;
}

/// Anonymous: the page shows the title and sender only; every JSON call is 401.
async fn anonymous_sees_the_title_and_sender_only(app: &TestApp, link: &Signer, field: i64) {
    let page = app.get(&link.path("")).await;
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(
        html.contains("Guarded") && html.contains("owner@example.com"),
        "{html}"
    );
    assert!(
        html.contains("account-gate") && !html.contains("data-token"),
        "{html}"
    );
    assert!(
        html.contains("create-account"),
        "no account yet: offer to make one"
    );
    for (m, rest, body) in [
        (M::GET, "/state".to_string(), None),
        (M::GET, "/pages/1.png".to_string(), None),
        (
            M::POST,
            format!("/fields/{field}"),
            Some(json!({"typed": "Ann"})),
        ),
        (M::POST, "/complete".to_string(), Some(json!({}))),
        (
            M::POST,
            "/reject".to_string(),
            Some(json!({"reason": "no"})),
        ),
    ] {
        let (s, v) = link.call(m, &rest, body).await;
        let path = link.path(&rest);
        assert_eq!((s, code_of(&v)), (401, "account_required"), "{path}: {v}");
    }
}

/// Another account is refused with a code that says so.
async fn another_account_is_refused(app: &TestApp, link: &Signer) {
    account(app, "bob@example.com");
    let bob = sign_in(app, "bob@example.com", PASSWORD).await.unwrap();
    let as_bob = link.with_cookie(&bob);
    let (s, v) = as_bob.state().await;
    assert_eq!((s, code_of(&v)), (401, "wrong_account"), "{v}");
    let html = as_bob.page().await.text().await.unwrap();
    assert!(
        html.contains("You are signed in as bob@example.com"),
        "{html}"
    );
}

/// The recipient's own account reads and signs; the audit log says how.
async fn the_recipients_own_account_reads_and_signs(
    app: &TestApp,
    owner: &Api,
    link: &Signer,
    id: i64,
    field: i64,
) {
    account(app, "ann@example.com");
    let ann = sign_in(app, "ann@example.com", PASSWORD).await.unwrap();
    let as_ann = link.with_cookie(&ann);
    let (s, v) = as_ann.state().await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["auth"]["accessAuth"], "ACCOUNT");
    assert_eq!(v["auth"]["signedInAs"], "ann@example.com");
    let (s, _) = as_ann.sign_typed(field, "Ann").await;
    assert_eq!(s, 200);
    let (s, v) = as_ann.complete(json!({})).await;
    assert_eq!(s, 200, "{v}");
    let signed = owner
        .audit(id)
        .await
        .into_iter()
        .find(|e| e["type"] == "SIGNED")
        .expect("SIGNED recorded");
    assert_eq!(signed["data"]["auth"]["method"], "ACCOUNT");
    assert_eq!(signed["data"]["auth"]["account"], "ann@example.com");
}

/// The sealed PDF's audit certificate says how the recipient proved who they were.
async fn the_certificate_says_how_the_recipient_proved_who_they_were(
    app: &TestApp,
    owner: &Api,
    id: i64,
) {
    owner.wait_status(id, "COMPLETED").await;
    let (s, v) = owner.get(&format!("/api/v1/documents/{id}/download")).await;
    assert_eq!(s, 200, "{v}");
    let bytes = app
        .client
        .get(v["downloadUrl"].as_str().unwrap())
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let pdf = dir.path().join("sealed.pdf");
    std::fs::write(&pdf, &bytes).unwrap();
    let text = tools::pdf_words(&pdf);
    assert!(
        text.contains("Authentication") && text.contains("account sign-in"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn account_action_leaves_reading_open_and_guards_every_action() {
    let app = TestApp::spawn().await;
    let owner = app.user_with_key("owner@example.com", "enterprise");
    let (_, token, field) = sent(
        &owner,
        "ann@example.com",
        Value::Null,
        json!({"actionAuth": "ACCOUNT"}),
    )
    .await;
    let link = app.signer(&token);
    let (s, v) = link.state().await;
    assert_eq!(s, 200, "reading is open: {v}");
    assert_eq!(v["auth"]["actionAuth"], "ACCOUNT");
    assert_eq!(v["auth"]["accountReady"], false);
    assert!(v["auth"]["inviteCsrf"].is_string());
    for (rest, body) in [
        (format!("/fields/{field}"), json!({"typed": "Ann"})),
        ("/complete".to_string(), json!({})),
        ("/reject".to_string(), json!({"reason": "no"})),
    ] {
        let (s, v) = link.call(M::POST, &rest, Some(body)).await;
        let path = link.path(&rest);
        assert_eq!((s, code_of(&v)), (401, "account_required"), "{path}: {v}");
    }
    account(&app, "ann@example.com");
    let ann = sign_in(&app, "ann@example.com", PASSWORD).await.unwrap();
    let as_ann = link.with_cookie(&ann);
    let (s, _) = as_ann.sign_typed(field, "Ann").await;
    assert_eq!(s, 200);
    let (s, v) = as_ann.reject("wrong terms").await;
    assert_eq!(s, 200, "{v}");
    app.stop().await;
}

/// The link in the latest ACCOUNT_INVITE message to `to` in the outbox.
fn invite_link(app: &TestApp, to: &str) -> String {
    let list = docket_json(&app.data_dir(), &["mail", "list"], None);
    let mail = list
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["kind"] == "ACCOUNT_INVITE" && m["to"] == to)
        .unwrap_or_else(|| panic!("no invite to {to}: {list}"))
        .clone();
    let id = mail["id"].as_i64().unwrap().to_string();
    let text = docket_json(&app.data_dir(), &["mail", "show", &id], None).to_string();
    let start = text.find("/auth/signup/").expect("a signup link");
    let code: String = text[start + "/auth/signup/".len()..]
        .chars()
        .take_while(char::is_ascii_alphanumeric)
        .collect();
    format!("/auth/signup/{code}")
}

/// A sent ACCOUNT-access document for new@example.com, who has no account: its link, and the
/// hidden fields of the page's "create an account" form.
async fn gated_for_new(app: &TestApp, owner: &Api) -> (Signer, Vec<(String, String)>) {
    let (_, token, _) = sent(
        owner,
        "new@example.com",
        json!({"globalAccessAuth": "ACCOUNT"}),
        Value::Null,
    )
    .await;
    let signing = app.signer(&token);
    let html = signing.page().await.text().await.unwrap();
    let form = hidden_inputs(&html)
        .into_iter()
        .filter(|(k, _)| k == "csrf_token")
        .collect();
    (signing, form)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_recipient_without_an_account_creates_one_from_the_mailed_link() {
    let app = TestApp::spawn().await;
    let owner = app.user_with_key("owner@example.com", "standard");
    let (signing, form) = gated_for_new(&app, &owner).await;
    let base = signing.path("");
    // Without the form's token: refused.
    let resp = app
        .client
        .post(app.url(&format!("{base}/account")))
        .form(&[("csrf_token", "forged")])
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 403);
    let resp = app
        .client
        .post(app.url(&format!("{base}/account")))
        .form(&form)
        .send()
        .await
        .unwrap();
    // Post, redirect, get: the page says where the link went, once; a reload goes back to the
    // signing page and mails nothing more.
    assert_eq!(resp.status(), 303);
    let here = format!("{base}/account");
    assert_eq!(resp.headers()["location"], here.as_str());
    let once = set_cookie_pairs(&resp);
    assert_eq!(once.len(), 1, "{once:?}");
    assert!(!once[0].contains("new@example.com"), "sealed: {once:?}");
    let shown = app
        .client
        .get(app.url(&here))
        .header("cookie", &once[0])
        .send()
        .await
        .unwrap();
    assert_eq!(shown.status(), 200);
    assert_eq!(shown.headers()["cache-control"], "no-store");
    assert!(
        shown
            .text()
            .await
            .unwrap()
            .contains("We sent a link to <strong>new@example.com</strong>")
    );
    let reload = app.client.get(app.url(&here)).send().await.unwrap();
    assert_eq!(reload.status(), 303);
    assert_eq!(reload.headers()["location"], base.as_str());
    let link = invite_link(&app, "new@example.com");

    let page = app.get(&link).await;
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(html.contains("new@example.com"));
    let mut fields = hidden_inputs(&html);
    fields.extend([
        ("name".to_string(), "Nora New".to_string()),
        ("password".to_string(), PASSWORD.to_string()),
        ("password2".to_string(), PASSWORD.to_string()),
    ]);
    let resp = app
        .client
        .post(app.url(&link))
        .form(&fields)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 303);
    assert_eq!(resp.headers()["location"], base.as_str());
    let cookie = set_cookie_pairs(&resp).join("; ");
    let (s, v) = signing.with_cookie(&cookie).state().await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["auth"]["signedInAs"], "new@example.com");

    // The link works once; the account exists now, so no new link is mailed.
    let again = app
        .client
        .post(app.url(&link))
        .form(&fields)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 410);
    assert!(sign_in(&app, "new@example.com", PASSWORD).await.is_ok());
    let resp = app
        .client
        .post(app.url(&format!("{base}/account")))
        .form(&form)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 409);
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn account_links_are_mailed_at_most_three_times_an_hour() {
    let app = TestApp::spawn().await;
    let owner = app.user_with_key("owner@example.com", "standard");
    let (signing, form) = gated_for_new(&app, &owner).await;
    let base = signing.path("");
    let mut statuses = Vec::new();
    for _ in 0..4 {
        let resp = app
            .client
            .post(app.url(&format!("{base}/account")))
            .form(&form)
            .send()
            .await
            .unwrap();
        statuses.push(resp.status().as_u16());
    }
    assert_eq!(statuses, [303, 303, 303, 429]);
    app.stop().await;
}
