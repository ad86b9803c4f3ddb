//! The administrator's use cases on API keys (`docket apikey ...`): create one for a user,
//! list them, revoke one. Each is one transaction on the calling thread
//! (`Db::write_blocking`, `Db::read_blocking`), since the admin commands run without an async
//! runtime. `now` is the caller's, so that a listing's states and a revocation agree on it.

use super::{ApiKey, store};
use crate::core::crypto::SecretToken;
use crate::core::db::Db;
use crate::core::error::AppError;

/// A key to create.
#[derive(Debug, Clone)]
pub struct NewKey {
    /// The e-mail of the user the key acts as.
    pub owner: String,
    /// A name to recognise the key by, already checked.
    pub name: String,
    /// `None`: the key never expires.
    pub expires_in_days: Option<u32>,
}

/// A key just created: its value, which exists nowhere else (only its hash is stored), and
/// the key as listed.
#[derive(Debug)]
pub struct Created {
    pub key: SecretToken,
    pub stored: ApiKey,
}

/// Creates the key `new` at `now`; 404 when its owner does not exist.
pub fn create(db: &Db, new: NewKey, now: i64) -> Result<Created, AppError> {
    let key = super::generate();
    let expires_at = new.expires_in_days.map(|d| now + i64::from(d) * 86_400);
    let hashed = key.clone();
    let stored = db.write_blocking(move |tx| {
        let owner = crate::identity::users::store::require_by_email(tx, &new.owner)?;
        store::insert(tx, owner.id, &new.name, &hashed, expires_at, now)
    })?;
    Ok(Created { key, stored })
}

/// Every key, or those of the user with e-mail `owner` (404 when there is none), oldest first.
pub fn list(db: &Db, owner: Option<&str>) -> Result<Vec<ApiKey>, AppError> {
    db.read_blocking(|c| {
        let user_id = match owner {
            Some(email) => Some(crate::identity::users::store::require_by_email(c, email)?.id),
            None => None,
        };
        store::list(c, user_id)
    })
}

/// Revokes key `id` at `now`: it stops working at once. 404 when unknown, 409 when revoked
/// already.
pub fn revoke(db: &Db, id: i64, now: i64) -> Result<ApiKey, AppError> {
    db.write_blocking(move |tx| store::revoke(tx, id, now))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::ids::UserId;
    use crate::identity::accounts::admin::NewAccount;
    use crate::{identity::users::Email, identity::users::Tier};

    fn with_user() -> Db {
        let db = Db::memory();
        let new = NewAccount {
            email: Email::parse("ada@example.com").unwrap(),
            name: "Ada".into(),
            username: None,
            tier: Tier::Standard,
        };
        crate::identity::accounts::admin::create(&db, new, "a long password here").unwrap();
        db
    }

    fn new_key(owner: &str, expires_in_days: Option<u32>) -> NewKey {
        NewKey {
            owner: owner.into(),
            name: "ci".into(),
            expires_in_days,
        }
    }

    fn owner_of(db: &Db, key: &SecretToken, now: i64) -> Option<UserId> {
        db.read_blocking(|c| store::find_live(c, key.expose(), now))
            .unwrap()
            .map(|k| k.user_id)
    }

    #[test]
    fn a_revoked_key_stops_working_and_is_listed_as_revoked() {
        let db = with_user();
        let created = create(&db, new_key("ada@example.com", None), 1_000).unwrap();
        let user = created.stored.user_id;
        assert_eq!(owner_of(&db, &created.key, 1_001), Some(user));

        let revoked = revoke(&db, created.stored.id, 2_000).unwrap();
        assert_eq!(revoked.revoked_at, Some(2_000));
        assert_eq!(revoked.state(2_000), "revoked");
        assert_eq!(owner_of(&db, &created.key, 2_001), None);
        let listed = list(&db, Some("ada@example.com")).unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].state(2_001), "revoked");

        let again = revoke(&db, created.stored.id, 3_000).unwrap_err();
        assert_eq!(again.code(), "conflict");
        assert_eq!(revoke(&db, 999, 3_000).unwrap_err().code(), "not_found");
    }

    #[test]
    fn keys_expire_after_their_days_and_need_an_owner() {
        let db = with_user();
        let created = create(&db, new_key("ada@example.com", Some(2)), 1_000).unwrap();
        assert_eq!(created.stored.expires_at, Some(1_000 + 2 * 86_400));
        assert!(created.key.expose().starts_with(super::super::PREFIX));
        let missing = create(&db, new_key("nobody@example.com", None), 1_000).unwrap_err();
        assert_eq!(missing.code(), "not_found");
        assert_eq!(
            list(&db, Some("nobody@example.com")).unwrap_err().code(),
            "not_found"
        );
        assert_eq!(list(&db, None).unwrap().len(), 1);
    }
}
