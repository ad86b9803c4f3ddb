//! PASSKEY with a software authenticator: actions, completion, logins, renaming and removing, and
//! an admin's reset of a recipient's factors.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn passkey_actions_need_an_assertion_by_the_recipients_own_passkey() {
    let app = TestApp::spawn().await;
    let owner = app.user_with_key("owner@example.com", "enterprise");
    let auth = json!({"actionAuth": "PASSKEY"});
    let (id1, t1, f1) = sent(&owner, "ann@example.com", Value::Null, auth.clone()).await;
    let (_, t2, f2) = sent(&owner, "ann@example.com", Value::Null, auth).await;
    account(&app, "ann@example.com");
    account(&app, "bob@example.com");
    let ann = sign_in(&app, "ann@example.com", PASSWORD).await.unwrap();
    let bob = sign_in(&app, "bob@example.com", PASSWORD).await.unwrap();
    let (ann1, ann2) = (
        app.signer(&t1).with_cookie(&ann),
        app.signer(&t2).with_cookie(&ann),
    );
    for (link, f) in [(&ann1, f1), (&ann2, f2)] {
        let (s, _) = link.sign_typed(f, "Ann").await;
        assert_eq!(s, 200);
    }
    let (s, v) = ann1.complete(json!({})).await;
    assert_eq!((s, code_of(&v)), (401, "passkey_not_enrolled"), "{v}");
    let mut ann_key = register_passkey(&app, &ann, "Ann's laptop").await;
    let mut bob_key = register_passkey(&app, &bob, "Bob's phone").await;

    only_a_fresh_assertion_by_anns_passkey_completes(
        &app,
        [&ann1, &ann2],
        &mut ann_key,
        &mut bob_key,
    )
    .await;
    let signed = owner
        .audit(id1)
        .await
        .into_iter()
        .find(|e| e["type"] == "SIGNED")
        .unwrap();
    assert_eq!(signed["data"]["auth"]["method"], "PASSKEY");

    logging_in_asks_for_the_passkey(&app, &mut ann_key).await;
    passkeys_are_renamed_and_removed_by_their_own_account_only(&app, &ann, &bob).await;
    resetting_bobs_factors_lets_his_password_suffice(&app).await;
    app.stop().await;
}

/// A passkey challenge for `link` (asserting 200): its `publicKey` options.
async fn passkey_challenge(link: &Signer) -> Value {
    let (s, v) = link
        .call(M::POST, "/passkey-challenge", Some(json!({})))
        .await;
    assert_eq!(s, 200, "{v}");
    v["publicKey"].clone()
}

/// Completing Ann's first document needs an assertion: Bob's passkey's or one made for another
/// origin is refused, Ann's own signs, and the same answer again (on the second document) is
/// refused.
async fn only_a_fresh_assertion_by_anns_passkey_completes(
    app: &TestApp,
    [ann1, ann2]: [&Signer; 2],
    ann_key: &mut Passkey,
    bob_key: &mut Passkey,
) {
    let (s, v) = ann1.complete(json!({})).await;
    assert_eq!((s, code_of(&v)), (401, "second_factor_required"), "{v}");
    // Bob's passkey answering Ann's challenge: refused.
    let options = passkey_challenge(ann1).await;
    let foreign = bob_key.assert(&options, &app.base);
    let (s, v) = ann1
        .complete(json!({"auth": {"method": "PASSKEY", "credential": foreign}}))
        .await;
    assert_eq!((s, code_of(&v)), (401, "passkey_refused"), "{v}");
    // An answer made for another origin: refused.
    let options = passkey_challenge(ann1).await;
    let phished = ann_key.assert(&options, "https://evil.example");
    let (s, v) = ann1
        .complete(json!({"auth": {"method": "PASSKEY", "credential": phished}}))
        .await;
    assert_eq!((s, code_of(&v)), (401, "passkey_refused"), "{v}");
    // Ann's own answer to Ann's challenge signs.
    let options = passkey_challenge(ann1).await;
    let good = ann_key.assert(&options, &app.base);
    let (s, v) = ann1
        .complete(json!({"auth": {"method": "PASSKEY", "credential": good.clone()}}))
        .await;
    assert_eq!(s, 200, "{v}");
    // The same answer again, on the other document: its challenge was used and was not this
    // recipient's.
    let (s, v) = ann2
        .complete(json!({"auth": {"method": "PASSKEY", "credential": good}}))
        .await;
    assert_eq!((s, code_of(&v)), (401, "passkey_refused"), "replayed: {v}");
}

