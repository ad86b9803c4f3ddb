//! The OAuth endpoints apps call: token, refreshToken, revoke, introspect, the identity check
//! and the metadata document. Bodies are form-encoded or JSON; clients authenticate with HTTP
//! Basic or body credentials. The use cases are in `oauth::token_endpoint` and
//! `oauth::identity`; this module reads the request and writes the protocol's answers.

use std::collections::HashMap;

use bytes::Bytes;
use http::{HeaderValue, StatusCode, header};
use serde_json::{Value, json};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::error::AppError;
use crate::http::reply::{json_response, json_result};
use crate::http::server::state::AppState;
use crate::identity::scope::Scope;
use crate::oauth::answers::{Introspected, Profile, Revoked, TokenAnswer, UserInfo};
use crate::oauth::basic;
use crate::{
    oauth::token_endpoint, oauth::token_endpoint::Answer, oauth::token_endpoint::Endpoint,
    oauth::token_endpoint::Policy, oauth::token_endpoint::Request, oauth::token_endpoint::Tokens,
};
use crate::{oauth::tokens::OAuthError, oauth::tokens::OAuthErrorBody};

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = {
        let state = state.clone();
        move || crate::http::with_state(state.clone())
    };
    let body = || {
        warp::header::optional::<String>("content-type")
            .and(warp::header::optional::<String>("authorization"))
            .and(crate::http::body::capped_bytes(64 * 1024))
    };
    let token = warp::path!("api" / "auth" / "oauth" / "token")
        .and(warp::post())
        .and(s())
        .and(body())
        .then(|st, ct, auth, b| endpoint(st, ct, auth, b, Endpoint::Token));
    let refresh = warp::path!("api" / "auth" / "oauth" / "refreshToken")
        .and(warp::post())
        .and(s())
        .and(body())
        .then(|st, ct, auth, b| endpoint(st, ct, auth, b, Endpoint::Refresh));
    let revoke = warp::path!("api" / "auth" / "oauth" / "revoke")
        .and(warp::post())
        .and(s())
        .and(body())
        .then(|st, ct, auth, b| endpoint(st, ct, auth, b, Endpoint::Revoke));
    let introspect = warp::path!("api" / "auth" / "oauth" / "introspect")
        .and(warp::post())
        .and(s())
        .and(body())
        .then(|st, ct, auth, b| endpoint(st, ct, auth, b, Endpoint::Introspect));
    // The identity check answers GET and POST, as the scheduling service's does.
    let me = warp::path!("api" / "auth" / "oauth" / "me")
        .and(warp::get().or(warp::post()).unify())
        .and(s())
        .and(crate::http::auth::bearer(&state))
        .then(|st: AppState, creds| async move { json_result(me(&st, creds).await) });
    let userinfo = warp::path!("api" / "auth" / "oauth" / "userinfo")
        .and(warp::get().or(warp::post()).unify())
        .and(s())
        .and(crate::http::auth::bearer(&state))
        .then(|st: AppState, creds| async move { json_result(userinfo(&st, creds).await) });
    let metadata = warp::path!(".well-known" / "oauth-authorization-server")
        .and(warp::get())
        .and(s())
        .map(|st: AppState| json_response(StatusCode::OK, &metadata(&st)));
    let openid_configuration = warp::path!(".well-known" / "openid-configuration")
        .and(warp::get())
        .and(s())
        .map(|st: AppState| json_response(StatusCode::OK, &openid_metadata(&st)));
    let jwks = warp::path!(".well-known" / "jwks.json")
        .and(warp::get())
        .and(s())
        .then(|st: AppState| async move { json_result(jwks(&st).await) });
    token
        .or(refresh)
        .unify()
        .or(revoke)
        .unify()
        .or(introspect)
        .unify()
        .or(me)
        .unify()
        .or(userinfo)
        .unify()
        .or(metadata)
        .unify()
        .or(openid_configuration)
        .unify()
        .or(jwks)
        .unify()
        .boxed()
}

/// The body's fields: JSON (string, number or boolean values) or form-encoded.
fn fields(content_type: Option<&str>, body: &[u8]) -> Result<HashMap<String, String>, OAuthError> {
    let is_json = content_type.is_some_and(|c| c.trim_start().starts_with("application/json"));
    if is_json {
        let v: Value = serde_json::from_slice(body)
            .map_err(|e| OAuthError::invalid_request(format!("invalid JSON body: {e}")))?;
        let obj = v
            .as_object()
            .ok_or_else(|| OAuthError::invalid_request("the JSON body must be an object"))?;
        Ok(obj
            .iter()
            .filter_map(|(k, v)| {
                let s = match v {
                    Value::String(s) => s.clone(),
                    Value::Number(n) => n.to_string(),
                    Value::Bool(b) => b.to_string(),
                    _ => return None,
                };
                Some((k.clone(), s))
            })
            .collect())
    } else {
        Ok(url::form_urlencoded::parse(body).into_owned().collect())
    }
}

fn oauth_error(e: &OAuthError, basic_used: bool) -> Response {
    let mut resp = json_response(
        e.status(),
        &OAuthErrorBody {
            error: e.error,
            error_description: &e.description,
            message: &e.description,
        },
    );
    if e.error == "invalid_client" {
        let challenge = if basic_used {
            "Basic realm=\"docket\""
        } else {
            "Basic realm=\"docket\", Bearer realm=\"docket\""
        };
        resp.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static(challenge),
        );
    }
    no_store(resp)
}

fn no_store(mut resp: Response) -> Response {
    let h = resp.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
    resp
}

