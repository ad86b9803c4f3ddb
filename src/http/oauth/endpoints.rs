//! The OAuth endpoints apps call: token, refreshToken, revoke, introspect, the identity check
//! and the metadata document. Bodies are form-encoded or JSON; clients authenticate with HTTP
//! Basic or body credentials. The use cases are in `oauth::token_endpoint` and
//! `oauth::identity`; this module reads the request and writes the protocol's answers: the
//! four client endpoints answer every refusal with RFC 6749's own body (`oauth_error`), the
//! others leave their errors to the middleware.

use bytes::Bytes;
use http::{HeaderValue, StatusCode, header};
use serde::Deserialize;
use serde_json::{Value, json};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use crate::core::error::AppError;
use crate::http::reply::{json_response, json_result};
use crate::http::server::state::AppState;
use crate::http::with_state;
use crate::identity::principal::Credentials;
use crate::identity::scope::Scope;
use crate::oauth::answers::{Introspected, Profile, Revoked, TokenAnswer, UserInfo};
use crate::oauth::basic;
use crate::{
    oauth::token_endpoint, oauth::token_endpoint::Answer, oauth::token_endpoint::Endpoint,
    oauth::token_endpoint::Fields, oauth::token_endpoint::Policy, oauth::token_endpoint::Request,
    oauth::token_endpoint::Tokens,
};
use crate::{oauth::tokens::OAuthError, oauth::tokens::OAuthErrorBody};

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    client_routes(state.clone())
        .or(identity_routes(state))
        .unify()
        .boxed()
}

/// The endpoints a client calls with its own credentials; refusals in RFC 6749's form.
fn client_routes(state: AppState) -> BoxedFilter<(Response,)> {
    let token = warp::path!("api" / "auth" / "oauth" / "token")
        .and(warp::post())
        .and(with_state(state.clone()))
        .and(call())
        .then(token);
    let refresh = warp::path!("api" / "auth" / "oauth" / "refreshToken")
        .and(warp::post())
        .and(with_state(state.clone()))
        .and(call())
        .then(refresh);
    let revoke = warp::path!("api" / "auth" / "oauth" / "revoke")
        .and(warp::post())
        .and(with_state(state.clone()))
        .and(call())
        .then(revoke);
    let introspect = warp::path!("api" / "auth" / "oauth" / "introspect")
        .and(warp::post())
        .and(with_state(state.clone()))
        .and(call())
        .then(introspect);
    token
        .or(refresh)
        .unify()
        .or(revoke)
        .unify()
        .or(introspect)
        .unify()
        .boxed()
}

/// The identity check, OpenID Connect's user info and the discovery documents.
fn identity_routes(state: AppState) -> BoxedFilter<(Response,)> {
    // The identity check answers GET and POST, as the scheduling service's does.
    let me = warp::path!("api" / "auth" / "oauth" / "me")
        .and(warp::get().or(warp::post()).unify())
        .and(with_state(state.clone()))
        .and(crate::http::auth::bearer(&state))
        .then(me)
        .map(json_result);
    let userinfo = warp::path!("api" / "auth" / "oauth" / "userinfo")
        .and(warp::get().or(warp::post()).unify())
        .and(with_state(state.clone()))
        .and(crate::http::auth::bearer(&state))
        .then(userinfo)
        .map(json_result);
    let metadata = warp::path!(".well-known" / "oauth-authorization-server")
        .and(warp::get())
        .and(with_state(state.clone()))
        .map(metadata);
    let openid_configuration = warp::path!(".well-known" / "openid-configuration")
        .and(warp::get())
        .and(with_state(state.clone()))
        .map(openid_configuration);
    let jwks = warp::path!(".well-known" / "jwks.json")
        .and(warp::get())
        .and(with_state(state))
        .then(jwks)
        .map(json_result);
    me.or(userinfo)
        .unify()
        .or(metadata)
        .unify()
        .or(openid_configuration)
        .unify()
        .or(jwks)
        .unify()
        .boxed()
}

/// A call of one of the four client endpoints, as sent.
struct Call {
    content_type: Option<String>,
    authorization: Option<String>,
    body: Bytes,
}

/// The call (a body of at most 64 KiB).
fn call() -> impl Filter<Extract = (Call,), Error = warp::Rejection> + Clone {
    warp::header::optional::<String>("content-type")
        .and(warp::header::optional::<String>("authorization"))
        .and(crate::http::body::capped_bytes(64 * 1024))
        .map(|content_type, authorization, body| Call {
            content_type,
            authorization,
            body,
        })
}

/// `POST /api/auth/oauth/token`: a code or a refresh token for tokens (RFC 6749 4.1.3, 6).
async fn token(state: AppState, call: Call) -> Response {
    endpoint(state, call, Endpoint::Token).await
}

/// `POST /api/auth/oauth/refreshToken`: the seed's refresh, the token also as `Bearer`.
async fn refresh(state: AppState, call: Call) -> Response {
    endpoint(state, call, Endpoint::Refresh).await
}

/// `POST /api/auth/oauth/revoke` (RFC 7009).
async fn revoke(state: AppState, call: Call) -> Response {
    endpoint(state, call, Endpoint::Revoke).await
}

/// `POST /api/auth/oauth/introspect` (RFC 7662).
async fn introspect(state: AppState, call: Call) -> Response {
    endpoint(state, call, Endpoint::Introspect).await
}

