//! Second factors of accounts: TOTP (with one-time recovery codes) and passkeys. They guard
//! logins (`sessions::second_step`) and the actions of recipients whose documents ask for
//! TWO_FACTOR_AUTH or PASSKEY (`signing::auth`); such a recipient may also give a code e-mailed
//! to them (`mailed`). Every `Verifier` method runs inside the
//! caller's write transaction, so a proof is checked and used up in the same transaction as the
//! action it guards; the account page's use cases (`account`) own their transactions.
//!
//! Guesses are bounded by counting before checking: an answer is first reserved
//! ([`Verifier::reserve`], an [`Attempt`]) in a write of its own that commits, and only then
//! checked. Concurrent wrong answers therefore cannot all be checked before any is counted.

pub mod mailed;
pub mod passkey;
pub mod store;
pub mod totp;

use crate::core::ids::UserId;
use crate::{core::db::Conn, core::db::Db};

use crate::core::crypto::SecretBox;
use crate::core::crypto::sha256_hex;
use crate::core::error::AppError;
use crate::identity::throttle;
use passkey::RelyingParty;
pub use store::{Enrolled, Purpose};

/// The key file (under `<data>/secrets/`) that seals TOTP secrets.
pub const SECRETS_FILE: &str = "account-secrets.key";

/// Recovery codes issued at enrolment.
pub const RECOVERY_CODES: usize = 10;

/// What the server needs to check second factors: the key that seals TOTP secrets, and the
/// relying party (none when the app URL's host is an IP address: passkeys are then off).
#[derive(Clone)]
pub struct Verifier {
    pub secrets: std::sync::Arc<SecretBox>,
    pub rp: Option<RelyingParty>,
}

impl std::fmt::Debug for Verifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Verifier").field("rp", &self.rp).finish()
    }
}

/// A TOTP enrolment under way: what the account page shows.
pub struct Enrolment {
    pub uri: String,
    pub secret_text: String,
    /// The URI as a QR code, an SVG document.
    pub qr_svg: String,
}

fn unauthorized(code: &'static str, message: impl Into<String>) -> AppError {
    AppError::AuthRequired {
        code,
        message: message.into(),
    }
}

fn throttle_key(user: UserId) -> String {
    format!("factor:{user}")
}

/// One answer to the second factor of an account, counted before it is checked. Only
/// [`Verifier::reserve`] makes one, so no check can run uncounted. It stands as a failure
/// unless the check passes (the account's count is then cleared) or it is taken back unchecked
/// ([`Verifier::release`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use = "an attempt is checked or released"]
pub struct Attempt {
    user: UserId,
}

impl Attempt {
    /// The account this attempt is at.
    pub fn user(&self) -> UserId {
        self.user
    }
}

impl Verifier {
    fn rp(&self) -> Result<&RelyingParty, AppError> {
        self.rp.as_ref().ok_or_else(|| {
            AppError::Conflict(
                "passkeys need the app URL to name a host (not an IP address); see --app-url"
                    .into(),
            )
        })
    }

    /// Starts (or restarts) TOTP enrolment for `user`.
    pub fn totp_begin(
        &self,
        tx: &Conn,
        user: UserId,
        email: &str,
        now: i64,
    ) -> Result<Enrolment, AppError> {
        let secret = totp::new_secret();
        let sealed = self.secrets.seal(&hex::encode(&secret))?;
        crate::identity::users::store::set_totp_pending(tx, user, &sealed, now)?;
        self.enrolment(&secret, email)
    }

    /// The enrolment under way, shown again (after a wrong confirmation code).
    pub fn totp_pending(
        &self,
        tx: &Conn,
        user: UserId,
        email: &str,
    ) -> Result<Option<Enrolment>, AppError> {
        match crate::identity::users::store::totp_columns(tx, user)?.pending {
            Some(sealed) => Ok(Some(self.enrolment(&self.open(&sealed)?, email)?)),
            None => Ok(None),
        }
    }

    fn enrolment(&self, secret: &[u8], email: &str) -> Result<Enrolment, AppError> {
        let uri = totp::uri(secret, email)?;
        let qr = qrcode::QrCode::new(uri.as_bytes())
            .map_err(|e| AppError::internal(format!("QR code: {e}")))?;
        let qr_svg = qr
            .render::<qrcode::render::svg::Color<'_>>()
            .min_dimensions(200, 200)
            .quiet_zone(true)
            .build();
        Ok(Enrolment {
            uri,
            secret_text: totp::secret_text(secret),
            qr_svg,
        })
    }

