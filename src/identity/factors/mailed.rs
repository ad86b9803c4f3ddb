//! Codes e-mailed to a recipient whose document asks for TWO_FACTOR_AUTH, for an account
//! without an authenticator app at hand (or instead of it): six random digits kept only as a
//! hash, bound to the recipient and to the account they were sent for, good for [`TTL`]
//! seconds and once. A new request replaces the last code; requests are throttled per
//! recipient (one a minute, [`PER_HOUR`] an hour). A code is checked by
//! [`super::Verifier::check_code`], under the same counted attempt as a TOTP code, so wrong
//! codes of either kind count toward the same lockout.

use crate::core::crypto::sha256_hex;
use crate::core::db::Conn;
use crate::core::error::AppError;
use crate::core::ids::{RecipientId, UserId};
use crate::identity::throttle;
use crate::params;

/// How long a code works: ten minutes.
pub const TTL: i64 = 600;

/// The shortest time between two requests for the same recipient.
pub const GAP: i64 = 60;

/// The most requests for the same recipient in an hour.
pub const PER_HOUR: i64 = 5;

/// A code as mailed: six digits, printed as `***` in Debug.
#[derive(Clone, PartialEq, Eq)]
pub struct MailedCode(String);

impl std::fmt::Debug for MailedCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MailedCode(***)")
    }
}

