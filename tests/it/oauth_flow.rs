//! The OAuth provider end to end: a real client library (the `oauth2` crate), seed-style
//! clients, and the rules and errors of the spec.

use oauth2::basic::BasicClient;
use oauth2::{
    AuthType, AuthUrl, AuthorizationCode, ClientId, ClientSecret, CsrfToken, PkceCodeChallenge,
    RedirectUrl, Scope, TokenResponse, TokenUrl,
};
use serde_json::{Value, json};

use crate::support::TestApp;
use crate::support::login::{PASSWORD, sign_in};
use crate::support::oauth::{REDIRECT, consent, me, setup, urlencode};

fn oauth_client(
    app: &TestApp,
    id: &str,
    secret: &str,
) -> oauth2::Client<
    oauth2::basic::BasicErrorResponse,
    oauth2::basic::BasicTokenResponse,
    oauth2::basic::BasicTokenIntrospectionResponse,
    oauth2::StandardRevocableToken,
    oauth2::basic::BasicRevocationErrorResponse,
    oauth2::EndpointSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointNotSet,
    oauth2::EndpointSet,
> {
    BasicClient::new(ClientId::new(id.into()))
        .set_client_secret(ClientSecret::new(secret.into()))
        .set_auth_uri(AuthUrl::new(app.url("/auth/oauth2/authorize")).unwrap())
        .set_token_uri(TokenUrl::new(app.url("/api/auth/oauth/token")).unwrap())
        .set_redirect_uri(RedirectUrl::new(REDIRECT.into()).unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_oauth2_crate_completes_code_pkce_and_refresh_with_basic_and_body_credentials() {
    let app = TestApp::spawn().await;
    let (id, secret) = setup(&app, &[]);
    let cookie = sign_in(&app, "ada@example.com", PASSWORD).await.unwrap();
    for auth_type in [AuthType::BasicAuth, AuthType::RequestBody] {
        let client = oauth_client(&app, &id, &secret).set_auth_type(auth_type);
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let (url, csrf) = client
            .authorize_url(CsrfToken::new_random)
            .add_scope(Scope::new("READ_PROFILE".into()))
            .add_scope(Scope::new("READ_BOOKING".into()))
            .set_pkce_challenge(challenge)
            .url();
        let q = consent(&app, &cookie, url.as_str(), "allow").await;
        assert_eq!(q["state"], *csrf.secret(), "state comes back unchanged");
        assert_eq!(q["iss"], app.base, "iss names this server");

        let token = client
            .exchange_code(AuthorizationCode::new(q["code"].clone()))
            .set_pkce_verifier(verifier)
            .request_async(&app.client)
            .await
            .expect("code exchange");
        let scopes: Vec<String> = token
            .scopes()
            .unwrap()
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(scopes, vec!["READ_BOOKING", "READ_PROFILE"]);
        let resp = me(&app, token.access_token().secret()).await;
        assert_eq!(resp.status(), 200);
        let body: Value = resp.json().await.unwrap();
        assert_eq!(
            body,
            json!({"id": 1, "username": "ada", "name": "Ada", "email": "ada@example.com"})
        );

        let refreshed = client
            .exchange_refresh_token(token.refresh_token().unwrap())
            .request_async(&app.client)
            .await
            .expect("refresh");
        assert_ne!(
            refreshed.access_token().secret(),
            token.access_token().secret()
        );
        assert_eq!(
            me(&app, refreshed.access_token().secret()).await.status(),
            200
        );
    }
    app.stop().await;
}

/// A seed-style client: no response_type, JSON bodies, the refresh token as a Bearer header.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seed_style_clients_work() {
    let app = TestApp::spawn().await;
    let (id, secret) = setup(&app, &[]);
    let cookie = sign_in(&app, "ada@example.com", PASSWORD).await.unwrap();
    let auth = format!(
        "{}?client_id={id}&state=s-123&redirect_uri={}&scope=READ_BOOKING,READ_PROFILE",
        app.url("/auth/oauth2/authorize"),
        urlencode(REDIRECT)
    );
    let q = consent(&app, &cookie, &auth, "allow").await;
    assert_eq!(q["state"], "s-123");
    let resp = app
        .client
        .post(app.url("/api/auth/oauth/token"))
        .json(&json!({"code": q["code"], "client_id": id, "client_secret": secret, "grant_type": "authorization_code", "redirect_uri": REDIRECT}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["cache-control"], "no-store");
    let tokens: Value = resp.json().await.unwrap();
    let access = tokens["access_token"].as_str().unwrap();
    let refresh = tokens["refresh_token"].as_str().unwrap();
    assert_eq!(tokens["token_type"], "Bearer");
    assert_eq!(tokens["expires_in"], 3600);

    let resp = app
        .client
        .post(app.url("/api/auth/oauth/refreshToken"))
        .bearer_auth(refresh)
        .json(&json!({"grant_type": "refresh_token", "client_id": id, "client_secret": secret}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let body: Value = resp.json().await.unwrap();
    let new_access = body["access_token"].as_str().unwrap();
    assert_ne!(new_access, access);
    assert_eq!(
        body["refresh_token"], refresh,
        "confidential clients keep their refresh token, and every answer carries it"
    );
    assert_eq!(me(&app, new_access).await.status(), 200);
    app.stop().await;
}
