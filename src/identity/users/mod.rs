//! Login users: validated e-mail addresses, tiers, usernames, passwords, their table, the
//! account page's use cases (`account`), the administrator's (`admin`) and accounts created
//! from invitations (`invites`).

pub mod checks;
pub mod password;
pub mod store;

use crate::core::ids::UserId;
use serde::Serialize;

use crate::{core::error::AppError, core::error::FieldError};

/// A deliverable e-mail address, lowercased. Only `Email::parse` (or `Email::check`) makes one.
///
/// Strict on purpose, since every address here is one we may send mail to: a dot-atom local
/// part (RFC 5322 `atext` and single inner dots; no quoted strings, no comments) of at most 64
/// characters, `@`, and a DNS host name of at least two labels (letters, digits, inner hyphens;
/// 63 characters each, 253 in all; an internationalised name is stored in its `xn--` form);
/// never an IP address, bracketed or not. 254 characters in all.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Email(String);

impl Email {
    pub fn parse(raw: &str) -> Result<Email, AppError> {
        Self::check(raw).map_err(|why| {
            AppError::validation(vec![FieldError {
                path: "email".into(),
                message: format!("{raw:?} is not a valid e-mail address ({why})"),
            }])
        })
    }

    /// As `parse`, with the reason for a refusal as plain text (for errors at other paths).
    pub fn check(raw: &str) -> Result<Email, &'static str> {
        let s = raw.trim().to_lowercase();
        let (local, domain) = s.split_once('@').ok_or("no @")?;
        if local.is_empty() || local.len() > 64 {
            return Err("the part before @ must have 1 to 64 characters");
        }
        let atext = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-/=?^_`{|}~".contains(c);
        if !local
            .split('.')
            .all(|a| !a.is_empty() && a.chars().all(atext))
        {
            return Err(
                "the part before @ may hold letters, digits, !#$%&'*+-/=?^_`{|}~ and single inner dots",
            );
        }
        let domain = host_name(domain)?;
        let email = format!("{local}@{domain}");
        if email.len() > 254 {
            return Err("longer than 254 characters");
        }
        Ok(Email(email))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The part before `@`.
    pub fn local_part(&self) -> &str {
        self.0.split('@').next().unwrap_or_default()
    }
}

impl std::fmt::Display for Email {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The domain of an e-mail address as a DNS host name in ASCII, or why it is not one.
fn host_name(domain: &str) -> Result<String, &'static str> {
    const NOT_A_NAME: &str = "the part after @ must be a domain name such as example.com";
    if domain.is_empty() || domain.contains(['@', '[', ']', ':']) {
        return Err(NOT_A_NAME);
    }
    let ascii = if domain.is_ascii() {
        domain.to_string()
    } else {
        match url::Host::parse(domain) {
            Ok(url::Host::Domain(d)) => d,
            _ => return Err(NOT_A_NAME),
        }
    };
    let labels: Vec<&str> = ascii.split('.').collect();
    let label_ok = |l: &&str| {
        (1..=63).contains(&l.len())
            && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            && !l.starts_with('-')
            && !l.ends_with('-')
    };
    if ascii.len() > 253 || labels.len() < 2 || !labels.iter().all(label_ok) {
        return Err(NOT_A_NAME);
    }
    if labels
        .last()
        .is_some_and(|tld| tld.chars().all(|c| c.is_ascii_digit()))
    {
        return Err("the part after @ must be a domain name, not an IP address");
    }
    Ok(ascii)
}

/// What a user's account may do: `enterprise` unlocks recipient authentication options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    Standard,
    Enterprise,
}

impl Tier {
    pub fn parse(s: &str) -> Result<Tier, AppError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "standard" => Ok(Tier::Standard),
            "enterprise" => Ok(Tier::Enterprise),
            other => Err(AppError::bad_request(format!(
                "unknown tier {other:?}; use standard or enterprise"
            ))),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Standard => "standard",
            Tier::Enterprise => "enterprise",
        }
    }
}

/// Stored as its text; stored text that names no tier is an error, never a default.
impl crate::core::db::ToSql for Tier {
    fn to_sql(&self) -> crate::core::db::Value {
        crate::core::db::Value::Text(self.as_str().to_owned())
    }
}

impl crate::core::db::FromSql for Tier {
    fn from_sql(value: crate::core::db::ValueRef<'_>) -> Result<Self, String> {
        let text = value.as_str()?;
        [Tier::Standard, Tier::Enterprise]
            .into_iter()
            .find(|t| t.as_str() == text)
            .ok_or_else(|| format!("{text:?} is not a known Tier"))
    }
}

