//! The use cases on API keys, one implementation for both callers: the administrator's
//! commands (`docket apikey ...`, blocking: the admin commands run without an async runtime)
//! and the owner's own settings page (`/settings/tokens`, async, from a recently confirmed
//! session, with a notice mailed to the account). The name and the expiry are
//! checked here (`NewKey::check`), the key made, hashed and stored by the same code whichever
//! asks. `now` is the caller's, so that a listing's states and a revocation agree on it.

use super::ApiKey;
use super::store::{self, Listed};
use crate::core::context::Context;
use crate::core::crypto::SecretToken;
use crate::core::db::{Conn, Db};
use crate::core::error::{AppError, FieldError};
use crate::core::ids::UserId;
use crate::core::owner::Owner;
use crate::identity::accounts::access::{Source, notify_added};
use crate::identity::sessions::confirm;

/// The longest a key may live: ten years.
pub const MAX_DAYS: u32 = 3650;

/// When a new key stops working.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expiry {
    Never,
    /// This many days from its creation (1 to `MAX_DAYS`).
    Days(u32),
    /// At this unix second (after its creation, within `MAX_DAYS`).
    At(i64),
}

/// A key to create: its name and expiry, checked.
#[derive(Debug, Clone)]
pub struct NewKey {
    name: String,
    expires_at: Option<i64>,
}

impl NewKey {
    /// A name of 1 to 100 characters (trimmed) and an expiry after `now`: 400 naming `name`
    /// or `expiry` otherwise.
    pub fn check(name: &str, expiry: Expiry, now: i64) -> Result<NewKey, AppError> {
        let mut problems = Vec::new();
        let name = name.trim().to_string();
        if name.is_empty() || name.chars().count() > 100 {
            problems.push(FieldError::new(
                "name",
                "give the key a name of 1 to 100 characters",
            ));
        }
        let longest = now + i64::from(MAX_DAYS) * 86_400;
        let expires_at = match expiry {
            Expiry::Never => None,
            Expiry::Days(d) if (1..=MAX_DAYS).contains(&d) => Some(now + i64::from(d) * 86_400),
            Expiry::At(t) if t > now && t <= longest => Some(t),
            Expiry::Days(_) | Expiry::At(_) => {
                problems.push(FieldError::new(
                    "expiry",
                    "choose a day after today and at most ten years away",
                ));
                None
            }
        };
        if !problems.is_empty() {
            return Err(AppError::validation(problems));
        }
        Ok(NewKey { name, expires_at })
    }
}

/// Whose personal key it is: a user named by e-mail (the administrator's commands) or by id
/// (the signed-in owner). A team's keys are made by `teams::tokens`.
#[derive(Debug, Clone)]
pub enum KeyOf {
    Email(String),
    User(UserId),
}

/// A key just created: its value, which exists nowhere else (only its hash is stored), and
/// the key as listed.
#[derive(Debug)]
pub struct Created {
    pub key: SecretToken,
    pub stored: ApiKey,
}

/// Stores a new key of `owner` (404 when there is no such user) inside `tx`.
fn insert(
    tx: &Conn,
    owner: &KeyOf,
    new: &NewKey,
    key: &SecretToken,
    now: i64,
) -> Result<ApiKey, AppError> {
    let user = match owner {
        KeyOf::Email(email) => crate::identity::users::store::require_by_email(tx, email)?.id,
        KeyOf::User(id) => *id,
    };
    store::insert(
        tx,
        &Owner::Personal(user),
        &new.name,
        key,
        new.expires_at,
        now,
    )
}

/// Inside `tx`: a new key `new` of `owner` (a team's when `owner` is; the caller checked that
/// its user may make one there), made at `now`.
pub fn insert_key(tx: &Conn, owner: &Owner, new: &NewKey, now: i64) -> Result<Created, AppError> {
    let key = super::generate();
    let stored = store::insert(tx, owner, &new.name, &key, new.expires_at, now)?;
    Ok(Created { key, stored })
}

/// Creates the key `new` of `owner` at `now` (the administrator's command).
pub fn create(db: &Db, owner: KeyOf, new: NewKey, now: i64) -> Result<Created, AppError> {
    let key = super::generate();
    let hashed = key.clone();
    let stored = db.write_blocking(move |tx| insert(tx, &owner, &new, &hashed, now))?;
    Ok(Created { key, stored })
}

/// Whose keys the settings page works on, read inside the use case's transaction: the keys'
/// owner, what a key of theirs may do in words ("with every permission of the account"), and
/// where its settings page is (`/settings/tokens`). The teams' rule gives it
/// (`teams::tokens`), so a role change holds at the next request.
pub type Workspace = dyn Fn(&Conn) -> Result<(Owner, String, String), AppError> + Send + Sync;

/// Creates the key `new` of the workspace `of` resolves at `now` (the settings page), in the
/// browser session `session`, which must have confirmed who it is within the last few minutes
/// (`sessions::confirm`; 401 `confirmation_required` otherwise, and nothing is made): a key
/// outlives the session and every password change. The account of the user making it is
/// mailed a notice, saying where the request came from (`from`), in the same transaction. New
/// work, so refused (507) while the disk is low.
pub async fn create_in(
    ctx: &Context,
    session: String,
    of: std::sync::Arc<Workspace>,
    new: NewKey,
    from: Source,
    now: i64,
) -> Result<Created, AppError> {
    ctx.admit_new_work()?;
    let key = super::generate();
    let hashed = key.clone();
    let app = ctx.app.clone();
    let stored = ctx
        .db
        .write(move |tx| {
            confirm::require(tx, &session, now)?;
            let (owner, power, page) = of(tx)?;
            let stored = store::insert(tx, &owner, &new.name, &hashed, new.expires_at, now)?;
            let lasts = match stored.expires_at {
                Some(t) => format!("that works until {}", crate::core::timefmt::human(t)),
                None => "that never expires".to_string(),
            };
            let what = format!(
                "An API token named \"{}\" {lasts}, {power}, was created",
                stored.name
            );
            let undo = format!("revoke it in Settings, API tokens ({app}{page})");
            notify_added(tx, owner.user(), (&what, &undo), &from, now)?;
            Ok(stored)
        })
        .await?;
    ctx.workers.mail.wake();
    Ok(Created { key, stored })
}

