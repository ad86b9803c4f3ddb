//! The account page's second-factor use cases, each one transaction: TOTP enrolment and turning
//! it off, and passkeys added, renamed and removed. Every change to how the account signs in
//! asks for a session confirmed within the last few minutes (`sessions::confirm`), or a current
//! code for turning TOTP off, and mails the account a notice in the same transaction, waking
//! the mail worker once it has committed.

use crate::core::context::Context;
#[cfg(test)]
use crate::core::db::Db;
use crate::core::error::AppError;
use crate::core::ids::UserId;
use crate::identity::sessions::confirm;
use crate::identity::users::User;
use crate::{core::db::Conn, core::db::now};
use crate::{identity::factors::Enrolment, identity::factors::Verifier, identity::factors::store};

/// Queues the mail that tells `user` how their sign-in changed (`what`).
fn notify(tx: &Conn, user: UserId, what: &str, now: i64) -> Result<(), AppError> {
    let Some(u) = crate::identity::users::store::get(tx, user)? else {
        return Ok(());
    };
    let content = crate::outbox::mail::compose::SecurityNotice {
        name: &u.name,
        email: &u.email,
        what,
    }
    .compose();
    let m = crate::outbox::mail::NewMail::new(
        crate::outbox::mail::Kind::SecurityNotice,
        &u.email,
        content,
    );
    crate::outbox::mail::store::enqueue(tx, &m, now).map(drop)
}

/// Starts (or restarts) TOTP enrolment in the confirmed `session`: the secret to show. While
/// TOTP is on, confirming the new secret replaces the old one, so this asks for the same
/// confirmation as adding a factor.
pub async fn start_totp(
    ctx: &Context,
    verifier: &Verifier,
    user: &User,
    session: String,
) -> Result<Enrolment, AppError> {
    let (verifier, id, email) = (verifier.clone(), user.id, user.email.clone());
    ctx.db
        .write(move |tx| {
            confirm::require(tx, &session, now())?;
            verifier.totp_begin(tx, id, &email, now())
        })
        .await
}

/// The enrolment under way (started, not yet confirmed nor expired), to show again.
pub async fn pending_totp(
    ctx: &Context,
    verifier: &Verifier,
    user: &User,
) -> Result<Option<Enrolment>, AppError> {
    let (v, id, email) = (verifier.clone(), user.id, user.email.clone());
    ctx.db.read(move |c| v.totp_pending(c, id, &email)).await
}

/// How a confirmation code was taken.
pub enum Confirmation {
    /// TOTP is on: the recovery codes, shown once.
    RecoveryCodes(Vec<String>),
    /// The code was refused (`why`); the enrolment under way to show again, unless it ended
    /// meanwhile.
    Refused {
        why: String,
        enrolment: Option<Enrolment>,
    },
}

/// Turns TOTP on with a current `code` of the secret being enrolled (which only a confirmed
/// session could start), and mails the account.
pub async fn confirm_totp(
    ctx: &Context,
    verifier: &Verifier,
    user: &User,
    code: String,
) -> Result<Confirmation, AppError> {
    let (v, id) = (verifier.clone(), user.id);
    match ctx
        .db
        .write(move |tx| {
            let replaced = crate::identity::users::store::has_totp(tx, id)?;
            let codes = v.totp_confirm(tx, id, &code, now())?;
            let what = if replaced {
                "The authenticator app was replaced by a new one"
            } else {
                "An authenticator app was set up"
            };
            notify(tx, id, what, now())?;
            Ok(codes)
        })
        .await
    {
        Ok(codes) => {
            ctx.workers.mail.wake();
            Ok(Confirmation::RecoveryCodes(codes))
        }
        Err(e @ AppError::BadRequest { .. }) => Ok(Confirmation::Refused {
            why: e.public_message(),
            enrolment: pending_totp(ctx, verifier, user).await?,
        }),
        Err(e) => Err(e),
    }
}

/// Turns TOTP off, given a current code or a recovery code: whoever turns it off holds the
/// factor. The code is counted before it is checked, like every second-factor answer.
pub async fn disable_totp(
    ctx: &Context,
    verifier: &Verifier,
    user: UserId,
    code: String,
) -> Result<(), AppError> {
    let verifier = verifier.clone();
    crate::identity::factors::counted(
        &ctx.db,
        move |tx| Verifier::reserve(tx, user, now()),
        move |tx, attempt| {
            verifier
                .check_totp(tx, attempt, &code, now())
                .or_else(|_| verifier.check_recovery_code(tx, attempt, &code, now()))?;
            crate::identity::factors::disable_totp(tx, user, now())?;
            notify(tx, user, "The authenticator app was turned off", now())
        },
        Verifier::release,
    )
    .await?;
    ctx.workers.mail.wake();
    Ok(())
}

