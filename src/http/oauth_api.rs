//! The OAuth endpoints apps call: token, refreshToken, revoke, introspect, the identity check
//! and the metadata document. Bodies are form-encoded or JSON; clients authenticate with HTTP
//! Basic or body credentials.

use std::collections::HashMap;

use bytes::Bytes;
use http::{HeaderValue, StatusCode, header};
use serde_json::{Value, json};
use warp::Filter;
use warp::filters::BoxedFilter;
use warp::reply::Response;

use super::reply::{json_response, json_result};
use crate::db::now;
use crate::error::AppError;
use crate::http::state::AppState;
use crate::oauth::basic;
use crate::oauth::clients::Client;
use crate::oauth::scope::{self, Scope};
use crate::oauth::tokens::{Issued, OAuthError, OAuthErrorBody, store};

pub fn routes(state: AppState) -> BoxedFilter<(Response,)> {
    let s = move || super::with_state(state.clone());
    let body = || {
        warp::header::optional::<String>("content-type")
            .and(warp::header::optional::<String>("authorization"))
            .and(super::body::capped_bytes(64 * 1024))
    };
    let token = warp::path!("api" / "auth" / "oauth" / "token")
        .and(warp::post())
        .and(s())
        .and(body())
        .then(|st, ct, auth, b| endpoint(st, ct, auth, b, Kind::Token));
    let refresh = warp::path!("api" / "auth" / "oauth" / "refreshToken")
        .and(warp::post())
        .and(s())
        .and(body())
        .then(|st, ct, auth, b| endpoint(st, ct, auth, b, Kind::Refresh));
    let revoke = warp::path!("api" / "auth" / "oauth" / "revoke")
        .and(warp::post())
        .and(s())
        .and(body())
        .then(|st, ct, auth, b| endpoint(st, ct, auth, b, Kind::Revoke));
    let introspect = warp::path!("api" / "auth" / "oauth" / "introspect")
        .and(warp::post())
        .and(s())
        .and(body())
        .then(|st, ct, auth, b| endpoint(st, ct, auth, b, Kind::Introspect));
    let me = warp::path!("api" / "auth" / "oauth" / "me")
        .and(warp::get())
        .and(s())
        .and(super::auth::credentials())
        .then(|st: AppState, creds| async move { json_result(me(&st, creds).await) });
    let metadata = warp::path!(".well-known" / "oauth-authorization-server")
        .and(warp::get())
        .and(s())
        .map(|st: AppState| json_response(StatusCode::OK, &metadata(&st)));
    token
        .or(refresh)
        .unify()
        .or(revoke)
        .unify()
        .or(introspect)
        .unify()
        .or(me)
        .unify()
        .or(metadata)
        .unify()
        .boxed()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Token,
    Refresh,
    Revoke,
    Introspect,
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
    kind: Kind,
) -> Response {
    let basic_creds = match authorization.as_deref().and_then(basic::parse) {
        None => None,
        Some(Ok(c)) => Some((c.client_id, c.secret)),
        // RFC 6749 5.2: credentials that cannot be read are a failed client authentication.
        Some(Err(why)) => return oauth_error(&OAuthError::invalid_client(why), true),
    };
    let basic_used = basic_creds.is_some();
    match handle(
        &state,
        content_type.as_deref(),
        authorization.as_deref(),
        basic_creds,
        &body,
        kind,
    )
    .await
    {
        Ok(Ok(resp)) => no_store(resp),
        Ok(Err(e)) => oauth_error(&e, basic_used),
        Err(e) => {
            let e = match e {
                AppError::Unavailable(_) | AppError::Overloaded { .. } => {
                    OAuthError::new("temporarily_unavailable", "try again")
                }
                other => {
                    tracing::error!(error = %other, "token endpoint failed");
                    OAuthError::new("server_error", "internal error; the server log has details")
                }
            };
            oauth_error(&e, basic_used)
        }
    }
}

type Outcome = Result<Result<Response, OAuthError>, AppError>;

