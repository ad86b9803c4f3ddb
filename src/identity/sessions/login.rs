//! Signing in with a password (`/auth/login`) under the throttle, signing out, and the account
//! behind a session cookie. An account with a second factor gets a pending login instead of a
//! session (`second_step`).

use crate::core::context::Context;
use crate::core::ids::UserId;
use std::net::IpAddr;
use std::time::Duration;

use crate::core::db::Conn;

use super::{pending, store};
use crate::core::crypto::SecretToken;
use crate::core::error::AppError;
use crate::identity::throttle;
use crate::identity::users::User;
use crate::identity::users::checks::PasswordChecks;
use crate::{core::db::Db, core::db::now};

/// What a right password leads to.
#[derive(Debug)]
pub enum Passed {
    /// Signed in: the new session's token.
    Session(SecretToken),
    /// The account has a second factor: the token of the login waiting for it.
    SecondFactor(SecretToken),
}

/// The throttle's keys of an attempt: the account, then the client's address.
fn keys(email: &str, address: Option<IpAddr>) -> [String; 2] {
    [throttle::account_key(email), throttle::address_key(address)]
}

/// Checks `email` and `password` from `address` under the throttle and within the bound on
/// password checks; `None` for wrong credentials, 429 while locked.
///
/// The attempt is reserved first (counted and checked against the lock in one write), so that
/// concurrent attempts get at most the throttle's number of real checks. It stands as a failure
/// unless the password matched (the account's count is cleared, the address's attempt taken
/// back) or it was never checked (taken back).
pub async fn attempt(
    ctx: &Context,
    passwords: &PasswordChecks,
    email: &str,
    password: &str,
    address: Option<IpAddr>,
) -> Result<Option<Passed>, AppError> {
    let keys = keys(email, address);
    let Some(id) = checked(&ctx.db, passwords, &keys, email, password).await? else {
        return Ok(None);
    };
    let token = super::new_token();
    let t = token.clone();
    let second = ctx
        .db
        .write(move |c| passed(c, id, &keys, &t, now()))
        .await?;
    Ok(Some(if second {
        Passed::SecondFactor(token)
    } else {
        Passed::Session(token)
    }))
}

/// The password of the account `email` typed again by someone signed in to it (a signing
/// link's PASSWORD action authentication), under the same throttle as logins to that account
/// and from that address, so that neither door adds guesses to the other's. `Some(user id)`
/// when right (the counts then clear as for a login), `None` when wrong, 429 while locked.
pub async fn recheck(
    db: &Db,
    passwords: &PasswordChecks,
    email: &str,
    password: &str,
    address: Option<IpAddr>,
) -> Result<Option<UserId>, AppError> {
    let keys = keys(email, address);
    let Some(id) = checked(db, passwords, &keys, email, password).await? else {
        return Ok(None);
    };
    db.write(move |c| {
        throttle::clear(c, &keys[0])?;
        throttle::release(c, &keys[1])
    })
    .await?;
    Ok(Some(id))
}

/// Reserves the attempt for `keys`, waits as the throttle says, and checks the password within
/// the bound on password checks: the account's id when right.
async fn checked(
    db: &Db,
    passwords: &PasswordChecks,
    keys: &[String; 2],
    email: &str,
    password: &str,
) -> Result<Option<UserId>, AppError> {
    let (k, e) = (keys.clone(), email.to_string());
    let (verdict, record) = db.write(move |c| reserve(c, &k, &e, now())).await?;
    match verdict {
        throttle::Verdict::Locked(secs) => {
            return Err(AppError::TooManyRequests {
                retry_after: secs.max(1) as u64,
                limit: 0,
            });
        }
        throttle::Verdict::Slow(ms) => tokio::time::sleep(Duration::from_millis(ms)).await,
        throttle::Verdict::Allow => {}
    }
    // Unknown accounts are checked against a dummy hash, so timing does not tell which exist.
    let (user, hash) = record.map_or((None, None), |(id, h)| (Some(id), Some(h)));
    let ok = match passwords.verify(password.to_string(), hash).await {
        Ok(ok) => ok,
        Err(e) => {
            give_back(db, keys.clone()).await;
            return Err(e);
        }
    };
    Ok(user.filter(|_| ok))
}

/// Reserves the attempt for `keys`; unless locked, the account's id and password hash too.
fn reserve(
    c: &Conn,
    keys: &[String; 2],
    email: &str,
    now: i64,
) -> Result<(throttle::Verdict, Option<(UserId, String)>), AppError> {
    let verdict = throttle::reserve(c, &[&keys[0], &keys[1]], now)?;
    let record = match verdict {
        throttle::Verdict::Locked(_) => None,
        _ => crate::identity::users::store::login_record(c, email)?,
    };
    Ok((verdict, record))
}

/// The password of `user` was right: the account's count is cleared, the address's attempt
/// taken back, and `token` starts a session, or a pending login when the account has a second
/// factor (then `true`).
fn passed(
    c: &Conn,
    user: UserId,
    [account, address]: &[String; 2],
    token: &SecretToken,
    now: i64,
) -> Result<bool, AppError> {
    throttle::clear(c, account)?;
    throttle::release(c, address)?;
    if crate::identity::factors::store::enrolled(c, user)?.any() {
        pending::create(c, user, token, now)?;
        return Ok(true);
    }
    store::create(c, user, token, now)?;
    Ok(false)
}