/// The WebAuthn creation options for a new passkey of `user`, in the confirmed `session`.
pub async fn passkey_options(
    ctx: &Context,
    verifier: &Verifier,
    user: User,
    session: String,
) -> Result<serde_json::Value, AppError> {
    let verifier = verifier.clone();
    ctx.db
        .write(move |tx| {
            confirm::require(tx, &session, now())?;
            verifier.passkey_register_begin(tx, &user, now())
        })
        .await
}

/// A passkey's registration answer, with the name to store it under.
pub struct NewPasskey {
    pub answer: Vec<u8>,
    pub name: String,
}

/// Stores the passkey of a registration answer in the confirmed `session`: its id. Mails the
/// account.
pub async fn add_passkey(
    ctx: &Context,
    verifier: &Verifier,
    user: UserId,
    session: String,
    new: NewPasskey,
) -> Result<i64, AppError> {
    let verifier = verifier.clone();
    let id = ctx
        .db
        .write(move |tx| {
            confirm::require(tx, &session, now())?;
            let name = crate::identity::factors::passkey_name(&new.name)?;
            let id = verifier.passkey_register_finish(tx, user, &new.answer, &name, now())?;
            notify(
                tx,
                user,
                &format!("A passkey named \"{name}\" was added"),
                now(),
            )?;
            Ok(id)
        })
        .await?;
    ctx.workers.mail.wake();
    Ok(id)
}

/// What happens to a passkey.
#[derive(Debug, Clone)]
pub enum PasskeyChange {
    Rename(String),
    Remove,
}

