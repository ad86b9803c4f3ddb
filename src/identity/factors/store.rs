//! SQL for second factors: `recovery_codes`, `passkeys` and `webauthn_ceremonies` (the TOTP
//! secret and the passkey handle are columns of `users`, whose SQL is `users::store`'s). Each state change re-checks its precondition in its WHERE clause.

use crate::core::ids::{RecipientId, UserId};
use crate::params;
use crate::{core::db::Conn, core::db::OptionalExtension};

use crate::core::error::AppError;

/// Deletes `user`'s recovery codes.
pub fn delete_recovery_codes(conn: &Conn, user: UserId) -> Result<(), AppError> {
    conn.execute("DELETE FROM recovery_codes WHERE user_id = ?1", [user])?;
    Ok(())
}

/// Deletes `user`'s passkeys and open WebAuthn ceremonies; answers how many passkeys went.
pub fn delete_passkeys(conn: &Conn, user: UserId) -> Result<usize, AppError> {
    let passkeys = conn.execute("DELETE FROM passkeys WHERE user_id = ?1", [user])?;
    conn.execute("DELETE FROM webauthn_ceremonies WHERE user_id = ?1", [user])?;
    Ok(passkeys)
}

/// Replaces the recovery codes with `hashes`.
pub fn replace_recovery_codes(
    conn: &Conn,
    user: UserId,
    hashes: &[String],
    now: i64,
) -> Result<(), AppError> {
    conn.execute("DELETE FROM recovery_codes WHERE user_id = ?1", [user])?;
    let mut insert = conn.prepare_cached(
        "INSERT INTO recovery_codes (user_id, code_hash, created_at) VALUES (?1, ?2, ?3)",
    )?;
    for h in hashes {
        insert.execute(params![user, h, now])?;
    }
    Ok(())
}

/// Uses the unused recovery code with hash `hash`; false when there is none.
pub fn use_recovery_code(
    conn: &Conn,
    user: UserId,
    hash: &str,
    now: i64,
) -> Result<bool, AppError> {
    Ok(conn.execute(
        "UPDATE recovery_codes SET used_at = ?3
          WHERE user_id = ?1 AND code_hash = ?2 AND used_at IS NULL",
        params![user, hash, now],
    )? == 1)
}

pub fn recovery_codes_left(conn: &Conn, user: UserId) -> Result<i64, AppError> {
    Ok(conn.query_row(
        "SELECT count(*) FROM recovery_codes WHERE user_id = ?1 AND used_at IS NULL",
        [user],
        |r| r.get(0),
    )?)
}

/// A passkey as the account page lists it.
#[derive(Debug, Clone)]
pub struct PasskeyRow {
    pub id: i64,
    pub name: String,
    pub created_at: i64,
    pub last_used_at: Option<i64>,
}