    pub(crate) fn open(&self, sealed: &[u8]) -> Result<Vec<u8>, AppError> {
        hex::decode(self.secrets.open(sealed)?)
            .map_err(|_| AppError::internal("a stored TOTP secret is damaged"))
    }

    /// Confirms enrolment with a code of the pending secret. Returns the recovery codes, shown
    /// once.
    pub fn totp_confirm(
        &self,
        tx: &Conn,
        user: UserId,
        code: &str,
        now: i64,
    ) -> Result<Vec<String>, AppError> {
        let cols = crate::identity::users::store::totp_columns(tx, user)?;
        let Some(sealed) = cols.pending else {
            return Err(AppError::Conflict(
                "no enrolment is under way; start again".into(),
            ));
        };
        let secret = self.open(&sealed)?;
        let Some(step) = totp::accepted_step(&secret, code, now, 0)? else {
            return Err(AppError::bad_request(
                "that code does not match; check the time on your device and try the current code",
            ));
        };
        if !crate::identity::users::store::enable_totp(tx, user, step, now)? {
            return Err(AppError::Conflict(
                "no enrolment is under way; start again".into(),
            ));
        }
        self.new_recovery_codes(tx, user, now)
    }

    /// Replaces the recovery codes.
    pub fn new_recovery_codes(
        &self,
        tx: &Conn,
        user: UserId,
        now: i64,
    ) -> Result<Vec<String>, AppError> {
        let codes: Vec<String> = (0..RECOVERY_CODES).map(|_| recovery_code()).collect();
        let hashes: Vec<String> = codes.iter().map(|c| recovery_hash(c)).collect();
        store::replace_recovery_codes(tx, user, &hashes, now)?;
        Ok(codes)
    }

    /// Counts one answer to `user`'s second factor before it is checked: 429 (and nothing
    /// counted) while the account's second-factor attempts are locked. Run it in a write that
    /// commits before the check's transaction begins.
    pub fn reserve(tx: &Conn, user: UserId, now: i64) -> Result<Attempt, AppError> {
        match throttle::reserve(tx, &[&throttle_key(user)], now)? {
            throttle::Verdict::Locked(secs) => Err(AppError::TooManyRequests {
                retry_after: secs.max(1) as u64,
                limit: 0,
            }),
            // The bound is the count; a wrong second factor costs no password hash to wait on.
            throttle::Verdict::Allow | throttle::Verdict::Slow(_) => Ok(Attempt { user }),
        }
    }

    /// Takes back an attempt that was never checked (its action failed first).
    pub fn release(tx: &Conn, attempt: Attempt) -> Result<(), AppError> {
        throttle::release(tx, &throttle_key(attempt.user))
    }

    /// Checks a current TOTP code of the account `attempt` is at and uses it up: 401
    /// `wrong_code` when wrong (the attempt then stands as a failure).
    pub fn check_totp(
        &self,
        tx: &Conn,
        attempt: &Attempt,
        code: &str,
        now: i64,
    ) -> Result<(), AppError> {
        let user = attempt.user;
        let cols = crate::identity::users::store::totp_columns(tx, user)?;
        let Some(sealed) = cols.secret else {
            return Err(unauthorized(
                "totp_not_enrolled",
                "this account has no authenticator app yet: set one up on your account page",
            ));
        };
        let secret = self.open(&sealed)?;
        match totp::accepted_step(&secret, code, now, cols.last_step)? {
            Some(step) if crate::identity::users::store::take_totp_step(tx, user, step)? => {
                throttle::clear(tx, &throttle_key(user))?;
                Ok(())
            }
            _ => Err(unauthorized(
                "wrong_code",
                "that code is wrong or was used already; enter the current code from your authenticator app",
            )),
        }
    }

