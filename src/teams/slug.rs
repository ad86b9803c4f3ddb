//! A team's slug: the part of its URLs that names it (`/t/{slug}/...`), so it must stay
//! readable in a URL, unique, and never the name of something else in the application.

use crate::core::error::{AppError, FieldError};

pub const MIN: usize = 3;
pub const MAX: usize = 48;

/// Words the application's own routes use, or that would read as one of its pages, so that a
/// team's URL is never mistaken for (or later shadowed by) one of them.
pub const RESERVED: &[&str] = &[
    "account",
    "admin",
    "api",
    "app",
    "assets",
    "auth",
    "dashboard",
    "documents",
    "health",
    "invitations",
    "invite",
    "login",
    "logout",
    "members",
    "new",
    "oauth",
    "personal",
    "settings",
    "sign",
    "signup",
    "static",
    "team",
    "teams",
    "templates",
    "well-known",
];

/// Why `slug` is not a team slug, or `None` when it is one. `slug` is taken as it is: callers
/// trim and lowercase what a person typed (`parse`).
pub fn problem(slug: &str) -> Option<String> {
    let len = slug.chars().count();
    if !(MIN..=MAX).contains(&len) {
        return Some(format!("a slug has {MIN} to {MAX} characters"));
    }
    if let Some(c) = slug
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '-'))
    {
        return Some(format!("a slug holds only a-z, 0-9 and hyphens, not {c:?}"));
    }
    if slug.starts_with('-') || slug.ends_with('-') || slug.contains("--") {
        return Some("a slug cannot start or end with a hyphen, or hold two in a row".into());
    }
    if RESERVED.contains(&slug) {
        return Some(format!(
            "{slug:?} is reserved for the application's own pages"
        ));
    }
    None
}

/// What a person typed as a slug, trimmed and lowercased, if it follows the rule; else a 400
/// at `slug` saying why.
pub fn parse(raw: &str) -> Result<String, AppError> {
    let slug = raw.trim().to_lowercase();
    match problem(&slug) {
        None => Ok(slug),
        Some(why) => Err(AppError::validation(vec![FieldError::new("slug", why)])),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_takes_readable_url_words() {
        for ok in ["abc", "sales-team", "team-2026", "a1b", &"x".repeat(MAX)] {
            assert_eq!(problem(ok), None, "{ok}");
        }
        assert_eq!(parse("  Sales-Team ").unwrap(), "sales-team");
    }

    #[test]
    fn each_refusal_says_why() {
        let why = |s: &str| problem(s).unwrap_or_default();
        assert!(why("ab").contains("3 to 48"));
        assert!(why(&"x".repeat(MAX + 1)).contains("3 to 48"));
        assert!(why("sales_team").contains("'_'"));
        assert!(why("café").contains("'é'"));
        assert!(why("a b").contains("' '"));
        for hyphens in ["-sales", "sales-", "sa--les"] {
            assert!(why(hyphens).contains("hyphen"), "{hyphens}");
        }
        for word in ["settings", "templates", "documents", "api", "new"] {
            assert!(why(word).contains("reserved"), "{word}");
        }
        let e = parse("Settings").unwrap_err();
        assert_eq!(e.details()[0].path, "slug");
        assert_eq!(e.code(), "validation_error");
    }
}
