//! API keys: `api_` plus 40 base62 characters, acting as their user with every scope.
//! Shown once at creation, stored as SHA-256. The administrator's use cases are in `manage`,
//! the SQL in `store`.

pub mod manage;
pub mod store;

use crate::core::ids::{TeamId, UserId};
use serde::Serialize;

use crate::core::crypto::SecretToken;

pub const PREFIX: &str = "api_";

/// Issues a new key value.
pub fn generate() -> SecretToken {
    SecretToken::generate(PREFIX, 40)
}

/// The characters shown in lists to recognise a key, e.g. `api_Ab12`.
pub fn display_prefix(key: &SecretToken) -> String {
    key.expose().chars().take(PREFIX.len() + 4).collect()
}

/// A key as listed (never its value).
#[derive(Debug, Clone, Serialize)]
pub struct ApiKey {
    pub id: i64,
    pub user_id: UserId,
    pub user: String,
    pub name: String,
    pub prefix: String,
    pub created_at: i64,
    pub expires_at: Option<i64>,
    pub revoked_at: Option<i64>,
    pub last_used_at: Option<i64>,
    /// The team it acts for, and that team's slug; `None` for a personal key.
    pub team_id: Option<TeamId>,
    pub team: Option<String>,
}

impl ApiKey {
    /// `active`, `revoked` or `expired` at `now`.
    pub fn state(&self, now: i64) -> &'static str {
        if self.revoked_at.is_some() {
            "revoked"
        } else if self.expires_at.is_some_and(|e| e <= now) {
            "expired"
        } else {
            "active"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_have_the_documented_form() {
        let k = generate();
        assert!(k.expose().starts_with("api_"));
        assert_eq!(k.expose().len(), 44);
        assert_eq!(display_prefix(&k).len(), 8);
    }

    #[test]
    fn state_follows_revocation_then_expiry() {
        let mut k = ApiKey {
            id: 1,
            user_id: UserId::new(1),
            user: "a@x.org".into(),
            name: "n".into(),
            prefix: "api_abcd".into(),
            created_at: 0,
            expires_at: Some(100),
            revoked_at: None,
            last_used_at: None,
            team_id: None,
            team: None,
        };
        assert_eq!(k.state(99), "active");
        assert_eq!(k.state(100), "expired");
        k.revoked_at = Some(50);
        assert_eq!(k.state(10), "revoked");
    }
}
