//! The second step of a login for an account with TOTP or a passkey: what the pending login
//! (`pending`) may answer with, and the answer that turns it into a session. Wrong answers
//! count against the account's second-factor lock and the pending login (five end it).

use crate::core::context::Context;
use crate::core::db::Conn;

use super::pending;
use crate::core::crypto::SecretToken;
#[cfg(test)]
use crate::core::db::Db;
use crate::core::db::now;
use crate::core::error::AppError;
use crate::{
    identity::factors::Attempt, identity::factors::Enrolled, identity::factors::Purpose,
    identity::factors::Verifier,
};

/// What the browser answers with.
#[derive(Debug, Clone)]
pub enum Proof {
    Totp(String),
    RecoveryCode(String),
    /// A passkey's `AuthenticationResponseJSON`.
    Passkey(Vec<u8>),
}

/// 401 `login_expired`: the pending login is gone (expired, used, or ended by wrong answers).
pub fn expired() -> AppError {
    AppError::AuthRequired {
        code: "login_expired",
        message: "this sign-in expired; enter your password again".into(),
    }
}

/// The second factors the pending login `token` may answer with; `None` when it is not live.
pub async fn waiting(ctx: &Context, token: String) -> Result<Option<Enrolled>, AppError> {
    ctx.db
        .read(move |c| match pending::user_of(c, &token, now())? {
            Some(user) => Ok(Some(crate::identity::factors::store::enrolled(c, user)?)),
            None => Ok(None),
        })
        .await
}

/// The WebAuthn request options for the pending login `token`'s passkeys.
pub async fn passkey_options(
    ctx: &Context,
    verifier: &Verifier,
    token: String,
) -> Result<serde_json::Value, AppError> {
    let verifier = verifier.clone();
    ctx.db
        .write(move |tx| {
            let user = pending::user_of(tx, &token, now())?.ok_or_else(expired)?;
            verifier.assertion_begin(tx, user, Purpose::Login, now())
        })
        .await
}

/// Checks `proof` (`None`: the form had no code) for the pending login `token` and, when it
/// passes, ends the pending login and starts a session: the new session's token. The answer is
/// counted against the pending login and the account before it is checked
/// (`factors::counted`), so that concurrent wrong answers get at most the limits' checks.
pub async fn finish(
    ctx: &Context,
    verifier: &Verifier,
    token: String,
    proof: Option<Proof>,
) -> Result<SecretToken, AppError> {
    let proof = proof.ok_or_else(|| AppError::bad_request("enter a code"))?;
    let verifier = verifier.clone();
    let session = super::new_token();
    let s = session.clone();
    let (t1, t2, t3) = (token.clone(), token.clone(), token);
    crate::identity::factors::counted(
        &ctx.db,
        move |tx| {
            let user = pending::reserve(tx, &t1, now())?.ok_or_else(expired)?;
            Verifier::reserve(tx, user, now())
        },
        move |tx, attempt| {
            check(tx, &verifier, attempt, proof, now())?;
            pending::take(tx, &t2, now())?.ok_or_else(expired)?;
            super::store::create(tx, attempt.user(), &s, now())
        },
        move |tx, attempt| {
            pending::release(tx, &t3)?;
            Verifier::release(tx, attempt)
        },
    )
    .await?;
    Ok(session)
}

fn check(
    tx: &Conn,
    verifier: &Verifier,
    attempt: &Attempt,
    proof: Proof,
    now: i64,
) -> Result<(), AppError> {
    match proof {
        Proof::Totp(code) => verifier.check_totp(tx, attempt, &code, now),
        Proof::RecoveryCode(code) => verifier.check_recovery_code(tx, attempt, &code, now),
        Proof::Passkey(answer) => {
            verifier.check_assertion(tx, attempt, Purpose::Login, &answer, now)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::ids::UserId;

    /// A database with account 1 (TOTP on, `codes` its recovery codes) waiting at `token`'s
    /// pending login, and the verifier.
    struct Waiting {
        _tmp: tempfile::TempDir,
        db: Db,
        ctx: crate::core::context::Context,
        verifier: Verifier,
        codes: Vec<String>,
        token: String,
    }

    async fn waiting_login() -> Waiting {
        let tmp = tempfile::tempdir().unwrap();
        let db = Db::open(&tmp.path().join("t.db"), tmp.path(), 2).unwrap();
        let secrets = crate::core::crypto::SecretBox::load_or_create_file(tmp.path(), "k").unwrap();
        let verifier = Verifier {
            secrets: std::sync::Arc::new(secrets),
            rp: None,
        };
        let token = super::super::new_token();
        let (v, t) = (verifier.clone(), token.clone());
        let codes = db
            .write(move |c| {
                c.execute_batch(
                    "INSERT INTO users (id, email, username, name, password_hash, created_at, updated_at)
                     VALUES (1, 'a@x.org', 'a', 'A', 'x', 0, 0);",
                )?;
                crate::identity::users::store::set_totp_pending(c, UserId::new(1), b"unused", 0)?;
                crate::identity::users::store::enable_totp(c, UserId::new(1), 0, 0)?;
                pending::create(c, UserId::new(1), &t, now())?;
                v.new_recovery_codes(c, UserId::new(1), 0)
            })
            .await
            .unwrap();
        Waiting {
            ctx: crate::core::context::Context::for_tests(db.clone(), tmp.path()),
            _tmp: tmp,
            db,
            verifier,
            codes,
            token: token.expose().to_string(),
        }
    }

    #[tokio::test]
    async fn a_recovery_code_turns_the_pending_login_into_a_session() {
        let w = waiting_login().await;
        let e = waiting(&w.ctx, w.token.clone()).await.unwrap().unwrap();
        assert!(e.totp);
        let proof = Some(Proof::RecoveryCode(w.codes[0].to_uppercase()));
        let session = finish(&w.ctx, &w.verifier, w.token.clone(), proof)
            .await
            .unwrap();
        let user = super::super::login::signed_in(&w.db, session.expose().to_string())
            .await
            .unwrap();
        assert_eq!(user.map(|u| u.id), Some(UserId::new(1)));
        assert!(waiting(&w.ctx, w.token.clone()).await.unwrap().is_none());
        let again = Some(Proof::RecoveryCode(w.codes[1].clone()));
        let gone = finish(&w.ctx, &w.verifier, w.token, again).await;
        assert_eq!(gone.unwrap_err().code(), "login_expired");
    }

    #[tokio::test]
    async fn five_wrong_answers_end_the_pending_login() {
        let w = waiting_login().await;
        let missing = finish(&w.ctx, &w.verifier, w.token.clone(), None).await;
        assert_eq!(
            missing.unwrap_err().code(),
            "invalid_request",
            "not counted"
        );
        for _ in 0..pending::MAX_FAILURES {
            let wrong = Some(Proof::RecoveryCode("aaaaa-bbbbb".into()));
            let e = finish(&w.ctx, &w.verifier, w.token.clone(), wrong).await;
            assert_eq!(e.unwrap_err().code(), "wrong_code");
        }
        assert!(waiting(&w.ctx, w.token.clone()).await.unwrap().is_none());
        let right = Some(Proof::RecoveryCode(w.codes[0].clone()));
        let e = finish(&w.ctx, &w.verifier, w.token, right).await;
        assert_eq!(e.unwrap_err().code(), "login_expired");
    }
}