    /// Checks a six-digit code a recipient gave to finish on their signing link and uses it up:
    /// the code e-mailed to `recipient` for the account `attempt` is at (`mailed`), or else a
    /// current TOTP code of that account. 401 `wrong_code` when it is neither (the attempt then
    /// stands as a failure, counted with wrong TOTP codes and refused passkeys alike).
    pub fn check_code(
        &self,
        tx: &Conn,
        attempt: &Attempt,
        recipient: crate::core::ids::RecipientId,
        code: &str,
        now: i64,
    ) -> Result<CodeFrom, AppError> {
        let user = attempt.user;
        if mailed::take(tx, recipient, user, code, now)? {
            throttle::clear(tx, &throttle_key(user))?;
            return Ok(CodeFrom::Email);
        }
        if crate::identity::users::store::has_totp(tx, user)? {
            self.check_totp(tx, attempt, code, now)?;
            return Ok(CodeFrom::App);
        }
        Err(unauthorized(
            "wrong_code",
            "that code is wrong, has expired or was used already: ask for a new one by e-mail",
        ))
    }

    /// Uses one of the recovery codes of the account `attempt` is at.
    pub fn check_recovery_code(
        &self,
        tx: &Conn,
        attempt: &Attempt,
        code: &str,
        now: i64,
    ) -> Result<(), AppError> {
        let user = attempt.user;
        if store::use_recovery_code(tx, user, &recovery_hash(code), now)? {
            throttle::clear(tx, &throttle_key(user))?;
            Ok(())
        } else {
            Err(unauthorized(
                "wrong_code",
                "that recovery code is wrong or was used already",
            ))
        }
    }

    /// Begins registering a passkey for `user`.
    pub fn passkey_register_begin(
        &self,
        tx: &Conn,
        user: &crate::identity::users::User,
        now: i64,
    ) -> Result<serde_json::Value, AppError> {
        let rp = self.rp()?;
        let handle = crate::identity::users::store::passkey_handle(tx, user.id)?;
        let existing = store::credential_ids(tx, user.id)?;
        let c = rp.start_registration(&handle, &user.email, &user.name, &existing)?;
        store::insert_ceremony(tx, Purpose::Register, user.id, &c, now)?;
        Ok(c.options)
    }

    /// Verifies a registration answer and stores the passkey as `name`.
    pub fn passkey_register_finish(
        &self,
        tx: &Conn,
        user: UserId,
        answer: &[u8],
        name: &str,
        now: i64,
    ) -> Result<i64, AppError> {
        let rp = self.rp()?;
        let answer = passkey::Attestation::parse(answer)?;
        let state = store::take_ceremony(tx, &answer.challenge()?, Purpose::Register, user, now)?
            .ok_or_else(|| {
            AppError::bad_request("that passkey request expired or was used; start again")
        })?;
        let cred = rp.finish_registration(&state, &answer)?;
        store::insert_passkey(tx, user, &cred, &passkey_name(name)?, now)
    }

    /// Begins an assertion by one of `user`'s passkeys, for `purpose`.
    pub fn assertion_begin(
        &self,
        tx: &Conn,
        user: UserId,
        purpose: Purpose,
        now: i64,
    ) -> Result<serde_json::Value, AppError> {
        let rp = self.rp()?;
        let creds = store::credential_ids(tx, user)?;
        if creds.is_empty() {
            return Err(unauthorized(
                "passkey_not_enrolled",
                "this account has no passkey yet: add one on your account page",
            ));
        }
        let c = rp.start_assertion(&creds)?;
        store::insert_ceremony(tx, purpose, user, &c, now)?;
        Ok(c.options)
    }

    /// Verifies an assertion for `purpose` by one of the passkeys of the account `attempt` is
    /// at: the ceremony is used up, a credential of another account is refused, the counter is
    /// stored.
    pub fn check_assertion(
        &self,
        tx: &Conn,
        attempt: &Attempt,
        purpose: Purpose,
        answer: &[u8],
        now: i64,
    ) -> Result<(), AppError> {
        let user = attempt.user;
        let rp = self.rp()?;
        let refused = |why: &str| unauthorized("passkey_refused", why.to_string());
        let answer = passkey::Assertion::parse(answer)
            .map_err(|_| refused("that passkey answer could not be read"))?;
        let state = store::take_ceremony(tx, &answer.challenge()?, purpose, user, now)?
            .ok_or_else(|| refused("that passkey request expired or was used; try again"))?;
        let (id, stored) = store::credential(tx, user, &answer.credential_id())?
            .ok_or_else(|| refused("that passkey does not belong to this account"))?;
        let handle = crate::identity::users::store::passkey_handle(tx, user)?;
        let dynamic = rp
            .finish_assertion(&state, &answer, &handle, &stored)
            .map_err(|e| refused(&e.to_string()))?;
        store::passkey_used(tx, id, &dynamic, now)?;
        throttle::clear(tx, &throttle_key(user))?;
        Ok(())
    }
}