async fn endpoint(
    state: AppState,
    content_type: Option<String>,
    authorization: Option<String>,
    body: Bytes,
    endpoint: Endpoint,
) -> Response {
    let basic = match authorization.as_deref().and_then(basic::parse) {
        None => None,
        Some(Ok(c)) => Some((c.client_id, c.secret)),
        // RFC 6749 5.2: credentials that cannot be read are a failed client authentication.
        Some(Err(why)) => return oauth_error(&OAuthError::invalid_client(why), true),
    };
    let basic_used = basic.is_some();
    let fields = match fields(content_type.as_deref(), &body) {
        Ok(f) => f,
        Err(e) => return oauth_error(&e, basic_used),
    };
    let request = Request {
        endpoint,
        fields,
        basic,
        bearer: bearer(authorization.as_deref()),
    };
    let policy = Policy {
        lifetimes: state.config.lifetimes,
        rotate_refresh_tokens: state.config.rotate_refresh_tokens,
    };
    let openid = token_endpoint::OpenId {
        tokens: state.id_tokens.clone(),
        issuer: state.issuer(),
    };
    match token_endpoint::answer(&state.ctx(), &state.verified, policy, &openid, request).await {
        Ok(Ok(answer)) => no_store(reply(&state, answer)),
        Ok(Err(e)) => oauth_error(&e, basic_used),
        Err(e) => oauth_error(&server_error(e), basic_used),
    }
}

/// The token of an `Authorization: Bearer` header.
fn bearer(authorization: Option<&str>) -> Option<String> {
    authorization
        .and_then(|h| h.trim().split_once(' '))
        .filter(|(s, _)| s.eq_ignore_ascii_case("bearer"))
        .map(|(_, t)| t.trim().to_string())
}

/// The protocol's word for a failure of the server's own (RFC 6749 5.2).
fn server_error(e: AppError) -> OAuthError {
    match e {
        AppError::Unavailable(_) | AppError::Overloaded { .. } => {
            OAuthError::new("temporarily_unavailable", "try again")
        }
        other => {
            tracing::error!(error = %other, "token endpoint failed");
            OAuthError::new("server_error", "internal error; the server log has details")
        }
    }
}

fn reply(state: &AppState, answer: Answer) -> Response {
    match answer {
        Answer::Tokens(t) => json_response(StatusCode::OK, &token_answer(&t)),
        Answer::Revoked => json_response(StatusCode::OK, &Revoked {}),
        Answer::Introspected(found) => json_response(
            StatusCode::OK,
            &Introspected::of(found.as_ref(), state.issuer()),
        ),
    }
}

fn token_answer(tokens: &Tokens) -> TokenAnswer {
    let issued = &tokens.issued;
    TokenAnswer {
        access_token: issued.access.expose().to_string(),
        token_type: "Bearer",
        expires_in: issued.expires_in,
        scope: issued.scope_text.clone(),
        refresh_token: tokens.refresh_token().map(str::to_string),
        id_token: tokens.id_token.clone(),
    }
}

async fn me(
    state: &AppState,
    creds: crate::identity::principal::Credentials,
) -> Result<Profile, AppError> {
    let user = crate::oauth::identity::profile(&state.ctx(), &state.verified, creds).await?;
    Ok(Profile::of(user))
}

async fn userinfo(
    state: &AppState,
    creds: crate::identity::principal::Credentials,
) -> Result<UserInfo, AppError> {
    crate::oauth::identity::userinfo(&state.ctx(), &state.verified, creds).await
}

/// The public key that signs ID tokens (made on the first call when there is none yet).
async fn jwks(state: &AppState) -> Result<Value, AppError> {
    let tokens = state.id_tokens.clone();
    tokio::task::spawn_blocking(move || tokens.jwks())
        .await
        .map_err(|e| AppError::internal(format!("JWKS task failed: {e}")))?
}

/// OpenID Connect discovery: the authorization server's metadata with what OpenID adds.
fn openid_metadata(state: &AppState) -> Value {
    let issuer = state.issuer();
    let mut m = metadata(state);
    m["jwks_uri"] = json!(format!("{issuer}/.well-known/jwks.json"));
    m["subject_types_supported"] = json!(["public"]);
    m["id_token_signing_alg_values_supported"] = json!(["RS256"]);
    m["claims_supported"] = json!([
        "sub",
        "iss",
        "aud",
        "exp",
        "iat",
        "auth_time",
        "nonce",
        "name",
        "preferred_username",
        "email",
        "email_verified"
    ]);
    // `select_account` signs in again: one account per browser, and signing in picks it.
    m["prompt_values_supported"] = json!(["none", "login", "consent", "select_account"]);
    m
}

fn metadata(state: &AppState) -> Value {
    let issuer = state.issuer();
    json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}/auth/oauth2/authorize"),
        "token_endpoint": format!("{issuer}/api/auth/oauth/token"),
        "revocation_endpoint": format!("{issuer}/api/auth/oauth/revoke"),
        "introspection_endpoint": format!("{issuer}/api/auth/oauth/introspect"),
        "userinfo_endpoint": format!("{issuer}/api/auth/oauth/userinfo"),
        "jwks_uri": format!("{issuer}/.well-known/jwks.json"),
        "scopes_supported": Scope::ALL.map(Scope::as_str),
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "token_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic", "none"],
        "revocation_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic", "none"],
        "introspection_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic", "none"],
        "code_challenge_methods_supported": ["S256"],
        "authorization_response_iss_parameter_supported": true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_are_json_or_form() {
        let j = fields(Some("application/json"), br#"{"code":"a","n":3}"#).unwrap();
        assert_eq!(j["code"], "a");
        assert_eq!(j["n"], "3");
        let f = fields(Some("application/x-www-form-urlencoded"), b"code=a%20b").unwrap();
        assert_eq!(f["code"], "a b");
        assert!(fields(Some("application/json"), b"[1]").is_err());
    }
}
