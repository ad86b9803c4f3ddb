//! The verified-credential cache (`oauth::verified`) never outlives a revocation: a credential
//! the server has just verified (so it is remembered) and that is then revoked is refused by
//! the next request, through every way a credential ends; on another node sharing the
//! PostgreSQL database, within a second.

use std::time::{Duration, Instant};

use crate::oauth_rules::{code, introspect, introspect_call, pair, redeem, refresh, revoke};
use crate::scope_containment::revoke_on_account_page;
use crate::settings_tokens::make_token;
use crate::support::login::{PASSWORD, browser, sign_in};
use crate::support::oauth::{me, setup};
use crate::support::{TestApp, docket_json, on_postgres, postgres_for};

const EMAIL: &str = "ada@example.com";
const SCOPES: &str = "READ_PROFILE READ_BOOKING";

async fn list_bookings(app: &TestApp, credential: &str) -> u16 {
    let resp = app
        .client
        .get(app.url("/listBookings"))
        .bearer_auth(credential);
    resp.send().await.unwrap().status().as_u16()
}

/// `credential` works for `/me` and `/listBookings`, twice each: the second use of each is
/// answered from what the first verified.
async fn works(app: &TestApp, credential: &str) {
    for _ in 0..2 {
        assert_eq!(me(app, credential).await.status(), 200);
        assert_eq!(list_bookings(app, credential).await, 200);
    }
}