/// Takes back attempts reserved for `keys` that were never checked.
async fn give_back(db: &Db, keys: [String; 2]) {
    let released = db
        .write(move |c| keys.iter().try_for_each(|k| throttle::release(c, k)))
        .await;
    if let Err(e) = released {
        tracing::warn!(error = %e, "could not take back a login attempt");
    }
}

/// Ends the session behind `token`.
pub async fn logout(ctx: &Context, token: String) -> Result<(), AppError> {
    ctx.db.write(move |c| store::delete(c, &token)).await
}

/// The enabled user behind a live session `token`.
pub async fn signed_in(db: &Db, token: String) -> Result<Option<User>, AppError> {
    let session = db
        .read(move |c| store::session_of(c, &token, now()))
        .await?;
    Ok(session.map(|s| s.user))
}

/// The live session behind `token`, with when its user signed in.
pub async fn session(ctx: &Context, token: String) -> Result<Option<super::Session>, AppError> {
    ctx.db
        .read(move |c| store::session_of(c, &token, now()))
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    const PASSWORD: &str = "correct horse battery";

    /// A database with one account, `a@x.org`, whose password is `PASSWORD`.
    async fn with_account() -> (tempfile::TempDir, Db) {
        let tmp = tempfile::tempdir().unwrap();
        let db = Db::open(&tmp.path().join("t.db"), tmp.path(), 2).unwrap();
        let hash = crate::identity::users::password::hash(PASSWORD).unwrap();
        db.write(move |c| {
            c.execute(
                "INSERT INTO users (id, email, username, name, password_hash, created_at, updated_at)
                 VALUES (1, 'a@x.org', 'a', 'A', ?1, 0, 0)",
                [hash],
            )?;
            Ok(())
        })
        .await
        .unwrap();
        (tmp, db)
    }

    async fn failures(db: &Db, key: String) -> i64 {
        db.read(move |c| {
            Ok(c.query_row(
                "SELECT coalesce(sum(failures), 0) FROM login_failures WHERE key = ?1",
                [key],
                |r| r.get(0),
            )?)
        })
        .await
        .unwrap()
    }

    #[tokio::test]
    async fn a_right_password_starts_a_session_and_clears_the_counts() {
        let (_tmp, db) = with_account().await;
        let ctx = crate::core::context::Context::for_tests(db.clone(), _tmp.path());
        let checks = PasswordChecks::new(1);
        let ip: Option<IpAddr> = Some("192.0.2.7".parse().unwrap());
        let wrong = attempt(&ctx, &checks, "a@x.org", "nope", ip).await.unwrap();
        assert!(wrong.is_none());
        let [account, address] = keys("a@x.org", ip);
        assert_eq!(failures(&db, account.clone()).await, 1);
        let Some(Passed::Session(token)) = attempt(&ctx, &checks, "A@x.org", PASSWORD, ip)
            .await
            .unwrap()
        else {
            panic!("no session");
        };
        assert_eq!(failures(&db, account).await, 0, "the account starts over");
        assert_eq!(
            failures(&db, address).await,
            1,
            "the wrong try still counts"
        );
        let token = token.expose().to_string();
        let user = signed_in(&db, token.clone()).await.unwrap().unwrap();
        assert_eq!(user.email, "a@x.org");
        logout(&ctx, token.clone()).await.unwrap();
        assert!(signed_in(&db, token).await.unwrap().is_none());
    }

    #[tokio::test]
    async fn an_account_with_a_second_factor_waits_for_it() {
        let (_tmp, db) = with_account().await;
        let ctx = crate::core::context::Context::for_tests(db.clone(), _tmp.path());
        db.write(|c| {
            crate::identity::users::store::set_totp_pending(c, UserId::new(1), b"sealed", 0)?;
            crate::identity::users::store::enable_totp(c, UserId::new(1), 0, 0).map(drop)
        })
        .await
        .unwrap();
        let checks = PasswordChecks::new(1);
        let Some(Passed::SecondFactor(token)) = attempt(&ctx, &checks, "a@x.org", PASSWORD, None)
            .await
            .unwrap()
        else {
            panic!("expected a pending login");
        };
        let token = token.expose().to_string();
        assert!(signed_in(&db, token.clone()).await.unwrap().is_none());
        let waiting = db
            .read(move |c| pending::user_of(c, &token, now()))
            .await
            .unwrap();
        assert_eq!(waiting, Some(UserId::new(1)));
    }

    #[tokio::test]
    async fn a_locked_account_is_refused_before_its_password_is_checked() {
        let (_tmp, db) = with_account().await;
        let ctx = crate::core::context::Context::for_tests(db.clone(), _tmp.path());
        let checks = PasswordChecks::new(1);
        let [account, _] = keys("a@x.org", None);
        db.write(move |c| {
            for _ in 0..throttle::LOCK_AFTER {
                throttle::reserve(c, &[&account], now())?;
            }
            Ok(())
        })
        .await
        .unwrap();
        let locked = attempt(&ctx, &checks, "a@x.org", PASSWORD, None).await;
        assert!(
            matches!(locked, Err(AppError::TooManyRequests { .. })),
            "{locked:?}"
        );
    }
}
