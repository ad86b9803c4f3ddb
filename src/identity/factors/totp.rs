//! Time-based one-time passwords (RFC 6238): SHA-1, six digits, 30-second steps, as every
//! authenticator app reads them from an `otpauth://` URI. A code is accepted for the current step
//! and one step either side (clock skew), and only for a step later than the last one accepted,
//! so no code is accepted twice.

use totp_rs::{Algorithm, Builder, Totp};

use crate::core::error::AppError;

/// Seconds per step.
pub const STEP: i64 = 30;
/// Bytes of a new secret (160 bits, as RFC 4226 recommends).
pub const SECRET_LEN: usize = 20;

/// A new random secret.
pub fn new_secret() -> Vec<u8> {
    crate::core::crypto::random_bytes(SECRET_LEN)
}

fn totp(secret: &[u8], account: &str) -> Result<Totp, AppError> {
    Builder::new()
        .with_algorithm(Algorithm::SHA1)
        .with_digits(6)
        .with_skew(1)
        .with_step_duration(STEP as u64)
        .with_secret(secret.to_vec())
        .with_account_name(account)
        .with_issuer(Some("Docket"))
        .build()
        .map_err(|e| AppError::internal(format!("TOTP secret: {e}")))
}

/// The `otpauth://totp/...` URI an authenticator app scans.
pub fn uri(secret: &[u8], account: &str) -> Result<String, AppError> {
    totp(secret, account)?
        .to_url()
        .map_err(|e| AppError::internal(format!("TOTP URI: {e}")))
}

/// The secret as base32 (no padding), for typing it in by hand; grouped by four.
pub fn secret_text(secret: &[u8]) -> String {
    let b32 = base32_no_pad(secret);
    b32.as_bytes()
        .chunks(4)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect::<Vec<_>>()
        .join(" ")
}

fn base32_no_pad(data: &[u8]) -> String {
    const ALPHABET: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    let mut out = String::new();
    let (mut buffer, mut bits) = (0u32, 0u32);
    for &b in data {
        buffer = (buffer << 8) | u32::from(b);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            out.push(ALPHABET[((buffer >> bits) & 31) as usize] as char);
        }
    }
    if bits > 0 {
        out.push(ALPHABET[((buffer << (5 - bits)) & 31) as usize] as char);
    }
    out
}

/// The code for the step that holds `unix` seconds.
pub fn code_at(secret: &[u8], unix: i64) -> Result<String, AppError> {
    Ok(totp(secret, "")?.generate(unix.max(0) as u64).to_string())
}

/// The step `code` belongs to, if it is the code of the step holding `now` or of one step either
/// side, and that step is later than `last_step` (the last one accepted). Compared in constant
/// time; anything but six digits is refused outright.
pub fn accepted_step(
    secret: &[u8],
    code: &str,
    now: i64,
    last_step: i64,
) -> Result<Option<i64>, AppError> {
    let code: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    if code.len() != 6 || !code.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(None);
    }
    let current = now / STEP;
    let mut found = None;
    for step in [current - 1, current, current + 1] {
        let expected = code_at(secret, step * STEP)?;
        if crate::core::crypto::ct_eq(expected.as_bytes(), code.as_bytes()) && step > last_step {
            found = Some(step);
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6238 appendix B, SHA-1 (the last six digits of its eight-digit codes).
    #[test]
    fn rfc_6238_test_vectors() {
        let secret = b"12345678901234567890";
        for (t, code) in [
            (59, "287082"),
            (1111111109, "081804"),
            (1111111111, "050471"),
            (1234567890, "005924"),
            (2000000000, "279037"),
        ] {
            assert_eq!(code_at(secret, t).unwrap(), code, "t = {t}");
        }
    }

    #[test]
    fn one_step_of_skew_and_never_the_same_step_twice() {
        let secret = new_secret();
        let now = 1_800_000_015;
        let step = now / STEP;
        let current = code_at(&secret, now).unwrap();
        assert_eq!(
            accepted_step(&secret, &current, now, 0).unwrap(),
            Some(step)
        );
        // Replayed: the step was accepted already.
        assert_eq!(accepted_step(&secret, &current, now, step).unwrap(), None);
        let previous = code_at(&secret, now - STEP).unwrap();
        assert_eq!(
            accepted_step(&secret, &previous, now, 0).unwrap(),
            Some(step - 1)
        );
        let next = code_at(&secret, now + STEP).unwrap();
        assert_eq!(
            accepted_step(&secret, &next, now, step).unwrap(),
            Some(step + 1)
        );
        let old = code_at(&secret, now - 2 * STEP).unwrap();
        if old != current && old != previous && old != next {
            assert_eq!(accepted_step(&secret, &old, now, 0).unwrap(), None);
        }
        assert_eq!(accepted_step(&secret, "12345", now, 0).unwrap(), None);
        assert_eq!(accepted_step(&secret, "abcdef", now, 0).unwrap(), None);
        let spaced = format!("{} {}", &current[..3], &current[3..]);
        assert_eq!(accepted_step(&secret, &spaced, now, 0).unwrap(), Some(step));
    }

    #[test]
    fn the_uri_and_the_text_name_the_same_secret() {
        let secret = b"12345678901234567890";
        assert_eq!(
            secret_text(secret),
            "GEZD GNBV GY3T QOJQ GEZD GNBV GY3T QOJQ"
        );
        let uri = uri(secret, "ada@example.com").unwrap();
        assert!(
            uri.starts_with("otpauth://totp/Docket:ada%40example.com?"),
            "{uri}"
        );
        assert!(
            uri.contains("secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"),
            "{uri}"
        );
        assert!(uri.contains("issuer=Docket"), "{uri}");
    }
}