async fn handle(
    state: &AppState,
    content_type: Option<&str>,
    authorization: Option<&str>,
    basic_creds: Option<(String, String)>,
    body: &[u8],
    kind: Kind,
) -> Outcome {
    let f = match fields(content_type, body) {
        Ok(f) => f,
        Err(e) => return Ok(Err(e)),
    };
    // Seed clients send the refresh token as `Authorization: Bearer` on the refresh endpoint.
    let bearer = authorization
        .and_then(|h| h.trim().split_once(' '))
        .filter(|(s, _)| s.eq_ignore_ascii_case("bearer"))
        .map(|(_, t)| t.trim().to_string());
    let (client_id, secret) = match (&basic_creds, f.get("client_id"), f.get("client_secret")) {
        (Some(_), _, Some(_)) => {
            return Ok(Err(OAuthError::invalid_request(
                "use one client authentication method, not two",
            )));
        }
        (Some((id, s)), body_id, None) => {
            if body_id.is_some_and(|b| b != id) {
                return Ok(Err(OAuthError::invalid_request(
                    "client_id differs from the Basic credentials",
                )));
            }
            (id.clone(), Some(s.clone()))
        }
        (None, Some(id), s) => (id.clone(), s.cloned()),
        (None, None, _) => {
            return Ok(Err(OAuthError::invalid_client(
                "client authentication is required",
            )));
        }
    };
    let client = {
        let id = client_id.clone();
        state
            .db
            .read(move |c| crate::oauth::clients::store::get(c, &id))
            .await?
    };
    let client = match authenticate_client(client, secret.as_deref()) {
        Ok(c) => c,
        Err(e) => return Ok(Err(e)),
    };
    match kind {
        Kind::Token => match f.get("grant_type").map(String::as_str) {
            Some("authorization_code") => code_grant(state, &client, &f).await,
            Some("refresh_token") => {
                let rt = f.get("refresh_token").cloned();
                refresh_grant(state, &client, &f, rt, true).await
            }
            Some(other) => Ok(Err(OAuthError::new(
                "unsupported_grant_type",
                format!("grant_type {other:?} is not supported"),
            ))),
            None => Ok(Err(OAuthError::invalid_request("grant_type is required"))),
        },
        Kind::Refresh => match f.get("grant_type").map(String::as_str) {
            Some("refresh_token") | None => {
                let rt = f.get("refresh_token").cloned().or(bearer);
                refresh_grant(state, &client, &f, rt, false).await
            }
            Some(other) => Ok(Err(OAuthError::new(
                "unsupported_grant_type",
                format!("this endpoint takes grant_type=refresh_token, not {other:?}"),
            ))),
        },
        Kind::Revoke => {
            let Some(token) = f.get("token").cloned() else {
                return Ok(Err(OAuthError::invalid_request("token is required")));
            };
            let row = client.row_id;
            state
                .db
                .write(move |tx| store::revoke_token(tx, row, &token, now()))
                .await?;
            Ok(Ok(json_response(StatusCode::OK, &json!({}))))
        }
        Kind::Introspect => {
            let Some(token) = f.get("token").cloned() else {
                return Ok(Err(OAuthError::invalid_request("token is required")));
            };
            let row = client.row_id;
            let found = state
                .db
                .read(move |c| store::introspect(c, row, &token, now()))
                .await?;
            let body = match found {
                None => json!({"active": false}),
                Some(i) => json!({
                    "active": true,
                    "scope": scope::join(&i.scopes),
                    "client_id": i.client_id,
                    "username": i.username,
                    "sub": i.user_id.to_string(),
                    "token_type": if i.kind == "access" { "Bearer" } else { "refresh_token" },
                    "iat": i.issued_at,
                    "exp": i.expires_at,
                    "iss": state.issuer(),
                }),
            };
            Ok(Ok(json_response(StatusCode::OK, &body)))
        }
    }
}

