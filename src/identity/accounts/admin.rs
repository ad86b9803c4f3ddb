//! The administrator's use cases on accounts (`docket user ...`): create, list, look up, set a
//! password, rename, change the e-mail, disable and enable, change the tier, remove the second factors. Each is one
//! transaction on the calling thread (`Db::write_blocking`, `Db::read_blocking`), since the
//! admin commands run without an async runtime; passwords are hashed here too.

use crate::core::db::Conn;
use crate::core::error::AppError;
use crate::core::ids::UserId;
use crate::{core::db::Db, core::db::now};
use crate::{
    identity::users::Email, identity::users::Tier, identity::users::User, identity::users::password,
};
use crate::{identity::users::store, identity::users::store::NewUser};

/// A new account as the administrator describes it, each part already validated.
#[derive(Debug, Clone)]
pub struct NewAccount {
    pub email: Email,
    pub name: String,
    /// `None` derives one from the e-mail, made unique.
    pub username: Option<String>,
    pub tier: Tier,
}

/// Creates the account `new`, signing in with `password`; 409 when the e-mail is taken.
pub fn create(db: &Db, new: NewAccount, password: &str) -> Result<User, AppError> {
    let hash = password::hash(password)?;
    db.write_blocking(move |tx| {
        store::insert(
            tx,
            &NewUser {
                email: &new.email,
                name: &new.name,
                username: new.username.as_deref(),
                tier: new.tier,
                password_hash: &hash,
            },
            now(),
        )
    })
}

/// Every account, oldest first.
pub fn list(db: &Db) -> Result<Vec<User>, AppError> {
    db.read_blocking(store::list)
}

/// The account with `email`, or a 404 naming it.
pub fn find(db: &Db, email: &str) -> Result<User, AppError> {
    db.read_blocking(|c| store::require_by_email(c, email))
}

/// Gives the account with `email` the password `password` and signs it out everywhere.
pub fn set_password(db: &Db, email: &str, password: &str) -> Result<User, AppError> {
    let hash = password::hash(password)?;
    let email = email.to_string();
    db.write_blocking(move |tx| {
        let user = store::require_by_email(tx, &email)?;
        super::profile::replace_password(tx, user.id, &hash, None, now())?;
        Ok(user)
    })
}

/// Names the account with `email` `name` (already checked); returns it as it is now.
pub fn rename(db: &Db, email: &str, name: &str) -> Result<User, AppError> {
    let (email, name) = (email.to_string(), name.to_string());
    db.write_blocking(move |tx| {
        let user = store::require_by_email(tx, &email)?;
        super::profile::rename(tx, user.id, &name, now())
    })
}

/// Gives the account with `email` the address `new` at once (the administrator vouches for
/// it; the old address is told); 409 when another account has it.
pub fn set_email(db: &Db, email: &str, new: Email) -> Result<User, AppError> {
    let email = email.to_string();
    db.write_blocking(move |tx| {
        let user = store::require_by_email(tx, &email)?;
        super::profile::set_email(tx, user.id, &new, now())
    })
}

/// An account after it was disabled or enabled, and whether that changed anything.
#[derive(Debug, Clone)]
pub struct Switched {
    pub user: User,
    pub changed: bool,
}

/// Disables (`true`) or enables the account with `email`. Disabling signs it out everywhere.
pub fn set_disabled(db: &Db, email: &str, disabled: bool) -> Result<Switched, AppError> {
    let email = email.to_string();
    db.write_blocking(move |tx| {
        let user = store::require_by_email(tx, &email)?;
        let changed = store::set_disabled(tx, user.id, disabled, now())?;
        if disabled {
            crate::identity::sessions::store::delete_for_user(tx, user.id)?;
        }
        Ok(Switched {
            user: store::require_by_email(tx, &email)?,
            changed,
        })
    })
}

/// Puts the account with `email` on `tier`; returns it as it is now.
pub fn set_tier(db: &Db, email: &str, tier: Tier) -> Result<User, AppError> {
    let email = email.to_string();
    db.write_blocking(move |tx| {
        let user = store::require_by_email(tx, &email)?;
        store::set_tier(tx, user.id, tier, now())?;
        store::require_by_email(tx, &email)
    })
}

/// An account whose second factors were removed, and a line saying which.
#[derive(Debug, Clone)]
pub struct FactorsReset {
    pub user: User,
    pub removed: String,
}

/// Removes every second factor of the account with `email` (after a lost device) and signs
/// it out everywhere: it signs in with its password alone from now on.
pub fn reset_factors(db: &Db, email: &str) -> Result<FactorsReset, AppError> {
    let email = email.to_string();
    db.write_blocking(move |tx| {
        let user = store::require_by_email(tx, &email)?;
        let removed = crate::identity::accounts::admin::remove_all_factors(tx, user.id, now())?;
        crate::identity::sessions::store::delete_for_user(tx, user.id)?;
        Ok(FactorsReset { user, removed })
    })
}