/// Validates a username given by an admin: 1..=40 of `[a-z0-9._-]`, starting with a letter or digit.
pub fn parse_username(raw: &str) -> Result<String, AppError> {
    let s = raw.trim().to_lowercase();
    let ok = !s.is_empty()
        && s.len() <= 40
        && s.chars().next().is_some_and(|c| c.is_ascii_alphanumeric())
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "._-".contains(c));
    if ok {
        Ok(s)
    } else {
        Err(AppError::validation(vec![FieldError {
            path: "username".into(),
            message: "use 1 to 40 of a-z, 0-9, '.', '_' or '-', starting with a letter or digit"
                .into(),
        }]))
    }
}

/// A username derived from the e-mail's local part, before making it unique.
pub fn username_base(email: &Email) -> String {
    // Plus addressing (`ada+docket@`) is a mailbox detail, not part of the name.
    let local = email.local_part().split('+').next().unwrap_or_default();
    let cleaned: String = local
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || "._-".contains(*c))
        .take(32)
        .collect();
    let trimmed = cleaned.trim_start_matches(['.', '_', '-']).to_string();
    if trimmed.is_empty() {
        "user".to_string()
    } else {
        trimmed
    }
}

/// Validates a display name: 1..=200 characters, no control characters.
pub fn parse_name(raw: &str) -> Result<String, AppError> {
    let s = raw.trim();
    if s.is_empty() || s.chars().count() > 200 || s.chars().any(char::is_control) {
        return Err(AppError::validation(vec![FieldError {
            path: "name".into(),
            message: "give 1 to 200 printable characters".into(),
        }]));
    }
    Ok(s.to_string())
}

/// A user as stored, without the password hash.
#[derive(Debug, Clone, Serialize)]
pub struct User {
    pub id: UserId,
    pub email: String,
    pub username: String,
    pub name: String,
    pub tier: Tier,
    pub time_zone: String,
    pub disabled: bool,
    pub created_at: i64,
}

/// The length of the random handle that names a user to their passkeys (WebAuthn's user id).
pub const PASSKEY_HANDLE_LEN: usize = 64;

/// A new random passkey user handle.
pub fn new_passkey_handle() -> Vec<u8> {
    crate::core::crypto::random_bytes(PASSKEY_HANDLE_LEN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_are_validated_and_lowercased() {
        assert_eq!(
            Email::parse(" Ada@Example.COM ").unwrap().as_str(),
            "ada@example.com"
        );
        for bad in [
            "",
            "ada",
            "@x.org",
            "ada@",
            "a b@x.org",
            "a@x..org",
            "a@b@c",
            "a@-x.org",
            "a@example.com;evil",
            "a;b@example.com",
            "x\"y@example.com",
            "\"x y\"@example.com",
            "a@[127.0.0.1]",
            "a@127.0.0.1",
            "a@[::1]",
            "a@localhost",
            "a@example.com.",
            "a@exa_mple.com",
            ".a@x.org",
            "a.@x.org",
            "a..b@x.org",
            "a(comment)@x.org",
            "a@x.org\u{0}",
            "a\u{7f}@x.org",
            "é@x.org",
        ] {
            assert!(Email::parse(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn emails_respect_length_limits_and_keep_idn_domains_in_ascii() {
        let local = "a".repeat(64);
        assert!(Email::parse(&format!("{local}@x.org")).is_ok());
        assert!(Email::parse(&format!("a{local}@x.org")).is_err());
        let label = "b".repeat(63);
        assert!(Email::parse(&format!("a@{label}.org")).is_ok());
        assert!(Email::parse(&format!("a@b{label}.org")).is_err());
        let long = format!("{}.org", vec!["c".repeat(63); 4].join("."));
        assert!(Email::parse(&format!("a@{long}")).is_err(), "over 253");
        assert_eq!(
            Email::parse("o'brien+x@Bücher.example").unwrap().as_str(),
            "o'brien+x@xn--bcher-kva.example"
        );
        assert!(Email::check("a@[127.0.0.1]").is_err());
    }

    #[test]
    fn username_comes_from_the_local_part() {
        let e = Email::parse("Grace.Hopper+test@navy.mil").unwrap();
        assert_eq!(username_base(&e), "grace.hopper");
        let e = Email::parse("+++@x.org").unwrap();
        assert_eq!(username_base(&e), "user");
    }

    #[test]
    fn usernames_and_names_are_checked() {
        assert_eq!(parse_username("Ada_1").unwrap(), "ada_1");
        assert!(parse_username("-ada").is_err());
        assert!(parse_username("a b").is_err());
        assert!(parse_name("  ").is_err());
        assert!(parse_name("Ada\u{7}").is_err());
        assert_eq!(parse_name(" Ada Lovelace ").unwrap(), "Ada Lovelace");
    }

    #[test]
    fn tiers_parse() {
        assert_eq!(Tier::parse("Enterprise").unwrap(), Tier::Enterprise);
        assert!(Tier::parse("gold").is_err());
    }
}
