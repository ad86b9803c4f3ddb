//! Rejecting is not signing (`signing::auth::Finishing`): a recipient asked for a code from an
//! authenticator app they do not have can still reject, signed in to their account, without a
//! code. The page's state (what `sign.js` asks before rejecting) and the link's JSON call (what
//! any client gets) say the same; finishing still needs the code, a code given with a rejection
//! is still checked, and the audit log records what was proved.

use reqwest::Method as M;
use serde_json::{Value, json};

use crate::recipient_auth::{account, code_of, complete_as, sent};
use crate::support::TestApp;
use crate::support::login::{PASSWORD, sign_in};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_two_factor_recipient_without_an_authenticator_app_rejects_signed_in_without_a_code() {
    let app = TestApp::spawn().await;
    let owner = app.user_with_key("owner@example.com", "enterprise");
    let auth = json!({"actionAuth": "TWO_FACTOR_AUTH"});
    let (id, token, field) = sent(&owner, "ann@example.com", Value::Null, auth).await;
    let link = app.signer(&token);

    // Without the sign-in: refused, as every action on such a document is.
    let (s, v) = link.reject("wrong terms").await;
    assert_eq!((s, code_of(&v)), (401, "account_required"), "{v}");

    account(&app, "ann@example.com");
    let ann = sign_in(&app, "ann@example.com", PASSWORD).await.unwrap();
    let as_ann = link.with_cookie(&ann);
    let (s, v) = as_ann.sign_typed(field, "Ann").await;
    assert_eq!(s, 200, "{v}");
    // What the page reads: a code to finish (the app is not set up), none to reject.
    let (s, state) = as_ann.state().await;
    assert_eq!(s, 200, "{state}");
    assert_eq!(state["auth"]["actionAuth"], "TWO_FACTOR_AUTH");
    assert_eq!(state["auth"]["rejectAuth"], Value::Null, "{state}");
    assert_eq!(state["auth"]["enrolled"]["totp"], false);
    // Finishing still needs the code, and says how to get one.
    let (s, v) = complete_as(&app, &ann, &token, json!({})).await;
    assert_eq!((s, code_of(&v)), (401, "totp_not_enrolled"), "{v}");
    // A code given anyway is checked, never ignored: a wrong one is refused.
    let wrong =
        json!({"reason": "wrong terms", "auth": {"method": "TWO_FACTOR_AUTH", "code": "000000"}});
    let (s, v) = as_ann.call(M::POST, "/reject", Some(wrong)).await;
    assert_eq!(s, 401, "{v}");
    // Without a code, the rejection goes through, recorded as the account sign-in.
    let (s, v) = as_ann.reject("wrong terms").await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["signingStatus"], "REJECTED");
    let rejected = owner.audit_event(id, "REJECTED").await;
    assert_eq!(rejected["data"]["auth"]["method"], "ACCOUNT", "{rejected}");
    assert_eq!(rejected["data"]["auth"]["account"], "ann@example.com");
    let (_, doc) = owner.get(&format!("/api/v1/documents/{id}")).await;
    assert_eq!(doc["status"], "REJECTED", "{doc}");
    app.stop().await;
}