/// Logging in asks for the passkey now: the password alone gives no session, the assertion
/// does.
async fn logging_in_asks_for_the_passkey(app: &TestApp, ann_key: &mut Passkey) {
    let (_, resp) = password_step(app, "ann@example.com", "/account").await;
    assert_eq!(resp.status(), 303);
    let pending = set_cookie_pairs(&resp)
        .into_iter()
        .find(|c| c.starts_with("docket_pending="))
        .expect("a pending login");
    let options: Value = app
        .client
        .post(app.url("/auth/login/passkey/options"))
        .header("cookie", &pending)
        .json(&json!({}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let answer = ann_key.assert(&options["publicKey"], &app.base);
    let resp = app
        .client
        .post(app.url("/auth/login/passkey"))
        .header("cookie", &pending)
        .json(&json!({"credential": answer, "next": "/account"}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert!(
        set_cookie_pairs(&resp)
            .iter()
            .any(|c| c.starts_with("docket_session=")),
        "signed in"
    );
}

/// The id of the first passkey listed on an account page.
fn first_passkey_id(html: &str) -> String {
    let at = html.find("/account/passkeys/").unwrap() + "/account/passkeys/".len();
    html[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect()
}

/// Rename and remove, own passkeys only.
async fn passkeys_are_renamed_and_removed_by_their_own_account_only(
    app: &TestApp,
    ann: &str,
    bob: &str,
) {
    let (csrf, html) = account_page(app, ann).await;
    let ann_id = first_passkey_id(&html);
    let (_, bob_html) = account_page(app, bob).await;
    let bob_id = first_passkey_id(&bob_html);
    let renamed = post_form(
        app,
        ann,
        &format!("/account/passkeys/{ann_id}/rename"),
        &[("csrf_token", csrf.clone()), ("name", "Work laptop".into())],
    )
    .await;
    assert_eq!(renamed, 303);
    assert!(account_page(app, ann).await.1.contains("Work laptop"));
    let theirs = post_form(
        app,
        ann,
        &format!("/account/passkeys/{bob_id}/delete"),
        &[("csrf_token", csrf.clone())],
    )
    .await;
    assert_eq!(theirs, 404, "another account's passkey");
    let bob_page = account_page(app, bob).await.1;
    assert!(
        bob_page.contains("phone</h3>"),
        "Bob's passkey stays: {bob_page}"
    );
    let removed = post_form(
        app,
        ann,
        &format!("/account/passkeys/{ann_id}/delete"),
        &[("csrf_token", csrf)],
    )
    .await;
    assert_eq!(removed, 303);
    assert!(account_page(app, ann).await.1.contains("No passkeys yet"));
}

/// Bob lost his phone: the admin removes his second factors, and the password suffices again.
async fn resetting_bobs_factors_lets_his_password_suffice(app: &TestApp) {
    let (_, resp) = password_step(app, "bob@example.com", "/account").await;
    assert!(
        !set_cookie_pairs(&resp)
            .iter()
            .any(|c| c.starts_with("docket_session="))
    );
    docket_json(
        &app.data_dir(),
        &["user", "reset-factors", "bob@example.com"],
        None,
    );
    let (_, resp) = password_step(app, "bob@example.com", "/account").await;
    assert_eq!(resp.headers()["location"], "/account");
    assert!(
        set_cookie_pairs(&resp)
            .iter()
            .any(|c| c.starts_with("docket_session="))
    );
}