fn authenticate_client(client: Option<Client>, secret: Option<&str>) -> Result<Client, OAuthError> {
    let bad = || OAuthError::invalid_client("unknown client or wrong client credentials");
    let client = client.ok_or_else(bad)?;
    match (client.public, secret) {
        (true, None) => Ok(client),
        (true, Some(_)) => Err(OAuthError::invalid_client(
            "this public client has no secret",
        )),
        (false, Some(s)) if client.secret_matches(s) => Ok(client),
        (false, _) => Err(bad()),
    }
}

fn token_response(issued: &Issued, refresh: Option<&str>) -> Response {
    let mut body = json!({
        "access_token": issued.access.expose(),
        "token_type": "Bearer",
        "expires_in": issued.expires_in,
        "scope": scope::join(&issued.scopes),
    });
    if let Some(r) = issued.refresh.as_ref().map(|r| r.expose()).or(refresh) {
        body["refresh_token"] = json!(r);
    }
    json_response(StatusCode::OK, &body)
}

async fn code_grant(state: &AppState, client: &Client, f: &HashMap<String, String>) -> Outcome {
    let Some(code) = f.get("code").cloned() else {
        return Ok(Err(OAuthError::invalid_request("code is required")));
    };
    let (redirect_uri, verifier) = (
        f.get("redirect_uri").cloned(),
        f.get("code_verifier").cloned(),
    );
    let (row, life) = (client.row_id, state.config.lifetimes);
    let result = state
        .db
        .write(move |tx| {
            store::redeem_code(
                tx,
                &store::Redemption {
                    client: row,
                    code: &code,
                    redirect_uri: redirect_uri.as_deref(),
                    code_verifier: verifier.as_deref(),
                },
                life,
                now(),
            )
        })
        .await?;
    Ok(result.map(|issued| token_response(&issued, None)))
}

async fn refresh_grant(
    state: &AppState,
    client: &Client,
    f: &HashMap<String, String>,
    refresh_token: Option<String>,
    echo_refresh: bool,
) -> Outcome {
    let Some(rt) = refresh_token.filter(|t| !t.is_empty()) else {
        return Ok(Err(OAuthError::invalid_request(
            "refresh_token is required",
        )));
    };
    let scopes = match f.get("scope").map(|s| scope::parse_list(s)) {
        None => None,
        Some(Ok(s)) => Some(s),
        Some(Err(e)) => return Ok(Err(OAuthError::invalid_scope(e.public_message()))),
    };
    let rotate = client.public || state.config.rotate_refresh_tokens;
    let (row, life) = (client.row_id, state.config.lifetimes);
    let presented = rt.clone();
    let result = state
        .db
        .write(move |tx| {
            store::refresh(
                tx,
                &store::Refresh {
                    client: row,
                    refresh_token: &presented,
                    scopes,
                    rotate,
                },
                life,
                now(),
            )
        })
        .await?;
    // The token endpoint answers standard clients with the refresh token to keep using.
    let echo = (echo_refresh && !rotate).then_some(rt.as_str());
    Ok(result.map(|issued| token_response(&issued, echo)))
}

async fn me(
    state: &AppState,
    creds: crate::oauth::principal::Credentials,
) -> Result<Value, AppError> {
    // One trip to the database: the credential check and the profile read together.
    super::auth::rate_limit(state, &creds)?;
    let user = crate::oauth::principal::read_as(&state.db, creds, |c, who| {
        who.require(Scope::ReadProfile)?;
        crate::users::store::get(c, who.user_id)?
            .ok_or_else(|| AppError::Unauthorized("the user no longer exists".into()))
    })
    .await?;
    Ok(json!({"id": user.id, "username": user.username, "name": user.name, "email": user.email}))
}

fn metadata(state: &AppState) -> Value {
    let issuer = state.issuer();
    json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}/auth/oauth2/authorize"),
        "token_endpoint": format!("{issuer}/api/auth/oauth/token"),
        "revocation_endpoint": format!("{issuer}/api/auth/oauth/revoke"),
        "introspection_endpoint": format!("{issuer}/api/auth/oauth/introspect"),
        "userinfo_endpoint": format!("{issuer}/api/auth/oauth/me"),
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
