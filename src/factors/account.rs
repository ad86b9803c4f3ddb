//! The account page's second-factor use cases, each one transaction: TOTP enrolment and turning
//! it off, and passkeys added, renamed and removed.

use super::{Enrolment, Verifier, store};
use crate::db::{Db, now};
use crate::error::AppError;
use crate::users::User;

/// Starts (or restarts) TOTP enrolment: the secret to show.
pub async fn start_totp(db: &Db, verifier: &Verifier, user: &User) -> Result<Enrolment, AppError> {
    let (verifier, id, email) = (verifier.clone(), user.id, user.email.clone());
    db.write(move |tx| verifier.totp_begin(tx, id, &email, now()))
        .await
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

/// Turns TOTP on with a current `code` of the secret being enrolled.
pub async fn confirm_totp(
    db: &Db,
    verifier: &Verifier,
    user: &User,
    code: String,
) -> Result<Confirmation, AppError> {
    let (v, id) = (verifier.clone(), user.id);
    match db
        .write(move |tx| v.totp_confirm(tx, id, &code, now()))
        .await
    {
        Ok(codes) => Ok(Confirmation::RecoveryCodes(codes)),
        Err(e @ AppError::BadRequest { .. }) => {
            let (v, email) = (verifier.clone(), user.email.clone());
            let enrolment = db.read(move |c| v.totp_pending(c, id, &email)).await?;
            Ok(Confirmation::Refused {
                why: e.public_message(),
                enrolment,
            })
        }
        Err(e) => Err(e),
    }
}

/// Turns TOTP off, given a current code or a recovery code: whoever turns it off holds the
/// factor.
pub async fn disable_totp(
    db: &Db,
    verifier: &Verifier,
    user: i64,
    code: String,
) -> Result<(), AppError> {
    let verifier = verifier.clone();
    db.write(move |tx| {
        verifier
            .check_totp(tx, user, &code, now())
            .or_else(|_| verifier.check_recovery_code(tx, user, &code, now()))?;
        super::disable_totp(tx, user, now())
    })
    .await
}

/// The WebAuthn creation options for a new passkey of `user`.
pub async fn passkey_options(
    db: &Db,
    verifier: &Verifier,
    user: User,
) -> Result<serde_json::Value, AppError> {
    let verifier = verifier.clone();
    db.write(move |tx| verifier.passkey_register_begin(tx, &user, now()))
        .await
}

/// Stores the passkey of a registration `answer` as `name`: its id.
pub async fn add_passkey(
    db: &Db,
    verifier: &Verifier,
    user: i64,
    answer: Vec<u8>,
    name: String,
) -> Result<i64, AppError> {
    let verifier = verifier.clone();
    db.write(move |tx| verifier.passkey_register_finish(tx, user, &answer, &name, now()))
        .await
}

/// What happens to a passkey.
#[derive(Debug, Clone)]
pub enum PasskeyChange {
    Rename(String),
    Remove,
}

/// Renames or removes `user`'s passkey `id`; 404 when `user` has no such passkey.
pub async fn change_passkey(
    db: &Db,
    user: i64,
    id: i64,
    change: PasskeyChange,
) -> Result<(), AppError> {
    db.write(move |tx| {
        let found = match change {
            PasskeyChange::Rename(name) => {
                store::rename_passkey(tx, user, id, &super::passkey_name(&name)?)?
            }
            PasskeyChange::Remove => store::delete_passkey(tx, user, id)?,
        };
        if found {
            Ok(())
        } else {
            Err(AppError::not_found("passkey"))
        }
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn setup() -> (tempfile::TempDir, Db, Verifier, User) {
        let tmp = tempfile::tempdir().unwrap();
        let db = Db::open(&tmp.path().join("t.db"), tmp.path(), 2).unwrap();
        let secrets =
            crate::webhooks::secret::SecretBox::load_or_create_file(tmp.path(), "k").unwrap();
        let verifier = Verifier {
            secrets: std::sync::Arc::new(secrets),
            rp: None,
        };
        let user = db
            .write(|c| {
                c.execute_batch(
                    "INSERT INTO users (id, email, username, name, password_hash, created_at, updated_at)
                     VALUES (1, 'a@x.org', 'a', 'A', 'x', 0, 0);",
                )?;
                crate::users::store::get(c, 1)
            })
            .await
            .unwrap()
            .unwrap();
        (tmp, db, verifier, user)
    }

    /// The code the enrolled (or enrolling) secret of account 1 shows now.
    async fn current_code(db: &Db, verifier: &Verifier, enrolled: bool) -> String {
        let v = verifier.clone();
        db.read(move |c| {
            let cols = crate::users::store::totp_columns(c, 1)?;
            let sealed = if enrolled { cols.secret } else { cols.pending };
            super::super::totp::code_at(&v.open(&sealed.unwrap())?, now())
        })
        .await
        .unwrap()
    }

    #[tokio::test]
    async fn a_wrong_code_shows_the_enrolment_again_and_a_right_one_turns_totp_on() {
        let (_tmp, db, verifier, user) = setup().await;
        let started = start_totp(&db, &verifier, &user).await.unwrap();
        let wrong = confirm_totp(&db, &verifier, &user, "000000x".into())
            .await
            .unwrap();
        let Confirmation::Refused { why, enrolment } = wrong else {
            panic!("a wrong code was taken");
        };
        assert!(why.contains("does not match"), "{why}");
        assert_eq!(enrolment.unwrap().secret_text, started.secret_text);
        let code = current_code(&db, &verifier, false).await;
        let Confirmation::RecoveryCodes(codes) =
            confirm_totp(&db, &verifier, &user, code).await.unwrap()
        else {
            panic!("the right code was refused");
        };
        assert_eq!(codes.len(), super::super::RECOVERY_CODES);
        let on = db.read(|c| store::enrolled(c, 1)).await.unwrap();
        assert!(on.totp);
        let nothing = confirm_totp(&db, &verifier, &user, "123456".into()).await;
        assert_eq!(nothing.err().map(|e| e.code()), Some("conflict"));

        let refused = disable_totp(&db, &verifier, 1, "nope".into()).await;
        assert_eq!(refused.unwrap_err().code(), "wrong_code");
        disable_totp(&db, &verifier, 1, codes[0].clone())
            .await
            .unwrap();
        let off = db.read(|c| store::enrolled(c, 1)).await.unwrap();
        assert!(!off.totp);
    }

    #[tokio::test]
    async fn passkeys_change_only_with_a_good_name_and_when_they_exist() {
        let (_tmp, db, _verifier, _user) = setup().await;
        let bad_name = change_passkey(&db, 1, 7, PasskeyChange::Rename(" ".into())).await;
        assert_eq!(bad_name.unwrap_err().code(), "invalid_request");
        let missing = change_passkey(&db, 1, 7, PasskeyChange::Remove).await;
        assert_eq!(missing.unwrap_err().code(), "not_found");
    }
}
