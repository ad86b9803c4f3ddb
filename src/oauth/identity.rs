//! The identity check (`/api/auth/oauth/me`: the profile of the user behind a credential that
//! carries READ_PROFILE) and OpenID Connect's userinfo (`/api/auth/oauth/userinfo`).

use super::bearer;
use crate::core::context::Context;
use crate::core::ids::UserId;

use crate::core::error::AppError;
use crate::identity::principal::Credentials;
use crate::identity::scope::Scope;
use crate::identity::users::User;
use serde_json::{Value, json};

/// The user behind `creds`, checked and read in one trip to the database: 403 without
/// READ_PROFILE, 401 when the user is gone.
pub async fn profile(ctx: &Context, creds: Credentials) -> Result<User, AppError> {
    bearer::read_as(&ctx.db, creds, |c, who| {
        who.require(Scope::ReadProfile)?;
        user(c, who.user_id)
    })
    .await
}

/// OpenID Connect's userinfo for `creds` (a credential with `openid` or READ_PROFILE): `sub`
/// and the claims its scopes allow. 403 without either scope, 401 when the user is gone.
pub async fn userinfo(ctx: &Context, creds: Credentials) -> Result<Value, AppError> {
    bearer::read_as(&ctx.db, creds, |c, who| {
        if !who.scopes.contains(&Scope::OpenId) {
            who.require(Scope::ReadProfile)?;
        }
        let u = user(c, who.user_id)?;
        let mut out = json!({"sub": super::oidc::subject(&u)});
        for (k, v) in super::oidc::user_claims(&u, &who.scopes) {
            out[k] = v;
        }
        Ok(out)
    })
    .await
}

/// `GET /api/v1/me`, with which the other signing service's clients test a key: the account's
/// `name` and `id`, and its `username` and `email` when the credential carries READ_PROFILE (an
/// API key carries every scope).
pub async fn api_account(
    ctx: &Context,
    who: &crate::identity::principal::Principal,
) -> Result<Value, AppError> {
    let (id, profile) = (who.user_id, who.scopes.contains(&Scope::ReadProfile));
    ctx.db
        .read(move |c| {
            let u = user(c, id)?;
            let mut out = json!({"name": u.name, "id": u.id});
            if profile {
                out["username"] = json!(u.username);
                out["email"] = json!(u.email);
            }
            Ok(out)
        })
        .await
}

fn user(c: &crate::core::db::Conn, id: UserId) -> Result<User, AppError> {
    crate::identity::users::store::get(c, id)?
        .ok_or_else(|| AppError::Unauthorized("the user no longer exists".into()))
}
