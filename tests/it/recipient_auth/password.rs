//! PASSWORD: an action needs the account's password typed again, under the login throttle.

use super::*;

/// The failed password checks counted for `key` in the login throttle.
fn failures(app: &TestApp, key: &str) -> i64 {
    app.db()
        .query_row(
            "SELECT coalesce(sum(failures), 0) FROM login_failures WHERE key = ?1",
            [key],
            |r| r.get(0),
        )
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn password_action_needs_the_accounts_password_typed_again_under_the_login_throttle() {
    let app = TestApp::spawn().await;
    let owner = app.user_with_key("owner@example.com", "enterprise");
    // Lists, as the other signing service takes them: either method will do.
    let (id, token, field) = sent(
        &owner,
        "ann@example.com",
        json!({"globalActionAuth": ["PASSKEY", "PASSWORD"]}),
        Value::Null,
    )
    .await;
    account(&app, "ann@example.com");
    let ann = sign_in(&app, "ann@example.com", PASSWORD).await.unwrap();
    let link = app.signer(&token);
    let as_ann = link.with_cookie(&ann);
    let (s, v) = as_ann.state().await;
    assert_eq!(s, 200, "{v}");
    // Ann has no passkey: the page asks for her password.
    assert_eq!(v["auth"]["actionAuth"], "PASSWORD");
    assert_eq!(
        v["auth"]["actionAuthAllowed"],
        json!(["PASSKEY", "PASSWORD"])
    );
    assert_eq!(as_ann.sign_typed(field, "Ann").await.0, 200);

    let with = |password: &str| json!({"auth": {"method": "PASSWORD", "password": password}});
    // Without it, or without the sign-in, nothing happens.
    let (s, v) = as_ann.complete(json!({})).await;
    assert_eq!((s, code_of(&v)), (401, "password_required"), "{v}");
    let (s, v) = link.complete(with(PASSWORD)).await;
    assert_eq!((s, code_of(&v)), (401, "account_required"), "{v}");
    // A wrong one is refused and counts as a failed login to her account.
    let key = "email:ann@example.com";
    assert_eq!(failures(&app, key), 0);
    let (s, v) = as_ann.complete(with("not my password")).await;
    assert_eq!((s, code_of(&v)), (401, "wrong_password"), "{v}");
    assert_eq!(failures(&app, key), 1);
    // While logins to her account are locked, so is this.
    app.db_rw()
        .execute(
            "UPDATE login_failures SET locked_until = ?2 WHERE key = ?1",
            docket::params![key, docket::core::db::now() + 600],
        )
        .unwrap();
    let (s, v) = as_ann.complete(with(PASSWORD)).await;
    assert_eq!(s, 429, "{v}");
    app.db_rw()
        .execute("DELETE FROM login_failures WHERE key = ?1", [key])
        .unwrap();
    let (s, v) = as_ann.complete(with(PASSWORD)).await;
    assert_eq!(s, 200, "{v}");
    let signed = owner
        .audit(id)
        .await
        .into_iter()
        .find(|e| e["type"] == "SIGNED")
        .expect("SIGNED recorded");
    assert_eq!(signed["data"]["auth"]["method"], "PASSWORD");
    assert_eq!(signed["data"]["auth"]["account"], "ann@example.com");

    // A recipient's EXPLICIT_NONE waives the document's action authentication.
    let (_, token, field) = sent(
        &owner,
        "bo@example.com",
        json!({"globalActionAuth": ["PASSWORD"]}),
        json!({"actionAuth": ["EXPLICIT_NONE"]}),
    )
    .await;
    let bo = app.signer(&token);
    assert_eq!(bo.sign_typed(field, "Bo").await.0, 200);
    let (s, v) = bo.complete(json!({})).await;
    assert_eq!(s, 200, "{v}");
    app.stop().await;
}
