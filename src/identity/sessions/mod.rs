//! Browser sessions: signing in (`login`, `second_step`), logins waiting for a second factor,
//! login throttling, confirming who one is before sign-in security changes (`confirm`), and CSRF
//! tokens for the pages' forms.

pub mod confirm;
pub mod csrf;
pub mod login;
pub mod pending;
pub mod second_step;
pub mod store;

use crate::core::crypto::SecretToken;
use crate::identity::users::User;

/// A live session: its user, and when they signed in (OpenID Connect's `auth_time`).
#[derive(Debug, Clone)]
pub struct Session {
    pub user: User,
    pub authenticated_at: i64,
}

/// How long a login lasts.
pub const SESSION_TTL: i64 = 12 * 3600;

/// The session cookie's name: `__Host-` prefixed under TLS (Secure, Path=/, no Domain).
pub fn cookie_name(tls: bool) -> &'static str {
    if tls {
        "__Host-docket_session"
    } else {
        "docket_session"
    }
}

/// The `Set-Cookie` value that starts a session.
pub fn set_cookie(token: &SecretToken, tls: bool) -> String {
    format!(
        "{}={}; Path=/; HttpOnly; SameSite=Lax; Max-Age={SESSION_TTL}{}",
        cookie_name(tls),
        token.expose(),
        if tls { "; Secure" } else { "" }
    )
}

/// The `Set-Cookie` value that ends it.
pub fn clear_cookie(tls: bool) -> String {
    format!(
        "{}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0{}",
        cookie_name(tls),
        if tls { "; Secure" } else { "" }
    )
}

pub fn new_token() -> SecretToken {
    SecretToken::generate("", 43)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cookies_are_http_only_lax_and_secure_under_tls() {
        let t = new_token();
        let c = set_cookie(&t, true);
        assert!(c.starts_with("__Host-docket_session="));
        assert!(c.contains("HttpOnly") && c.contains("SameSite=Lax") && c.contains("Secure"));
        assert!(!set_cookie(&t, false).contains("Secure"));
        assert!(clear_cookie(false).contains("Max-Age=0"));
    }
}