/// Removes every second factor of `user` and the logins waiting for one (the admin's reset
/// after a lost device); says what went.
pub fn remove_all_factors(tx: &Conn, user: UserId, now: i64) -> Result<String, AppError> {
    let had_totp = crate::identity::users::store::has_totp(tx, user)?;
    crate::identity::factors::disable_totp(tx, user, now)?;
    let passkeys = crate::identity::factors::store::delete_passkeys(tx, user)?;
    crate::identity::sessions::pending::delete_for_user(tx, user)?;
    Ok(format!(
        "authenticator app: {}, passkeys: {passkeys}",
        if had_totp { "removed" } else { "none" }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::crypto::SecretToken;

    fn ada(db: &Db) -> User {
        let new = NewAccount {
            email: Email::parse("Ada@Example.com").unwrap(),
            name: "Ada".into(),
            username: None,
            tier: Tier::Standard,
        };
        create(db, new, "a long first password").unwrap()
    }

    /// A session for `user`, as a browser would hold it.
    fn signed_in(db: &Db, user: UserId) -> SecretToken {
        let token = crate::identity::sessions::new_token();
        let stored = token.clone();
        db.write_blocking(move |tx| {
            crate::identity::sessions::store::create(tx, user, &stored, now())
        })
        .unwrap();
        token
    }

    fn session_user(db: &Db, token: &SecretToken) -> Option<UserId> {
        db.read_blocking(|c| crate::identity::sessions::store::user_of(c, token.expose(), now()))
            .unwrap()
            .map(|u| u.id)
    }

    fn password_hash(db: &Db, email: &str) -> String {
        db.read_blocking(|c| store::login_record(c, email))
            .unwrap()
            .expect("an enabled account")
            .1
    }

    #[test]
    fn a_new_password_works_and_signs_the_user_out_everywhere() {
        let db = Db::memory();
        let user = ada(&db);
        assert_eq!(
            (user.email.as_str(), user.username.as_str()),
            ("ada@example.com", "ada")
        );
        let phone = signed_in(&db, user.id);
        let laptop = signed_in(&db, user.id);
        assert_eq!(session_user(&db, &phone), Some(user.id));

        let changed = set_password(&db, "ADA@example.com", "a long second password").unwrap();
        assert_eq!(changed.id, user.id);
        assert_eq!(session_user(&db, &phone), None);
        assert_eq!(session_user(&db, &laptop), None);
        let phc = password_hash(&db, "ada@example.com");
        assert!(password::verify("a long second password", &phc));
        assert!(!password::verify("a long first password", &phc));

        let missing = set_password(&db, "nobody@example.com", "whatever long").unwrap_err();
        assert_eq!(missing.code(), "not_found");
    }

    #[test]
    fn renaming_and_a_new_address_keep_the_sessions_and_tell_the_old_address() {
        let db = Db::memory();
        let user = ada(&db);
        let session = signed_in(&db, user.id);
        assert_eq!(
            rename(&db, "ada@example.com", "Ada L.").unwrap().name,
            "Ada L."
        );
        let new = Email::parse("lovelace@example.com").unwrap();
        let moved = set_email(&db, "ada@example.com", new.clone()).unwrap();
        assert_eq!(
            (moved.id, moved.email.as_str()),
            (user.id, "lovelace@example.com")
        );
        assert_eq!(session_user(&db, &session), Some(user.id));
        let told = crate::outbox::mail::manage::list(&db, None, 10).unwrap();
        assert_eq!(told.len(), 1);
        assert_eq!(told[0].to, "ada@example.com");
        let other = NewAccount {
            email: Email::parse("grace@example.com").unwrap(),
            name: "Grace".into(),
            username: None,
            tier: Tier::Standard,
        };
        create(&db, other, "a long grace password").unwrap();
        let taken = set_email(&db, "grace@example.com", new).unwrap_err();
        assert_eq!(taken.code(), "conflict");
    }

    #[test]
    fn disabling_signs_out_and_says_when_nothing_changed() {
        let db = Db::memory();
        let user = ada(&db);
        let session = signed_in(&db, user.id);
        let off = set_disabled(&db, &user.email, true).unwrap();
        assert!(off.changed && off.user.disabled);
        assert_eq!(session_user(&db, &session), None);
        assert!(!set_disabled(&db, &user.email, true).unwrap().changed);
        let on = set_disabled(&db, &user.email, false).unwrap();
        assert!(on.changed && !on.user.disabled);
        assert_eq!(
            set_tier(&db, &user.email, Tier::Enterprise).unwrap().tier,
            Tier::Enterprise
        );
        assert_eq!(find(&db, &user.email).unwrap().tier, Tier::Enterprise);
    }

    #[test]
    fn resetting_factors_signs_out_and_says_what_went() {
        let db = Db::memory();
        let user = ada(&db);
        let session = signed_in(&db, user.id);
        let reset = reset_factors(&db, &user.email).unwrap();
        assert_eq!(reset.removed, "authenticator app: none, passkeys: 0");
        assert_eq!(session_user(&db, &session), None);
        assert_eq!(list(&db).unwrap().len(), 1);
    }
}
