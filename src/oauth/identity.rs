//! The identity check (`/api/auth/oauth/me`: the profile of the user behind a credential that
//! carries READ_PROFILE) and OpenID Connect's userinfo (`/api/auth/oauth/userinfo`).

use super::bearer;
use super::verified::Caches;
use crate::core::context::Context;
use crate::core::ids::UserId;

use super::answers::UserInfo;
use crate::core::error::AppError;
use crate::identity::principal::Credentials;
use crate::identity::scope::Scope;
use crate::identity::users::User;

/// The user behind `creds`, checked and read in one trip to the database: 403 without
/// READ_PROFILE, 401 when the user is gone.
pub async fn profile(ctx: &Context, caches: &Caches, creds: Credentials) -> Result<User, AppError> {
    bearer::read_as(&ctx.db, caches, creds, |c, who| {
        who.require(Scope::ReadProfile)?;
        user(c, who.user_id)
    })
    .await
}

/// OpenID Connect's userinfo for `creds` (a credential with `openid` or READ_PROFILE): `sub`
/// and the claims its scopes allow. 403 without either scope, 401 when the user is gone.
pub async fn userinfo(
    ctx: &Context,
    caches: &Caches,
    creds: Credentials,
) -> Result<UserInfo, AppError> {
    bearer::read_as(&ctx.db, caches, creds, |c, who| {
        if !who.scopes.contains(&Scope::OpenId) {
            who.require(Scope::ReadProfile)?;
        }
        Ok(UserInfo::of(&user(c, who.user_id)?, &who.scopes))
    })
    .await
}

/// `GET /api/v1/me`, with which the other signing service's clients test a key: the account's
/// `name` and `id`, and its `username` and `email` when the credential carries READ_PROFILE (an
/// API key carries every scope).
pub async fn api_account(
    ctx: &Context,
    who: &crate::identity::principal::Principal,
) -> Result<ApiAccount, AppError> {
    let (id, profile) = (who.user_id, who.scopes.contains(&Scope::ReadProfile));
    ctx.db
        .read(move |c| {
            let u = user(c, id)?;
            let (username, email) = match profile {
                true => (Some(u.username), Some(u.email)),
                false => (None, None),
            };
            Ok(ApiAccount {
                name: u.name,
                id: u.id,
                username,
                email,
            })
        })
        .await
}

/// `GET /api/v1/me`'s answer: `username` and `email` with READ_PROFILE only.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct ApiAccount {
    pub name: String,
    pub id: UserId,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(required = false, nullable = false)]
    pub username: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(required = false, nullable = false)]
    pub email: Option<String>,
}

/// User `id`, read in `c`; 401 when the user behind a credential no longer exists.
pub(crate) fn user(c: &crate::core::db::Conn, id: UserId) -> Result<User, AppError> {
    crate::identity::users::store::get(c, id)?
        .ok_or_else(|| AppError::Unauthorized("the user no longer exists".into()))
}