/// `credential` is refused at once, by both endpoints.
async fn refused(app: &TestApp, credential: &str, why: &str) {
    assert_eq!(me(app, credential).await.status(), 401, "{why}: /me");
    assert_eq!(
        list_bookings(app, credential).await,
        401,
        "{why}: /listBookings"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remembered_credential_is_refused_at_once_after_each_kind_of_revocation() {
    let app = TestApp::spawn_with(&["--tls", "off", "--rotate-refresh-tokens"]).await;
    let (id, secret) = setup(&app, &[]);
    let cookie = sign_in(&app, EMAIL, PASSWORD).await.unwrap();
    let tokens = |c: String| {
        let (app, id, secret) = (&app, id.clone(), secret.clone());
        async move { pair(redeem(app, &id, &secret, &c, &[]).await).await }
    };

    // The client revokes the access token (RFC 7009); introspection agrees.
    let (access, _) = tokens(code(&app, &cookie, &id, SCOPES, &[]).await).await;
    works(&app, &access).await;
    assert_eq!(
        introspect(&app, &id, &secret, &access).await["active"],
        true
    );
    assert_eq!(revoke(&app, &id, &secret, &access).await.status(), 200);
    refused(&app, &access, "a revoked access token").await;
    assert_eq!(
        introspect(&app, &id, &secret, &access).await["active"],
        false
    );

    // The client revokes the refresh token: the access tokens of its line go with it.
    let (access, rt) = tokens(code(&app, &cookie, &id, SCOPES, &[]).await).await;
    works(&app, &access).await;
    assert_eq!(revoke(&app, &id, &secret, &rt).await.status(), 200);
    refused(&app, &access, "the line of a revoked refresh token").await;

    // A rotated-out refresh token comes back: the whole grant ends, the new tokens too.
    let (old, rt) = tokens(code(&app, &cookie, &id, SCOPES, &[]).await).await;
    let (new, _) = pair(refresh(&app, &id, &secret, &rt).await).await;
    works(&app, &old).await;
    works(&app, &new).await;
    assert_eq!(refresh(&app, &id, &secret, &rt).await.status(), 400);
    refused(&app, &old, "reuse detection, the older token").await;
    refused(&app, &new, "reuse detection, the newer token").await;

    // A code redeemed twice: what it issued is revoked.
    let twice = code(&app, &cookie, &id, SCOPES, &[]).await;
    let (access, _) = tokens(twice.clone()).await;
    works(&app, &access).await;
    assert_eq!(redeem(&app, &id, &secret, &twice, &[]).await.status(), 400);
    refused(&app, &access, "a reused code's tokens").await;

    // The user revokes the app on the account page.
    let (access, _) = tokens(code(&app, &cookie, &id, SCOPES, &[]).await).await;
    works(&app, &access).await;
    revoke_on_account_page(&app, &cookie).await;
    refused(&app, &access, "an app revoked on the account page").await;

    // An API key revoked on the settings page.
    let ada = browser(&app, EMAIL).await;
    let (key, key_id) = make_token(&app, &ada, "Cache", "never").await;
    works(&app, &key).await;
    let path = format!("/settings/tokens/{key_id}/revoke");
    let form = [("csrf_token", ada.csrf.as_str())];
    let resp = app
        .client
        .post(app.url(&path))
        .header("cookie", &ada.cookie);
    assert_eq!(resp.form(&form).send().await.unwrap().status(), 303);
    refused(&app, &key, "a revoked API key").await;

    // The administrator disables the user (the CLI, another process, answers once every
    // server stopped trusting what it verified before).
    let (key, _) = make_token(&app, &ada, "Cache 2", "never").await;
    let (access, _) = tokens(code(&app, &cookie, &id, SCOPES, &[]).await).await;
    works(&app, &key).await;
    works(&app, &access).await;
    assert_eq!(
        introspect(&app, &id, &secret, &access).await["active"],
        true,
        "introspection remembers it"
    );
    docket_json(&app.data_dir(), &["user", "disable", EMAIL], None);
    refused(&app, &key, "a disabled user's key").await;
    refused(&app, &access, "a disabled user's token").await;
    assert_eq!(
        introspect(&app, &id, &secret, &access).await["active"],
        false,
        "introspection agrees"
    );
    app.stop().await;
}

/// Introspection is remembered too (`verified::INTROSPECTED`): a client secret rotated by the
/// administrator (the CLI, another process) no longer introspects once the CLI has answered,
/// even a token that was just introspected with it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rotated_client_secret_no_longer_introspects_once_the_cli_answers() {
    let app = TestApp::spawn().await;
    let (id, secret) = setup(&app, &[]);
    let cookie = sign_in(&app, EMAIL, PASSWORD).await.unwrap();
    let (access, _) = pair(
        redeem(
            &app,
            &id,
            &secret,
            &code(&app, &cookie, &id, SCOPES, &[]).await,
            &[],
        )
        .await,
    )
    .await;
    for _ in 0..3 {
        assert_eq!(
            introspect(&app, &id, &secret, &access).await["active"],
            true
        );
    }
    let rotated = docket_json(&app.data_dir(), &["client", "rotate-secret", &id], None);
    let new_secret = rotated["client_secret"]
        .as_str()
        .expect("the new secret")
        .to_string();
    let old = introspect_call(&app, &id, &secret, &access).await;
    assert_eq!(
        old.status(),
        401,
        "the old secret, once the CLI has answered"
    );
    assert_eq!(
        introspect(&app, &id, &new_secret, &access).await["active"],
        true
    );
    app.stop().await;
}

/// Two nodes on one PostgreSQL database: a token that node B has just verified and that is
/// revoked through node A is refused by B within a second.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revocation_at_one_node_reaches_another_within_a_second() {
    if !on_postgres() {
        eprintln!("skipped: two nodes need PostgreSQL (DOCKET_TEST_POSTGRES)");
        return;
    }
    let first = tempfile::tempdir().unwrap();
    let url = postgres_for(&first.path().join("data")).expect("on PostgreSQL");
    let args = ["--tls", "off", "--database-url", url.as_str()];
    let a = TestApp::spawn_in(first, &args).await;
    let b = TestApp::spawn_with(&args).await;
    let (id, secret) = setup(&a, &[]);
    let cookie = sign_in(&a, EMAIL, PASSWORD).await.unwrap();

    for revoke_at_a in [true, false] {
        let issued = code(&a, &cookie, &id, SCOPES, &[]).await;
        let (access, _) = pair(redeem(&a, &id, &secret, &issued, &[]).await).await;
        works(&b, &access).await;
        assert_eq!(introspect(&b, &id, &secret, &access).await["active"], true);
        if revoke_at_a {
            assert_eq!(revoke(&a, &id, &secret, &access).await.status(), 200);
        } else {
            revoke_on_account_page(&a, &cookie).await;
        }
        let revoked = Instant::now();
        // A itself refuses at once.
        assert_eq!(me(&a, &access).await.status(), 401);
        assert_eq!(introspect(&a, &id, &secret, &access).await["active"], false);
        loop {
            let status = me(&b, &access).await.status();
            let active = introspect(&b, &id, &secret, &access).await["active"] == true;
            if status == 401 && !active {
                break;
            }
            assert!(
                revoked.elapsed() < Duration::from_secs(1),
                "node B still accepts (/me {status}) or shows (active {active}) the token revoked at A after {:?}",
                revoked.elapsed()
            );
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        assert_eq!(list_bookings(&b, &access).await, 401);
    }
    a.stop().await;
    b.stop().await;
}
