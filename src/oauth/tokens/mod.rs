//! Authorization codes, access tokens and refresh tokens: their forms, lifetimes, and the
//! protocol errors of the token endpoints (RFC 6749 5.2).

pub mod store;

use crate::core::ids::UserId;
use http::StatusCode;
use serde::Serialize;

use crate::core::crypto::SecretToken;
use crate::identity::scope::Scope;

pub const ACCESS_PREFIX: &str = "dka_";
pub const REFRESH_PREFIX: &str = "dkr_";
pub const CODE_PREFIX: &str = "dkc_";

/// 43 base62 characters: about 256 bits. Each token also carries the time it was made, before
/// them (`SecretToken::generate_ordered`), which keeps the tokens' index written at its end.
const SECRET_CHARS: usize = 43;

pub fn new_access() -> SecretToken {
    SecretToken::generate_ordered(ACCESS_PREFIX, SECRET_CHARS)
}
pub fn new_refresh() -> SecretToken {
    SecretToken::generate_ordered(REFRESH_PREFIX, SECRET_CHARS)
}
pub fn new_code() -> SecretToken {
    SecretToken::generate_ordered(CODE_PREFIX, SECRET_CHARS)
}

/// Lifetimes in seconds (`--access-token-ttl`, `--refresh-token-ttl`, `--code-ttl`).
#[derive(Debug, Clone, Copy)]
pub struct Lifetimes {
    pub access: i64,
    pub refresh: i64,
    pub code: i64,
}

impl Default for Lifetimes {
    fn default() -> Self {
        Lifetimes {
            access: 3600,
            refresh: 2_592_000,
            code: 600,
        }
    }
}

/// What a successful grant hands out.
#[derive(Debug)]
pub struct Issued {
    pub access: SecretToken,
    pub refresh: Option<SecretToken>,
    pub scopes: Vec<Scope>,
    /// The scopes in the names the app asked with, as token answers give them.
    pub scope_text: String,
    pub expires_in: i64,
    /// Who the user is, for an ID token: set when a code was redeemed.
    pub identity: Option<Identity>,
}

/// The user a code was issued for, the authorization request's `nonce`, and when the user
/// signed in (`None` for codes issued before docket recorded it).
#[derive(Debug, Clone)]
pub struct Identity {
    pub user: UserId,
    pub nonce: Option<String>,
    pub auth_time: Option<i64>,
}

/// An OAuth protocol error: `{"error","error_description"}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthError {
    pub error: &'static str,
    pub description: String,
}

impl OAuthError {
    pub fn new(error: &'static str, description: impl Into<String>) -> Self {
        OAuthError {
            error,
            description: description.into(),
        }
    }
    pub fn invalid_request(d: impl Into<String>) -> Self {
        Self::new("invalid_request", d)
    }
    pub fn invalid_grant(d: impl Into<String>) -> Self {
        Self::new("invalid_grant", d)
    }
    pub fn invalid_client(d: impl Into<String>) -> Self {
        Self::new("invalid_client", d)
    }
    pub fn invalid_scope(d: impl Into<String>) -> Self {
        Self::new("invalid_scope", d)
    }

    pub fn status(&self) -> StatusCode {
        match self.error {
            "invalid_client" => StatusCode::UNAUTHORIZED,
            "server_error" => StatusCode::INTERNAL_SERVER_ERROR,
            "temporarily_unavailable" => StatusCode::SERVICE_UNAVAILABLE,
            _ => StatusCode::BAD_REQUEST,
        }
    }
}

/// RFC 6749 5.2's error body, with the description again as `message`, which the scheduling
/// service's older integrations read.
#[derive(Serialize, utoipa::ToSchema)]
#[schema(as = OAuthError)]
pub struct OAuthErrorBody<'a> {
    pub error: &'a str,
    pub error_description: &'a str,
    /// error_description again, for integrations that read message.
    pub message: &'a str,
}

/// S256 (RFC 7636 4.6): BASE64URL(SHA256(verifier)), compared in constant time.
pub fn pkce_matches(verifier: &str, challenge: &str) -> bool {
    use base64::Engine;
    use sha2::{Digest, Sha256};
    let computed = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(Sha256::digest(verifier.as_bytes()));
    crate::core::crypto::ct_eq(computed.as_bytes(), challenge.as_bytes())
}

/// A verifier must be 43..=128 characters of `[A-Za-z0-9-._~]` (RFC 7636 4.1).
pub fn verifier_is_well_formed(v: &str) -> bool {
    (43..=128).contains(&v.len())
        && v.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-._~".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pkce_s256_matches_the_rfc_example() {
        // RFC 7636 appendix B.
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        assert!(pkce_matches(
            verifier,
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        ));
        assert!(!pkce_matches(
            "other-verifier-000000000000000000000000000000",
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        ));
        assert!(verifier_is_well_formed(verifier));
        assert!(!verifier_is_well_formed("short"));
    }

    #[test]
    fn tokens_have_prefixes_and_256_bits() {
        assert!(new_access().expose().starts_with("dka_"));
        assert!(new_refresh().expose().starts_with("dkr_"));
        // The prefix, the order part (13 hex digits and a dot), then the random part.
        assert_eq!(new_code().expose().len(), 4 + 14 + 43);
    }

    #[test]
    fn invalid_client_is_401() {
        assert_eq!(
            OAuthError::invalid_client("x").status(),
            StatusCode::UNAUTHORIZED
        );
        assert_eq!(
            OAuthError::invalid_grant("x").status(),
            StatusCode::BAD_REQUEST
        );
    }
}