pub fn passkeys(conn: &Conn, user: UserId) -> Result<Vec<PasskeyRow>, AppError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, name, created_at, last_used_at FROM passkeys WHERE user_id = ?1 ORDER BY id",
    )?;
    let rows = stmt.query_map([user], |r| {
        Ok(PasskeyRow {
            id: r.get(0)?,
            name: r.get(1)?,
            created_at: r.get(2)?,
            last_used_at: r.get(3)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The credential ids and transports of `user`'s passkeys.
pub fn credential_ids(conn: &Conn, user: UserId) -> Result<Vec<(Vec<u8>, u8)>, AppError> {
    let mut stmt = conn.prepare_cached(
        "SELECT credential_id, transports FROM passkeys WHERE user_id = ?1 ORDER BY id",
    )?;
    let rows = stmt.query_map([user], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// `user`'s passkey with credential id `credential_id` (none for another account's).
pub fn credential(
    conn: &Conn,
    user: UserId,
    credential_id: &[u8],
) -> Result<Option<(i64, super::passkey::StoredCredential)>, AppError> {
    Ok(conn
        .query_row(
            "SELECT id, credential_id, static_state, dynamic_state FROM passkeys
              WHERE user_id = ?1 AND credential_id = ?2",
            params![user, credential_id],
            |r| {
                Ok((
                    r.get(0)?,
                    super::passkey::StoredCredential {
                        credential_id: r.get(1)?,
                        static_state: r.get(2)?,
                        dynamic_state: r.get(3)?,
                    },
                ))
            },
        )
        .optional()?)
}

pub fn insert_passkey(
    conn: &Conn,
    user: UserId,
    cred: &super::passkey::NewCredential,
    name: &str,
    now: i64,
) -> Result<i64, AppError> {
    let inserted_id = conn.insert(
        "INSERT INTO passkeys (user_id, credential_id, transports, static_state, dynamic_state, name, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            user,
            cred.credential_id,
            cred.transports,
            cred.static_state,
            cred.dynamic_state,
            name,
            now
        ],
    )
    .map_err(|e| crate::core::db::conflict_on_unique(e, "this passkey is registered already"))?;
    Ok(inserted_id)
}

/// Stores the counter state after a use.
pub fn passkey_used(conn: &Conn, id: i64, dynamic: &[u8], now: i64) -> Result<(), AppError> {
    conn.execute(
        "UPDATE passkeys SET dynamic_state = ?2, last_used_at = ?3 WHERE id = ?1",
        params![id, dynamic, now],
    )?;
    Ok(())
}

/// Renames `user`'s passkey `id`; false when it is not theirs.
pub fn rename_passkey(conn: &Conn, user: UserId, id: i64, name: &str) -> Result<bool, AppError> {
    Ok(conn.execute(
        "UPDATE passkeys SET name = ?3 WHERE id = ?1 AND user_id = ?2",
        params![id, user, name],
    )? == 1)
}

/// Removes `user`'s passkey `id`: its name, or `None` when it is not theirs.
pub fn delete_passkey(conn: &Conn, user: UserId, id: i64) -> Result<Option<String>, AppError> {
    Ok(conn
        .query_row(
            "DELETE FROM passkeys WHERE id = ?1 AND user_id = ?2 RETURNING name",
            params![id, user],
            |r| r.get(0),
        )
        .optional()?)
}

/// What a WebAuthn ceremony is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    Register,
    Login,
    /// An action on a signing link, bound to its recipient.
    Sign(RecipientId),
    /// A signed-in user confirming who they are before a sign-in security change.
    Confirm,
}

impl Purpose {
    fn parts(self) -> (&'static str, Option<RecipientId>) {
        match self {
            Purpose::Register => ("REGISTER", None),
            Purpose::Login => ("LOGIN", None),
            Purpose::Sign(r) => ("SIGN", Some(r)),
            Purpose::Confirm => ("CONFIRM", None),
        }
    }
}

/// Keeps a ceremony until its answer (expired ones of the user are dropped on the way).
pub fn insert_ceremony(
    conn: &Conn,
    purpose: Purpose,
    user: UserId,
    c: &super::passkey::Ceremony,
    now: i64,
) -> Result<(), AppError> {
    conn.execute(
        "DELETE FROM webauthn_ceremonies WHERE user_id = ?1 AND expires_at <= ?2",
        params![user, now],
    )?;
    // At most a handful open per account: the oldest go first.
    conn.execute(
        "DELETE FROM webauthn_ceremonies WHERE user_id = ?1 AND id NOT IN
           (SELECT id FROM webauthn_ceremonies WHERE user_id = ?1 ORDER BY id DESC LIMIT 4)",
        [user],
    )?;
    let (kind, recipient) = purpose.parts();
    conn.execute(
        "INSERT INTO webauthn_ceremonies (challenge, purpose, user_id, recipient_id, state, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![c.challenge, kind, user, recipient, c.state, c.expires_at],
    )?;
    Ok(())
}

/// Takes (removes and returns) the state of the unexpired ceremony with `challenge`, begun for
/// `purpose` by `user`; none when there is no such ceremony, so each is answered once.
pub fn take_ceremony(
    conn: &Conn,
    challenge: &str,
    purpose: Purpose,
    user: UserId,
    now: i64,
) -> Result<Option<Vec<u8>>, AppError> {
    let (kind, recipient) = purpose.parts();
    Ok(conn
        .query_row(
            "DELETE FROM webauthn_ceremonies
              WHERE challenge = ?1 AND purpose = ?2 AND user_id = ?3
                AND recipient_id IS NOT DISTINCT FROM ?4 AND expires_at > ?5
             RETURNING state",
            params![challenge, kind, user, recipient, now],
            |r| r.get(0),
        )
        .optional()?)
}

/// Which second factors an account has.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Enrolled {
    pub totp: bool,
    pub passkeys: i64,
}

impl Enrolled {
    pub fn any(self) -> bool {
        self.totp || self.passkeys > 0
    }
}

pub fn enrolled(conn: &Conn, user: UserId) -> Result<Enrolled, AppError> {
    Ok(Enrolled {
        totp: crate::identity::users::store::has_totp(conn, user)?,
        passkeys: conn.query_row(
            "SELECT count(*) FROM passkeys WHERE user_id = ?1",
            [user],
            |r| r.get(0),
        )?,
    })
}
