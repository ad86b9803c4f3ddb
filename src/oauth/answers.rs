//! The OAuth endpoints' answers (tokens, introspection, revocation, the identity check, the
//! OpenID Connect userinfo) and the shapes of their form bodies as the OpenAPI document shows
//! them. Their schemas are derived from these types.

use crate::core::ids::UserId;
use serde::Serialize;
use utoipa::ToSchema;

use super::tokens::store::{Introspection, Kind};
use crate::identity::scope::{self, Scope};
use crate::identity::users::User;

/// RFC 6749 5.1: the tokens a grant hands out.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(as = TokenResponse)]
pub struct TokenAnswer {
    pub access_token: String,
    /// "Bearer".
    pub token_type: &'static str,
    pub expires_in: i64,
    pub scope: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(required = false, nullable = false)]
    pub refresh_token: Option<String>,
    /// OpenID Connect: when a code granted `openid`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(required = false, nullable = false)]
    pub id_token: Option<String>,
}

/// RFC 7662 2.2: `{"active": false}`, or `active` with what the client may learn about the
/// token (every other member is present exactly when `active` is true).
#[derive(Debug, Clone, Default, Serialize, ToSchema)]
#[schema(as = Introspection)]
pub struct Introspected {
    pub active: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(required = false, nullable = false)]
    pub scope: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(required = false, nullable = false)]
    pub client_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(required = false, nullable = false)]
    pub username: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(required = false, nullable = false)]
    pub sub: Option<String>,
    /// "Bearer" or "refresh_token".
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(required = false, nullable = false)]
    pub token_type: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(required = false, nullable = false)]
    pub iat: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(required = false, nullable = false)]
    pub exp: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(required = false, nullable = false)]
    pub iss: Option<String>,
}

impl Introspected {
    pub fn of(found: Option<&Introspection>, issuer: String) -> Introspected {
        let Some(i) = found else {
            return Introspected::default();
        };
        Introspected {
            active: true,
            scope: Some(scope::join(&i.scopes)),
            client_id: Some(i.client_id.clone()),
            username: Some(i.username.clone()),
            sub: Some(i.user_id.to_string()),
            token_type: Some(match i.kind {
                Kind::Access => "Bearer",
                Kind::Refresh => "refresh_token",
            }),
            iat: Some(i.issued_at),
            exp: Some(i.expires_at),
            iss: Some(issuer),
        }
    }
}

/// RFC 7009 2.2: revoked (or not the client's to revoke): an empty object.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Revoked {}

/// `/api/auth/oauth/me`: the profile of the user behind a READ_PROFILE credential.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[schema(as = Me)]
pub struct Profile {
    pub id: UserId,
    pub username: String,
    pub name: String,
    pub email: String,
}

impl Profile {
    pub fn of(user: User) -> Profile {
        Profile {
            id: user.id,
            username: user.username,
            name: user.name,
            email: user.email,
        }
    }
}

/// OpenID Connect userinfo: `sub`, `name` and `preferred_username` with profile (or
/// READ_PROFILE), `email` and `email_verified` with email (or READ_PROFILE).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct UserInfo {
    pub sub: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(required = false, nullable = false)]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(required = false, nullable = false)]
    pub preferred_username: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(required = false, nullable = false)]
    pub email: Option<String>,
    /// Always false: addresses are the login name an admin or an invitation set; none is
    /// confirmed by a mailed link, so none is claimed verified.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(required = false, nullable = false)]
    pub email_verified: Option<bool>,
}

/// The `sub` of a user: their id, as the string OpenID Connect asks for.
pub fn subject(user: &User) -> String {
    user.id.to_string()
}

impl UserInfo {
    /// The claims about `user` that `scopes` allow (an ID token carries them too): `profile`
    /// (or READ_PROFILE) gives the name and username, `email` (or READ_PROFILE) the address.
    pub fn of(user: &User, scopes: &[Scope]) -> UserInfo {
        let all = scopes.contains(&Scope::ReadProfile);
        let profile = all || scopes.contains(&Scope::Profile);
        let email = all || scopes.contains(&Scope::Email);
        UserInfo {
            sub: subject(user),
            name: profile.then(|| user.name.clone()),
            preferred_username: profile.then(|| user.username.clone()),
            email: email.then(|| user.email.clone()),
            email_verified: email.then_some(false),
        }
    }
}
