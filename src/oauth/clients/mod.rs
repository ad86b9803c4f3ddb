//! Registered OAuth clients: what an admin registers, the rules their URLs follow, the
//! administrator's use cases on them (`manage`) and their SQL (`store`).

pub mod manage;
pub mod store;

use crate::core::ids::ClientId;
use serde::Serialize;
use url::Url;

use crate::core::crypto::SecretToken;
use crate::identity::scope::Scope;
use crate::{core::error::AppError, core::error::FieldError};

/// A client as stored (never with its secret).
#[derive(Debug, Clone, Serialize)]
pub struct Client {
    #[serde(skip)]
    pub row_id: ClientId,
    pub client_id: String,
    pub name: String,
    pub redirect_uris: Vec<String>,
    pub logo_url: Option<String>,
    pub app_url: Option<String>,
    pub public: bool,
    /// `None`: every scope.
    pub allowed_scopes: Option<Vec<Scope>>,
    pub created_at: i64,
    #[serde(skip)]
    pub secret_hash: Option<String>,
}

impl Client {
    /// True when `presented` is this client's secret (constant-time on the hashes).
    pub fn secret_matches(&self, presented: &str) -> bool {
        match &self.secret_hash {
            Some(h) => crate::core::crypto::ct_eq(
                SecretToken::presented(presented).hash().as_bytes(),
                h.as_bytes(),
            ),
            None => false,
        }
    }
}

/// What `docket client add` asks for, validated.
#[derive(Debug, Clone)]
pub struct Registration {
    pub name: String,
    pub redirect_uris: Vec<String>,
    pub logo_url: Option<String>,
    pub app_url: Option<String>,
    pub public: bool,
    pub allowed_scopes: Option<Vec<Scope>>,
}

impl Registration {
    pub fn validate(
        name: &str,
        redirect_uris: &[String],
        logo_url: Option<&str>,
        app_url: Option<&str>,
        public: bool,
        scopes: &[String],
    ) -> Result<Registration, AppError> {
        let mut errors = Vec::new();
        let name = name.trim();
        if name.is_empty() || name.chars().count() > 100 || name.chars().any(char::is_control) {
            errors.push(field("name", "give 1 to 100 printable characters"));
        }
        if redirect_uris.is_empty() {
            errors.push(field("redirect_uri", "give at least one redirect URI"));
        }
        for (i, uri) in redirect_uris.iter().enumerate() {
            if let Err(why) = check_redirect_uri(uri) {
                errors.push(field(
                    &format!("redirect_uri[{i}]"),
                    &format!("{uri}: {why}"),
                ));
            }
        }
        for (path, value) in [("logo_url", logo_url), ("app_url", app_url)] {
            if let Some(v) = value
                && let Err(why) = check_web_url(v)
            {
                errors.push(field(path, &format!("{v}: {why}")));
            }
        }
        let allowed_scopes = if scopes.is_empty() {
            None
        } else {
            match crate::identity::scope::parse_list(&scopes.join(" ")) {
                Ok(s) => Some(s),
                Err(e) => {
                    errors.push(field("scope", &e.public_message()));
                    None
                }
            }
        };
        if !errors.is_empty() {
            return Err(AppError::validation(errors));
        }
        let mut uris: Vec<String> = Vec::new();
        for u in redirect_uris {
            if !uris.contains(u) {
                uris.push(u.clone());
            }
        }
        Ok(Registration {
            name: name.to_string(),
            redirect_uris: uris,
            logo_url: logo_url.map(str::to_string),
            app_url: app_url.map(str::to_string),
            public,
            allowed_scopes,
        })
    }
}

fn field(path: &str, message: &str) -> FieldError {
    FieldError {
        path: path.to_string(),
        message: message.to_string(),
    }
}

fn is_loopback_host(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => d == "localhost",
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// Redirect URIs (RFC 6749 3.1.2, RFC 8252, RFC 9700): absolute, no fragment; `https`, or
/// `http` on a loopback host, or a private-use scheme with a dot (`com.example.app:/cb`).
pub fn check_redirect_uri(raw: &str) -> Result<(), &'static str> {
    let url = Url::parse(raw).map_err(|_| "not an absolute URI")?;
    if url.fragment().is_some() {
        return Err("must not contain a fragment (#)");
    }
    match url.scheme() {
        "https" if url.host().is_some() => Ok(()),
        "http" if is_loopback_host(&url) => Ok(()),
        "http" => Err("http is allowed only for localhost, 127.0.0.1 and [::1]; use https"),
        "javascript" | "data" | "file" | "vbscript" | "blob" | "about" => {
            Err("this scheme is not allowed")
        }
        s if s.contains('.') => Ok(()),
        _ => Err("use https, http on loopback, or a reverse-domain private scheme"),
    }
}

/// Logo and app links shown on the consent page: http(s) URLs.
pub fn check_web_url(raw: &str) -> Result<(), &'static str> {
    let url = Url::parse(raw).map_err(|_| "not an absolute URL")?;
    match url.scheme() {
        "https" | "http" if url.host().is_some() => Ok(()),
        _ => Err("must be an http or https URL"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirect_uri_rules() {
        for ok in [
            "https://app.example.com/cb",
            "https://app.example.com/cb?tenant=1",
            "http://localhost:3000/cb",
            "http://127.0.0.1/cb",
            "http://[::1]:8080/cb",
            "com.example.app:/oauth",
        ] {
            assert!(check_redirect_uri(ok).is_ok(), "{ok}");
        }
        for bad in [
            "/relative",
            "http://app.example.com/cb",
            "https://app.example.com/cb#frag",
            "javascript:alert(1)",
            "myapp:/cb",
        ] {
            assert!(check_redirect_uri(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn registration_collects_every_error() {
        let err = Registration::validate(
            "",
            &["http://evil.example/cb".into()],
            Some("ftp://x"),
            None,
            false,
            &["NOPE".into()],
        )
        .unwrap_err();
        assert_eq!(err.details().len(), 4);
    }

    #[test]
    fn registration_dedups_uris_and_parses_scopes() {
        let r = Registration::validate(
            "Cal",
            &["https://a.example/cb".into(), "https://a.example/cb".into()],
            None,
            Some("https://a.example"),
            false,
            &["READ_PROFILE,READ_BOOKING".into()],
        )
        .unwrap();
        assert_eq!(r.redirect_uris.len(), 1);
        assert_eq!(
            r.allowed_scopes,
            Some(vec![Scope::ReadBooking, Scope::ReadProfile])
        );
    }

    #[test]
    fn secret_check_is_against_the_hash() {
        let secret = SecretToken::generate("", 10);
        let c = Client {
            row_id: ClientId::new(1),
            client_id: "c".into(),
            name: "n".into(),
            redirect_uris: vec![],
            logo_url: None,
            app_url: None,
            public: false,
            allowed_scopes: None,
            created_at: 0,
            secret_hash: Some(secret.hash()),
        };
        assert!(c.secret_matches(secret.expose()));
        assert!(!c.secret_matches("nope"));
    }
}
