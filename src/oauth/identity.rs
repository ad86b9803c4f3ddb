//! The identity check (`/api/auth/oauth/me`): the profile of the user behind a credential that
//! carries READ_PROFILE.

use super::principal::{self, Credentials};
use super::scope::Scope;
use crate::db::Db;
use crate::error::AppError;
use crate::users::User;

/// The user behind `creds`, checked and read in one trip to the database: 403 without
/// READ_PROFILE, 401 when the user is gone.
pub async fn profile(db: &Db, creds: Credentials) -> Result<User, AppError> {
    principal::read_as(db, creds, |c, who| {
        who.require(Scope::ReadProfile)?;
        crate::users::store::get(c, who.user_id)?
            .ok_or_else(|| AppError::Unauthorized("the user no longer exists".into()))
    })
    .await
}
