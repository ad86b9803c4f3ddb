//! Confirming who one is before a change to how the account signs in (setting up or replacing
//! an authenticator app, adding or removing a passkey) or to what may act for it (a new API
//! token or webhook, `Principal::require_confirmed`): a session cookie alone is not enough.
//! The owner proves a current second factor (a TOTP code, a recovery code or a passkey), or the
//! password when the account has no second factor; the session then counts as confirmed for
//! `WINDOW`. The proof is counted like any other answer (`factors::counted` for factors, the
//! login throttle for passwords), so this door adds no guesses to the others.

use crate::core::context::Context;
use crate::core::ids::UserId;
use std::net::IpAddr;

use crate::core::error::AppError;
use crate::identity::users::User;
use crate::identity::users::checks::PasswordChecks;
use crate::{core::db::Conn, core::db::now};
use crate::{identity::factors::Enrolled, identity::factors::Purpose, identity::factors::Verifier};

/// How long a confirmation lasts.
pub const WINDOW: i64 = 5 * 60;

/// What the owner confirms with.
#[derive(Clone)]
pub enum Proof {
    Password(String),
    Totp(String),
    RecoveryCode(String),
    /// A passkey's `AuthenticationResponseJSON`.
    Passkey(Vec<u8>),
}

/// 401 `confirmation_required`: the change needs a fresh confirmation first.
pub fn required() -> AppError {
    AppError::AuthRequired {
        code: "confirmation_required",
        message: "confirm it is you first (your authenticator app, a passkey, or your password)"
            .into(),
    }
}

/// Inside a use case's transaction: `Ok` when the session behind `token` was confirmed within
/// the last `WINDOW` seconds, 401 `confirmation_required` otherwise.
pub fn require(tx: &Conn, token: &str, now: i64) -> Result<(), AppError> {
    match super::store::confirmed_at(tx, token, now)? {
        Some(at) if at <= now && now - at < WINDOW => Ok(()),
        _ => Err(required()),
    }
}

/// What `user` may confirm with: their second factors, or (none) the password.
pub async fn asks(ctx: &Context, user: UserId) -> Result<Enrolled, AppError> {
    ctx.db
        .read(move |c| crate::identity::factors::store::enrolled(c, user))
        .await
}

/// The WebAuthn request options for confirming with one of `user`'s passkeys.
pub async fn passkey_options(
    ctx: &Context,
    verifier: &Verifier,
    user: UserId,
) -> Result<serde_json::Value, AppError> {
    let verifier = verifier.clone();
    ctx.db
        .write(move |tx| verifier.assertion_begin(tx, user, Purpose::Confirm, now()))
        .await
}

/// What a confirmation needs besides the session and its proof.
pub struct Checks<'a> {
    pub verifier: &'a Verifier,
    pub passwords: &'a PasswordChecks,
    pub address: Option<IpAddr>,
}

/// Confirms the session behind `token` (of `user`) with `proof`: a second factor when the
/// account has one (the password is then not enough), the password otherwise.
pub async fn confirm(
    ctx: &Context,
    checks: Checks<'_>,
    token: String,
    user: &User,
    proof: Proof,
) -> Result<(), AppError> {
    let enrolled = asks(ctx, user.id).await?;
    match (enrolled.any(), proof) {
        (false, Proof::Password(password)) => {
            let right = crate::identity::sessions::login::recheck(
                &ctx.db,
                checks.passwords,
                &user.email,
                &password,
                checks.address,
            )
            .await?;
            if right != Some(user.id) {
                return Err(AppError::AuthRequired {
                    code: "wrong_password",
                    message: "that password is wrong".into(),
                });
            }
            ctx.db
                .write(move |tx| super::store::mark_confirmed(tx, &token, now()))
                .await
        }
        (false, _) => Err(AppError::bad_request("enter your password")),
        (true, Proof::Password(_)) => Err(AppError::bad_request(
            "this account has a second factor: confirm with your authenticator app or a passkey",
        )),
        (true, proof) => {
            let (verifier, id) = (checks.verifier.clone(), user.id);
            crate::identity::factors::counted(
                &ctx.db,
                move |tx| Verifier::reserve(tx, id, now()),
                move |tx, attempt| {
                    match proof {
                        Proof::Totp(code) => verifier.check_totp(tx, attempt, &code, now())?,
                        Proof::RecoveryCode(code) => {
                            verifier.check_recovery_code(tx, attempt, &code, now())?
                        }
                        Proof::Passkey(answer) => verifier.check_assertion(
                            tx,
                            attempt,
                            Purpose::Confirm,
                            &answer,
                            now(),
                        )?,
                        Proof::Password(_) => return Err(AppError::bad_request("enter a code")),
                    }
                    super::store::mark_confirmed(tx, &token, now())
                },
                Verifier::release,
            )
            .await
        }
    }
}
