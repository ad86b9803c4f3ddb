//! The OpenAPI operations of the OAuth provider (`http::oauth::endpoints`): the token endpoints,
//! which read a form or JSON body and answer RFC 6749 errors, and the identity checks.

use super::errors::{CredentialErrors, OAuthErrors};
use crate::oauth::answers::{Introspected, Profile, Revoked, TokenAnswer, UserInfo};

/// The grant types the token endpoint serves.
#[derive(utoipa::ToSchema)]
#[schema(rename_all = "snake_case")]
pub enum GrantType {
    AuthorizationCode,
    RefreshToken,
}

/// `/api/auth/oauth/token`'s body (form or JSON), RFC 6749 4.1.3 and 6.
#[derive(utoipa::ToSchema)]
pub struct TokenRequest {
    grant_type: GrantType,
    code: Option<String>,
    redirect_uri: Option<String>,
    code_verifier: Option<String>,
    refresh_token: Option<String>,
    client_id: Option<String>,
    client_secret: Option<String>,
    scope: Option<String>,
}

/// `/api/auth/oauth/refreshToken`'s body; the refresh token may come as the Bearer instead.
#[derive(utoipa::ToSchema)]
pub struct RefreshRequest {
    /// "refresh_token".
    #[schema(pattern = "^refresh_token$")]
    grant_type: Option<String>,
    refresh_token: Option<String>,
    client_id: Option<String>,
    client_secret: Option<String>,
    scope: Option<String>,
}

/// The body of revocation (RFC 7009) and introspection (RFC 7662).
#[derive(utoipa::ToSchema)]
pub struct TokenParam {
    token: String,
    token_type_hint: Option<String>,
    client_id: Option<String>,
    client_secret: Option<String>,
}

#[utoipa::path(post, path = "/api/auth/oauth/token", tag = "oauth",
    summary = "Exchange a code, or refresh (RFC 6749)",
    request_body(content(
        (TokenRequest = "application/x-www-form-urlencoded"),
        (TokenRequest = "application/json"),
    )),
    responses((status = 200, description = "OK", body = TokenAnswer), OAuthErrors),
    security(("clientBasic" = []), ()))]
pub fn token() {}

#[utoipa::path(post, path = "/api/auth/oauth/refreshToken", tag = "oauth",
    summary = "Refresh an access token (the refresh token in the body or as Authorization: Bearer)",
    request_body(content(
        (RefreshRequest = "application/x-www-form-urlencoded"),
        (RefreshRequest = "application/json"),
    )),
    responses((status = 200, description = "OK", body = TokenAnswer), OAuthErrors),
    security(("clientBasic" = []), ()))]
pub fn refresh_token() {}

#[utoipa::path(post, path = "/api/auth/oauth/revoke", tag = "oauth",
    summary = "Revoke a token (RFC 7009)",
    request_body(content(
        (TokenParam = "application/x-www-form-urlencoded"),
        (TokenParam = "application/json"),
    )),
    responses((status = 200, description = "OK", body = Revoked), OAuthErrors),
    security(("clientBasic" = []), ()))]
pub fn revoke() {}

#[utoipa::path(post, path = "/api/auth/oauth/introspect", tag = "oauth",
    summary = "Introspect a token (RFC 7662)",
    request_body(content(
        (TokenParam = "application/x-www-form-urlencoded"),
        (TokenParam = "application/json"),
    )),
    responses((status = 200, description = "OK", body = Introspected), OAuthErrors),
    security(("clientBasic" = []), ()))]
pub fn introspect() {}

#[utoipa::path(get, path = "/api/auth/oauth/me", tag = "oauth",
    summary = "Identity check (READ_PROFILE)",
    responses((status = 200, description = "OK", body = Profile), CredentialErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn me() {}

#[utoipa::path(post, path = "/api/auth/oauth/me", tag = "oauth",
    summary = "Identity check by POST (READ_PROFILE)",
    responses((status = 200, description = "OK", body = Profile), CredentialErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn me_by_post() {}

#[utoipa::path(get, path = "/api/auth/oauth/userinfo", tag = "oauth",
    summary = "OpenID Connect userinfo (openid or READ_PROFILE)",
    responses((status = 200, description = "OK", body = UserInfo), CredentialErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn userinfo() {}

#[utoipa::path(post, path = "/api/auth/oauth/userinfo", tag = "oauth",
    summary = "OpenID Connect userinfo by POST",
    responses((status = 200, description = "OK", body = UserInfo), CredentialErrors),
    security(("apiKey" = []), ("bearer" = [])))]
pub fn userinfo_by_post() {}