/// Renames or removes `user`'s passkey `id`; 404 when `user` has no such passkey. Removing one
/// asks for the confirmed `session` and mails the account; a new name changes no security.
pub async fn change_passkey(
    ctx: &Context,
    user: UserId,
    session: String,
    id: i64,
    change: PasskeyChange,
) -> Result<(), AppError> {
    ctx.db
        .write(move |tx| {
            let found = match change {
                PasskeyChange::Rename(name) => store::rename_passkey(
                    tx,
                    user,
                    id,
                    &crate::identity::factors::passkey_name(&name)?,
                )?,
                PasskeyChange::Remove => {
                    confirm::require(tx, &session, now())?;
                    match store::delete_passkey(tx, user, id)? {
                        Some(name) => {
                            let what = format!("The passkey named \"{name}\" was removed");
                            notify(tx, user, &what, now())?;
                            true
                        }
                        None => false,
                    }
                }
            };
            if found {
                Ok(())
            } else {
                Err(AppError::not_found("passkey"))
            }
        })
        .await?;
    ctx.workers.mail.wake();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A database with account 1, a session of it (`.4`, not yet confirmed), and the verifier.
    async fn setup() -> (tempfile::TempDir, Db, Verifier, User, String) {
        let tmp = tempfile::tempdir().unwrap();
        let db = Db::open(&tmp.path().join("t.db"), tmp.path(), 2).unwrap();
        let secrets = crate::core::crypto::SecretBox::load_or_create_file(tmp.path(), "k").unwrap();
        let verifier = Verifier {
            secrets: std::sync::Arc::new(secrets),
            rp: None,
        };
        let session = crate::identity::sessions::new_token();
        let s = session.clone();
        let user = db
            .write(move |c| {
                c.execute_batch(
                    "INSERT INTO users (id, email, username, name, password_hash, created_at, updated_at)
                     VALUES (1, 'a@x.org', 'a', 'A', 'x', 0, 0);",
                )?;
                crate::identity::sessions::store::create(c, UserId::new(1), &s, now())?;
                crate::identity::users::store::get(c, UserId::new(1))
            })
            .await
            .unwrap()
            .unwrap();
        let session = session.expose().to_string();
        (tmp, db, verifier, user, session)
    }

    async fn confirm_at(db: &Db, session: &str, at: i64) {
        let s = session.to_string();
        db.write(move |c| crate::identity::sessions::store::mark_confirmed(c, &s, at))
            .await
            .unwrap();
    }

    /// The subjects and recipients of the security notices queued so far.
    async fn notices(db: &Db) -> Vec<String> {
        db.read(|c| {
            Ok(crate::outbox::mail::store::list(c, None, 100)?
                .into_iter()
                .rev()
                .filter(|m| m.kind == crate::outbox::mail::Kind::SecurityNotice)
                .map(|m| format!("{} {}", m.to, m.text.lines().nth(2).unwrap_or_default()))
                .collect())
        })
        .await
        .unwrap()
    }

    /// The code the enrolled (or enrolling) secret of account 1 shows now.
    async fn current_code(db: &Db, verifier: &Verifier, enrolled: bool) -> String {
        let v = verifier.clone();
        db.read(move |c| {
            let cols = crate::identity::users::store::totp_columns(c, UserId::new(1))?;
            let sealed = if enrolled { cols.secret } else { cols.pending };
            crate::identity::factors::totp::code_at(&v.open(&sealed.unwrap())?, now())
        })
        .await
        .unwrap()
    }

    #[tokio::test]
    async fn a_wrong_code_shows_the_enrolment_again_and_a_right_one_turns_totp_on() {
        let (_tmp, db, verifier, user, session) = setup().await;
        let ctx = crate::core::context::Context::for_tests(db.clone(), _tmp.path());
        confirm_at(&db, &session, now()).await;
        let started = start_totp(&ctx, &verifier, &user, session.clone())
            .await
            .unwrap();
        let wrong = confirm_totp(&ctx, &verifier, &user, "000000x".into())
            .await
            .unwrap();
        let Confirmation::Refused { why, enrolment } = wrong else {
            panic!("a wrong code was taken");
        };
        assert!(why.contains("does not match"), "{why}");
        assert_eq!(enrolment.unwrap().secret_text, started.secret_text);
        let code = current_code(&db, &verifier, false).await;
        let Confirmation::RecoveryCodes(codes) =
            confirm_totp(&ctx, &verifier, &user, code).await.unwrap()
        else {
            panic!("the right code was refused");
        };
        assert_eq!(codes.len(), crate::identity::factors::RECOVERY_CODES);
        let on = db
            .read(|c| store::enrolled(c, UserId::new(1)))
            .await
            .unwrap();
        assert!(on.totp);
        let nothing = confirm_totp(&ctx, &verifier, &user, "123456".into()).await;
        assert_eq!(nothing.err().map(|e| e.code()), Some("conflict"));

        let refused = disable_totp(&ctx, &verifier, UserId::new(1), "nope".into()).await;
        assert_eq!(refused.unwrap_err().code(), "wrong_code");
        disable_totp(&ctx, &verifier, UserId::new(1), codes[0].clone())
            .await
            .unwrap();
        let off = db
            .read(|c| store::enrolled(c, UserId::new(1)))
            .await
            .unwrap();
        assert!(!off.totp);
        assert_eq!(
            notices(&db).await,
            [
                "a@x.org An authenticator app was set up on your Docket account a@x.org.",
                "a@x.org The authenticator app was turned off on your Docket account a@x.org.",
            ]
        );
    }

    #[tokio::test]
    async fn changes_of_sign_in_security_need_a_fresh_confirmation() {
        let (_tmp, db, verifier, user, session) = setup().await;
        let ctx = crate::core::context::Context::for_tests(db.clone(), _tmp.path());
        let never = start_totp(&ctx, &verifier, &user, session.clone()).await;
        assert_eq!(never.err().map(|e| e.code()), Some("confirmation_required"));
        let late = now() - crate::identity::sessions::confirm::WINDOW;
        confirm_at(&db, &session, late).await;
        let stale = start_totp(&ctx, &verifier, &user, session.clone()).await;
        assert_eq!(stale.err().map(|e| e.code()), Some("confirmation_required"));
        let options = passkey_options(&ctx, &verifier, user.clone(), session.clone()).await;
        assert_eq!(
            options.err().map(|e| e.code()),
            Some("confirmation_required")
        );
        let new = NewPasskey {
            answer: b"{}".to_vec(),
            name: "Laptop".into(),
        };
        let added = add_passkey(&ctx, &verifier, UserId::new(1), session.clone(), new).await;
        assert_eq!(added.err().map(|e| e.code()), Some("confirmation_required"));
        let removed = change_passkey(
            &ctx,
            UserId::new(1),
            session.clone(),
            7,
            PasskeyChange::Remove,
        )
        .await;
        assert_eq!(
            removed.err().map(|e| e.code()),
            Some("confirmation_required")
        );
        // Another session's confirmation does not count for this one.
        let other = crate::identity::sessions::new_token();
        let o = other.clone();
        db.write(move |c| crate::identity::sessions::store::create(c, UserId::new(1), &o, now()))
            .await
            .unwrap();
        confirm_at(&db, other.expose(), now()).await;
        let elsewhere = start_totp(&ctx, &verifier, &user, session.clone()).await;
        assert!(elsewhere.is_err());
        confirm_at(&db, &session, now()).await;
        assert!(start_totp(&ctx, &verifier, &user, session).await.is_ok());
        assert!(notices(&db).await.is_empty(), "nothing changed yet");
    }

    #[tokio::test]
    async fn passkeys_change_only_with_a_good_name_and_when_they_exist() {
        let (_tmp, db, _verifier, _user, session) = setup().await;
        let ctx = crate::core::context::Context::for_tests(db.clone(), _tmp.path());
        confirm_at(&db, &session, now()).await;
        let bad_name = change_passkey(
            &ctx,
            UserId::new(1),
            session.clone(),
            7,
            PasskeyChange::Rename(" ".into()),
        )
        .await;
        assert_eq!(bad_name.unwrap_err().code(), "invalid_request");
        let missing = change_passkey(&ctx, UserId::new(1), session, 7, PasskeyChange::Remove).await;
        assert_eq!(missing.unwrap_err().code(), "not_found");
    }
}