/// Where a right six-digit code came from ([`Verifier::check_code`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeFrom {
    /// The account's authenticator app (TOTP).
    App,
    /// An e-mail to the recipient (`mailed`).
    Email,
}

/// Turns the authenticator app off: its secret and the recovery codes go.
pub fn disable_totp(tx: &Conn, user: UserId, now: i64) -> Result<(), AppError> {
    crate::identity::users::store::clear_totp(tx, user, now)?;
    store::delete_recovery_codes(tx, user)
}

/// Runs one checked answer: `reserve` counts it in a write that commits first (an [`Attempt`]
/// or more), `check` then checks it in a transaction of its own. A refused proof stands as a
/// failure; otherwise `release` takes the count back (the answer passed, or was never checked
/// because the action failed first or did not need it).
pub async fn counted<R, T>(
    db: &Db,
    reserve: impl FnOnce(&Conn) -> Result<R, AppError> + Send + 'static,
    check: impl FnOnce(&Conn, &R) -> Result<T, AppError> + Send + 'static,
    release: impl FnOnce(&Conn, R) -> Result<(), AppError> + Send + 'static,
) -> Result<T, AppError>
where
    R: Clone + Send + 'static,
    T: Send + 'static,
{
    let reserved = db.write(reserve).await?;
    let r = reserved.clone();
    let result = db.write(move |tx| check(tx, &r)).await;
    // Only a refused proof stands. After success the count is taken back as well: the check
    // cleared it already, or the action did not need the answer (a signing link that asks for
    // no second factor) and never checked it.
    let stands = matches!(&result, Err(e) if is_refused_proof(e));
    if !stands && let Err(err) = db.write(move |tx| release(tx, reserved)).await {
        tracing::warn!(error = %err, "could not take back an unchecked second factor");
    }
    result
}

/// Whether `e` is a refused proof (a wrong code, a refused passkey): its attempt stands as a
/// failure, where an action that failed for another reason takes its attempt back.
pub fn is_refused_proof(e: &AppError) -> bool {
    matches!(e.code(), "wrong_code" | "passkey_refused")
}

/// A recovery code: ten letters and digits in two groups (`k7m2q-9xw4t`).
fn recovery_code() -> String {
    let raw = crate::core::crypto::random_base62(40)
        .chars()
        .map(|c| c.to_ascii_lowercase())
        .filter(|c| !matches!(c, '0' | 'o' | '1' | 'l' | 'i'))
        .take(10)
        .collect::<String>();
    format!("{}-{}", &raw[..5], &raw[5..])
}

fn recovery_hash(code: &str) -> String {
    let norm: String = code
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    sha256_hex(format!("recovery:{norm}"))
}

/// A passkey's name: trimmed, 1 to 60 characters, no control characters.
pub fn passkey_name(raw: &str) -> Result<String, AppError> {
    let name = raw.trim();
    if name.is_empty() || name.chars().count() > 60 || name.chars().any(char::is_control) {
        return Err(AppError::bad_request(
            "give the passkey a name of 1 to 60 characters",
        ));
    }
    Ok(name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovery_codes_are_ten_unambiguous_characters_and_hash_loosely() {
        let c = recovery_code();
        assert_eq!(c.len(), 11);
        assert_eq!(&c[5..6], "-");
        assert!(
            c.chars()
                .all(|ch| ch == '-' || (ch.is_ascii_alphanumeric() && !"0o1li".contains(ch)))
        );
        assert_eq!(
            recovery_hash(&c),
            recovery_hash(&c.to_uppercase().replace('-', " "))
        );
        assert_ne!(recovery_hash(&c), recovery_hash(&recovery_code()));
    }

    #[test]
    fn passkey_names_are_short_printable_text() {
        assert_eq!(passkey_name("  Laptop ").unwrap(), "Laptop");
        assert!(passkey_name("").is_err());
        assert!(passkey_name("a\u{7}b").is_err());
        assert!(passkey_name(&"x".repeat(61)).is_err());
    }
}
