//! The account page's use cases (`/account`): what it shows of a signed-in user (connected
//! apps, second factors) and revoking an app's access.

use crate::core::context::Context;
use crate::core::db::now;
use crate::core::error::AppError;
use crate::core::ids::{GrantId, UserId};
use crate::identity::factors::Enrolled;
use crate::identity::factors::store::PasskeyRow;
use crate::{oauth::tokens::store as grants, oauth::tokens::store::GrantView};

/// What the account page lists.
#[derive(Debug, Clone)]
pub struct Overview {
    /// The apps the user allowed, newest first.
    pub grants: Vec<GrantView>,
    pub enrolled: Enrolled,
    pub recovery_codes_left: i64,
    pub passkeys: Vec<PasskeyRow>,
}

/// The account page's lists for `user`, read together.
pub async fn overview(ctx: &Context, user: UserId) -> Result<Overview, AppError> {
    ctx.db
        .read(move |c| {
            Ok(Overview {
                grants: grants::live_grants(c, user)?,
                enrolled: crate::identity::factors::store::enrolled(c, user)?,
                recovery_codes_left: crate::identity::factors::store::recovery_codes_left(c, user)?,
                passkeys: crate::identity::factors::store::passkeys(c, user)?,
            })
        })
        .await
}

/// Ends `user`'s grant `grant` and every token issued under it; another user's grant is a 404.
pub async fn revoke_app(ctx: &Context, user: UserId, grant: GrantId) -> Result<(), AppError> {
    ctx.db
        .write(move |tx| grants::revoke_grant(tx, user, grant, now()))
        .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::db::Db;
    use crate::core::ids::ClientId;
    use crate::identity::scope::Scope;

    #[tokio::test]
    async fn only_the_owner_revokes_an_app_and_it_leaves_the_page() {
        let tmp = tempfile::tempdir().unwrap();
        let db = Db::open(&tmp.path().join("t.db"), tmp.path(), 2).unwrap();
        let grant = db
            .write(|c| {
                c.execute_batch(
                    "INSERT INTO users (id, email, username, name, password_hash, created_at, updated_at)
                     VALUES (1, 'a@x.org', 'a', 'A', 'x', 0, 0), (2, 'b@x.org', 'b', 'B', 'x', 0, 0);
                     INSERT INTO oauth_clients (id, client_id, name, created_at) VALUES (1, 'c', 'Cal', 0);",
                )?;
                grants::upsert_grant(c, UserId::new(1), ClientId::new(1), &[Scope::ReadProfile], 0)
            })
            .await
            .unwrap();
        let ctx = crate::core::context::Context::for_tests(db, tmp.path());
        let page = overview(&ctx, UserId::new(1)).await.unwrap();
        assert_eq!(page.grants.len(), 1);
        assert_eq!(page.grants[0].client_name, "Cal");
        assert!(!page.enrolled.any());
        let other = revoke_app(&ctx, UserId::new(2), grant).await.unwrap_err();
        assert_eq!(other.code(), "not_found");
        revoke_app(&ctx, UserId::new(1), grant).await.unwrap();
        assert!(
            overview(&ctx, UserId::new(1))
                .await
                .unwrap()
                .grants
                .is_empty()
        );
        let again = revoke_app(&ctx, UserId::new(1), grant).await.unwrap_err();
        assert_eq!(again.code(), "not_found");
    }
}