/// The body's parameters: JSON (an object whose string, number and boolean values count, as
/// their text) or form-encoded, read into `Fields` by the same rules (the last of a repeated
/// name counts, other names are ignored).
fn fields(content_type: Option<&str>, body: &[u8]) -> Result<Fields, OAuthError> {
    let is_json = content_type.is_some_and(|c| c.trim_start().starts_with("application/json"));
    if !is_json {
        return crate::http::body::pairs::<Fields>(body)
            .map_err(|e| OAuthError::invalid_request(e.public_message()));
    }
    // Read as a JSON value first: an object with a repeated key keeps its last value, as a form
    // does (a struct read straight from the text would refuse it).
    let v: Value = serde_json::from_slice(body)
        .map_err(|e| OAuthError::invalid_request(format!("invalid JSON body: {e}")))?;
    let obj = v
        .as_object()
        .ok_or_else(|| OAuthError::invalid_request("the JSON body must be an object"))?;
    let texts = obj
        .iter()
        .filter_map(|(k, v)| {
            let s = match v {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                Value::Bool(b) => b.to_string(),
                _ => return None,
            };
            Some((k.clone(), Value::String(s)))
        })
        .collect();
    Fields::deserialize(Value::Object(texts))
        .map_err(|e| OAuthError::invalid_request(format!("invalid JSON body: {e}")))
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

/// The four client endpoints: the client's credentials (HTTP Basic or the body) and the body's
/// parameters, answered by `token_endpoint::answer`, refusals in RFC 6749 5.2's form.
async fn endpoint(state: AppState, call: Call, endpoint: Endpoint) -> Response {
    let authorization = call.authorization.as_deref();
    let basic = match authorization.and_then(basic::parse) {
        None => None,
        Some(Ok(c)) => Some((c.client_id, c.secret)),
        // RFC 6749 5.2: credentials that cannot be read are a failed client authentication.
        Some(Err(why)) => return oauth_error(&OAuthError::invalid_client(why), true),
    };
    let basic_used = basic.is_some();
    let fields = match fields(call.content_type.as_deref(), &call.body) {
        Ok(f) => f,
        Err(e) => return oauth_error(&e, basic_used),
    };
    let request = Request {
        endpoint,
        fields,
        basic,
        bearer: bearer(authorization),
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

/// `GET|POST /api/auth/oauth/me`: the account behind the access token.
async fn me(state: AppState, creds: Credentials) -> Result<Profile, AppError> {
    let user = crate::oauth::identity::profile(&state.ctx(), &state.verified, creds).await?;
    Ok(Profile::of(user))
}

/// `GET|POST /api/auth/oauth/userinfo` (OpenID Connect Core 5.3).
async fn userinfo(state: AppState, creds: Credentials) -> Result<UserInfo, AppError> {
    crate::oauth::identity::userinfo(&state.ctx(), &state.verified, creds).await
}

/// The public key that signs ID tokens (made on the first call when there is none yet).
async fn jwks(state: AppState) -> Result<Value, AppError> {
    let tokens = state.id_tokens.clone();
    tokio::task::spawn_blocking(move || tokens.jwks())
        .await
        .map_err(|e| AppError::internal(format!("JWKS task failed: {e}")))?
}

/// `GET /.well-known/oauth-authorization-server` (RFC 8414).
fn metadata(state: AppState) -> Response {
    json_response(StatusCode::OK, &server_metadata(&state))
}

/// `GET /.well-known/openid-configuration`.
fn openid_configuration(state: AppState) -> Response {
    json_response(StatusCode::OK, &openid_metadata(&state))
}

/// OpenID Connect discovery: the authorization server's metadata with what OpenID adds.
fn openid_metadata(state: &AppState) -> Value {
    let issuer = state.issuer();
    let mut m = server_metadata(state);
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

fn server_metadata(state: &AppState) -> Value {
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
        let j = fields(Some("application/json"), br#"{"code":"a","token":3}"#).unwrap();
        assert_eq!(j.code.as_deref(), Some("a"));
        assert_eq!(j.token.as_deref(), Some("3"));
        let f = fields(Some("application/x-www-form-urlencoded"), b"code=a%20b").unwrap();
        assert_eq!(f.code.as_deref(), Some("a b"));
        assert!(fields(Some("application/json"), b"[1]").is_err());
    }

    /// As the map they were read into before: the last of a repeated name, numbers and booleans
    /// as text, other JSON values as if left out, unknown names ignored.
    #[test]
    fn parameters_read_as_the_map_did() {
        let json = br#"{"code":"a","code":"b","scope":true,"token":1.5e3,"state":1,"client_id":[1],"redirect_uri":null}"#;
        let j = fields(Some("application/json; charset=utf-8"), json).unwrap();
        assert_eq!(j.code.as_deref(), Some("b"));
        assert_eq!(j.scope.as_deref(), Some("true"));
        assert_eq!(j.token.as_deref(), Some("1500.0"));
        assert_eq!((j.client_id, j.redirect_uri), (None, None));
        let f = fields(None, b"code=a&code=b&x=1&token=").unwrap();
        assert_eq!(f.code.as_deref(), Some("b"));
        assert_eq!(f.token.as_deref(), Some(""));
        assert_eq!(f.grant_type, None);
    }
}
