//! Password hashing with argon2id (PHC strings) and generation of strong passwords.
//! Both are CPU-heavy: call them off the async threads.

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};

use crate::{core::error::AppError, core::error::FieldError};

pub const MIN_LEN: usize = 8;
pub const MAX_LEN: usize = 1024;

/// argon2id with OWASP's recommended minimum: 19 MiB, 2 iterations, 1 lane.
fn hasher() -> Argon2<'static> {
    let params = Params::new(19 * 1024, 2, 1, None).expect("valid argon2 parameters");
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// Checks the length rules an admin-chosen password must meet.
pub fn check_policy(password: &str) -> Result<(), AppError> {
    let n = password.chars().count();
    if !(MIN_LEN..=MAX_LEN).contains(&n) {
        return Err(AppError::validation(vec![FieldError {
            path: "password".into(),
            message: format!("must have {MIN_LEN} to {MAX_LEN} characters"),
        }]));
    }
    Ok(())
}

pub fn hash(password: &str) -> Result<String, AppError> {
    let salt = SaltString::encode_b64(&crate::core::crypto::random_bytes(16))
        .map_err(|e| AppError::internal(format!("salt: {e}")))?;
    hasher()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| AppError::internal(format!("argon2: {e}")))
}

/// True when `password` matches the PHC string `phc` (constant time inside argon2).
pub fn verify(password: &str, phc: &str) -> bool {
    match PasswordHash::new(phc) {
        Ok(parsed) => hasher()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok(),
        Err(_) => false,
    }
}

/// A 20-character base62 password (about 119 bits).
pub fn generate() -> String {
    crate::core::crypto::random_base62(20)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_and_verify() {
        let h = hash("correct horse").unwrap();
        assert!(h.starts_with("$argon2id$"));
        assert!(verify("correct horse", &h));
        assert!(!verify("wrong horse", &h));
        assert!(!verify("x", "not a phc string"));
    }

    #[test]
    fn policy_and_generation() {
        assert!(check_policy("short").is_err());
        assert!(check_policy("long enough").is_ok());
        let p = generate();
        assert_eq!(p.len(), 20);
        assert!(check_policy(&p).is_ok());
    }
}
