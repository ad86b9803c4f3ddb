//! OAuth scopes: the scheduling service's `READ_BOOKING` and `READ_PROFILE`, the document and
//! booking write scopes, and OpenID Connect's `openid`, `profile` and `email` (an ID token, and
//! the claims it and the identity check may carry). In a `scope` parameter they are separated
//! by spaces or commas.

use serde::Serialize;

use crate::core::error::AppError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Scope {
    #[serde(rename = "READ_BOOKING")]
    ReadBooking,
    #[serde(rename = "WRITE_BOOKING")]
    WriteBooking,
    #[serde(rename = "READ_PROFILE")]
    ReadProfile,
    #[serde(rename = "READ_DOCUMENT")]
    ReadDocument,
    #[serde(rename = "WRITE_DOCUMENT")]
    WriteDocument,
    #[serde(rename = "openid")]
    OpenId,
    #[serde(rename = "profile")]
    Profile,
    #[serde(rename = "email")]
    Email,
}

impl Scope {
    pub const ALL: [Scope; 8] = [
        Scope::ReadBooking,
        Scope::WriteBooking,
        Scope::ReadProfile,
        Scope::ReadDocument,
        Scope::WriteDocument,
        Scope::OpenId,
        Scope::Profile,
        Scope::Email,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Scope::ReadBooking => "READ_BOOKING",
            Scope::WriteBooking => "WRITE_BOOKING",
            Scope::ReadProfile => "READ_PROFILE",
            Scope::ReadDocument => "READ_DOCUMENT",
            Scope::WriteDocument => "WRITE_DOCUMENT",
            Scope::OpenId => "openid",
            Scope::Profile => "profile",
            Scope::Email => "email",
        }
    }

    /// The scheduling service's newer names for three of these, accepted as aliases.
    pub const ALIASES: [(&'static str, Scope); 3] = [
        ("BOOKING_READ", Scope::ReadBooking),
        ("BOOKING_WRITE", Scope::WriteBooking),
        ("PROFILE_READ", Scope::ReadProfile),
    ];

    /// The scope a name (or an alias) stands for.
    pub fn parse(s: &str) -> Option<Scope> {
        Scope::ALL
            .into_iter()
            .find(|x| x.as_str() == s)
            .or_else(|| Self::ALIASES.iter().find(|(a, _)| *a == s).map(|(_, x)| *x))
    }

    /// What the consent page says the app may do.
    pub fn describe(self) -> &'static str {
        match self {
            Scope::ReadBooking => "See your bookings",
            Scope::WriteBooking => "Create and cancel bookings for you",
            Scope::ReadProfile => "See your name, username and e-mail address",
            Scope::ReadDocument => "See your documents and their signing status",
            Scope::WriteDocument => "Create, change and send documents for you",
            Scope::OpenId => "Know who you are on this server (your account id)",
            Scope::Profile => "See your name and username",
            Scope::Email => "See your e-mail address",
        }
    }
}

/// Parses a scope list separated by spaces and/or commas; unknown or empty lists are errors.
/// Duplicates collapse; the result is sorted.
pub fn parse_list(raw: &str) -> Result<Vec<Scope>, AppError> {
    Ok(parse_spelled(raw)?.scopes)
}

/// Scopes as a client asked for them: what they are (sorted, no duplicates), and `text`, the
/// same list in the client's own names (an alias stays an alias), which token answers echo:
/// clients such as requests-oauthlib refuse an answer whose names differ from their request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spelled {
    pub scopes: Vec<Scope>,
    pub text: String,
}

pub fn parse_spelled(raw: &str) -> Result<Spelled, AppError> {
    let mut named: Vec<(Scope, &str)> = Vec::new();
    for part in raw.split([' ', ',']).filter(|p| !p.is_empty()) {
        let scope = Scope::parse(part).ok_or_else(|| {
            AppError::bad_request(format!(
                "unknown scope {part:?}; known scopes: {}",
                Scope::ALL.map(Scope::as_str).join(", ")
            ))
        })?;
        if !named.iter().any(|(s, _)| *s == scope) {
            named.push((scope, part));
        }
    }
    if named.is_empty() {
        return Err(AppError::bad_request("no scope given"));
    }
    named.sort_by_key(|(s, _)| *s);
    Ok(Spelled {
        scopes: named.iter().map(|(s, _)| *s).collect(),
        text: named.iter().map(|(_, n)| *n).collect::<Vec<_>>().join(" "),
    })
}

/// Space-separated form, as stored and as returned in token responses.
pub fn join(scopes: &[Scope]) -> String {
    scopes
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_spaces_and_commas() {
        let s = parse_list("READ_PROFILE,READ_BOOKING READ_PROFILE").unwrap();
        assert_eq!(s, vec![Scope::ReadBooking, Scope::ReadProfile]);
        assert_eq!(join(&s), "READ_BOOKING READ_PROFILE");
    }

    #[test]
    fn the_newer_names_are_aliases_and_keep_their_spelling() {
        let s = parse_spelled("PROFILE_READ,BOOKING_READ READ_PROFILE").unwrap();
        assert_eq!(s.scopes, vec![Scope::ReadBooking, Scope::ReadProfile]);
        assert_eq!(s.text, "BOOKING_READ PROFILE_READ");
        assert_eq!(Scope::parse("BOOKING_WRITE"), Some(Scope::WriteBooking));
        assert_eq!(parse_spelled("openid email").unwrap().text, "openid email");
    }

    #[test]
    fn rejects_unknown_and_empty() {
        assert!(parse_list("READ_BOOKING ADMIN").is_err());
        assert!(parse_list(" , ").is_err());
        assert!(parse_list("read_booking").is_err());
    }
}
