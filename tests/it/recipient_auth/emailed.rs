//! TWO_FACTOR_AUTH by a code e-mailed to the recipient (issue 56, part 4): asked for on the
//! link, read from the outbox (`docket mail list/show`), given where the TOTP code goes. It
//! works once, for its recipient only, until it expires; requests are throttled; wrong codes
//! count toward the same lockout as wrong TOTP codes.

use super::*;

/// `POST /sign/<token>/email-code` as `cookie`: the status, the answer and its `Retry-After`.
async fn ask(app: &TestApp, token: &str, cookie: Option<&str>) -> (u16, Value, Option<String>) {
    let mut req = app
        .client
        .post(app.url(&format!("/sign/{token}/email-code")))
        .json(&json!({}));
    if let Some(c) = cookie {
        req = req.header("cookie", c);
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    let retry = resp
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap().to_string());
    (status, resp.json().await.unwrap_or(Value::Null), retry)
}

/// The six digits of the latest EMAILED_CODE message to `to`, as `docket mail show` shows it,
/// and the message's subject.
fn mailed_code(app: &TestApp, to: &str) -> (String, String) {
    let list = docket_json(&app.data_dir(), &["mail", "list"], None);
    // Newest first.
    let mail = list
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["kind"] == "EMAILED_CODE" && m["to"] == to)
        .unwrap_or_else(|| panic!("no code to {to}: {list}"))
        .clone();
    let id = mail["id"].as_i64().unwrap().to_string();
    let shown = docket_json(&app.data_dir(), &["mail", "show", &id], None);
    let code = shown["text"]
        .as_str()
        .unwrap()
        .lines()
        .map(str::trim)
        .find(|l| l.len() == 6 && l.chars().all(|c| c.is_ascii_digit()))
        .unwrap_or_else(|| panic!("six digits on a line of their own: {shown}"))
        .to_string();
    (
        code,
        shown["subject"].as_str().unwrap_or_default().to_string(),
    )
}

/// A sent document for two SIGNERs, Ann (first) and Bob, each with a SIGNATURE field and
/// the document's `authOptions` `doc_auth`: (document id, Ann's token, Ann's field).
async fn sent_to_two(owner: &Api, doc_auth: Value) -> (i64, String, i64) {
    let created = owner
        .create_document(
            json!({"title": "Guarded", "authOptions": doc_auth, "recipients": [
                {"name": "Ann", "email": "ann@example.com", "role": "SIGNER"},
                {"name": "Bob", "email": "bob@example.com", "role": "SIGNER"}
            ]}),
        )
        .await;
    let id = created.document_id();
    let (up, _) = owner
        .upload(created.upload_url(), fixture("a4-1p.pdf"))
        .await;
    assert_eq!(up, 200);
    let field = |i: usize, y: i64| {
        json!({"recipientId": created.recipient_id(i), "type": "SIGNATURE", "pageNumber": 1,
            "pageX": 10, "pageY": y, "pageWidth": 30, "pageHeight": 5})
    };
    let fields = owner
        .add_fields(id, json!([field(0, 60), field(1, 80)]))
        .await;
    let (s, v) = owner.send_with(id, json!({})).await;
    assert_eq!(s, 200, "{v}");
    (id, created.token(0), fields[0])
}