/// Revokes every live key of `user` at `now` (a new password, when its owner asks): how many.
pub fn revoke_all(tx: &Conn, user: UserId, now: i64) -> Result<usize, AppError> {
    store::revoke_all(tx, user, now)
}

/// Every key, or those the user with e-mail `owner` made (404 when there is none; their
/// teams' too), oldest first.
pub fn list(db: &Db, owner: Option<&str>) -> Result<Vec<ApiKey>, AppError> {
    db.read_blocking(|c| {
        let user_id = match owner {
            Some(email) => Some(crate::identity::users::store::require_by_email(c, email)?.id),
            None => None,
        };
        store::list(c, user_id.map_or(Listed::All, Listed::MadeBy))
    })
}

/// The keys of the workspace `of` resolves that are not revoked, oldest first.
pub async fn list_in(db: &Db, of: std::sync::Arc<Workspace>) -> Result<Vec<ApiKey>, AppError> {
    let keys = db
        .read(move |c| c.consistent_read(|c| store::list(c, Listed::Of(&of(c)?.0))))
        .await?;
    Ok(keys
        .into_iter()
        .filter(|k| k.revoked_at.is_none())
        .collect())
}

/// Revokes key `id` at `now`: it stops working at once. 404 when unknown, 409 when revoked
/// already.
pub fn revoke(db: &Db, id: i64, now: i64) -> Result<ApiKey, AppError> {
    db.write_blocking(move |tx| store::revoke(tx, id, None, now))
}

/// Revokes key `id` of the workspace `of` resolves at `now`; another workspace's key is a
/// 404, as an unknown one.
pub async fn revoke_in(
    db: &Db,
    of: std::sync::Arc<Workspace>,
    id: i64,
    now: i64,
) -> Result<ApiKey, AppError> {
    db.write(move |tx| store::revoke(tx, id, Some(&of(tx)?.0), now))
        .await
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

    fn new_key(expiry: Expiry) -> NewKey {
        NewKey::check("ci", expiry, 1_000).unwrap()
    }

    fn ada() -> KeyOf {
        KeyOf::Email("ada@example.com".into())
    }

    fn owner_of(db: &Db, key: &SecretToken, now: i64) -> Option<UserId> {
        db.read_blocking(|c| store::find_live(c, key.expose(), now))
            .unwrap()
            .map(|k| k.user_id)
    }

    #[test]
    fn a_revoked_key_stops_working_and_is_listed_as_revoked() {
        let db = with_user();
        let created = create(&db, ada(), new_key(Expiry::Never), 1_000).unwrap();
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
        let created = create(&db, ada(), new_key(Expiry::Days(2)), 1_000).unwrap();
        assert_eq!(created.stored.expires_at, Some(1_000 + 2 * 86_400));
        assert!(created.key.expose().starts_with(super::super::PREFIX));
        let missing = create(
            &db,
            KeyOf::Email("nobody@example.com".into()),
            new_key(Expiry::Never),
            1_000,
        )
        .unwrap_err();
        assert_eq!(missing.code(), "not_found");
        assert_eq!(
            list(&db, Some("nobody@example.com")).unwrap_err().code(),
            "not_found"
        );
        assert_eq!(list(&db, None).unwrap().len(), 1);
    }

    #[test]
    fn names_and_expiries_are_checked_and_owners_see_only_their_keys() {
        let db = with_user();
        let paths =
            |e: AppError| -> Vec<String> { e.details().iter().map(|d| d.path.clone()).collect() };
        assert_eq!(
            paths(NewKey::check("  ", Expiry::Days(0), 1_000).unwrap_err()),
            ["name", "expiry"]
        );
        assert_eq!(
            paths(NewKey::check("x", Expiry::At(1_000), 1_000).unwrap_err()),
            ["expiry"]
        );
        assert!(NewKey::check(&"x".repeat(101), Expiry::Never, 1_000).is_err());
        let at = NewKey::check(" deploy ", Expiry::At(5_000), 1_000).unwrap();
        assert_eq!((at.name.as_str(), at.expires_at), ("deploy", Some(5_000)));

        let created = create(&db, ada(), new_key(Expiry::Never), 1_000).unwrap();
        let user = created.stored.user_id;
        let other = UserId::new(user.get() + 1);
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let of = |u: UserId| -> std::sync::Arc<Workspace> {
            std::sync::Arc::new(move |_| Ok((Owner::Personal(u), String::new(), String::new())))
        };
        rt.block_on(async {
            assert_eq!(list_in(&db, of(other)).await.unwrap().len(), 0);
            let id = created.stored.id;
            let refused = revoke_in(&db, of(other), id, 2_000).await.unwrap_err();
            assert_eq!(refused.code(), "not_found");
            revoke_in(&db, of(user), id, 2_000).await.unwrap();
            assert!(
                list_in(&db, of(user)).await.unwrap().is_empty(),
                "revoked keys leave the list"
            );
        });
    }
}
