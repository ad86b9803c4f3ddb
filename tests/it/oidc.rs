//! OpenID Connect at the protocol level: discovery, the key set, when an ID token is issued,
//! and what userinfo tells (the client libraries' own runs are in `clients.rs`).

use serde_json::Value;

use crate::harness::TestApp;
use crate::oauth_flow::{PASSWORD, login, setup};
use crate::oauth_rules::{code, redeem};

async fn json(app: &TestApp, path: &str) -> Value {
    let resp = app.get(path).await;
    assert_eq!(resp.status(), 200, "{path}");
    resp.json().await.unwrap()
}

async fn userinfo(app: &TestApp, token: &str) -> reqwest::Response {
    app.client
        .get(app.url("/api/auth/oauth/userinfo"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
}

/// The payload of a compact JWS, decoded (its signature is checked by the library tests).
fn jwt_claims(token: &str) -> Value {
    use base64::Engine;
    let payload = token.split('.').nth(1).expect("three parts");
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_and_the_key_set_describe_what_is_served() {
    let app = TestApp::spawn().await;
    let m = json(&app, "/.well-known/openid-configuration").await;
    let base = app.base.as_str();
    assert_eq!(m["issuer"], base);
    assert_eq!(m["jwks_uri"], format!("{base}/.well-known/jwks.json"));
    assert_eq!(
        m["userinfo_endpoint"],
        format!("{base}/api/auth/oauth/userinfo")
    );
    assert_eq!(m["id_token_signing_alg_values_supported"][0], "RS256");
    assert_eq!(m["subject_types_supported"][0], "public");
    for s in ["openid", "profile", "email", "READ_PROFILE"] {
        assert!(
            m["scopes_supported"]
                .as_array()
                .unwrap()
                .iter()
                .any(|v| v == s),
            "{s}"
        );
    }
    let oauth = json(&app, "/.well-known/oauth-authorization-server").await;
    assert_eq!(oauth["userinfo_endpoint"], m["userinfo_endpoint"]);
    let keys = json(&app, "/.well-known/jwks.json").await;
    let key = &keys["keys"][0];
    assert_eq!(key["kty"], "RSA");
    assert_eq!(key["alg"], "RS256");
    assert!(key["kid"].is_string() && key["n"].is_string(), "{keys}");
    assert!(key.get("d").is_none(), "no private part is published");
    // The same key after a restart: tokens signed before stay verifiable.
    let data = app.stop().await;
    let again = TestApp::spawn_in(data, &["--tls", "off"]).await;
    assert_eq!(json(&again, "/.well-known/jwks.json").await, keys);
    again.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_id_token_comes_only_with_openid_and_userinfo_tells_what_the_scopes_allow() {
    let app = TestApp::spawn().await;
    let (id, secret) = setup(&app, &[]);
    let cookie = login(&app, "ada@example.com", PASSWORD).await.unwrap();

    // Without openid: no ID token, and userinfo is refused.
    let c = code(&app, &cookie, &id, "READ_BOOKING", &[]).await;
    let t: Value = redeem(&app, &id, &secret, &c, &[])
        .await
        .json()
        .await
        .unwrap();
    assert!(t.get("id_token").is_none(), "{t}");
    let resp = userinfo(&app, t["access_token"].as_str().unwrap()).await;
    assert_eq!(resp.status(), 403);

    // openid alone: the ID token names the user and echoes the nonce; userinfo says only `sub`.
    let c = code(&app, &cookie, &id, "openid", &[("nonce", "n-42")]).await;
    let t: Value = redeem(&app, &id, &secret, &c, &[])
        .await
        .json()
        .await
        .unwrap();
    let claims = jwt_claims(t["id_token"].as_str().unwrap());
    assert_eq!(claims["nonce"], "n-42");
    assert_eq!(claims["aud"], id.as_str());
    assert_eq!(claims["iss"], app.base.as_str());
    assert!(claims.get("email").is_none(), "{claims}");
    let info: Value = userinfo(&app, t["access_token"].as_str().unwrap())
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(info, serde_json::json!({"sub": claims["sub"]}));

    // openid email: the address, never claimed verified.
    let c = code(&app, &cookie, &id, "openid email", &[]).await;
    let t: Value = redeem(&app, &id, &secret, &c, &[])
        .await
        .json()
        .await
        .unwrap();
    let claims = jwt_claims(t["id_token"].as_str().unwrap());
    assert!(claims.get("nonce").is_none(), "no nonce was sent: {claims}");
    assert_eq!(claims["email"], "ada@example.com");
    assert_eq!(claims["email_verified"], false);
    app.stop().await;
}