fn code_body(code: &str) -> Value {
    json!({"auth": {"method": "TWO_FACTOR_AUTH", "code": code}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_emailed_code_finishes_once_for_its_own_recipient() {
    let app = TestApp::spawn().await;
    let owner = app.user_with_key("owner@example.com", "enterprise");
    let auth = json!({"globalActionAuth": "TWO_FACTOR_AUTH"});
    let (id1, t1, f1) = sent(&owner, "ann@example.com", auth.clone(), Value::Null).await;
    let (_, t2, f2) = sent(&owner, "ann@example.com", auth.clone(), Value::Null).await;
    let (_, t3, f3) = sent(&owner, "bob@example.com", auth, Value::Null).await;
    account(&app, "ann@example.com");
    account(&app, "bob@example.com");
    let ann = sign_in(&app, "ann@example.com", PASSWORD).await.unwrap();
    let bob = sign_in(&app, "bob@example.com", PASSWORD).await.unwrap();
    for (t, f, who) in [(&t1, f1, &ann), (&t2, f2, &ann), (&t3, f3, &bob)] {
        let (s, v) = app.signer(t).with_cookie(who).sign_typed(f, "Ann").await;
        assert_eq!(s, 200, "{v}");
    }

    // Without the sign-in, no code; nor for a document that asks for none.
    let (s, v, _) = ask(&app, &t1, None).await;
    assert_eq!((s, code_of(&v)), (401, "account_required"), "{v}");
    let (_, plain, _) = sent(&owner, "ann@example.com", Value::Null, Value::Null).await;
    let (s, v, _) = ask(&app, &plain, Some(&ann)).await;
    assert_eq!(s, 409, "{v}");

    // Asked for: mailed to the recipient's address, in the outbox.
    let (s, v, _) = ask(&app, &t1, Some(&ann)).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["sentTo"], "ann@example.com");
    assert_eq!(v["expiresInSeconds"], 600);
    let (code, subject) = mailed_code(&app, "ann@example.com");
    assert_eq!(subject, "Your code for \"Guarded\"");
    // Asked again within the minute: 429, saying how long to wait.
    let (s, v, retry) = ask(&app, &t1, Some(&ann)).await;
    assert_eq!((s, code_of(&v)), (429, "rate_limited"), "{v}");
    let wait: u64 = retry.expect("Retry-After").parse().unwrap();
    assert!((1..=60).contains(&wait), "{wait}");

    // The code is this recipient's: not bob's (another recipient and account), not ann's on
    // another document's link.
    let (s, v) = complete_as(&app, &bob, &t3, code_body(&code)).await;
    assert_eq!((s, code_of(&v)), (401, "wrong_code"), "{v}");
    let (s, v) = complete_as(&app, &ann, &t2, code_body(&code)).await;
    assert_eq!((s, code_of(&v)), (401, "wrong_code"), "{v}");

    // On its own link it signs, and the audit says it was an e-mailed code.
    let (s, v) = complete_as(&app, &ann, &t1, code_body(&code)).await;
    assert_eq!(s, 200, "{v}");
    let signed = owner.audit_event(id1, "SIGNED").await;
    let proof = &signed["data"]["auth"];
    assert_eq!(proof["method"], "TWO_FACTOR_AUTH", "{signed}");
    assert_eq!(proof["codeFrom"], "EMAIL", "{signed}");
    assert_eq!(proof["account"], "ann@example.com", "{signed}");

    // Used up: the row stays, marked used (the certificate's record).
    let used: Option<i64> = app
        .db()
        .query_row(
            "SELECT used_at FROM emailed_codes e JOIN recipients r ON r.id = e.recipient_id
              WHERE r.token = ?1",
            [t1.as_str()],
            |r| r.get(0),
        )
        .unwrap();
    assert!(used.is_some(), "the code is used up");
    let (s, v) = complete_as(&app, &ann, &t1, code_body(&code)).await;
    assert_eq!(s, 409, "finished already: {v}");
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_code_works_once_and_not_after_ten_minutes() {
    let app = TestApp::spawn().await;
    let owner = app.user_with_key("owner@example.com", "enterprise");
    let auth = json!({"globalActionAuth": "TWO_FACTOR_AUTH"});
    // Bob signs too, so the document stays pending after Ann.
    let (id, token, field) = sent_to_two(&owner, auth).await;
    account(&app, "ann@example.com");
    let ann = sign_in(&app, "ann@example.com", PASSWORD).await.unwrap();
    let link = app.signer(&token).with_cookie(&ann);
    let (s, v) = link.sign_typed(field, "Ann").await;
    assert_eq!(s, 200, "{v}");
    // The page is told a code will do without an app: no dead end.
    let (_, state) = link.state().await;
    assert_eq!(state["auth"]["actionAuth"], "TWO_FACTOR_AUTH", "{state}");
    assert_eq!(state["auth"]["enrolled"]["totp"], false, "{state}");
    let (s, v) = link.complete(json!({})).await;
    assert_eq!((s, code_of(&v)), (401, "totp_not_enrolled"), "{v}");
    assert!(
        v["message"].as_str().unwrap().contains("by e-mail"),
        "says a code can be e-mailed: {v}"
    );

    let (s, v, _) = ask(&app, &token, Some(&ann)).await;
    assert_eq!(s, 200, "{v}");
    let (expired, _) = mailed_code(&app, "ann@example.com");
    // Eleven minutes later (the stored times moved back, and the request throttle's too).
    let db = app.db_rw();
    db.execute(
        "UPDATE emailed_codes SET created_at = created_at - 660, expires_at = expires_at - 660",
        [],
    )
    .unwrap();
    db.execute(
        "UPDATE login_failures SET first_at = first_at - 660, last_at = last_at - 660
          WHERE key LIKE 'emailed-code%'",
        [],
    )
    .unwrap();
    let (s, v) = link.complete(code_body(&expired)).await;
    assert_eq!((s, code_of(&v)), (401, "wrong_code"), "expired: {v}");

    // A new one replaces it; the old one does not come back.
    let (s, v, _) = ask(&app, &token, Some(&ann)).await;
    assert_eq!(s, 200, "{v}");
    let (fresh, _) = mailed_code(&app, "ann@example.com");
    if fresh != expired {
        let (s, v) = link.complete(code_body(&expired)).await;
        assert_eq!((s, code_of(&v)), (401, "wrong_code"), "replaced: {v}");
    }
    // Typed with a space in the middle, as the mail's reader may copy it.
    let spaced = format!("{} {}", &fresh[..3], &fresh[3..]);
    let (s, v) = link.complete(code_body(&spaced)).await;
    assert_eq!(s, 200, "{v}");
    let signed = owner.audit_event(id, "SIGNED").await;
    assert_eq!(signed["data"]["auth"]["codeFrom"], "EMAIL", "{signed}");
    // Single use: given again by a recipient who could act again (Ann put back to not
    // signed: the document waits for Bob), it is refused.
    db.execute(
        "UPDATE recipients SET signing_status = 'NOT_SIGNED' WHERE token = ?1",
        [token.as_str()],
    )
    .unwrap();
    let (s, v) = link.complete(code_body(&fresh)).await;
    assert_eq!(
        (s, code_of(&v)),
        (401, "wrong_code"),
        "used once already: {v}"
    );
    app.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_emailed_and_app_codes_count_toward_one_lockout() {
    let app = TestApp::spawn().await;
    let owner = app.user_with_key("owner@example.com", "enterprise");
    let auth = json!({"globalActionAuth": "TWO_FACTOR_AUTH"});
    let (_, t1, f1) = sent(&owner, "ann@example.com", auth.clone(), Value::Null).await;
    let (_, t2, f2) = sent(&owner, "ann@example.com", auth, Value::Null).await;
    account(&app, "ann@example.com");
    let ann = sign_in(&app, "ann@example.com", PASSWORD).await.unwrap();
    for (t, f) in [(&t1, f1), (&t2, f2)] {
        let (s, v) = app.signer(t).with_cookie(&ann).sign_typed(f, "Ann").await;
        assert_eq!(s, 200, "{v}");
    }
    // The account has an authenticator app too; a code is e-mailed for document 1 alone, so
    // what is given on document 2 can only be an app's code.
    let (secret, _) = enrol_totp(&app, &ann).await;
    let (s, v, _) = ask(&app, &t1, Some(&ann)).await;
    assert_eq!(s, 200, "{v}");
    let (code, _) = mailed_code(&app, "ann@example.com");
    let wrong = if code == "000000" { "111111" } else { "000000" };
    // Ten wrong answers, taking turns: the tenth locks the account's second factor.
    for i in 0..10 {
        let t = if i % 2 == 0 { &t1 } else { &t2 };
        let (s, v) = complete_as(&app, &ann, t, code_body(wrong)).await;
        assert_eq!((s, code_of(&v)), (401, "wrong_code"), "attempt {i}: {v}");
    }
    // Locked: neither the right e-mailed code nor a current app code is even checked.
    let (s, v) = complete_as(&app, &ann, &t1, code_body(&code)).await;
    assert_eq!(s, 429, "{v}");
    let current = settled_code(&secret, 0).await;
    let (s, v) = complete_as(&app, &ann, &t2, code_body(&current)).await;
    assert_eq!(s, 429, "{v}");
    app.stop().await;
}
