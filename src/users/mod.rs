//! Login users: validated e-mail addresses, tiers, usernames, passwords, and their table.

pub mod checks;
pub mod password;
pub mod store;

use serde::Serialize;

use crate::error::{AppError, FieldError};

/// A syntactically valid e-mail address, lowercased. Only `Email::parse` makes one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Email(String);

impl Email {
    pub fn parse(raw: &str) -> Result<Email, AppError> {
        let s = raw.trim().to_lowercase();
        let bad = |why: &str| {
            AppError::validation(vec![FieldError {
                path: "email".into(),
                message: format!("{raw:?} is not a valid e-mail address ({why})"),
            }])
        };
        if s.len() > 254 {
            return Err(bad("longer than 254 characters"));
        }
        let (local, domain) = s.split_once('@').ok_or_else(|| bad("no @"))?;
        if local.is_empty() || local.len() > 64 {
            return Err(bad("the part before @ must have 1 to 64 characters"));
        }
        if domain.is_empty() || domain.contains('@') {
            return Err(bad("the part after @ must be one domain name"));
        }
        if s.chars()
            .any(|c| c.is_whitespace() || c.is_control() || c == '<' || c == '>')
        {
            return Err(bad(
                "spaces, control characters and angle brackets are not allowed",
            ));
        }
        let labels_ok = domain
            .split('.')
            .all(|l| !l.is_empty() && !l.starts_with('-') && !l.ends_with('-'));
        if !labels_ok {
            return Err(bad("the domain name is malformed"));
        }
        Ok(Email(s))
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
    pub id: i64,
    pub email: String,
    pub username: String,
    pub name: String,
    pub tier: Tier,
    pub time_zone: String,
    pub disabled: bool,
    pub created_at: i64,
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
        ] {
            assert!(Email::parse(bad).is_err(), "{bad:?} accepted");
        }
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