impl MailedCode {
    /// Six random digits, each equally likely.
    pub fn generate() -> MailedCode {
        let digits = crate::core::crypto::random_bytes(32)
            .into_iter()
            // 250 is the largest multiple of 10 a byte holds: no digit is likelier.
            .filter(|b| *b < 250)
            .take(6)
            .map(|b| char::from(b'0' + b % 10))
            .collect::<String>();
        assert_eq!(digits.len(), 6, "32 random bytes hold six below 250");
        MailedCode(digits)
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

/// The stored form of `code` sent to `recipient` for `user`: the digits alone (spaces typed
/// between them dropped), bound to both.
fn hash(recipient: RecipientId, user: UserId, code: &str) -> String {
    let digits: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    sha256_hex(format!("emailed-code:{recipient}:{user}:{digits}"))
}

/// A new code for `recipient`, to be mailed to them, for `user` (their account), replacing the
/// last one: 429 with the seconds to wait when the recipient asked within the last [`GAP`]
/// seconds or [`PER_HOUR`] times in the hour. Run it in the write that queues the mail.
pub fn issue(
    tx: &Conn,
    recipient: RecipientId,
    user: UserId,
    now: i64,
) -> Result<MailedCode, AppError> {
    let wait = |secs: i64| AppError::TooManyRequests {
        retry_after: secs.max(1) as u64,
        limit: 0,
    };
    let minute = format!("emailed-code:{recipient}");
    if let Some(secs) = throttle::take(tx, &[(&minute, 1)], GAP, now)? {
        return Err(wait(secs));
    }
    let hour = format!("emailed-code-hour:{recipient}");
    if let Some(secs) = throttle::take(tx, &[(&hour, PER_HOUR)], 3600, now)? {
        return Err(wait(secs));
    }
    let code = MailedCode::generate();
    tx.execute(
        "INSERT INTO emailed_codes (recipient_id, user_id, code_hash, created_at, expires_at, used_at)
         VALUES (?1, ?2, ?3, ?4, ?5, NULL)
         ON CONFLICT (recipient_id) DO UPDATE SET user_id = excluded.user_id,
           code_hash = excluded.code_hash, created_at = excluded.created_at,
           expires_at = excluded.expires_at, used_at = NULL",
        params![
            recipient,
            user,
            hash(recipient, user, code.expose()),
            now,
            now + TTL
        ],
    )?;
    Ok(code)
}

/// Uses up `code` if it is the unexpired, unused code sent to `recipient` for `user`; false
/// otherwise (nothing changes).
pub fn take(
    tx: &Conn,
    recipient: RecipientId,
    user: UserId,
    code: &str,
    now: i64,
) -> Result<bool, AppError> {
    Ok(tx.execute(
        "UPDATE emailed_codes SET used_at = ?4
          WHERE recipient_id = ?1 AND user_id = ?2 AND code_hash = ?3
            AND used_at IS NULL AND expires_at > ?4",
        params![recipient, user, hash(recipient, user, code), now],
    )? == 1)
}

/// Whether `recipient` finished with an e-mailed code (a used code is kept as that record).
pub fn proved_by_email(conn: &Conn, recipient: RecipientId) -> Result<bool, AppError> {
    Ok(conn.query_row(
        "SELECT count(*) FROM emailed_codes WHERE recipient_id = ?1 AND used_at IS NOT NULL",
        [recipient],
        |r| r.get::<_, i64>(0),
    )? > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_six_digits_and_print_hidden() {
        let c = MailedCode::generate();
        assert_eq!(c.expose().len(), 6);
        assert!(c.expose().chars().all(|d| d.is_ascii_digit()));
        assert_eq!(format!("{c:?}"), "MailedCode(***)");
        // Not one fixed value.
        assert!((0..20).any(|_| MailedCode::generate() != c));
    }

    /// Users 1 and 2; document 1 with recipients 1 and 2, document 2 with recipient 3.
    fn db() -> Conn<'static> {
        let conn = crate::core::db::memory();
        let meta =
            serde_json::to_string(&crate::signing::documents::meta::Meta::default()).unwrap();
        conn.execute_batch(
            "INSERT INTO users (id, email, username, name, password_hash, created_at, updated_at)
             VALUES (1, 'ann@x.org', 'ann', 'Ann', 'x', 0, 0), (2, 'bob@x.org', 'bob', 'Bob', 'x', 0, 0);",
        )
        .unwrap();
        for (id, doc) in [(1, 1), (2, 1), (3, 2)] {
            if id != 2 {
                conn.execute(
                    "INSERT INTO documents (id, user_id, title, status, document_data_id, meta, created_at, updated_at)
                     VALUES (?1, 2, 'D', 'PENDING', ?2, ?3, 0, 0)",
                    params![doc, format!("d{doc}"), meta],
                )
                .unwrap();
            }
            conn.execute(
                "INSERT INTO recipients (id, document_id, email, name, role, token, signing_status, created_at)
                 VALUES (?1, ?2, ?3, 'Ann', 'SIGNER', ?4, 'NOT_SIGNED', 0)",
                params![id, doc, format!("r{id}@x.org"), format!("t{id}")],
            )
            .unwrap();
        }
        conn
    }

    #[test]
    fn a_code_works_once_for_its_recipient_and_account_until_it_expires_or_is_replaced() {
        let c = db();
        let (r1, r2, r3) = (
            RecipientId::new(1),
            RecipientId::new(2),
            RecipientId::new(3),
        );
        let (ann, bob) = (UserId::new(1), UserId::new(2));
        let code = issue(&c, r1, ann, 1000).unwrap();
        let digits = code.expose().to_string();
        // Another recipient (of the same document or another), another account: no.
        assert!(!take(&c, r2, ann, &digits, 1001).unwrap());
        assert!(!take(&c, r3, ann, &digits, 1001).unwrap());
        assert!(!take(&c, r1, bob, &digits, 1001).unwrap());
        assert!(!proved_by_email(&c, r1).unwrap());
        // Once, with spaces typed in; never again.
        let spaced = format!("{} {}", &digits[..3], &digits[3..]);
        assert!(take(&c, r1, ann, &spaced, 1002).unwrap());
        assert!(proved_by_email(&c, r1).unwrap());
        assert!(!take(&c, r1, ann, &digits, 1003).unwrap());
        // Expired after ten minutes.
        let late = issue(&c, r2, ann, 2000).unwrap();
        assert!(!take(&c, r2, ann, late.expose(), 2000 + TTL).unwrap());
        // A new request replaces the code (after the minute's wait).
        let old = issue(&c, r3, ann, 3000).unwrap();
        let wait = issue(&c, r3, ann, 3000 + GAP - 1).unwrap_err();
        assert!(
            matches!(wait, AppError::TooManyRequests { retry_after: 1, .. }),
            "{wait:?}"
        );
        let new = issue(&c, r3, ann, 3000 + GAP).unwrap();
        assert!(old == new || !take(&c, r3, ann, old.expose(), 3000 + GAP).unwrap());
        assert!(take(&c, r3, ann, new.expose(), 3000 + GAP).unwrap());
    }

    #[test]
    fn requests_are_throttled_per_recipient_a_minute_apart_and_five_an_hour() {
        let c = db();
        let (r1, r2) = (RecipientId::new(1), RecipientId::new(2));
        let ann = UserId::new(1);
        for i in 0..PER_HOUR {
            issue(&c, r1, ann, 10_000 + i * GAP).unwrap();
        }
        let sixth = issue(&c, r1, ann, 10_000 + PER_HOUR * GAP).unwrap_err();
        let left = 3600 - PER_HOUR * GAP;
        assert!(
            matches!(sixth, AppError::TooManyRequests { retry_after, .. } if retry_after as i64 == left),
            "{sixth:?}"
        );
        // Another recipient is counted apart; the hour over, the first may ask again.
        issue(&c, r2, ann, 10_000 + PER_HOUR * GAP).unwrap();
        issue(&c, r1, ann, 10_000 + 3600).unwrap();
    }

    #[test]
    fn a_hash_is_bound_to_the_recipient_and_the_account() {
        let (r, u) = (RecipientId::new(1), UserId::new(2));
        assert_eq!(hash(r, u, "123456"), hash(r, u, "123 456"));
        assert_ne!(hash(r, u, "123456"), hash(RecipientId::new(3), u, "123456"));
        assert_ne!(hash(r, u, "123456"), hash(r, UserId::new(3), "123456"));
    }
}
